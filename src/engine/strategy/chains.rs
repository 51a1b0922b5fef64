//! Chains on a board of their own ([`crate::engine::chain`]): a choice
//! among pieces each making a first rewrite and then a chain of them
//! (checkers' jumps), made on a board of the strategy's own. It lists and
//! counts results; a filtered count, and the other questions, go on.

use std::ops::ControlFlow;

use super::{Question, Strategy};
use crate::engine::chain::Chains;
use crate::engine::squares::Decline;
use crate::engine::successor::Successor;
use crate::engine::walk::{Keep, Query, TooLong, Walker};

/// The chains of a program that is a choice among pieces making chains.
#[derive(Debug)]
pub(super) struct ChainsOfPieces(Chains);

impl ChainsOfPieces {
    /// The chains of `walker`'s program on boards of `width` by `height`,
    /// or why it makes none.
    pub(super) fn new(walker: &Walker, width: u32, height: u32) -> Result<ChainsOfPieces, Decline> {
        Chains::of(walker, width, height).map(ChainsOfPieces)
    }
}

impl Strategy for ChainsOfPieces {
    fn name(&self) -> &'static str {
        "chains"
    }

    fn takes(&self, question: Question) -> bool {
        matches!(question, Question::Each | Question::Count)
    }

    fn codes(&self) -> usize {
        self.0.codes()
    }

    fn each(
        &self,
        query: &mut Query<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        Some(self.0.each(query, found))
    }

    fn count(&self, query: &mut Query<'_>, keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        debug_assert!(keep.is_none(), "chains take no filtered count");
        Some(self.0.count(query))
    }
}
