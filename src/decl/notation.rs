//! `notation numbered` or `notation coordinates [partner] [walls]`: how squares,
//! moves and positions are written.

use super::{Collect, Declare};
use crate::syntax::ast::NotationDecl;

/// How squares, moves and positions are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Notation {
    /// Squares by file letter and rank number (`e4`), moves by their squares
    /// (`e2e4`) or SAN, positions in FEN (the default).
    #[default]
    Coordinates,
    /// As `Coordinates`, but a royal piece's move with a partner (SAN's
    /// `O-O`) is named by the royal piece's square and the partner's (`e1h1`).
    CoordinatesByPartner,
    /// Squares numbered 1, 2, ... in reading order of the board diagram;
    /// moves `11-15`, captures with every landing square (`15x24x31`),
    /// positions as `B:W21,22:B1,K2`.
    Numbered,
}

impl Declare for NotationDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once("notation", self.span) {
            cx.spec.notation = match (self.numbered, self.partner) {
                (true, _) => Notation::Numbered,
                (false, false) => Notation::Coordinates,
                (false, true) => Notation::CoordinatesByPartner,
            };
            cx.spec.wall_names = self.walls;
        }
    }
}
