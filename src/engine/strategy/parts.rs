//! Ordered parts: a program that is an ordered choice and nothing after it
//! (`jumps / steps`) as its alternatives apart, each with a strategy list
//! of its own; a question goes to them in turn, and the first alternative
//! with results answers.

use std::ops::ControlFlow;

use super::{Question, Strategies, Strategy, through_jumps};
use crate::engine::successor::Successor;
use crate::engine::walk::{Keep, Query, TooLong, leads_to_match};
use crate::program::{Inst, Program};

/// An ordered choice's alternatives, each prepared on its own.
#[derive(Debug)]
pub(super) struct OrderedParts(Vec<Strategies>);

impl OrderedParts {
    /// `program`'s alternatives, each as a program of its own, when it is an
    /// ordered choice and nothing after it.
    pub(super) fn of(program: &Program) -> Option<Vec<Program>> {
        let pc = through_jumps(program, program.start);
        let Inst::Ordered { id, next } = program.insts[pc as usize] else {
            return None;
        };
        if !leads_to_match(program, next) || matches!(program.insts[next as usize], Inst::Unbind { .. }) {
            return None;
        }
        let parts = (program.ordered[id.index()].iter())
            .map(|sub| {
                let mut part = program.clone();
                part.start = program.subs[sub.index()];
                part
            })
            .collect();
        Some(parts)
    }

    /// The strategy of the parts, each prepared as `parts` says.
    pub(super) fn new(parts: Vec<Strategies>) -> OrderedParts {
        OrderedParts(parts)
    }
}

impl Strategy for OrderedParts {
    fn name(&self) -> &'static str {
        "parts"
    }

    fn takes(&self, question: Question) -> bool {
        question != Question::ChangesAt
    }

    fn codes(&self) -> usize {
        self.0.iter().map(Strategies::codes).max().unwrap_or(1)
    }

    /// The first alternative with results gives them.
    fn each(
        &self,
        query: &mut Query<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        for part in &self.0 {
            let mut any = false;
            let done = part.each(query, &mut |s| {
                any = true;
                found(s)
            })?;
            if done.is_err() || any {
                return Some(done);
            }
        }
        Some(Ok(()))
    }

    /// The first alternative with results counts them (with a filter, even
    /// if it keeps none).
    fn count(&self, query: &mut Query<'_>, mut keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        for part in &self.0 {
            if keep.is_some() {
                match part.holds(query)? {
                    Ok(true) => return part.count(query, keep),
                    Ok(false) => continue,
                    Err(e) => return Some(Err(e)),
                }
            }
            match part.count(query, keep.as_deref_mut())? {
                Ok(0) => continue,
                n => return Some(n),
            }
        }
        Some(Ok(0))
    }

    fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        for part in &self.0 {
            match part.holds(query)? {
                Ok(false) => continue,
                held => return Some(held),
            }
        }
        Some(Ok(false))
    }

    fn owned(&self) -> Vec<(String, &Strategies)> {
        (self.0.iter().enumerate())
            .map(|(i, part)| ((i + 1).to_string(), part))
            .collect()
    }
}
