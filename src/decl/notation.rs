//! `notation numbered` or `notation coordinates`: how squares, moves and
//! positions are written.

use super::{Collect, Declare};
use crate::syntax::ast::NotationDecl;

/// How squares, moves and positions are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Notation {
    /// Squares by file letter and rank number (`e4`), moves by their squares
    /// (`e2e4`) or SAN, positions in FEN (the default).
    #[default]
    Coordinates,
    /// Squares numbered 1, 2, ... in reading order of the board diagram;
    /// moves `11-15`, captures with every landing square (`15x24x31`),
    /// positions as `B:W21,22:B1,K2`.
    Numbered,
}

impl Declare for NotationDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once("notation", self.span) {
            cx.spec.notation = if self.numbered {
                Notation::Numbered
            } else {
                Notation::Coordinates
            };
        }
    }
}
