//! `fen target ♙ᵉ d`: the FEN en passant field names the square at this
//! movement from the marked piece.

use super::{Collect, Declare};
use crate::core::{Marks, Offset, PieceId};
use crate::ir::movement_of_word;
use crate::syntax::ast::FenTargetDecl;

/// `fen target ♙ᵉ d`: the en passant square is at `offset` from the marked piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetRule {
    /// The piece.
    pub piece: PieceId,
    /// The marks it carries.
    pub marks: Marks,
    /// From the piece to each square the field lists (one for chess's en
    /// passant square; two for a pawn that steps diagonally).
    pub offsets: Vec<Offset>,
}

impl Declare for FenTargetDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if let Some((piece, marks)) = cx.marked_piece(&self.piece) {
            let offsets = self
                .offsets
                .iter()
                .map(|o| movement_of_word(&o.text))
                .map(|m| Offset::new(m.dx, m.dy))
                .collect();
            cx.spec.targets.push(TargetRule {
                piece,
                marks,
                offsets,
            });
        }
    }
}
