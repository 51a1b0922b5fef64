//! `notation numbered` or `notation coordinates [partner] [walls]`: how squares,
//! moves and positions are written.

use super::{Collect, Declare};
use crate::syntax::ast::{NotationDecl, SanDecl};

/// The words SAN writes where games differ (`san promotion "+" ...`);
/// `None`: chess's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SanWords {
    /// After a promotion, instead of `=` and the piece's letter.
    pub promotion: Option<String>,
    /// After a move that could have promoted and did not.
    pub declined: Option<String>,
    /// Between a dropped piece's letter and its square (else `@`).
    pub drop: Option<String>,
    /// Before the square of a move that takes nothing.
    pub step: Option<String>,
    /// After a move that attacks a royal piece (else `+`).
    pub check: Option<String>,
}

impl Declare for SanDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once("san", self.span) {
            let mut words = SanWords::default();
            for (word, text) in &self.parts {
                let slot = match word.as_str() {
                    "promotion" => &mut words.promotion,
                    "declined" => &mut words.declined,
                    "drop" => &mut words.drop,
                    "step" => &mut words.step,
                    _ => &mut words.check,
                };
                *slot = Some(text.clone());
            }
            cx.spec.san = words;
        }
    }
}

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
