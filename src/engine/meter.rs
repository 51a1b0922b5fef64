//! The bounds on a search ([`Limits`]), the work one question may still do
//! ([`Meter`]), and why a search stops without a result ([`EngineError`]).

use std::cell::Cell;
use std::time::Instant;

use miette::Diagnostic;
use thiserror::Error;

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
/// A meter with a deadline (`Cache::set_deadline`) also reads the clock
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
    pub(super) late: Cell<bool>,
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
    pub(super) fn credit(&self) -> u64 {
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
        code = "chessalg::engine::state_limit",
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
        code = "chessalg::engine::board_limit",
        help("a rule that keeps creating squares outside the board never reaches a fixpoint")
    )]
    BoardLimit {
        /// The limit that was reached.
        limit: usize,
    },
    /// The deadline set on the search's cache (`Cache::set_deadline`) passed.
    #[error("the search ran out of time")]
    #[diagnostic(
        code = "chessalg::engine::out_of_time",
        help(
            "the search was given a deadline (the AI's time for a move, or a time limit on \
             checking or playing a rule text) and it passed before the search finished; give it \
             more time, or ask a smaller question"
        )
    )]
    OutOfTime,
}
