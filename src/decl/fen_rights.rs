//! `fen rights K ♔° e1 ♖° h1`: a FEN castling-rights letter and the marked
//! pieces on named squares it stands for.

use super::{Collect, Declare};
use crate::core::{Marks, PieceId};
use crate::ir::ExpandError;
use crate::syntax::ast::FenRightsDecl;

/// A square named the FEN way: file letter and rank number (`e1`), 0-based;
/// a rank alone (`1`) stands for every square of the rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquareName {
    /// Column from the left, `a` = 0 (`None`: any square of the rank).
    pub file: Option<u32>,
    /// Row from the bottom, `1` = 0.
    pub rank: u32,
}

/// Reads `e1` as file 4, rank 0, and `1` as rank 0 (any file).
pub fn square_name(text: &str) -> Option<SquareName> {
    let file = text
        .chars()
        .next()
        .filter(char::is_ascii_lowercase)
        .map(|c| c as u32 - 'a' as u32);
    let digits = if file.is_some() { &text[1..] } else { text };
    let rank: u32 = digits.parse().ok()?;
    (rank >= 1).then_some(SquareName { file, rank: rank - 1 })
}

/// `fen rights K ♔° e1 ♖° h1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RightsLetter {
    /// The FEN letter.
    pub letter: char,
    /// The marked pieces it stands for and their squares.
    pub squares: Vec<(PieceId, Marks, SquareName)>,
}

impl Declare for FenRightsDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let mut squares = Vec::new();
        for (p, sq) in &self.squares {
            let Some((piece, marks)) = cx.marked_piece(p) else {
                continue;
            };
            match square_name(&sq.text) {
                Some(name) => squares.push((piece, marks, name)),
                None => cx.error(ExpandError::BadSquareName {
                    span: sq.span,
                    name: sq.text.clone(),
                }),
            }
        }
        cx.spec.rights.push(RightsLetter {
            letter: self.letter,
            squares,
        });
    }
}
