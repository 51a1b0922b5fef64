//! `legality royal_safe` or `legality free`: which of a player's moves are
//! legal. Without the line, a file that declares a royal piece is royal-safe
//! and any other is free.

use super::{Collect, Declare};
use crate::syntax::ast::LegalityDecl;

/// Which of a player's moves are legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legality {
    /// Every move the rules give (`legality free`).
    Free,
    /// The moves after which no royal piece of the mover stands where an
    /// opponent's move could change its square (`legality royal_safe`).
    RoyalSafe,
}

impl Declare for LegalityDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once("legality", self.span) {
            cx.spec.legality = Some(if self.royal_safe {
                Legality::RoyalSafe
            } else {
                Legality::Free
            });
        }
    }
}
