//! `game NAME`: the game's name.

use super::{Collect, Declare, Pass};
use crate::syntax::ast::GameDecl;

impl Declare for GameDecl {
    fn pass(&self) -> Pass {
        Pass::Names
    }

    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once("game", self.name.span) {
            cx.spec.name = Some(self.name.text.clone());
        }
    }
}
