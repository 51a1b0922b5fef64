//! `chessalg._chessalg`: the game layer of chessalg for Python. A `Game` is
//! a rule file; a `State` a position with its legal moves, named as
//! `chessalg moves` names them, and, for learning, the fixed action space
//! and the observation planes of `chessalg::learn`.

use std::sync::{Arc, Mutex, OnceLock};

use numpy::ndarray::Array3;
use numpy::{IntoPyArray, PyArray1, PyArray3};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use chessalg::ai::{Weights, WeightsError};
use chessalg::decl::Spec;
use chessalg::engine::Cache;
use chessalg::game::{Ending, Game, State};
use chessalg::learn::td::{self, TrainOptions, Trajectory};
use chessalg::learn::{ActionSpace, Choices, Step, Then, observe};
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

    /// What an action says: `("pass",)` or `(from, to, then)` with squares
    /// as (file, rank) from the bottom left and `then` one of `"goes on"`,
    /// `"empty"` or the symbol of the piece on `to` afterwards.
    fn describe_action(&self, action: u32) -> PyResult<Vec<String>> {
        let step = self.shared.space.step(action).ok_or_else(|| {
            PyValueError::new_err(format!(
                "no action {action}: there are {}",
                self.shared.space.len()
            ))
        })?;
        Ok(match step {
            Step::Pass => vec!["pass".to_string()],
            Step::Squares { from, to, then } => {
                let square =
                    |(f, r): (u32, u32)| self.shared.game.square_label(self.shared.game.square_at(f, r));
                let then = match then {
                    Then::GoesOn => "goes on".to_string(),
                    Then::Empty => "empty".to_string(),
                    Then::Piece(p) => self
                        .shared
                        .game
                        .pieces()
                        .symbol(chessalg::core::PieceId::new(p as u16))
                        .to_string(),
                };
                vec![square(from), square(to), then]
            }
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
        let found = self
            .shared
            .game
            .ending_reason(&self.state, &choices.legal, &mut self.shared.cache())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let ending = found.map(|(e, r)| (e, r.to_string())).or_else(|| {
            // No legal move and no outcome line for it: the game cannot go on.
            choices
                .legal
                .is_empty()
                .then(|| (Ending::Draw, "no legal move".to_string()))
        });
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
        let n = self.shared.game.players().len();
        Ok(match self.ending()? {
            Some((Ending::Win(p), _)) => (0..n).map(|i| if i == p.index() { 1.0 } else { -1.0 }).collect(),
            _ => vec![0.0; n],
        })
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

/// The compiled part of the `chessalg` package.
#[pymodule]
fn _chessalg(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGame>()?;
    m.add_class::<PyState>()?;
    Ok(())
}
