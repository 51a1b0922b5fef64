//! `fen turn x o`: the letter of FEN's turn field for each player; `fen
//! layout full`: whether FEN writes empty rights and target fields.

use super::{Collect, Declare};
use crate::ir::ExpandError;
use crate::syntax::ast::{FenLayoutDecl, FenTurnDecl};

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

impl Declare for FenLayoutDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once("fen layout", self.span) {
            cx.spec.fen_full = Some(self.full);
        }
    }
}
