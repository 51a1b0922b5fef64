//! A program that chooses one rewrite among several (`. -> ♙ | ...`), run
//! as square-set operations ([`crate::engine::choice`]): it answers every
//! question, and whether a square changes on the position as it is.

use std::ops::ControlFlow;

use super::{Question, Strategy};
use crate::engine::choice::Plan;
use crate::engine::squares::Squares;
use crate::engine::successor::Successor;
use crate::engine::walk::{ChangeQuery, Keep, Query, TooLong};

/// A whole program as one choice of rewrites on square sets.
#[derive(Debug)]
pub(super) struct ChoiceOfRewrites(Plan);

impl ChoiceOfRewrites {
    /// The strategy of a program whose plan ([`crate::engine::choice::plan`]) is `plan`.
    pub(super) fn new(plan: Plan) -> ChoiceOfRewrites {
        ChoiceOfRewrites(plan)
    }
}

impl Strategy for ChoiceOfRewrites {
    fn name(&self) -> &'static str {
        "choice"
    }

    fn takes(&self, question: Question) -> bool {
        question != Question::CountKept
    }

    fn codes(&self) -> usize {
        self.0.codes()
    }

    fn each(
        &self,
        query: &mut Query<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        (self.0).each(query.position, query.occupied, &mut query.scratch.plans, found);
        Some(Ok(()))
    }

    fn count(&self, query: &mut Query<'_>, keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        debug_assert!(keep.is_none(), "a choice of rewrites takes no filtered count");
        Some(Ok((self.0).count(
            query.position,
            query.occupied,
            &mut query.scratch.plans,
        )))
    }

    fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        Some(Ok(self.0.holds_on(query.occupied)))
    }

    /// On the position as it is (no changes made): which squares the answer
    /// read is not worked out, so it says every square.
    fn changes_at(&self, query: &mut ChangeQuery<'_>) -> Option<Result<(bool, Squares), TooLong>> {
        if !query.overlay.is_empty() {
            return None;
        }
        let hit = (self.0).changes_square(query.base, query.occupied, query.at);
        Some(Ok((hit, !0)))
    }

    fn plan(&self) -> Option<&Plan> {
        Some(&self.0)
    }
}
