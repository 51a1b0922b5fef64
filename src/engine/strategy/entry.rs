//! The first rewrite: where, by the square sets, no bound piece can make
//! the first rewrite of its moves ([`crate::engine::choice::compile::entry_plan`]),
//! the program has no result, and a question is answered without a walk.

use std::ops::ControlFlow;

use super::{Question, Strategy};
use crate::engine::choice::Plan;
use crate::engine::squares::Decline;
use crate::engine::successor::Successor;
use crate::engine::walk::{Keep, Query, TooLong, Walker};

/// The rewrites the bound pieces make first, as square sets.
#[derive(Debug)]
pub(super) struct FirstRewrite(Plan);

impl FirstRewrite {
    /// The first rewrites of `walker`'s program, or why it has none to test.
    pub(super) fn new(walker: &Walker) -> Result<FirstRewrite, Decline> {
        let plan = walker.entry().ok_or(Decline::NoFirstRewrite)?;
        Ok(FirstRewrite(plan.clone()))
    }

    /// Whether no bound piece can make a first rewrite on the query's position.
    fn cannot_start(&self, query: &Query<'_>) -> bool {
        !self.0.holds_on(query.occupied)
    }
}

impl Strategy for FirstRewrite {
    fn name(&self) -> &'static str {
        "first-rewrite"
    }

    fn takes(&self, question: Question) -> bool {
        question != Question::ChangesAt
    }

    fn codes(&self) -> usize {
        self.0.codes()
    }

    fn each(
        &self,
        query: &mut Query<'_>,
        _found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        self.cannot_start(query).then_some(Ok(()))
    }

    fn count(&self, query: &mut Query<'_>, _keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        self.cannot_start(query).then_some(Ok(0))
    }

    fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        self.cannot_start(query).then_some(Ok(false))
    }
}
