//! The placement count ([`crate::engine::placed`]): a program that puts a
//! piece on an empty square where a guard holds and then always leaves one
//! result (Othello) has one result per such square: counted, and said to
//! hold, by population count.

use super::{Question, Strategy, through_jumps};
use crate::engine::choice::Plan;
use crate::engine::placed::PlacedCount;
use crate::engine::squares::Decline;
use crate::engine::walk::{Keep, Query, TooLong, Walker};

/// A placement counted by square sets, with where its guard holds.
#[derive(Debug)]
pub(super) struct Placed {
    count: PlacedCount,
    /// Where the placed piece passes the guard, as square sets.
    guard: Plan,
}

impl Placed {
    /// The placement count of `walker`'s program, or why it is none.
    pub(super) fn new(walker: &Walker) -> Result<Placed, Decline> {
        let program = walker.program();
        let start = through_jumps(program, program.start);
        let (code, sub) = walker.placement_at(start).ok_or(Decline::NotACountedPlacement(
            "it does not start with a placement",
        ))?;
        let count = PlacedCount::of(program, start, code, sub)?;
        let guard = (walker.poi_plan(sub).cloned()).ok_or(Decline::NotACountedPlacement(
            "its guard is not a choice of rewrites at the piece",
        ))?;
        Ok(Placed { count, guard })
    }

    /// The number of results on the query's position, if square sets count it.
    fn counted(&self, query: &Query<'_>) -> Option<u64> {
        let occupied = query.occupied;
        self.count.count(occupied, || self.guard.anywhere(occupied))
    }
}

impl Strategy for Placed {
    fn name(&self) -> &'static str {
        "placement-count"
    }

    fn takes(&self, question: Question) -> bool {
        matches!(question, Question::Count | Question::Holds)
    }

    fn codes(&self) -> usize {
        self.guard.codes()
    }

    fn count(&self, query: &mut Query<'_>, keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        debug_assert!(keep.is_none(), "a placement count takes no filtered count");
        self.counted(query).map(Ok)
    }

    fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        self.counted(query).map(|n| Ok(n > 0))
    }
}
