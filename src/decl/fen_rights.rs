//! `fen rights K ♔° e1 ♖° h1`: a FEN castling-rights letter and the marked
//! pieces on named squares it stands for.

use super::{Collect, Declare};
use crate::core::{Marks, PieceId};
use crate::ir::ExpandError;
use crate::syntax::ast::FenRightsDecl;

/// A square named the FEN way: file letter and rank number (`e1`), 0-based;
/// a rank alone (`1`) stands for every square of the rank, `1<` and `1>`
/// for the piece's first square on the rank from the left or the right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquareName {
    /// Which squares of the rank.
    pub files: Files,
    /// Row from the bottom, `1` = 0.
    pub rank: u32,
}

/// Which squares of a rank a [`SquareName`] stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Files {
    /// One file, `a` = 0.
    One(u32),
    /// Every square of the rank (`1`).
    Any,
    /// The first square from the left holding the piece (`1<`).
    FirstFromLeft,
    /// The first square from the right holding the piece (`1>`).
    FirstFromRight,
}

/// Reads `e1` as file 4, rank 0, `1` as rank 0 (any file), `1<` and `1>`
/// as the piece's leftmost and rightmost square of rank 0.
pub fn square_name(text: &str) -> Option<SquareName> {
    let file = text
        .chars()
        .next()
        .filter(char::is_ascii_lowercase)
        .map(|c| c as u32 - 'a' as u32);
    let digits = if file.is_some() { &text[1..] } else { text };
    let (digits, files) = match (file, digits.strip_suffix('<'), digits.strip_suffix('>')) {
        (Some(f), None, None) => (digits, Files::One(f)),
        (None, None, None) => (digits, Files::Any),
        (None, Some(d), _) => (d, Files::FirstFromLeft),
        (None, _, Some(d)) => (d, Files::FirstFromRight),
        _ => return None,
    };
    let rank: u32 = digits.parse().ok()?;
    (rank >= 1).then_some(SquareName {
        files,
        rank: rank - 1,
    })
}

impl SquareName {
    /// Whether the name picks one square by what stands there (`1<`, `1>`):
    /// such a letter is read from a FEN but never written (another letter
    /// names the same right by its file).
    pub fn searches(&self) -> bool {
        matches!(self.files, Files::FirstFromLeft | Files::FirstFromRight)
    }
}

/// `fen rights K ♔° e1 ♖° h1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RightsLetter {
    /// The FEN letter.
    pub letter: char,
    /// The marked pieces it stands for (`None`: any piece, `_°`) and their squares.
    pub squares: Vec<(Option<PieceId>, Marks, SquareName)>,
}

impl Declare for FenRightsDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let mut squares = Vec::new();
        for (p, sq) in &self.squares {
            let (piece, marks) = if p.piece == '_' {
                match cx.marks_of(p) {
                    Some(marks) => (None, marks),
                    None => continue,
                }
            } else {
                match cx.marked_piece(p) {
                    Some((piece, marks)) => (Some(piece), marks),
                    None => continue,
                }
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
