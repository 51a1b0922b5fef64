//! `moves PLAYER = EXPR`: what a player may do on their turn; every player
//! needs one.

use super::{Collect, Declare};
use crate::ir::{ExpandError, Move};
use crate::syntax::ast::MovesDecl;

impl Declare for MovesDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let Some(i) = cx.player(&self.player) else {
            return;
        };
        let key = format!("moves {}", self.player.text);
        if cx.once(&key, self.player.span)
            && let Some(mv) = cx.expand_move(&self.body, &format!("the moves of {}", self.player.text))
        {
            cx.spec.moves[i.index()] = mv;
            cx.spec.move_places[i.index()] = Some(cx.place(self.body.span));
        }
    }
}

/// Gives every player an empty move list, before the `moves` lines are read.
pub(super) fn prepare(cx: &mut Collect<'_>) {
    cx.spec.moves = vec![Move::Nil; cx.spec.players.len()];
    cx.spec.move_places = vec![None; cx.spec.players.len()];
}

/// Reports each player without a `moves` line.
pub(super) fn finish(cx: &mut Collect<'_>) {
    let Some(&(span, origin)) = cx.seen.get("players") else {
        return;
    };
    let missing: Vec<String> = cx
        .spec
        .players
        .iter()
        .filter(|p| !cx.seen.contains_key(&format!("moves {p}")))
        .cloned()
        .collect();
    for player in missing {
        cx.origin = origin;
        cx.error(ExpandError::MissingMoves { span, player });
    }
}
