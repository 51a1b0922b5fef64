//! `turns alternate` or `turns alternate passing`: how the turn passes.

use super::{Collect, Declare};
use crate::syntax::ast::TurnsDecl;

/// How the turn passes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TurnOrder {
    /// The players move one after another in `players` order (the default).
    #[default]
    Alternate,
    /// As `Alternate`, and a player with no legal move passes as long as
    /// another player has one (`turns alternate passing`, as in Othello).
    AlternatePassing,
}

impl Declare for TurnsDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once("turns", self.span) {
            cx.spec.turns = if self.passing {
                TurnOrder::AlternatePassing
            } else {
                TurnOrder::Alternate
            };
            if let Some(p) = &self.starting {
                cx.spec.starting = cx.player(p);
            }
        }
    }
}
