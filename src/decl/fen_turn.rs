//! `fen turn x o`: the letter of FEN's turn field for each player.

use super::{Collect, Declare};
use crate::ir::ExpandError;
use crate::syntax::ast::FenTurnDecl;

impl Declare for FenTurnDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if !cx.once("fen turn", self.span) {
            return;
        }
        if self.letters.len() != cx.spec.players.len() {
            cx.error(ExpandError::TurnLetters {
                span: self.span,
                players: cx.spec.players.len(),
                letters: self.letters.len(),
            });
            return;
        }
        cx.spec.turn_letters = self.letters.clone();
    }
}
