//! `players white black`: the players, in turn order.

use super::{Collect, Declare, Pass};
use crate::source::Span;
use crate::syntax::ast::PlayersDecl;

impl Declare for PlayersDecl {
    fn pass(&self) -> Pass {
        Pass::Names
    }

    fn declare(&self, cx: &mut Collect<'_>) {
        let span = self.players.first().map_or(Span::default(), |p| p.span);
        if cx.once("players", span) {
            cx.spec.players = self.players.iter().map(|p| p.text.clone()).collect();
        }
    }
}
