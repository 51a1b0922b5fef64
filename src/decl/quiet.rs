//! `quiet resets capture gain ♙ ♟`: what restarts the count of quiet plies that
//! `outcome quiet N` looks at.

use super::{Collect, Declare};
use crate::core::PieceId;
use crate::syntax::ast::QuietDecl;

/// What restarts the `quiet` count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuietResets {
    /// A move that leaves an opponent fewer pieces.
    pub capture: bool,
    /// A move that leaves the mover more pieces.
    pub gain: bool,
    /// A move of one of these pieces (its piece of interest).
    pub pieces: Vec<PieceId>,
}

impl Declare for QuietDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        for (name, span) in &self.items {
            if name == "capture" {
                cx.spec.quiet_resets.capture = true;
                continue;
            }
            if name == "gain" {
                cx.spec.quiet_resets.gain = true;
                continue;
            }
            let c = name.chars().next().unwrap_or(' ');
            if let Some(p) = cx.piece(c, *span) {
                cx.spec.quiet_resets.pieces.push(p);
            }
        }
    }
}
