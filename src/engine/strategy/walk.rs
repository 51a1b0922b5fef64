//! The walk ([`crate::engine::walk`]): a program with pieces of interest
//! walked on the position plus its changes. It answers every question, so
//! it is last in the list of every program it takes.

use std::ops::ControlFlow;

use super::{Question, Strategy};
use crate::engine::squares::Squares;
use crate::engine::successor::Successor;
use crate::engine::walk::{ChangeQuery, Keep, Query, TooLong, Walker};

impl Strategy for Walker {
    fn name(&self) -> &'static str {
        "walk"
    }

    fn takes(&self, _question: Question) -> bool {
        true
    }

    fn codes(&self) -> usize {
        Walker::codes(self)
    }

    fn each(
        &self,
        query: &mut Query<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        Some(Walker::each(self, query, found))
    }

    fn count(&self, query: &mut Query<'_>, keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        Some(Walker::count(self, query, keep))
    }

    fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        Some(Walker::holds(self, query))
    }

    fn changes_at(&self, query: &mut ChangeQuery<'_>) -> Option<Result<(bool, Squares), TooLong>> {
        Some(Walker::changes_at(self, query))
    }

    fn walker(&self) -> Option<&Walker> {
        Some(self)
    }

    fn shapes(&self) -> Vec<&'static str> {
        Walker::shapes(self)
    }
}
