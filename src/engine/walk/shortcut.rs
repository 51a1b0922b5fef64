//! What a strategy above the walker offers it ([`Shortcut`]): a faster way
//! to count a program's results, list them and say whether they change a
//! square, which the walker defers to; and the buffers such a strategy
//! keeps in the walker's scratch ([`ShortcutScratch`]).

use std::ops::ControlFlow;

use super::{AttackTest, Keep, TooLong, WalkScratch};
use crate::core::{Change, Code, Coord};
use crate::engine::position::Position;
use crate::engine::squares::{KeySet, Squares};
use crate::engine::{Meter, MoveIdentity, Successor};

/// A faster way to count a walker's program, and to say whether it changes
/// a square, that a strategy above the walker found for it (the choice among
/// pieces of [`super::bulk`]): the walker defers to it ([`Walker::attach`](super::Walker::attach)).
pub(crate) trait Shortcut: std::fmt::Debug + Send + Sync {
    /// What it is, for reports ([`Walker::shapes`](super::Walker::shapes)).
    fn name(&self) -> &'static str;

    /// One more than the largest code its square sets cover.
    fn codes(&self) -> usize;

    /// How many results the program has on `position` that `keep` (if
    /// any) keeps: [`Walker::count`](super::Walker::count).
    #[allow(clippy::too_many_arguments)]
    fn count(
        &self,
        position: &Position,
        occupied: &[Squares],
        scratch: &mut WalkScratch,
        meter: &Meter,
        attacks: Option<&dyn AttackTest>,
        keep: Option<&mut Keep<'_>>,
    ) -> Result<u64, TooLong>;

    /// Calls `found` with each result on `position`, each once, until it
    /// says to stop ([`Walker::each`](super::Walker::each)), if the shortcut lists results:
    /// `None` when it does not (the walker walks them).
    fn each(
        &self,
        position: &Position,
        occupied: &[Squares],
        scratch: &mut WalkScratch,
        meter: &Meter,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        let _ = (position, occupied, scratch, meter, found);
        None
    }

    /// Whether [`Shortcut::changes_at`] answers for the program.
    fn answers_changes(&self) -> bool;

    /// Whether some result changes square `at`, and the squares the answer
    /// read: [`Walker::changes_at`](super::Walker::changes_at).
    #[allow(clippy::too_many_arguments)]
    fn changes_at(
        &self,
        base: &[Code],
        occupied: &[Squares],
        overlay: &[(u32, Code)],
        at: u32,
        scratch: &mut WalkScratch,
        meter: &Meter,
    ) -> Result<(bool, Squares), TooLong>;

    /// The shortcut as `Any`, for tests that look inside it.
    #[cfg(test)]
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A strategy's constructor as the walker calls it ([`Walker::attach`](super::Walker::attach)):
/// the shortcut it builds for a walker's program, or why it declines.
pub(crate) type FindShortcut<'a> =
    dyn Fn(&super::Walker) -> Result<std::sync::Arc<dyn Shortcut>, crate::engine::squares::Decline> + 'a;

/// The buffers of a [`Shortcut`] that makes moves on a board of its own
/// ([`crate::engine::chain`]), kept between searches.
#[derive(Clone, Debug, Default)]
pub(crate) struct ShortcutScratch {
    /// The board with the changes made.
    pub(crate) cells: Vec<Code>,
    /// The changes made, in order: square, what it held before, and the
    /// hash of the changes before it.
    pub(crate) log: Vec<(u32, Code, u64)>,
    /// The keys of the results found.
    pub(crate) keys: KeySet,
    /// The results kept to tell later ones apart: key, identity, and their
    /// changes in `kept_changes`.
    pub(crate) kept: Vec<(u64, MoveIdentity<u32>, u32, u32)>,
    /// Their changes as (square, content), in square order.
    pub(crate) kept_changes: Vec<(u32, Code)>,
    /// One result's changes, in square order.
    pub(crate) diff: Vec<(u32, Code)>,
    /// One result's changes, as given to the caller.
    pub(crate) changes: Vec<Change>,
    /// The squares the piece of interest moved to, in order.
    pub(crate) path: Vec<u32>,
    /// The same, as coordinates.
    pub(crate) path_coords: Vec<Coord>,
}
