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
    /// A second walker's, for the tests made in the middle of a walk
    /// (boxed, so that a search lends it out by moving a pointer; none
    /// until first asked for, see [`FastScratch::take_aux`]).
    pub(crate) aux: Option<Box<WalkScratch>>,
    /// The cells and tallies of the position searched, when a box holds
    /// something (see `walk::cells_and_tallies`).
    pub(crate) boxed: Vec<crate::core::Code>,
}

impl FastScratch {
    /// The second walker's scratch, lent out (a new one the first time):
    /// give it back with [`FastScratch::put_aux`].
    pub(crate) fn take_aux(&mut self) -> Box<WalkScratch> {
        self.aux.take().unwrap_or_default()
    }

    /// Gives back what [`FastScratch::take_aux`] lent.
    pub(crate) fn put_aux(&mut self, aux: Box<WalkScratch>) {
        self.aux = Some(aux);
    }

    /// Makes searches trace (or not) the squares the outermost piece of
    /// interest moves to.
    pub(crate) fn trace_paths(&mut self, on: bool) {
        self.walk.trace_paths(on);
    }

    /// Makes searches give moves as cell writes where they can (see
    /// [`Cache::give_cells`](super::Cache::give_cells)), or not.
    pub(crate) fn give_cells(&mut self, on: bool) {
        self.walk.give_cells(on);
    }
}
