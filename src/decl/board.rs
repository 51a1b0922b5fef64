//! `board` and its diagram: the initial position.

use super::{Collect, Declare, Pass};
use crate::core::{Marks, Offset, PieceId};
use crate::ir::ExpandError;
use crate::source::Span;
use crate::syntax::ast::BoardDecl;

/// One square of the initial position: empty, or a piece with marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardCell {
    /// An empty square.
    Empty,
    /// A piece with its marks.
    Piece(PieceId, Marks),
}

impl Declare for BoardDecl {
    fn pass(&self) -> Pass {
        Pass::Names
    }

    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once("board", self.span) {
            cx.spec.board = squares(self, cx);
            cx.spec.board_drawing = self.drawing.unwrap_or_default();
        }
    }
}

/// The diagram's squares: rows top to bottom, a piece then its marks, `.`
/// empty, a space no square.
fn squares(b: &BoardDecl, cx: &mut Collect<'_>) -> Vec<(Offset, BoardCell)> {
    let height = b.rows.len() as i32;
    let mut squares = Vec::new();
    for (row, (text, span)) in b.rows.iter().enumerate() {
        let y = height - 1 - row as i32;
        let mut x = -1;
        for (i, c) in text.char_indices() {
            let at = Span::new(span.start + i, span.start + i + c.len_utf8());
            if let Some(m) = cx.pieces().mark(c) {
                match squares.last_mut() {
                    Some((o, BoardCell::Piece(_, marks))) if *o == Offset::new(x, y) => {
                        *marks = marks.union(m)
                    }
                    _ => cx.error(ExpandError::BadMarks { span: at }),
                }
                continue;
            }
            if matches!(c, '\u{FE0E}' | '\u{FE0F}') {
                continue;
            }
            x += 1;
            match c {
                ' ' => {}
                '.' => squares.push((Offset::new(x, y), BoardCell::Empty)),
                _ => match cx.pieces().lookup(c) {
                    Some(p) => squares.push((Offset::new(x, y), BoardCell::Piece(p, Marks::NONE))),
                    None => cx.error(ExpandError::BadBoardSymbol { span: at, symbol: c }),
                },
            }
        }
    }
    if squares.is_empty() {
        cx.error(ExpandError::EmptyBoard { span: b.span });
    }
    ragged_rows(b, cx);
    squares
}

/// Warns for rows shorter than the longest where the diagram writes no
/// hole: a row ends early by mistake more often than on purpose.
fn ragged_rows(b: &BoardDecl, cx: &mut Collect<'_>) {
    if b.rows.iter().any(|(text, _)| text.contains(' ')) {
        return;
    }
    let length = |text: &str| {
        text.chars()
            .filter(|&c| cx.pieces().mark(c).is_none() && !matches!(c, '\u{FE0E}' | '\u{FE0F}'))
            .count()
    };
    let lengths: Vec<usize> = b.rows.iter().map(|(t, _)| length(t)).collect();
    let longest = lengths.iter().copied().max().unwrap_or(0);
    for ((text, span), n) in b.rows.iter().zip(lengths) {
        if n < longest && !text.is_empty() {
            cx.error(ExpandError::RaggedRow {
                span: *span,
                squares: n,
                longest,
            });
        }
    }
}
