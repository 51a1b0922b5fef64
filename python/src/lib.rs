//! `chessalg._chessalg`: the game layer of chessalg for Python. A `Game` is
//! a rule file; a `State` a position with its legal moves, named as
//! `chessalg moves` names them, and, for learning, the fixed action space
//! and the observation planes of `chessalg::learn`.

use std::sync::{Arc, Mutex, OnceLock};

use numpy::ndarray::{Array2, Array3, Array4};
use numpy::{IntoPyArray, PyArray1, PyArray3, PyReadonlyArray1};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use chessalg::ai::{Weights, WeightsError};
use chessalg::decl::Spec;
use chessalg::engine::Cache;
use chessalg::game::{Ending, Game, State};
use chessalg::learn::td::{self, TrainOptions, Trajectory};
use chessalg::learn::{ActionSpace, Choices, Step, Then, observe, observe_into};
use chessalg::report::{self, Style};

/// What every state of one game shares.
struct Shared {
    game: Game,
    space: ActionSpace,
    cache: Mutex<Cache>,
}

impl Shared {
    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A game: the rule file read once.
#[pyclass(frozen, name = "Game", module = "chessalg")]
struct PyGame {
    shared: Arc<Shared>,
}

/// The first line of a rendered report that says something.
fn report_text(text: String) -> String {
    text.trim_end().to_string()
}

#[pymethods]
impl PyGame {
    /// Reads the rule file at `path` (or a bundled game's name: `"chess"`).
    /// A bad file raises `ValueError` with the diagnostics `chessalg check`
    /// prints; a missing one `OSError`.
    #[new]
    fn new(path: &str) -> PyResult<Self> {
        let source = chessalg::bundled::read(path)
            .map_err(|e| PyOSError::new_err(format!("cannot read {path}: {e}")))?;
        let (spec, _) = Spec::load(&source).map_err(|problems| {
            PyValueError::new_err(report_text(report::render(&problems, Style::PLAIN)))
        })?;
        let game = Game::new(&spec)
            .map_err(|e| PyValueError::new_err(report_text(report::render_one(&e, Style::PLAIN))))?;
        let space = ActionSpace::new(&game);
        Ok(PyGame {
            shared: Arc::new(Shared {
                game,
                space,
                cache: Mutex::new(Cache::new()),
            }),
        })
    }

    /// The game's name, as its file declares it.
    #[getter]
    fn name(&self) -> String {
        self.shared.game.name().to_string()
    }

    /// The players, in turn order.
    #[getter]
    fn players(&self) -> Vec<String> {
        self.shared.game.players().to_vec()
    }

    /// The board's bounding box: (files, ranks).
    #[getter]
    fn dimensions(&self) -> (u32, u32) {
        self.shared.game.dimensions()
    }

    /// The number of actions: every legal move is one or more of them.
    #[getter]
    fn num_actions(&self) -> usize {
        self.shared.space.len()
    }

    /// The shape of an observation: (ranks, files, planes).
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let (f, r) = self.shared.game.dimensions();
        (r as usize, f as usize, ActionSpace::planes(&self.shared.game))
    }

    /// The game's start.
    fn start(&self) -> PyState {
        PyState::new(self.shared.clone(), self.shared.game.initial(), Vec::new())
    }

    /// The position a FEN describes (checked as `chessalg play --fen` checks it).
    #[pyo3(name = "from_fen")]
    fn state_from_fen(&self, fen: &str) -> PyResult<PyState> {
        let state = self
            .shared
            .game
            .from_fen_checked(fen, &mut self.shared.cache())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyState::new(self.shared.clone(), state, Vec::new()))
    }

    /// What an action says, squares named as the game names them:
    /// `["move", from, to]` (the first two clicks of a move), `["click",
    /// square]`, `["choose", piece]` (the piece on the last clicked square
    /// afterwards, or `"nothing"`: among moves with the same clicks) or
    /// `["pass"]`.
    fn describe_action(&self, action: u32) -> PyResult<Vec<String>> {
        let step = self.shared.space.step(action).ok_or_else(|| {
            PyValueError::new_err(format!(
                "no action {action}: there are {}",
                self.shared.space.len()
            ))
        })?;
        let game = &self.shared.game;
        let square = |(f, r): (u32, u32)| game.square_label(game.square_at(f, r));
        Ok(match step {
            Step::Pass => vec!["pass".to_string()],
            Step::Move { from, to } => vec!["move".to_string(), square(from), square(to)],
            Step::Click { at } => vec!["click".to_string(), square(at)],
            Step::Choose(then) => vec![
                "choose".to_string(),
                match then {
                    Then::Empty => "nothing".to_string(),
                    Then::Piece(p) => game
                        .pieces()
                        .symbol(chessalg::core::PieceId::new(p as u16))
                        .to_string(),
                },
            ],
        })
    }

    fn __repr__(&self) -> String {
        format!("chessalg.Game({:?})", self.shared.game.name())
    }

    /// The AI's starting weights (the declared values), as the JSON that
    /// `chessalg train` writes.
    fn initial_weights(&self) -> PyResult<String> {
        to_json(&Weights::initial(&self.shared.game))
    }

    /// The weights the rule file names (`weights "FILE"`) as JSON, or `None`.
    fn declared_weights(&self) -> PyResult<Option<String>> {
        match Weights::declared(&self.shared.game) {
            Ok(w) => w.as_ref().map(to_json).transpose(),
            Err(e) => Err(PyValueError::new_err(e.to_string())),
        }
    }

    /// One game of the AI against itself with `weights` (JSON; `None`: the
    /// starting ones), exploring with probability `epsilon`: its trajectory
    /// as JSON, for `learn`. Runs without holding the GIL.
    #[pyo3(signature = (weights, seed, depth = 1, epsilon = 0.1, max_plies = 300))]
    fn self_play(
        &self,
        py: Python<'_>,
        weights: Option<&str>,
        seed: u64,
        depth: u32,
        epsilon: f64,
        max_plies: usize,
    ) -> PyResult<String> {
        let w = Arc::new(self.weights(weights)?);
        let options = TrainOptions {
            depth,
            epsilon,
            max_plies,
            ..TrainOptions::default()
        };
        let game = &self.shared.game;
        let t = py
            .detach(|| td::self_play(game, &w, &options, seed))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        serde_json::to_string(&t).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// `weights` (JSON) after learning from the trajectories (JSON, from
    /// `self_play` with those weights) by TD(λ): the new weights' JSON.
    #[pyo3(signature = (weights, trajectories, rate = 100.0, lam = 0.8))]
    fn learn(&self, weights: &str, trajectories: Vec<String>, rate: f32, lam: f32) -> PyResult<String> {
        let mut w = self.weights(Some(weights))?;
        let games = trajectories
            .iter()
            .map(|t| serde_json::from_str::<Trajectory>(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PyValueError::new_err(format!("not a trajectory of self_play: {e}")))?;
        let options = TrainOptions {
            rate,
            lambda: lam,
            ..TrainOptions::default()
        };
        td::learn(&mut w, &games, &options);
        w.games += games.len() as u64;
        to_json(&w)
    }

    /// The mean score of weights `a` against `b` (JSON) over `games` games
    /// at `depth`, `a` taking each seat in turn (1 a win, 0.5 a draw).
    #[pyo3(signature = (a, b, games = 40, depth = 1))]
    fn compare(&self, py: Python<'_>, a: &str, b: &str, games: u64, depth: u32) -> PyResult<f64> {
        let (a, b) = (Arc::new(self.weights(Some(a))?), Arc::new(self.weights(Some(b))?));
        let options = TrainOptions {
            curve_games: games.max(1),
            depth,
            ..TrainOptions::default()
        };
        let game = &self.shared.game;
        py.detach(|| td::compare(game, &a, &b, &options))
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

impl PyGame {
    /// Weights from JSON (checked against the game), or the starting ones.
    fn weights(&self, json: Option<&str>) -> PyResult<Weights> {
        let Some(json) = json else {
            return Ok(Weights::initial(&self.shared.game));
        };
        Weights::from_json(json, &self.shared.game, "the weights").map_err(|e| match e {
            WeightsError::Json { reason, .. } => PyValueError::new_err(format!("not weights JSON: {reason}")),
            other => PyValueError::new_err(other.to_string()),
        })
    }
}

fn to_json(w: &Weights) -> PyResult<String> {
    serde_json::to_string(w).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// How the game at `state` (with its legal moves `legal`) has ended, and
/// why, if it has: an outcome line, or no legal move (a draw) where no line
/// says otherwise, since the game cannot go on.
fn ending_of(
    game: &Game,
    state: &State,
    legal: &[chessalg::game::Action],
    cache: &mut Cache,
) -> Result<Option<(Ending, String)>, String> {
    let found = game
        .ending_reason(state, legal, cache)
        .map_err(|e| e.to_string())?;
    Ok(found.map(|(e, r)| (e, r.to_string())).or_else(|| {
        legal
            .is_empty()
            .then(|| (Ending::Draw, "no legal move".to_string()))
    }))
}

/// Each of `players` players' return after `ending`: 1 for the winner and
/// -1 for the others, 0 for all in a draw or while the game goes on.
fn returns_of(ending: Option<&Ending>, players: usize) -> Vec<f64> {
    match ending {
        Some(Ending::Win(p)) => (0..players)
            .map(|i| if i == p.index() { 1.0 } else { -1.0 })
            .collect(),
        _ => vec![0.0; players],
    }
}

/// A position of a game, with the steps of a move being made (`pending`).
/// States do not change: playing gives a new one.
#[pyclass(frozen, name = "State", module = "chessalg")]
struct PyState {
    shared: Arc<Shared>,
    state: State,
    pending: Vec<u32>,
    choices: OnceLock<Result<Arc<Choices>, String>>,
    ending: OnceLock<Option<(Ending, String)>>,
}

impl PyState {
    fn new(shared: Arc<Shared>, state: State, pending: Vec<u32>) -> PyState {
        PyState {
            shared,
            state,
            pending,
            choices: OnceLock::new(),
            ending: OnceLock::new(),
        }
    }

    fn choices(&self) -> PyResult<Arc<Choices>> {
        self.choices
            .get_or_init(|| {
                Choices::of(
                    &self.shared.game,
                    &self.shared.space,
                    &self.state,
                    &mut self.shared.cache(),
                )
                .map(Arc::new)
                .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(PyValueError::new_err)
    }

    fn ending(&self) -> PyResult<&Option<(Ending, String)>> {
        if let Some(e) = self.ending.get() {
            return Ok(e);
        }
        let choices = self.choices()?;
        let ending = ending_of(
            &self.shared.game,
            &self.state,
            &choices.legal,
            &mut self.shared.cache(),
        )
        .map_err(PyValueError::new_err)?;
        Ok(self.ending.get_or_init(|| ending))
    }

    /// The legal moves and the index of the one `name` names (as `play`
    /// reads a typed move).
    fn read(&self, name: &str) -> PyResult<(Arc<Choices>, usize)> {
        let choices = self.choices()?;
        let i = self
            .shared
            .game
            .read_move(&self.state, &choices.legal, name)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok((choices, i))
    }

    fn over_error(&self) -> PyErr {
        PyValueError::new_err("the game is over")
    }

    /// The state after the `i`th legal move.
    fn after(&self, choices: &Choices, i: usize) -> PyState {
        let next = self.shared.game.play(&self.state, &choices.legal[i]);
        PyState::new(self.shared.clone(), next, Vec::new())
    }
}

#[pymethods]
impl PyState {
    /// The legal moves, named as `chessalg moves` names them (none once
    /// the game is over).
    fn legal_moves(&self) -> PyResult<Vec<String>> {
        if self.ending()?.is_some() {
            return Ok(Vec::new());
        }
        let choices = self.choices()?;
        Ok(self.shared.game.move_names(&self.state, &choices.legal))
    }

    /// The state after the move `name` (as `legal_moves` names it, or in
    /// SAN); an illegal name raises `ValueError` with `play`'s message.
    fn play(&self, name: &str) -> PyResult<PyState> {
        if self.ending()?.is_some() {
            return Err(self.over_error());
        }
        let (choices, i) = self.read(name)?;
        Ok(self.after(&choices, i))
    }

    /// The player to move.
    #[getter]
    fn to_move(&self) -> String {
        self.shared.game.players()[self.state.turn().index()].clone()
    }

    /// The index of the player to move, in `Game.players`.
    #[getter]
    fn to_move_index(&self) -> usize {
        self.state.turn().index()
    }

    /// The steps of the move being made (actions taken that do not yet
    /// complete a move).
    #[getter]
    fn pending(&self) -> Vec<u32> {
        self.pending.clone()
    }

    /// Whether the game is over.
    fn is_over(&self) -> PyResult<bool> {
        Ok(self.ending()?.is_some())
    }

    /// `None` while the game goes on, else `(winner, reason)` with the
    /// winner's name or `None` for a draw.
    fn outcome(&self) -> PyResult<Option<(Option<String>, String)>> {
        let players = self.shared.game.players();
        Ok(self.ending()?.as_ref().map(|(e, reason)| {
            let winner = match e {
                Ending::Win(p) => Some(players[p.index()].clone()),
                Ending::Draw => None,
            };
            (winner, reason.clone())
        }))
    }

    /// Each player's return, in `Game.players` order: 1 for the winner and
    /// -1 for the others, 0 for all in a draw or while the game goes on.
    fn returns(&self) -> PyResult<Vec<f64>> {
        let players = self.shared.game.players().len();
        Ok(returns_of(self.ending()?.as_ref().map(|(e, _)| e), players))
    }

    /// The position as FEN.
    fn fen(&self) -> String {
        self.shared.game.to_fen(&self.state)
    }

    /// The position drawn as `chessalg show` draws it.
    fn board(&self) -> String {
        self.shared.game.board_text(&self.state)
    }

    /// The actions that may be taken now: the first steps of the legal
    /// moves, or the next steps of the move being made.
    fn legal_actions(&self) -> PyResult<Vec<u32>> {
        if self.ending()?.is_some() {
            return Ok(Vec::new());
        }
        Ok(self.choices()?.next(&self.pending))
    }

    /// `legal_actions` as a mask over all `Game.num_actions` actions.
    fn action_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let mut mask = vec![false; self.shared.space.len()];
        for a in self.legal_actions()? {
            mask[a as usize] = true;
        }
        Ok(mask.into_pyarray(py))
    }

    /// Takes an action: the state after the move it completes, or the same
    /// position with the action added to `pending`. An action that is not
    /// legal raises `ValueError`.
    fn step(&self, action: u32) -> PyResult<PyState> {
        if self.ending()?.is_some() {
            return Err(self.over_error());
        }
        let choices = self.choices()?;
        let mut done = self.pending.clone();
        done.push(action);
        if let Some(i) = choices.completed(&done) {
            return Ok(self.after(&choices, i));
        }
        if choices.next(&done).is_empty() {
            return Err(PyValueError::new_err(format!(
                "action {action} is not legal here (legal: {} actions)",
                choices.next(&self.pending).len()
            )));
        }
        let next = PyState::new(self.shared.clone(), self.state.clone(), done);
        // Same position: the legal moves are the same.
        let _ = next.choices.set(Ok(choices));
        Ok(next)
    }

    /// The actions that play the move `name`, in order.
    fn actions_of(&self, name: &str) -> PyResult<Vec<u32>> {
        let (choices, i) = self.read(name)?;
        Ok(choices.steps[i].to_vec())
    }

    /// The name of the move the actions play, from this position.
    fn move_of(&self, actions: Vec<u32>) -> PyResult<String> {
        let choices = self.choices()?;
        let i = choices.completed(&actions).ok_or_else(|| {
            PyValueError::new_err(format!("the actions {actions:?} play no legal move here"))
        })?;
        let names = self.shared.game.move_names(&self.state, &choices.legal);
        Ok(names[i].clone())
    }

    /// The observation: an array of shape `Game.observation_shape`, one
    /// plane per piece kind, per mark, the holes, per box and piece the
    /// count held, per player (ones for the player to move), and the
    /// squares of the move being made.
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let (f, r) = self.shared.game.dimensions();
        let planes = ActionSpace::planes(&self.shared.game);
        let data = observe(&self.shared.game, &self.shared.space, &self.state, &self.pending);
        let array = Array3::from_shape_vec((r as usize, f as usize, planes), data)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// A copy (states do not change, so it is the same state).
    fn copy(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: Py<PyAny>) -> Py<Self> {
        slf
    }

    fn __repr__(&self) -> String {
        format!("chessalg.State({:?})", self.shared.game.to_fen(&self.state))
    }

    fn __str__(&self) -> String {
        self.shared.game.board_text(&self.state)
    }
}

/// One game of a [`PyVectorEnv`]: its position, the steps of the move
/// being made, the legal moves' steps, and the plies played.
#[derive(Clone)]
struct Slot {
    state: State,
    pending: Vec<u32>,
    choices: Choices,
    /// The actions that may be taken now (`choices.next(&pending)`).
    next: Vec<u32>,
    plies: usize,
}

/// What one game's step gave.
#[derive(Clone, Copy, Default)]
struct Stepped {
    truncated: bool,
    /// How the game ended, when it did.
    ending: Option<Ending>,
}

impl Slot {
    /// The game's start, its moves worked out (once per environment:
    /// every game starts as a copy of it).
    fn start(shared: &Shared, cache: &mut Cache) -> Result<Slot, String> {
        let state = shared.game.initial();
        let choices = Choices::of(&shared.game, &shared.space, &state, cache).map_err(|e| e.to_string())?;
        Ok(Slot {
            state,
            pending: Vec::new(),
            next: choices.next(&[]),
            choices,
            plies: 0,
        })
    }

    /// Whether `action` is legal now (it completes a move or goes on with one).
    fn takes(&self, action: u32) -> bool {
        self.next.binary_search(&action).is_ok()
    }

    /// Takes `action`; a game that ends (or reaches `max_plies`) starts
    /// again, as `start`.
    fn step(
        &mut self,
        shared: &Shared,
        action: u32,
        start: &Slot,
        max_plies: usize,
        cache: &mut Cache,
    ) -> Result<Stepped, String> {
        let mut done = std::mem::take(&mut self.pending);
        done.push(action);
        let Some(i) = self.choices.completed(&done) else {
            let next = self.choices.next(&done);
            if next.is_empty() {
                done.pop();
                self.pending = done;
                return Err(format!("action {action} is not legal here"));
            }
            self.pending = done;
            self.next = next;
            return Ok(Stepped::default());
        };
        // Made in place: a copy would copy the game's history each step.
        let action = self.choices.legal[i].clone();
        let undo = shared.game.make(&mut self.state, &action);
        match Choices::of(&shared.game, &shared.space, &self.state, cache) {
            Ok(choices) => self.choices = choices,
            Err(e) => {
                // The game stays where it was.
                shared.game.unmake(&mut self.state, undo);
                return Err(e.to_string());
            }
        }
        self.plies += 1;
        self.next = self.choices.next(&[]);
        let mut out = Stepped::default();
        match ending_of(&shared.game, &self.state, &self.choices.legal, cache)? {
            Some((e, _)) => out.ending = Some(e),
            None if self.plies >= max_plies => out.truncated = true,
            None => return Ok(out),
        }
        self.clone_from(start);
        Ok(out)
    }

    /// Writes the observation and the action mask.
    fn observe(&self, shared: &Shared, obs: &mut [f32], mask: &mut [bool]) {
        observe_into(&shared.game, &shared.space, &self.state, &self.pending, obs);
        mask.fill(false);
        for &a in &self.next {
            mask[a as usize] = true;
        }
    }
}

/// Many games of one rule file stepped together, in the shape of
/// gymnasium's vector environments: `reset` and `step` take and give numpy
/// arrays for all games at once, and the games run in Rust, on every core.
#[pyclass(name = "VectorEnv", module = "chessalg")]
struct PyVectorEnv {
    shared: Arc<Shared>,
    slots: Vec<Slot>,
    /// Every game's start.
    start: Slot,
    max_plies: usize,
    /// The threads the games run on, and one cache for each.
    pool: rayon::ThreadPool,
    caches: Vec<Mutex<Cache>>,
    /// The state of `random_actions`' generator (set by `reset(seed=...)`).
    seed: u64,
}

/// SplitMix64: the next of a stream of random numbers from `x`.
fn split_mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl PyVectorEnv {
    /// Runs `each` on every game (with its index), in parallel on the
    /// environment's threads (each with its own cache), then writes every
    /// game's observation and mask: the results and the observations dict.
    fn each<'py, T: Send>(
        &mut self,
        py: Python<'py>,
        each: impl Fn(&Shared, usize, &mut Slot, &mut Cache) -> Result<T, String> + Sync,
    ) -> PyResult<(Vec<T>, Bound<'py, PyDict>)> {
        let (f, r) = self.shared.game.dimensions();
        let (f, r) = (f as usize, r as usize);
        let planes = ActionSpace::planes(&self.shared.game);
        let (n, actions, size) = (self.slots.len(), self.shared.space.len(), f * r * planes);
        let mut obs = vec![0f32; n * size];
        let mut mask = vec![false; n * actions];
        let shared = &*self.shared;
        let caches = &self.caches;
        let slots = &mut self.slots;
        let pool = &self.pool;
        let out: Result<Vec<T>, String> = py.detach(|| {
            pool.install(|| {
                slots
                    .par_iter_mut()
                    .zip(obs.par_chunks_mut(size))
                    .zip(mask.par_chunks_mut(actions))
                    .enumerate()
                    .map(|(i, ((slot, o), m))| {
                        let k = rayon::current_thread_index().unwrap_or(0) % caches.len();
                        let mut cache = caches[k].lock().unwrap_or_else(|e| e.into_inner());
                        let t = each(shared, i, slot, &mut cache)?;
                        slot.observe(shared, o, m);
                        Ok(t)
                    })
                    .collect()
            })
        });
        let out = out.map_err(PyValueError::new_err)?;
        let dict = PyDict::new(py);
        let obs = Array4::from_shape_vec((n, r, f, planes), obs)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mask =
            Array2::from_shape_vec((n, actions), mask).map_err(|e| PyValueError::new_err(e.to_string()))?;
        dict.set_item("observation", obs.into_pyarray(py))?;
        dict.set_item("action_mask", mask.into_pyarray(py))?;
        Ok((out, dict))
    }

    /// The info dict: the player to move in each game (`to_move`).
    fn infos<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        let to_move: Vec<i64> = self.slots.iter().map(|s| s.state.turn().index() as i64).collect();
        dict.set_item("to_move", to_move.into_pyarray(py))?;
        Ok(dict)
    }
}

#[pymethods]
impl PyVectorEnv {
    /// `num_envs` games of the rule file `rules` (a path, a bundled name or
    /// a `Game`), each cut off after `max_plies` moves; `threads` (default:
    /// every core) run them.
    #[new]
    #[pyo3(signature = (rules, num_envs, max_plies = 1000, threads = None))]
    fn new(
        rules: &Bound<'_, PyAny>,
        num_envs: usize,
        max_plies: usize,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        if num_envs == 0 {
            return Err(PyValueError::new_err("num_envs must be at least 1"));
        }
        let shared = match rules.cast::<PyGame>() {
            Ok(g) => g.get().shared.clone(),
            Err(_) => PyGame::new(&rules.extract::<String>()?)?.shared,
        };
        let threads = threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .clamp(1, num_envs);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| PyValueError::new_err(format!("cannot start {threads} threads: {e}")))?;
        let start = Slot::start(&shared, &mut Cache::new()).map_err(PyValueError::new_err)?;
        Ok(PyVectorEnv {
            shared,
            slots: vec![start.clone(); num_envs],
            start,
            max_plies,
            pool,
            caches: (0..threads).map(|_| Mutex::new(Cache::new())).collect(),
            seed: 0,
        })
    }

    /// The number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.slots.len()
    }

    /// The number of actions of each game (the width of `action_mask`).
    #[getter]
    fn num_actions(&self) -> usize {
        self.shared.space.len()
    }

    /// The players, in turn order (the columns of `step`'s rewards).
    #[getter]
    fn players(&self) -> Vec<String> {
        self.shared.game.players().to_vec()
    }

    /// Starts every game again: `(obs, infos)`. The games start from the
    /// rule file's start; `seed` seeds `random_actions`.
    #[pyo3(signature = (seed = None, options = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<u64>,
        options: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
        let _ = options;
        if let Some(seed) = seed {
            self.seed = seed;
        }
        let start = self.start.clone();
        let (_, obs) = self.each(py, |_, _, slot, _| {
            slot.clone_from(&start);
            Ok(())
        })?;
        Ok((obs, self.infos(py)?))
    }

    /// Takes one action in every game (`actions`: an integer array of
    /// `num_envs`): `(obs, rewards, terminations, truncations, infos)`.
    /// `rewards` has a column per player (1 for a winner, -1 for the
    /// others, 0 in a draw and while a game goes on); a game that ends, or
    /// reaches `max_plies`, starts again at once, and `obs` shows the new
    /// start. An action that is not legal raises `ValueError` (naming the
    /// game), and no game takes its action.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<(
        Bound<'py, PyDict>,
        Bound<'py, PyArray2F32>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyDict>,
    )> {
        let actions = actions.as_slice()?.to_vec();
        if actions.len() != self.slots.len() {
            return Err(PyValueError::new_err(format!(
                "{} actions for {} games",
                actions.len(),
                self.slots.len()
            )));
        }
        let max_plies = self.max_plies;
        let len = self.shared.space.len();
        // Every action checked before any is taken: a bad one changes nothing.
        for (i, (&a, slot)) in actions.iter().zip(&self.slots).enumerate() {
            if a < 0 || a as usize >= len {
                return Err(PyValueError::new_err(format!(
                    "game {i}: no action {a}: there are {len}"
                )));
            }
            if !slot.takes(a as u32) {
                return Err(PyValueError::new_err(format!(
                    "game {i}: action {a} is not legal here"
                )));
            }
        }
        let start = self.start.clone();
        let (stepped, obs) = self.each(py, |shared, i, slot, cache| {
            slot.step(shared, actions[i] as u32, &start, max_plies, cache)
                .map_err(|e| format!("game {i}: {e}"))
        })?;
        let players = self.shared.game.players().len();
        let mut rewards = Array2::<f32>::zeros((stepped.len(), players));
        for (i, s) in stepped.iter().enumerate() {
            for (p, r) in returns_of(s.ending.as_ref(), players).into_iter().enumerate() {
                rewards[(i, p)] = r as f32;
            }
        }
        let terminated: Vec<bool> = stepped.iter().map(|s| s.ending.is_some()).collect();
        let truncated: Vec<bool> = stepped.iter().map(|s| s.truncated).collect();
        Ok((
            obs,
            rewards.into_pyarray(py),
            terminated.into_pyarray(py),
            truncated.into_pyarray(py),
            self.infos(py)?,
        ))
    }

    /// A uniformly random legal action for every game (an integer array,
    /// ready for `step`): random play without a loop in Python.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.seed = split_mix(self.seed);
        let base = self.seed;
        let actions: Vec<i64> = (self.slots.iter().enumerate())
            .map(|(i, slot)| {
                let r = split_mix(base ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
                let next = &slot.next;
                next.get((r % next.len().max(1) as u64) as usize)
                    .map_or(-1, |&a| a as i64)
            })
            .collect();
        actions.into_pyarray(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "chessalg.VectorEnv({:?}, num_envs={})",
            self.shared.game.name(),
            self.slots.len()
        )
    }
}

/// A 2-dimensional array of `f32`.
type PyArray2F32 = numpy::PyArray2<f32>;

/// The compiled part of the `chessalg` package.
#[pymodule]
fn _chessalg(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGame>()?;
    m.add_class::<PyState>()?;
    m.add_class::<PyVectorEnv>()?;
    Ok(())
}
