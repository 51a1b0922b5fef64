//! The traced plan: a program that moves the bound piece by one rewrite
//! (or leaves it) run as square sets, tracing where the piece goes
//! ([`crate::engine::choice::compile::traced_plan`]). It says whether there
//! is a result on every position; it lists and counts them when no two can
//! be the same.

use std::ops::ControlFlow;

use super::{Question, Strategy};
use crate::engine::choice::Plan;
use crate::engine::choice::compile::traced_plan;
use crate::engine::squares::Decline;
use crate::engine::successor::Successor;
use crate::engine::walk::{Keep, Query, TooLong};
use crate::program::Program;

/// A program as one traced choice of rewrites on square sets.
#[derive(Debug)]
pub(super) struct TracedPlan(Plan);

impl TracedPlan {
    /// The traced plan of `program` on boards of `width` by `height`, or why it has none.
    pub(super) fn new(program: &Program, width: u32, height: u32) -> Result<TracedPlan, Decline> {
        traced_plan(program, width, height).map(TracedPlan)
    }
}

impl Strategy for TracedPlan {
    fn name(&self) -> &'static str {
        "traced-plan"
    }

    fn takes(&self, question: Question) -> bool {
        match question {
            Question::Each | Question::Count => self.0.distinct,
            Question::Holds => true,
            Question::CountKept | Question::ChangesAt => false,
        }
    }

    fn codes(&self) -> usize {
        self.0.codes()
    }

    fn each(
        &self,
        query: &mut Query<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        let out = &mut query.scratch.plans;
        let mut changes = std::mem::take(&mut out.changes);
        let mut cells = std::mem::take(&mut out.cell_writes);
        let cells_out = out.cells.then_some(&mut cells);
        let tracing = out.tracing;
        (self.0).each_traced(
            query.position,
            query.occupied,
            &mut changes,
            cells_out,
            tracing,
            found,
        );
        out.changes = changes;
        out.cell_writes = cells;
        Some(Ok(()))
    }

    fn count(&self, query: &mut Query<'_>, keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        debug_assert!(keep.is_none(), "a traced plan takes no filtered count");
        Some(Ok(self.0.count_on(query.occupied)))
    }

    fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        Some(Ok(self.0.holds_on(query.occupied)))
    }

    fn plan(&self) -> Option<&Plan> {
        Some(&self.0)
    }
}
