//! One question to a strategy of the square-set engines, with what it is
//! asked on ([`Query`], [`ChangeQuery`]): the position, its square sets,
//! the scratch, the work it may still do and the `attacked` test. Every
//! strategy (the walk and those above it) takes these, instead of the
//! same five or six parameters restated.

use super::{AttackTest, WalkScratch};
use crate::core::Code;
use crate::engine::meter::Meter;
use crate::engine::position::Position;
use crate::engine::squares::Squares;

/// A question on a position: its results, how many, whether there is one.
pub(crate) struct Query<'q> {
    /// The position searched (which the strategy must fit).
    pub(crate) position: &'q Position,
    /// Its square sets, per content code, loaded for the strategy's codes.
    pub(crate) occupied: &'q [Squares],
    /// The walker's scratch (strategies on a board of their own keep
    /// theirs in it too).
    pub(crate) scratch: &'q mut WalkScratch,
    /// The work the question may still do.
    pub(crate) meter: &'q Meter,
    /// What answers `attacked` (none: it is false).
    pub(crate) attacks: Option<&'q dyn AttackTest>,
}

/// A question on a position with some changes made: whether some result
/// changes one square (the legality tests ask it of the other sides).
pub(crate) struct ChangeQuery<'q> {
    /// The cells (and tallies, from [`super::TALLY_BASE`] on) the changes
    /// are made on.
    pub(crate) base: &'q [Code],
    /// Their square sets, before the changes.
    pub(crate) occupied: &'q [Squares],
    /// The changes made: square and what was written, in order.
    pub(crate) overlay: &'q [(u32, Code)],
    /// The square asked about.
    pub(crate) at: u32,
    /// The walker's scratch.
    pub(crate) scratch: &'q mut WalkScratch,
    /// The work the question may still do.
    pub(crate) meter: &'q Meter,
}
