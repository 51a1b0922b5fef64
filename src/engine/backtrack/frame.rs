//! The frames of the backtracking search's explicit stack: a step to take,
//! or an iterator (over a rewrite's matches, the squares a `%p:` binds, an
//! ordered choice's results) that undoes its change when resumed.

use crate::core::{Code, Coord};
use crate::engine::hash;
use crate::engine::successor::MoveIdentity;
use crate::program::{BindId, Pc, RewriteId};

/// The piece of interest: where it is and which piece it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Poi {
    pub(super) x: i32,
    pub(super) y: i32,
    pub(super) code: Code,
    /// The square it was bound on (`%from:` makes it the piece of interest).
    pub(super) from: (i32, i32),
}

/// The move a search has made so far ([`MoveIdentity`], in coordinates),
/// with the length of its traced path and its key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Trace {
    /// Where the piece started and ended, and what it became.
    pub(super) id: MoveIdentity<Coord>,
    /// How many squares of the traced path (see `Scratch::trace_paths`) are current.
    pub(super) path: u32,
    /// A hash of `from`, `to` and `became` (0 when none is known).
    pub(super) key: u64,
}

impl Trace {
    /// Whether both name the same move: the same start, end and change of piece.
    #[inline]
    pub(super) fn same_move(&self, other: &Trace) -> bool {
        self.id == other.id
    }

    /// Recomputes `key` after `from`, `to` or `became` changed.
    #[inline]
    pub(super) fn rekey(&mut self) {
        let at = |c: Option<Coord>, salt: u64| c.map_or(0, |c| hash::square(c.x, c.y, 0) ^ salt);
        self.key = hash::mix(
            at(self.id.from, 0x1F83_D9AB_FB41_BD6B)
                ^ at(self.id.to, 0x5BE0_CD19_137E_2179).rotate_left(17)
                ^ self.id.became.map_or(0, |b| (b as u64 + 1) << 48),
        );
    }
}

pub(super) const NONE: u32 = u32::MAX;

/// Iterates the matches of one rewrite and the choices of its replacement.
#[derive(Clone, Copy, Debug)]
pub(super) struct RewriteFrame {
    pub(super) id: RewriteId,
    pub(super) next: Pc,
    /// The left-side alternative being tried.
    pub(super) alt: u32,
    /// The anchor picked for it (`NONE`: not picked yet).
    pub(super) anchor: u32,
    pub(super) cursor: Cursor,
    /// Whether `tx, ty` is a match whose choices are being made.
    pub(super) matched: bool,
    pub(super) next_choice: u32,
    pub(super) tx: i32,
    pub(super) ty: i32,
    pub(super) mark: u32,
    pub(super) poi: Option<Poi>,
    pub(super) poi_hash: u64,
    /// The trace when the frame was made (a replacement can change what the
    /// piece of interest became, and its path).
    pub(super) trace: Trace,
}

/// A position in the list of candidate squares: which source (the piece of
/// interest, then one content after another) and the last square yielded.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Cursor {
    pub(super) source: u32,
    pub(super) started: bool,
    pub(super) x: i32,
    pub(super) y: i32,
}

/// Iterates the squares a `%p:` binds.
#[derive(Clone, Copy, Debug)]
pub(super) struct BindFrame {
    pub(super) id: BindId,
    pub(super) next: Pc,
    pub(super) cursor: Cursor,
    pub(super) trace: Trace,
    pub(super) poi_hash: u64,
}

/// Iterates the results of an ordered choice's first alternative that had any.
#[derive(Clone, Copy, Debug)]
pub(super) struct OrderedFrame {
    pub(super) next: Pc,
    pub(super) entry: u32,
    pub(super) end: u32,
    pub(super) stash_entries: u32,
    pub(super) stash_changes: u32,
    pub(super) mark: u32,
    pub(super) poi: Option<Poi>,
    pub(super) poi_hash: u64,
    pub(super) trace: Trace,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Frame {
    Step(Pc),
    Rewrite(RewriteFrame),
    Bind(BindFrame),
    /// Undoes an `Unbind`: the piece of interest comes back.
    Rebind {
        poi: Poi,
        trace: Trace,
        poi_hash: u64,
    },
    Ordered(OrderedFrame),
    /// Undoes an `Origin`: the piece of interest bound there goes.
    Unorigin {
        poi_hash: u64,
    },
}
