//! A guard that square sets answer: a program that is a test and nothing
//! else (`?{m}`, `!{m}`) on a sub-program whose result square sets tell
//! ([`crate::engine::choice::compile::test_plan`]) holds or not without a walk.

use super::{Question, Strategy, through_jumps};
use crate::engine::choice::Plan;
use crate::engine::squares::Decline;
use crate::engine::walk::{Query, TooLong, Walker};
use crate::program::Inst;

/// A program that is one guard, answered on square sets.
#[derive(Debug)]
pub(super) struct SquareSetGuard {
    /// Whether the guard asks for a result (`?{m}`) or for none (`!{m}`).
    holds: bool,
    /// Whether its sub-program has a result, as square sets.
    test: Plan,
}

impl SquareSetGuard {
    /// The guard `walker`'s program is, or why it is none.
    pub(super) fn new(walker: &Walker) -> Result<SquareSetGuard, Decline> {
        let program = walker.program();
        let Inst::Guard { holds, sub, next } = program.insts[through_jumps(program, program.start) as usize]
        else {
            return Err(Decline::NotAGuard);
        };
        if program.insts[through_jumps(program, next) as usize] != Inst::Match {
            return Err(Decline::NotAGuard);
        }
        let test = walker.test_plan(sub.index()).cloned().ok_or(Decline::NotAGuard)?;
        Ok(SquareSetGuard { holds, test })
    }
}

impl Strategy for SquareSetGuard {
    fn name(&self) -> &'static str {
        "square-set-guard"
    }

    fn takes(&self, question: Question) -> bool {
        question == Question::Holds
    }

    fn codes(&self) -> usize {
        self.test.codes()
    }

    fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        Some(Ok(self.test.holds_on(query.occupied) == self.holds))
    }
}
