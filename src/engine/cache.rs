//! The scratch of the engines' searches, kept between them, and the
//! deadline they stop at ([`Cache`]).

use std::time::Instant;

use super::meter::{CLOCK_EVERY, EngineError, Limits, Meter, QUESTION_COST};
use crate::engine::backtrack;
use crate::engine::scratch;

/// Scratch space for the engines' searches, reusable across programs and
/// positions: keeping one avoids allocating on every search.
#[derive(Clone, Debug, Default)]
pub struct Cache {
    pub(crate) backtrack: backtrack::Scratch,
    pub(crate) fast: scratch::FastScratch,
    /// The deadline of the searches, and when to read the clock.
    pub(super) clock: Clock,
}

/// When the searches run with a cache must stop, if ever, and how much work
/// they may do before the clock is read again.
#[derive(Clone, Debug, Default)]
pub(super) struct Clock {
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
    pub(super) fn start(&mut self, limits: &Limits) -> Result<Meter, EngineError> {
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
    pub(super) fn tick(&mut self) -> Result<(), EngineError> {
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
    pub(super) fn end(&mut self, meter: &Meter) {
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
    /// [`Engine`](crate::engine::Engine), [`search`](crate::engine::search), and the game layer's and the AI's work made
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
    /// outermost piece of interest moves to ([`Successor::path`](crate::engine::Successor::path)): what a
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
