//! `search null_move off`, `search reductions off`: switches of the AI's
//! search for games where one of its shortcuts is unsound.

use super::{Collect, Declare};
use crate::syntax::ast::SearchDecl;

/// The shortcuts the AI's search may take in this game; each is on unless
/// the file (or the game's kind, see the game layer) turns it off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchSwitches {
    /// Null-move pruning, if the file says (`search null_move on|off`).
    pub null_move: Option<bool>,
    /// Late-move reductions, if the file says (`search reductions on|off`).
    pub reductions: Option<bool>,
}

impl Declare for SearchDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once(&format!("search {}", self.switch), self.span) {
            match self.switch.as_str() {
                "null_move" => cx.spec.search.null_move = Some(self.on),
                _ => cx.spec.search.reductions = Some(self.on),
            }
        }
    }
}
