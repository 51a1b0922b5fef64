//! The choice among pieces ([`crate::engine::bulk`]): the alternatives of a
//! program that are groups of pieces whose moves square sets count, and the
//! list of the alternatives it leaves, which it owns and asks first.

use super::{Question, Strategies, Strategy};
use crate::engine::bulk::Bulk;
use crate::engine::squares::{Decline, Squares};
use crate::engine::walk::{ChangeQuery, Keep, Query, TooLong, Walker};
use crate::program::Program;

/// The groups of pieces counted by square sets, and the rest's strategies.
#[derive(Debug)]
pub(super) struct Pieces {
    bulk: Bulk,
    rest: Option<Strategies>,
}

/// The groups of `walker`'s program on boards of `width` by `height`, and
/// the alternatives they leave as one program, or why there are none.
pub(super) fn split(walker: &Walker, width: u32, height: u32) -> Result<(Bulk, Option<Program>), Decline> {
    Bulk::of(walker, width, height)
}

impl Pieces {
    /// The strategy of `bulk`'s groups, with `rest` prepared for the
    /// alternatives they leave.
    pub(super) fn new(bulk: Bulk, rest: Option<Strategies>) -> Pieces {
        Pieces { bulk, rest }
    }
}

impl Strategy for Pieces {
    fn name(&self) -> &'static str {
        "pieces"
    }

    fn takes(&self, question: Question) -> bool {
        match question {
            Question::Count | Question::CountKept => true,
            Question::ChangesAt => self.bulk.answers_changes(),
            Question::Each | Question::Holds => false,
        }
    }

    fn codes(&self) -> usize {
        let rest = self.rest.as_ref().map_or(1, Strategies::codes);
        self.bulk.codes().max(rest)
    }

    fn count(&self, query: &mut Query<'_>, mut keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        let rest = match &self.rest {
            Some(rest) => match rest.count(query, keep.as_deref_mut())? {
                Ok(n) => n,
                Err(e) => return Some(Err(e)),
            },
            None => 0,
        };
        Some(Ok(rest + self.bulk.count(query.position, query.occupied, keep)))
    }

    fn changes_at(&self, query: &mut ChangeQuery<'_>) -> Option<Result<(bool, Squares), TooLong>> {
        let (hit, reads) = match &self.rest {
            Some(rest) => match rest.changes_at(query)? {
                Ok(answer) => answer,
                Err(e) => return Some(Err(e)),
            },
            None => (false, 0),
        };
        if hit {
            return Some(Ok((true, reads | 1 << query.at)));
        }
        let (hit, more) = (self.bulk).changes_at(query.base, query.occupied, query.overlay, query.at);
        Some(Ok((hit, reads | more)))
    }

    fn owned(&self) -> Vec<(String, &Strategies)> {
        (self.rest.iter())
            .map(|rest| ("rest".to_string(), rest))
            .collect()
    }
}
