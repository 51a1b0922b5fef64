//! Positions, and the engines that run programs on them.
//!
//! A [`Position`] is a finite set of squares at integer coordinates, each
//! empty or holding a piece. An [`Engine`] holds the moves of every side of a
//! game, prepared for boards of the game's size, and answers the questions
//! the game layer asks: each move of a side (optionally only those that
//! leave its protected pieces where no other side can change their squares),
//! whether a program has a result, and whether another side can change a
//! square. [`prepare`] picks the engine for each program, the way
//! `regex-automata`'s meta regex picks a strategy: the [`Backtracker`] runs
//! every program and stays the reference; the square-set strategies (a
//! choice of rewrites, the walker and its shortcuts) run the programs they
//! can and decline the others, in the order `strategy` writes down.
//!
//! [`search`] and [`apply`] run one program alone (nothing is `attacked`),
//! for `chessalg apply` and analyses. Every search keeps its scratch in a
//! [`Cache`] and is bounded by [`Limits`]: a runaway rule ends in an
//! [`EngineError`], never a hang. A cache may also carry a deadline
//! ([`Cache::set_deadline`]): every search made with it stops with
//! [`EngineError::OutOfTime`] once the deadline has passed.

mod backtrack;
mod bulk;
mod chain;
mod choice;
mod hash;
mod legal;
mod placed;
mod position;
mod questions;
mod reach;
mod scratch;
mod squares;
mod strategy;
mod walk;

use std::cell::Cell;
use std::ops::ControlFlow;
use std::time::Instant;

pub use backtrack::{Backtracker, Successors};
pub use choice::perft::{SetPerft, Stopped};
pub(crate) use hash::mix as mix_key;
pub(crate) use position::{CellWrite, Version};
pub use position::{Changes, DiagramError, Position};
pub use questions::{Engine, EngineReport};
pub(crate) use reach::{move_offsets, placements};
pub use strategy::{EngineChoice, STRATEGY_NAMES, UnknownEngine};

use miette::Diagnostic;
use thiserror::Error;

use crate::core::{Change, Code, CodeSet, Coord, MARK_BITS, Marks, PieceId, piece_code};
use crate::program::Program;

/// One resulting position, as the changes that lead to it from the position
/// searched, with where the outermost piece of interest started and ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Successor<'c> {
    /// The squares that differ, in reading order (top row first).
    pub changes: &'c [Change],
    /// Where the first outermost `%p:` found its piece.
    pub poi_from: Option<Coord>,
    /// Where that piece of interest was when its `%p:` ended.
    pub poi_to: Option<Coord>,
    /// The last other piece a replacement left on that piece's square (a
    /// promotion), even if a later one emptied the square.
    pub became: Option<PieceId>,
    /// The squares that piece moved to, one per replacement that moved it,
    /// in order; empty unless the cache traces paths
    /// ([`Cache::trace_paths`]).
    pub path: &'c [Coord],
    /// The content hash of the resulting position.
    pub hash: u64,
    /// The same changes as writes of cells of the position searched (cell
    /// index, code), when the search was asked for them
    /// ([`Cache::give_cells`]) and could give them: then `changes` is
    /// empty. Empty otherwise.
    pub(crate) cells: &'c [CellWrite],
}

/// What tells two results that leave the same position apart, and what a
/// move's name is made from: where the outermost piece of interest started
/// and ended, and the last other piece a replacement left on its square (a
/// promotion), kept when a later one empties the square. `S` is how an
/// engine names a square: coordinates in the backtracker, an index in the
/// walker. Every engine deduplicates results by it and their changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MoveIdentity<S> {
    /// Where the piece of interest was bound.
    pub(crate) from: Option<S>,
    /// Where it was when its `%p:` ended.
    pub(crate) to: Option<S>,
    /// What it became.
    pub(crate) became: Option<Code>,
}

impl<S> Default for MoveIdentity<S> {
    fn default() -> Self {
        MoveIdentity {
            from: None,
            to: None,
            became: None,
        }
    }
}

/// One side of a game as the engine sees it.
#[derive(Clone, Debug)]
pub struct Side {
    /// Its moves.
    pub moves: Program,
    /// The pieces its safe moves keep out of the other sides' reach (any marks).
    pub protected: Vec<PieceId>,
    /// The pieces it owns: `attacked` on one of them asks whether another
    /// side than this one can change its square.
    pub owned: Vec<PieceId>,
}

/// Who owns each piece and which pieces each side keeps safe, by code.
#[derive(Clone, Debug, Default)]
pub(crate) struct Roles {
    /// Per side: the codes of its protected pieces.
    pub(crate) protected: Vec<CodeSet>,
    /// Per code: the side owning the piece it stands for, if any.
    pub(crate) owner: Vec<Option<usize>>,
}

impl Roles {
    /// The roles of `sides`' pieces.
    pub(crate) fn of(sides: &[Side]) -> Roles {
        let protected = sides
            .iter()
            .map(|s| CodeSet::of(s.protected.iter().flat_map(|&p| every_code(p))))
            .collect();
        let mut owner: Vec<Option<usize>> = Vec::new();
        for (q, s) in sides.iter().enumerate() {
            for code in s.owned.iter().flat_map(|&p| every_code(p)) {
                if owner.len() <= code as usize {
                    owner.resize(code as usize + 1, None);
                }
                owner[code as usize] = Some(q);
            }
        }
        Roles { protected, owner }
    }

    /// The side `attacked` asks about for a piece of code `code` found by
    /// `side`'s search: the piece's owner, else `side`.
    pub(crate) fn defender(&self, code: Code, side: usize) -> usize {
        self.owner.get(code as usize).copied().flatten().unwrap_or(side)
    }
}

/// The codes of `piece` with every set of marks.
fn every_code(piece: PieceId) -> impl Iterator<Item = Code> {
    (0..1u8 << MARK_BITS).map(move |m| piece_code(piece, Marks(m)))
}

/// The engine for these sides' moves and these patterns (the `when` tests
/// of a game's outcomes) on boards at most `width` by `height` (larger
/// boards are still searched right, by the backtracker), as `choice` says.
pub fn prepare(
    sides: Vec<Side>,
    patterns: Vec<Program>,
    width: u32,
    height: u32,
    choice: &EngineChoice,
) -> Engine {
    Engine::new(sides, patterns, width, height, choice)
}

/// Scratch space for the engines' searches, reusable across programs and
/// positions: keeping one avoids allocating on every search.
#[derive(Clone, Debug, Default)]
pub struct Cache {
    pub(crate) backtrack: backtrack::Scratch,
    pub(crate) fast: scratch::FastScratch,
    /// The deadline of the searches, and when to read the clock.
    clock: Clock,
}

/// When the searches run with a cache must stop, if ever, and how much work
/// they may do before the clock is read again.
#[derive(Clone, Debug, Default)]
struct Clock {
    /// When the searches must stop, if ever.
    deadline: Option<Instant>,
    /// The work they may still do before the clock is read again (see
    /// [`CLOCK_EVERY`]).
    credit: u64,
    /// Whether the clock said the deadline had passed.
    late: bool,
}

impl Clock {
    /// A meter for one question under `limits` that stops at the deadline:
    /// [`EngineError::OutOfTime`] instead once the deadline is known to
    /// have passed, or is found so now.
    #[inline]
    fn start(&mut self, limits: &Limits) -> Result<Meter, EngineError> {
        let Some(deadline) = self.deadline else {
            return Ok(Meter::new(limits));
        };
        self.tick_until(deadline)?;
        Ok(Meter::until(limits, deadline, self.credit))
    }

    /// Counts a question that charges no state (a choice of rewrites on
    /// square sets, on a board of at most 128 squares: microseconds):
    /// [`EngineError::OutOfTime`] as [`Clock::start`] says.
    #[inline]
    fn tick(&mut self) -> Result<(), EngineError> {
        match self.deadline {
            None => Ok(()),
            Some(deadline) => self.tick_until(deadline),
        }
    }

    /// [`Clock::tick`] under `deadline`.
    #[inline]
    fn tick_until(&mut self, deadline: Instant) -> Result<(), EngineError> {
        if self.late {
            return Err(EngineError::OutOfTime);
        }
        if self.credit < QUESTION_COST {
            if Instant::now() >= deadline {
                self.late = true;
                return Err(EngineError::OutOfTime);
            }
            self.credit = CLOCK_EVERY;
        }
        self.credit -= QUESTION_COST;
        Ok(())
    }

    /// Takes back from `meter`, at the end of its question, what it learnt
    /// of the clock and the work it left before the next reading.
    #[inline]
    fn end(&mut self, meter: &Meter) {
        if self.deadline.is_some() {
            self.late |= meter.late.get();
            self.credit = meter.credit();
        }
    }
}

impl Cache {
    /// An empty cache; its searches stop at the deadline of the job the
    /// thread works for, if it works under one ([`crate::core::budget`]:
    /// a rule text from a browser checked), else at none until
    /// [`Cache::set_deadline`] sets one.
    pub fn new() -> Self {
        let mut cache = Self::default();
        cache.set_deadline(crate::core::budget::deadline());
        cache
    }

    /// Makes every search run with this cache (each question to an
    /// [`Engine`], [`search`], and the game layer's and the AI's work made
    /// of them) stop with [`EngineError::OutOfTime`] once `deadline` has
    /// passed; `None` (the default) sets no deadline. The clock is read at
    /// the start of the first question after this call, and then once every
    /// 2048 units of work: a state explored is one (see
    /// [`Limits::max_states`]), a question asked 16. So a search stops
    /// within a small fraction of a millisecond of the deadline on any
    /// board, and once one has stopped, every later one stops at its start.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.clock = Clock {
            deadline,
            credit: 0,
            late: false,
        };
    }

    /// The deadline set by [`Cache::set_deadline`], if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.clock.deadline
    }

    /// Runs `question` (one question to the engines) with a meter under
    /// `limits` that stops at this cache's deadline (see [`Clock::start`]).
    #[inline]
    pub(crate) fn metered<T>(
        &mut self,
        limits: &Limits,
        question: impl FnOnce(&mut Cache, &Meter) -> Result<T, EngineError>,
    ) -> Result<T, EngineError> {
        let meter = self.clock.start(limits)?;
        let answer = question(self, &meter);
        self.clock.end(&meter);
        answer
    }

    /// Makes the searches run with this cache trace (or not) the squares the
    /// outermost piece of interest moves to ([`Successor::path`]): what a
    /// notation that writes every landing square needs.
    pub fn trace_paths(&mut self, on: bool) {
        self.backtrack.trace_paths(on);
        self.fast.trace_paths(on);
    }

    /// Makes the square-set strategies give the moves of searches run with
    /// this cache as cell writes ([`Successor::cells`], `changes` left
    /// empty) where they have them so, or not: for a caller that makes
    /// moves on the cells of the position searched. The others give
    /// changes as ever.
    pub(crate) fn give_cells(&mut self, on: bool) {
        self.fast.give_cells(on);
    }
}

/// Runs `program` alone on `position` (nothing is `attacked`); the results
/// live in `cache` until its next use.
pub fn search<'c>(
    program: &Program,
    position: &Position,
    cache: &'c mut Cache,
    limits: &Limits,
) -> Result<Successors<'c>, EngineError> {
    let meter = cache.clock.start(limits)?;
    let results = backtrack::search_with(
        backtrack::Compiled::plain(program),
        position,
        &mut cache.backtrack,
        &meter,
        &backtrack::NoAttacks,
    );
    cache.clock.end(&meter);
    results
}

/// How many results `each` gives its callback.
pub(crate) fn count_each(
    each: impl FnOnce(&mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>) -> Result<(), EngineError>,
) -> Result<u64, EngineError> {
    let mut n = 0;
    each(&mut |_| {
        n += 1;
        ControlFlow::Continue(())
    })?;
    Ok(n)
}

/// Bounds on one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most states (arrivals at loop heads and join points, guards and
    /// ordered choices included) one search may count.
    pub max_states: u64,
    /// The most cells the working grid may grow to when replacements create
    /// squares outside the board.
    pub max_cells: usize,
}

impl Limits {
    /// The default cap on states explored per search.
    pub const DEFAULT_MAX_STATES: u64 = 1_000_000;
    /// The default cap on the working grid's size.
    pub const DEFAULT_MAX_CELLS: usize = 1 << 24;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_states: Self::DEFAULT_MAX_STATES,
            max_cells: Self::DEFAULT_MAX_CELLS,
        }
    }
}

/// The work one question to an engine may still do: every search the
/// question makes (the move's own, the guards and ordered choices inside
/// it, the `attacked` and legality tests of each result) charges the
/// states it reaches to one meter made from [`Limits`], so a question
/// stops at the same stated limit whichever engine answers it. A state is
/// an arrival at a loop head or a join point of the program, or a rewrite
/// made that no such arrival follows; strategies that count by square sets
/// what they never reach one by one charge what they reach.
///
/// A meter with a deadline ([`Cache::set_deadline`]) also reads the clock
/// once every [`CLOCK_EVERY`] states charged: the charge itself stays one
/// comparison, against the next count at which the meter looks further
/// (the limit, or sooner the next reading of the clock).
#[derive(Debug)]
pub(crate) struct Meter {
    /// See [`Limits::max_states`].
    pub(crate) max_states: u64,
    /// See [`Limits::max_cells`].
    pub(crate) max_cells: usize,
    /// States charged so far.
    spent: Cell<u64>,
    /// The count of states past which a charge looks further: the limit,
    /// or sooner the count at which the clock is next read (0 once the
    /// deadline has passed, so that every charge fails).
    next: Cell<u64>,
    /// When the question must stop, if ever.
    deadline: Option<Instant>,
    /// Whether the clock said the deadline had passed.
    late: Cell<bool>,
}

/// How much work the searches under a deadline do between two readings of
/// the clock: a state explored is one unit, a question asked
/// [`QUESTION_COST`]. A few tens of microseconds of any search.
pub(crate) const CLOCK_EVERY: u64 = 2048;

/// What a question asked under a deadline costs of [`CLOCK_EVERY`] besides
/// its states: the strategies that count by square sets charge few or none,
/// and their questions (on boards of at most 128 squares) take
/// microseconds, so the clock is read once in 128 of them.
pub(crate) const QUESTION_COST: u64 = 16;

impl Meter {
    /// A meter with nothing spent, for one question under `limits`, without
    /// a deadline.
    pub(crate) fn new(limits: &Limits) -> Meter {
        Meter {
            max_states: limits.max_states,
            max_cells: limits.max_cells,
            spent: Cell::new(0),
            next: Cell::new(limits.max_states),
            deadline: None,
            late: Cell::new(false),
        }
    }

    /// A meter with nothing spent, for one question under `limits` that
    /// stops at `deadline`, reading the clock first once `credit` states
    /// are charged, then once every [`CLOCK_EVERY`].
    pub(crate) fn until(limits: &Limits, deadline: Instant, credit: u64) -> Meter {
        let meter = Meter::new(limits);
        meter.next.set(credit.min(limits.max_states));
        Meter {
            deadline: Some(deadline),
            ..meter
        }
    }

    /// How many states it may still charge before it next reads the clock
    /// (or meets its limit).
    fn credit(&self) -> u64 {
        self.next.get().saturating_sub(self.spent.get())
    }

    /// Charges one state; the limit's error past [`Limits::max_states`]
    /// (or past the deadline, [`EngineError::OutOfTime`]).
    #[inline(always)]
    pub(crate) fn charge(&self) -> Result<(), EngineError> {
        let spent = self.spent.get() + 1;
        if spent > self.next.get() {
            return self.charge_one_past(spent);
        }
        self.spent.set(spent);
        Ok(())
    }

    /// [`Meter::charge`] past the next count it looks at.
    #[cold]
    #[inline(never)]
    fn charge_one_past(&self, spent: u64) -> Result<(), EngineError> {
        if self.charge_past(spent) {
            Ok(())
        } else {
            Err(self.exceeded())
        }
    }

    /// Charges `n` states at once; `false` (and nothing charged) if that
    /// would pass the limit, or once the deadline has passed.
    #[inline(always)]
    pub(crate) fn charge_many(&self, n: u64) -> bool {
        let spent = self.spent.get() + n;
        if spent > self.next.get() {
            return self.charge_past(spent);
        }
        self.spent.set(spent);
        true
    }

    /// [`Meter::charge_many`] past the next count it looks at: the limit,
    /// or the clock.
    #[cold]
    #[inline(never)]
    fn charge_past(&self, spent: u64) -> bool {
        if spent > self.max_states || self.late.get() {
            return false;
        }
        if let Some(deadline) = self.deadline {
            if Instant::now() >= deadline {
                self.late.set(true);
                self.next.set(0);
                return false;
            }
            self.next
                .set(spent.saturating_add(CLOCK_EVERY).min(self.max_states));
        }
        self.spent.set(spent);
        true
    }

    /// The error of a question its meter stopped: [`EngineError::OutOfTime`]
    /// once the deadline has passed, else the limit on states.
    #[cold]
    pub(crate) fn exceeded(&self) -> EngineError {
        if self.late.get() {
            EngineError::OutOfTime
        } else {
            EngineError::StateLimit {
                limit: self.max_states,
            }
        }
    }
}

/// Why a search stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq, Error, Diagnostic)]
pub enum EngineError {
    /// The search explored more states than [`Limits::max_states`].
    #[error("the search explored more than {limit} states without finishing")]
    #[diagnostic(
        code(chessalg::engine::state_limit),
        help(
            "a rule that repeats without end (such as `(. -> X)*` on a large board) has \
             astronomically many results; if the search is meant to be this large, raise the \
             limit with `--max-states N` (the default is 1000000)"
        )
    )]
    StateLimit {
        /// The limit that was reached.
        limit: u64,
    },
    /// Replacements grew the board beyond [`Limits::max_cells`].
    #[error("replacements grew the board beyond {limit} cells")]
    #[diagnostic(
        code(chessalg::engine::board_limit),
        help("a rule that keeps creating squares outside the board never reaches a fixpoint")
    )]
    BoardLimit {
        /// The limit that was reached.
        limit: usize,
    },
    /// The deadline set on the search's cache ([`Cache::set_deadline`]) passed.
    #[error("the search ran out of time")]
    #[diagnostic(
        code(chessalg::engine::out_of_time),
        help(
            "the search was given a deadline (the AI's time for a move, or a time limit on \
             checking or playing a rule text) and it passed before the search finished; give it \
             more time, or ask a smaller question"
        )
    )]
    OutOfTime,
}

/// Every position `program` leads to from `position`, each once, sorted (see
/// [`Position`]'s ordering: reading order, square by square).
pub fn apply(program: &Program, position: &Position, limits: &Limits) -> Result<Vec<Position>, EngineError> {
    let mut cache = Cache::new();
    let mut out: Vec<Position> = search(program, position, &mut cache, limits)?
        .iter()
        .map(|o| position.with_changes(o.changes))
        .collect();
    out.sort_unstable();
    // Two moves may leave one position.
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests;
