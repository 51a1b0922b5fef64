//! A player for any game: negamax with alpha-beta pruning, iterative
//! deepening with aspiration windows, principal variation search, a
//! transposition table, ordered moves (the table's, captures, killers,
//! history), null-move pruning and late-move reductions (switchable by the
//! rule file), and a quiescence search over captures and promotions.
//! `eval` scores positions and moves; moves are made in place and tested
//! for legality only when searched (`Game::candidate_actions`).
//!
//! A position is scored for the player to move by the pieces' declared
//! `value`s (their owner's positive, the others' negative), plus a little for
//! having more moves than the opponent had, and by the rule file's outcomes:
//! a win or loss is worth more than any material (sooner wins more), a draw
//! nothing. The search knows nothing of any particular game.

mod eval;
mod learned;

pub use eval::material;
pub use learned::{Feature, Weights, WeightsError};

use crate::core::{Coord, Rng};
use eval::{has_more_than_least, material_gain, mobility, owned_changes, value_gain, value_of};
use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::{Cache, EngineError};

use crate::game::{Action, Candidates, Ending, Game, PlayError, SearchOptions, State, Undo};

/// How far and how long the AI may think about one move.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// The deepest iteration, in plies (at least 1).
    pub depth: u32,
    /// Stop deepening once this much time has passed (the first iteration always completes).
    pub time: Option<Duration>,
}

/// What else ends a search early, besides its [`Budget`]: a flag another
/// thread sets (a protocol's `stop`), and a number of positions searched.
#[derive(Clone, Debug, Default)]
pub struct Interrupt {
    /// Stop as soon as this is set.
    pub stop: Option<Arc<AtomicBool>>,
    /// Stop once this many positions are searched.
    pub nodes: Option<u64>,
}

/// How many moves (not plies) a score says the side is from mating (positive)
/// or being mated (negative), if it is a forced win or loss.
pub fn moves_to_mate(score: i32) -> Option<i32> {
    (score.abs() >= MATE_BOUND).then(|| {
        let moves = (WIN - score.abs() + 1) / 2;
        if score > 0 { moves } else { -moves }
    })
}

/// The move the AI chose and what it found.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    /// The index of the chosen move among the legal moves given.
    pub index: usize,
    /// Its score for the mover, in hundredths of a value point.
    pub score: i32,
    /// The depth of the last completed iteration.
    pub depth: u32,
    /// Positions searched.
    pub nodes: u64,
}

/// Scores beyond this are wins or losses.
const WIN: i32 = 1_000_000;
const MATE_BOUND: i32 = WIN - 10_000;
/// The score of one legal move more than the opponent had.
const MOBILITY: i32 = 2;

#[derive(Clone, Copy)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct Entry {
    depth: u32,
    score: i32,
    bound: Bound,
    best: Option<u32>,
}

/// Where a reply is searched: how deep, at which ply, after how many
/// moves of the parent, and whether the clock is watched.
#[derive(Clone, Copy, Debug)]
struct Line {
    depth: u32,
    ply: i32,
    parent_moves: usize,
    timed: bool,
}

/// A position at or past the horizon, as the quiescence search sees it:
/// its material (see [`material`]), how deep it is, how many moves its
/// parent had and how many captures deep it is.
#[derive(Clone, Copy, Debug)]
struct Horizon {
    material: i32,
    ply: i32,
    parent_moves: usize,
    qdepth: u32,
}

enum Stop {
    Time,
    Error(PlayError),
}

impl From<PlayError> for Stop {
    /// A search stopped by the cache's deadline is the search's time up.
    fn from(e: PlayError) -> Stop {
        match e {
            PlayError::Engine(EngineError::OutOfTime) => Stop::Time,
            e => Stop::Error(e),
        }
    }
}

/// The AI player: its random tie-breaks and its transposition table.
pub struct Ai {
    rng: Rng,
    table: FxHashMap<u64, Entry>,
    seen: FxHashSet<u64>,
    deadline: Option<Instant>,
    nodes: u64,
    /// The ply past which the iteration under way extends no check.
    extend_to: i32,
    /// The best root move of the iteration under way, and its score.
    partial: Option<(usize, i32)>,
    /// Per ply, the last two quiet moves that caused a cutoff.
    killers: Vec<[Option<u64>; 2]>,
    /// How much each quiet move (by [`move_key`] and side) has caused cutoffs.
    history: FxHashMap<u64, i32>,
    /// The shortcuts to take, if not the game's own (see [`Game::search_options`]).
    options: Option<SearchOptions>,
    /// The shortcuts of the search under way.
    active: SearchOptions,
    /// Whether the node about to be searched was reached by a pass (no two in a row).
    after_null: bool,
    /// What else ends the search under way.
    interrupt: Interrupt,
    /// The most positions the transposition table keeps.
    table_limit: usize,
    /// Learned weights that score positions, if any (else the declared values).
    weights: Option<Arc<Weights>>,
}

impl Ai {
    /// An AI whose choices among equal moves are fixed by `seed`.
    pub fn new(seed: u64) -> Ai {
        Ai {
            rng: Rng::new(seed),
            table: FxHashMap::default(),
            seen: FxHashSet::default(),
            deadline: None,
            partial: None,
            nodes: 0,
            extend_to: 0,
            killers: vec![[None; 2]; MAX_PLY],
            history: FxHashMap::default(),
            options: None,
            active: SearchOptions {
                null_move: false,
                reductions: false,
            },
            after_null: false,
            interrupt: Interrupt::default(),
            table_limit: 1 << 20,
            weights: None,
        }
    }

    /// Scores positions with learned weights instead of the declared values
    /// (see [`Weights`]).
    pub fn with_weights(mut self, weights: Option<Arc<Weights>>) -> Ai {
        self.weights = weights;
        self.table.clear();
        self
    }

    /// The static score's base for the player to move: the learned
    /// evaluation if the AI has weights, else the declared material, each
    /// piece weighed by its scope (as far as the pieces' prospects are
    /// known: see [`Game::prospects`]).
    fn material(&self, game: &Game, state: &State, cache: &mut Cache) -> Result<i32, Stop> {
        match &self.weights {
            Some(w) => match w.evaluate_in_time(game, state, cache) {
                (score, true) => Ok(score),
                (_, false) => Err(Stop::Time),
            },
            None => Ok(material(game, game.known_prospects(), state)),
        }
    }

    /// Makes the next searches end early as `interrupt` says, too.
    pub fn set_interrupt(&mut self, interrupt: Interrupt) {
        self.interrupt = interrupt;
    }

    /// Keeps at most about `megabytes` MiB of searched positions (at least one MiB's worth).
    pub fn set_table_megabytes(&mut self, megabytes: usize) {
        let entry = std::mem::size_of::<(u64, Entry)>() * 2;
        self.table_limit = (megabytes.max(1) << 20) / entry;
    }

    /// Whether the search must stop: its time is up, it was told to, or
    /// it searched as many positions as it may.
    fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self
                .interrupt
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
            || self.interrupt.nodes.is_some_and(|n| self.nodes >= n)
    }

    /// This AI, taking the given shortcuts in every game instead of each game's own.
    pub fn with_options(mut self, options: SearchOptions) -> Ai {
        self.options = Some(options);
        self
    }

    /// Chooses one of `legal` (not empty), the legal moves of `state`.
    pub fn choose(
        &mut self,
        game: &Game,
        state: &State,
        legal: &[Action],
        budget: Budget,
        cache: &mut Cache,
    ) -> Result<Choice, PlayError> {
        self.choose_reporting(game, state, legal, budget, cache, &mut |_| {})
    }

    /// [`Ai::choose`], giving `report` the best move after each completed iteration.
    ///
    /// The search keeps its time: the deadline of its [`Budget`] (or the
    /// one already set on `cache`, if sooner) is set on `cache` while it
    /// runs ([`Cache::set_deadline`], the previous one put back after), so
    /// every search of the engine under it stops there too, and the move
    /// chosen is the best found by then (the first of `legal` in its order
    /// if no move was searched in time). What the game works out once (the
    /// pieces' prospects, [`Game::prospects`]) gets at most half of that
    /// time, and goes on in later searches where it stopped.
    pub fn choose_reporting(
        &mut self,
        game: &Game,
        state: &State,
        legal: &[Action],
        budget: Budget,
        cache: &mut Cache,
        report: &mut dyn FnMut(&Choice),
    ) -> Result<Choice, PlayError> {
        let started = Instant::now();
        let previous = cache.deadline();
        let deadline = match (budget.time.map(|t| started + t), previous) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        cache.set_deadline(deadline.map(|d| started + d.saturating_duration_since(started) / 2));
        game.prospects(cache);
        cache.set_deadline(deadline);
        let chosen = self.search_root(game, state, legal, budget, deadline, cache, report);
        cache.set_deadline(previous);
        chosen
    }

    /// The search of [`Ai::choose_reporting`], its deadline set on `cache`.
    #[allow(clippy::too_many_arguments)]
    fn search_root(
        &mut self,
        game: &Game,
        state: &State,
        legal: &[Action],
        budget: Budget,
        deadline: Option<Instant>,
        cache: &mut Cache,
        report: &mut dyn FnMut(&Choice),
    ) -> Result<Choice, PlayError> {
        self.deadline = deadline;
        self.nodes = 0;
        self.active = self.options.unwrap_or_else(|| game.search_options());
        self.after_null = false;
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.values_mut().for_each(|h| *h /= 8);
        if self.table.len() > self.table_limit {
            self.table.clear();
        }
        // Positions of the game so far count as draws: the AI avoids repeating when ahead.
        self.seen = state.history().iter().copied().collect();
        self.seen.remove(&state.key());
        let mut order: Vec<usize> = (0..legal.len()).collect();
        self.rng.shuffle(&mut order);
        let prospects = game.known_prospects();
        order.sort_by_key(|&i| -material_gain(game, prospects, state, &legal[i]));
        let mut best = Choice {
            index: order[0],
            score: 0,
            depth: 0,
            nodes: 0,
        };
        let mut state = state.clone();
        let legal = Candidates::legal(legal.to_vec());
        for depth in 1..=budget.depth.max(1) {
            self.partial = None;
            self.extend_to = (depth as i32 + MAX_EXTENSIONS).min(MAX_EXTENDED_PLY);
            // Aspiration: from the third iteration on, search a window
            // around the last score first, and the whole range only if the
            // score falls outside it.
            let last = best.score;
            let full = (-WIN - 1, WIN + 1);
            let window = if depth >= 3 && last.abs() < MATE_BOUND {
                (last - ASPIRATION, last + ASPIRATION)
            } else {
                full
            };
            let mut result = self.root(game, &mut state, &legal, &order, depth, window, cache);
            if window != full && matches!(result, Ok((_, s)) if s <= window.0 || s >= window.1) {
                result = self.root(game, &mut state, &legal, &order, depth, full, cache);
            }
            match result {
                Ok((index, score)) => {
                    best = Choice {
                        index,
                        score,
                        depth,
                        nodes: self.nodes,
                    };
                    report(&best);
                    // Search the best move first next time.
                    if let Some(p) = order.iter().position(|&i| i == index) {
                        let i = order.remove(p);
                        order.insert(0, i);
                    }
                    if score.abs() >= MATE_BOUND {
                        break;
                    }
                }
                Err(Stop::Time) => {
                    // The moves searched before time ran out include the
                    // best of the last iteration (searched first): the best
                    // of them is at least as good a choice. In the first
                    // iteration it is all there is.
                    if let Some((index, score)) = self.partial {
                        best = Choice {
                            index,
                            score,
                            depth,
                            nodes: self.nodes,
                        };
                    }
                    break;
                }
                Err(Stop::Error(e)) => return Err(e),
            }
            if self.out_of_time() {
                break;
            }
        }
        best.nodes = self.nodes;
        Ok(best)
    }

    #[allow(clippy::too_many_arguments)]
    fn root(
        &mut self,
        game: &Game,
        state: &mut State,
        legal: &Candidates,
        order: &[usize],
        depth: u32,
        (mut alpha, beta): (i32, i32),
        cache: &mut Cache,
    ) -> Result<(usize, i32), Stop> {
        let mut best = order[0];
        let mut best_score = -WIN - 1;
        for (n, &i) in order.iter().enumerate() {
            let line = Line {
                depth: depth - 1,
                ply: 1,
                parent_moves: mobility(&legal.actions),
                timed: true,
            };
            // The first move with the window, the others with a null window
            // first (principal variation search).
            let window = if n == 0 { (alpha, beta) } else { (alpha, alpha + 1) };
            let Some(mut score) = self.reply(game, state, legal, i, window, line, cache)? else {
                continue;
            };
            if n > 0 && score > alpha && score < beta {
                score = self
                    .reply(game, state, legal, i, (alpha, beta), line, cache)?
                    .unwrap_or(score);
            }
            if score > best_score {
                best_score = score;
                best = i;
            }
            if score > alpha {
                alpha = score;
                self.partial = Some((best, score));
            }
            if alpha >= beta {
                break;
            }
        }
        Ok((best, best_score))
    }

    /// The score of move `i` of `moves` for the side that makes it: made
    /// on `state`, searched from the reply's side with the window turned
    /// round, taken back; `None` if the move is not legal.
    #[allow(clippy::too_many_arguments)]
    fn reply(
        &mut self,
        game: &Game,
        state: &mut State,
        moves: &Candidates,
        i: usize,
        (alpha, beta): (i32, i32),
        line: Line,
        cache: &mut Cache,
    ) -> Result<Option<i32>, Stop> {
        let Some(undo) = game.try_make(state, &moves.actions[i], moves, cache)? else {
            return Ok(None);
        };
        self.descend(game, state, undo, (alpha, beta), line, cache)
            .map(Some)
    }

    /// The score, for the side that moved, of the move `undo` takes back
    /// (already made on `state`): searched from the next side's view with
    /// the window turned round, then taken back.
    fn descend(
        &mut self,
        game: &Game,
        state: &mut State,
        undo: Undo,
        (alpha, beta): (i32, i32),
        line: Line,
        cache: &mut Cache,
    ) -> Result<i32, Stop> {
        let score = self.negamax(
            game,
            state,
            line.depth,
            -beta,
            -alpha,
            line.ply,
            line.parent_moves,
            line.timed,
            cache,
        );
        game.unmake(state, undo);
        Ok(-score?)
    }

    /// The score of `state` for the player to move, searched `depth`
    /// plies deep within the window (`alpha`, `beta`): the table, the
    /// horizon, null moves, then every move in order with late-move
    /// reductions and principal variation search; the result stored in
    /// the table.
    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        game: &Game,
        state: &mut State,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: i32,
        parent_moves: usize,
        timed: bool,
        cache: &mut Cache,
    ) -> Result<i32, Stop> {
        self.count_node(timed)?;
        let after_null = std::mem::take(&mut self.after_null);
        if self.seen.contains(&state.key()) {
            return Ok(0);
        }
        // The table tells positions apart by the counters outcomes read
        // too (passes in a row, runs of `when ... for N`).
        let key = state.key() ^ state.counters_key();
        // At the horizon the material is the static score's base: worked
        // out once, for the lazy test and for the quiescence search.
        let horizon_material = if depth == 0 {
            Some(self.material(game, state, cache)?)
        } else {
            None
        };
        if let Some(m) = horizon_material
            && let Some(score) = self.lazy_stand(game, state, m, beta, cache)?
        {
            return Ok(score);
        }
        // The table first: a position searched deep enough before needs no moves listed.
        let original_alpha = alpha;
        let mut tt_best = None;
        if depth > 0 {
            let (settled, best) = self.probe(key, depth, ply, (alpha, beta));
            if let Some(score) = settled {
                return Ok(score);
            }
            tt_best = best;
        }
        let (moves, end) = self.moves_and_ending(game, state, cache)?;
        if let Some(end) = end {
            return Ok(ending_score(end, state, ply));
        }
        // A side in check at the horizon gets one more ply (up to a bound),
        // so a mate one move past the horizon is seen, not a quiet score.
        let depth = if depth == 0
            && !moves.actions.is_empty()
            && ply < self.extend_to
            && game.royal_attacked(state.position(), state.turn(), cache)?
        {
            1
        } else {
            depth
        };
        if depth == 0 {
            let m = match horizon_material {
                Some(m) => m,
                None => self.material(game, state, cache)?,
            };
            let at = Horizon {
                material: m,
                ply,
                parent_moves,
                qdepth: 0,
            };
            return self.horizon_score(game, state, &moves, (alpha, beta), at, cache);
        }
        let shortcuts = depth >= SHORTCUT_DEPTH && (self.active.null_move || self.active.reductions);
        let in_check = shortcuts && game.royal_attacked(state.position(), state.turn(), cache)?;
        let node = Line {
            depth,
            ply,
            parent_moves,
            timed,
        };
        if shortcuts
            && self.active.null_move
            && !after_null
            && !in_check
            && beta.abs() < MATE_BOUND
            && let Some(score) = self.null_move_cutoff(game, state, &moves, node, beta, cache)?
        {
            return Ok(score);
        }
        let order = self.order_moves(game, state, &moves.actions, tt_best, ply);
        let mut best_score = -WIN - 1;
        let mut best = None;
        let mut searched = 0;
        for &(rank, i) in &order {
            let line = Line {
                depth: depth - 1,
                ply: ply + 1,
                parent_moves: mobility(&moves.actions),
                timed,
            };
            // Late-move reductions: a quiet move ordered late (not the
            // table's, not a capture, not a killer) is searched a ply less
            // deep first, and at full depth only if it beats alpha.
            let reduce = shortcuts
                && self.active.reductions
                && !in_check
                && searched >= LATE_MOVE
                && rank < KILLER_RANK;
            let (window, first) = first_search(searched == 0, reduce, (alpha, beta), line);
            let Some(mut score) = self.reply(game, state, &moves, i, window, first, cache)? else {
                continue;
            };
            if reduce && score > alpha {
                score = self
                    .reply(game, state, &moves, i, (alpha, alpha + 1), line, cache)?
                    .unwrap_or(score);
            }
            if searched > 0 && score > alpha && score < beta {
                score = self
                    .reply(game, state, &moves, i, (alpha, beta), line, cache)?
                    .unwrap_or(score);
            }
            searched += 1;
            if score > best_score {
                best_score = score;
                best = Some(i as u32);
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                self.note_refutation(game, state, &moves.actions[i], ply, depth);
                break;
            }
        }
        if searched == 0 {
            // No legal move, and no outcome rule that says what that means.
            return Ok(0);
        }
        self.store(key, depth, ply, (original_alpha, beta), best_score, best);
        Ok(best_score)
    }

    /// What the table knows of the position `key`, to be searched `depth`
    /// plies deep at `ply` within `(alpha, beta)`: a score that settles it
    /// (its entry searched deep enough, and its bound outside the window
    /// or exact), and the best move found there before.
    #[inline]
    fn probe(&self, key: u64, depth: u32, ply: i32, (alpha, beta): (i32, i32)) -> (Option<i32>, Option<u32>) {
        let Some(e) = self.table.get(&key) else {
            return (None, None);
        };
        if e.depth >= depth {
            let score = from_table(e.score, ply);
            match e.bound {
                Bound::Exact => return (Some(score), e.best),
                Bound::Lower if score >= beta => return (Some(score), e.best),
                Bound::Upper if score <= alpha => return (Some(score), e.best),
                _ => {}
            }
        }
        (None, e.best)
    }

    /// The score of a position at the horizon (`at`) whose moves are
    /// `moves`: in a game won by completing a pattern (a row), a move that
    /// completes one is still seen, and the position is worth that win,
    /// not a quiet score (mates are found by the check extension); else
    /// the quiescence search's.
    #[inline]
    fn horizon_score(
        &mut self,
        game: &Game,
        state: &mut State,
        moves: &Candidates,
        window: (i32, i32),
        at: Horizon,
        cache: &mut Cache,
    ) -> Result<i32, Stop> {
        if at.ply < MAX_EXTENDED_PLY
            && moves.actions.len() <= HORIZON_WIN_MOVES
            && game.wins_by_pattern()
            && game.winning_move(state, moves, cache)?.is_some()
        {
            return Ok(WIN - at.ply - 1);
        }
        self.quiesce(game, state, moves, window, at, cache)
    }

    /// Null-move pruning at the position `node` searches, whose moves are
    /// `moves`: if passing would still leave the opponent below `beta`, a
    /// real move will too, and the score that shows it is returned (save
    /// in zugzwang, which the game's `search null_move off` and the
    /// material test guard against). Tried only when the side to move has
    /// more than the least material and is at or above `beta` already.
    #[inline]
    fn null_move_cutoff(
        &mut self,
        game: &Game,
        state: &mut State,
        moves: &Candidates,
        node: Line,
        beta: i32,
        cache: &mut Cache,
    ) -> Result<Option<i32>, Stop> {
        if !has_more_than_least(game, state) || self.material(game, state, cache)? < beta {
            return Ok(None);
        }
        let undo = game.make(state, &Action::pass());
        self.after_null = true;
        let line = Line {
            depth: node.depth - 1 - NULL_REDUCTION.min(node.depth - 1),
            ply: node.ply + 1,
            parent_moves: mobility(&moves.actions),
            timed: node.timed,
        };
        let score = self.descend(game, state, undo, (beta - 1, beta), line, cache);
        self.after_null = false;
        let score = score?;
        if score >= beta {
            return Ok(Some(if score >= MATE_BOUND { beta } else { score }));
        }
        Ok(None)
    }

    /// Notes `action`, which refuted the position at `ply` searched `depth`
    /// plies deep: a quiet move (one that gains no value) is remembered
    /// as a killer for this ply and in the history for moves like it
    /// elsewhere.
    #[inline]
    fn note_refutation(&mut self, game: &Game, state: &State, action: &Action, ply: i32, depth: u32) {
        if value_gain(game, state, action) <= 0 {
            let key = move_key(action);
            let slot = &mut self.killers[ply as usize % MAX_PLY];
            if slot[0] != Some(key) {
                slot[1] = slot[0];
                slot[0] = Some(key);
            }
            *self.history.entry(key ^ turn_salt(state)).or_default() += (depth * depth) as i32;
        }
    }

    /// Stores in the table the score `best_score` (with the best move
    /// `best`) of the position `key`, searched `depth` plies deep at `ply`
    /// within the window `(original_alpha, beta)`: exact inside it, a
    /// bound outside.
    #[inline]
    fn store(
        &mut self,
        key: u64,
        depth: u32,
        ply: i32,
        (original_alpha, beta): (i32, i32),
        best_score: i32,
        best: Option<u32>,
    ) {
        let bound = if best_score <= original_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.insert(
            key,
            Entry {
                depth,
                score: to_table(best_score, ply),
                bound,
                best,
            },
        );
    }
}

impl Ai {
    /// Counts a node; every 64, stops the search if time is up (when `timed`).
    fn count_node(&mut self, timed: bool) -> Result<(), Stop> {
        self.nodes += 1;
        if timed && self.nodes.is_multiple_of(64) && self.out_of_time() {
            return Err(Stop::Time);
        }
        Ok(())
    }

    /// The order to search `legal` in, best guess first: the table's move,
    /// captures and promotions (most valuable gain first, by the least
    /// valuable piece), the killer moves of this ply, then the others by
    /// how often they refuted elsewhere and what they gain in scope.
    fn order_moves(
        &self,
        game: &Game,
        state: &State,
        legal: &[Action],
        tt_best: Option<u32>,
        ply: i32,
    ) -> Vec<(i64, usize)> {
        let prospects = game.known_prospects();
        let killers = self.killers[ply as usize % MAX_PLY];
        let mut order: Vec<(i64, usize)> = legal
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let gain = value_gain(game, state, a) as i64;
                let key = if tt_best == Some(i as u32) {
                    i64::MAX
                } else if gain > 0 {
                    let mover = a
                        .from()
                        .map_or(0, |f| value_of(game, state.position().get(f)) as i64);
                    4_000_000_000 + gain * 1000 - mover
                } else {
                    let k = move_key(a);
                    if killers[0] == Some(k) {
                        KILLER_RANK + 1
                    } else if killers[1] == Some(k) {
                        KILLER_RANK
                    } else {
                        let history = self.history.get(&(k ^ turn_salt(state))).copied().unwrap_or(0) as i64;
                        history * 1000 + material_gain(game, prospects, state, a) as i64
                    }
                };
                (key, i)
            })
            .collect();
        order.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
        order
    }

    /// The score of a horizon position whose moves are `moves`: the
    /// static score, unless a move that wins material (by the declared
    /// values: a capture, a promotion) does better, searched the same way,
    /// so the horizon never falls in the middle of an exchange.
    fn quiesce(
        &mut self,
        game: &Game,
        state: &mut State,
        moves: &Candidates,
        (mut alpha, beta): (i32, i32),
        at: Horizon,
        cache: &mut Cache,
    ) -> Result<i32, Stop> {
        let Horizon {
            material,
            ply,
            parent_moves,
            qdepth,
        } = at;
        let stand = material + MOBILITY * (mobility(&moves.actions) as i32 - parent_moves as i32);
        if stand >= beta || qdepth >= MAX_QUIESCENCE {
            return Ok(stand);
        }
        alpha = alpha.max(stand);
        let mut gains: Vec<(i32, usize)> = moves
            .actions
            .iter()
            .enumerate()
            .map(|(i, a)| (value_gain(game, state, a), i))
            .filter(|&(g, _)| g > 0)
            .collect();
        // Moves that differ only in pieces nobody owns (where Duck chess's
        // duck goes) make the same exchange: the first of them stands for all.
        let mut exchanges = FxHashSet::default();
        gains.retain(|&(_, i)| exchanges.insert(owned_changes(game, state, &moves.actions[i])));
        // Where most moves win something (every move of Othello or Clobber
        // takes), no exchange settles: the static score is all there is.
        if gains.len() > QUIESCENCE_BREADTH && gains.len() * 2 > moves.actions.len() {
            return Ok(stand);
        }
        gains.sort_by_key(|&(g, _)| -g);
        let mut best = stand;
        let parent = mobility(&moves.actions);
        for (_, i) in gains {
            let Some(undo) = game.try_make(state, &moves.actions[i], moves, cache)? else {
                continue;
            };
            let score = self.quiet_node(game, state, (-beta, -alpha), ply + 1, parent, qdepth + 1, cache);
            game.unmake(state, undo);
            let score = -score?;
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        Ok(best)
    }

    /// A position reached inside the quiescence search, for the player to move.
    #[allow(clippy::too_many_arguments)]
    fn quiet_node(
        &mut self,
        game: &Game,
        state: &mut State,
        window: (i32, i32),
        ply: i32,
        parent_moves: usize,
        qdepth: u32,
        cache: &mut Cache,
    ) -> Result<i32, Stop> {
        self.count_node(true)?;
        if self.seen.contains(&state.key()) {
            return Ok(0);
        }
        let material = self.material(game, state, cache)?;
        if let Some(score) = self.lazy_stand(game, state, material, window.1, cache)? {
            return Ok(score);
        }
        let (moves, end) = self.moves_and_ending(game, state, cache)?;
        if let Some(end) = end {
            return Ok(ending_score(end, state, ply));
        }
        let at = Horizon {
            material,
            ply,
            parent_moves,
            qdepth,
        };
        self.quiesce(game, state, &moves, window, at, cache)
    }

    /// A horizon position's score without listing its moves, when its
    /// material alone is so far above `beta` that no count of moves could
    /// bring it below: the player to move is not in check, the game has not
    /// ended (unless by having no move, which quiescence does not look for),
    /// and it is not won by completing a pattern, which a move could do.
    fn lazy_stand(
        &mut self,
        game: &Game,
        state: &State,
        material: i32,
        beta: i32,
        cache: &mut Cache,
    ) -> Result<Option<i32>, Stop> {
        if game.wins_by_pattern() {
            return Ok(None);
        }
        let score = material - LAZY_MARGIN;
        if score < beta
            || game.royal_attacked(state.position(), state.turn(), cache)?
            || game.ending_known(state, Some(false), cache)?.is_some()
        {
            return Ok(None);
        }
        Ok(Some(score))
    }

    /// The moves to try at `state` (see [`Game::candidate_actions`]) and
    /// whether the game has ended there. Whether any of the moves is legal is
    /// tested only if an outcome rule asks, up to the first legal one.
    fn moves_and_ending(
        &mut self,
        game: &Game,
        state: &mut State,
        cache: &mut Cache,
    ) -> Result<(Candidates, Option<Ending>), Stop> {
        let moves = game.candidate_actions(state, cache)?;
        let no_moves = if game.ends_without_moves() {
            Some(!game.any_legal(state, &moves, cache)?)
        } else {
            None
        };
        let end = game.ending_known(state, no_moves, cache)?;
        Ok((moves, end))
    }
}

/// The window and line a move of a node is searched with first, `line`
/// being its full one. Principal variation search: the `first` move with
/// the whole `window`, the others with a null window, searched again only
/// if they turn out better; a move to `reduce` (late-move reductions) a
/// ply less deep too.
#[inline]
fn first_search(first: bool, reduce: bool, (alpha, beta): (i32, i32), line: Line) -> ((i32, i32), Line) {
    if first {
        ((alpha, beta), line)
    } else if reduce {
        (
            (alpha, alpha + 1),
            Line {
                depth: line.depth - 1,
                ..line
            },
        )
    } else {
        ((alpha, alpha + 1), line)
    }
}

/// The score of a game that has ended, for the player to move at `ply`:
/// sooner wins and later losses score higher.
fn ending_score(end: Ending, state: &State, ply: i32) -> i32 {
    match end {
        Ending::Win(p) if p == state.turn() => WIN - ply,
        Ending::Win(_) => -(WIN - ply),
        Ending::Draw => 0,
    }
}

/// How far the number of moves may move a static score, for a horizon
/// position to be scored by its material alone (thirty moves fewer than
/// its parent had).
const LAZY_MARGIN: i32 = 30 * MOBILITY;

/// The order rank of the second killer move: every move ranked below it is
/// a quiet move (see `order_moves`).
const KILLER_RANK: i64 = 3_000_000_000;

/// The least depth at which null moves and reductions are tried.
const SHORTCUT_DEPTH: u32 = 3;

/// How many plies less deep than a real move a null move is searched.
const NULL_REDUCTION: u32 = 2;

/// How many legal moves are searched in full before late ones are reduced.
const LATE_MOVE: usize = 3;

/// Half the width of the first window searched around the last iteration's score.
const ASPIRATION: i32 = 50;

/// How many plies of killer moves are kept.
const MAX_PLY: usize = 64;

/// What identifies a move across positions, for killers and history: the
/// squares its piece left and reached, or the squares it changes.
fn move_key(action: &Action) -> u64 {
    let at = |c: Option<Coord>| {
        c.map_or(0x7FFF_FFFF, |c| {
            ((c.x as u64 & 0xFFFF) << 16) | (c.y as u64 & 0xFFFF)
        })
    };
    match (action.from(), action.to()) {
        (Some(_), Some(_)) => (at(action.from()) << 32) ^ at(action.to()),
        _ => action.changes().iter().fold(0xCBF2_9CE4_8422_2325, |h, c| {
            (h ^ at(Some(c.at))).wrapping_mul(0x100_0000_01B3)
        }),
    }
}

/// Keeps the two players' history apart.
fn turn_salt(state: &State) -> u64 {
    (state.turn().index() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// How many winning moves a quiescence node searches however many moves it has.
const QUIESCENCE_BREADTH: usize = 4;

/// How many captures deep the quiescence search may go.
const MAX_QUIESCENCE: u32 = 8;

/// The most legal moves a horizon position may have for the AI to look for
/// a move that wins at once: each is made and judged, which in a game of
/// thousands of moves would cost more than the search itself.
const HORIZON_WIN_MOVES: usize = 256;

/// How deep check extensions may take the search, in plies from the root.
const MAX_EXTENDED_PLY: i32 = 12;

/// How many plies past an iteration's depth check extensions may go: where
/// checks are everywhere (a king that an explosion next to it would take is
/// "attacked" in Atomic), unbounded extensions would search every line.
const MAX_EXTENSIONS: i32 = 2;

/// Mate scores are stored relative to the position, not the root.
fn to_table(score: i32, ply: i32) -> i32 {
    if score >= MATE_BOUND {
        score + ply
    } else if score <= -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

fn from_table(score: i32, ply: i32) -> i32 {
    if score >= MATE_BOUND {
        score - ply
    } else if score <= -MATE_BOUND {
        score + ply
    } else {
        score
    }
}
