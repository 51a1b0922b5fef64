//! Scratch for the square-set strategies together: the square sets of the
//! position last loaded, the walker's, and a second walker's for the tests
//! made in the middle of a walk.

use super::squares::SetScratch;
use super::walk::WalkScratch;

/// What the square-set strategies keep between searches of one thread.
#[derive(Clone, Debug, Default)]
pub(crate) struct FastScratch {
    /// The square sets and the results a deduplicating search kept.
    pub(crate) sets: SetScratch,
    /// The walker's.
    pub(crate) walk: WalkScratch,
    /// A second walker's, for the tests made in the middle of a walk.
    pub(crate) aux: WalkScratch,
    /// The cells and tallies of the position searched, when a box holds
    /// something (see `walk::cells_and_tallies`).
    pub(crate) boxed: Vec<crate::core::Code>,
}

impl FastScratch {
    /// Makes searches trace (or not) the squares the outermost piece of
    /// interest moves to.
    pub(crate) fn trace_paths(&mut self, on: bool) {
        self.sets.tracing = on;
        self.walk.trace_paths(on);
    }
}
