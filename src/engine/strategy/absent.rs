//! Absent pieces: a program whose every path binds a piece of interest
//! before anything else has no result on a position where no piece its
//! first binds name stands (a side whose pawns are all gone, a pattern
//! about a piece no longer on the board): answered from the square sets,
//! without a walk.

use std::ops::ControlFlow;

use super::{Question, Strategy};
use crate::core::{Code, CodeSet};
use crate::engine::squares::Decline;
use crate::engine::successor::Successor;
use crate::engine::walk::{Keep, Query, TooLong};
use crate::program::{Inst, Pc, Program};

/// The contents a program's first binds name.
#[derive(Debug)]
pub(super) struct AbsentPieces(Box<[Code]>);

impl AbsentPieces {
    /// The first binds of `program`, when every path from its start
    /// reaches a bind through jumps and choices alone.
    pub(super) fn new(program: &Program) -> Result<AbsentPieces, Decline> {
        let mut codes = CodeSet::default();
        let mut seen = vec![false; program.insts.len()];
        let mut todo: Vec<Pc> = vec![program.start];
        while let Some(pc) = todo.pop() {
            if std::mem::replace(&mut seen[pc as usize], true) {
                continue;
            }
            match program.insts[pc as usize] {
                Inst::Jump { to } => todo.push(to),
                Inst::Split { first, second } => todo.extend([first, second]),
                Inst::Bind { id, .. } => {
                    codes = codes.union(&CodeSet::of(program.binds[id.index()].iter().copied()))
                }
                _ => return Err(Decline::NotBoundFirst),
            }
        }
        Ok(AbsentPieces(codes.codes().collect()))
    }

    /// Whether none of the pieces stands on the query's position.
    fn absent(&self, query: &Query<'_>) -> bool {
        (self.0.iter()).all(|&c| query.occupied.get(c as usize).is_none_or(|&s| s == 0))
    }
}

impl Strategy for AbsentPieces {
    fn name(&self) -> &'static str {
        "absent-pieces"
    }

    fn takes(&self, question: Question) -> bool {
        question != Question::ChangesAt
    }

    fn codes(&self) -> usize {
        self.0.iter().map(|&c| c as usize + 1).max().unwrap_or(1)
    }

    fn each(
        &self,
        query: &mut Query<'_>,
        _found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        self.absent(query).then_some(Ok(()))
    }

    fn count(&self, query: &mut Query<'_>, _keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        self.absent(query).then_some(Ok(0))
    }

    fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        self.absent(query).then_some(Ok(false))
    }
}
