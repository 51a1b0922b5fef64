//! `players white black`: the players, in turn order.

use super::{Collect, Declare, Pass};
use crate::source::Span;
use crate::syntax::ast::{EdgeDecl, PlayerDecl, PlayersDecl};

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

impl Declare for PlayerDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let Some(p) = cx.player(&self.player) else { return };
        if !cx.display_name(&self.name, "a player's name") {
            return;
        }
        let n = cx.spec.players.len();
        cx.spec.player_names.resize(n, None);
        cx.spec.player_colours.resize(n, None);
        cx.spec.player_names[p.index()] = Some(self.name.text.clone());
        cx.spec.player_colours[p.index()] = self.colour.as_ref().map(|c| c.text.clone());
    }
}

impl Declare for EdgeDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let Some(p) = cx.player(&self.player) else { return };
        for side in &self.sides {
            cx.spec.edges.push((p, side.clone()));
        }
    }
}
