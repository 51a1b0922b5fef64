//! What a search gives: each resulting position as the changes that lead
//! to it ([`Successor`]), what tells two results apart ([`MoveIdentity`]),
//! and how many there are ([`count_each`]).

use std::ops::ControlFlow;

use super::meter::EngineError;
use super::position::CellWrite;
use crate::core::{Change, Code, Coord, PieceId};

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
    /// (`Cache::trace_paths`).
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
