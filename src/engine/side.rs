//! One side of a game as the engine sees it ([`Side`]), and who owns and
//! protects what across the sides ([`Roles`]).

use crate::core::{Code, CodeSet, MARK_BITS, Marks, PieceId, piece_code};
use crate::program::Program;

/// One side of a game as the engine sees it.
#[derive(Clone, Debug)]
pub struct Side {
    /// Its moves.
    pub moves: Program,
    /// The pieces its safe moves keep out of the other sides' reach (any marks).
    pub protected: Vec<PieceId>,
    /// The pieces it owns: `attacked` on one of them asks whether another
    /// side than this one can change its square.
    pub owned: Vec<PieceId>,
}

/// Who owns each piece and which pieces each side keeps safe, by code.
#[derive(Clone, Debug, Default)]
pub(crate) struct Roles {
    /// Per side: the codes of its protected pieces.
    pub(crate) protected: Vec<CodeSet>,
    /// Per code: the side owning the piece it stands for, if any.
    pub(crate) owner: Vec<Option<usize>>,
}

impl Roles {
    /// The roles of `sides`' pieces.
    pub(crate) fn of(sides: &[Side]) -> Roles {
        let protected = sides
            .iter()
            .map(|s| CodeSet::of(s.protected.iter().flat_map(|&p| every_code(p))))
            .collect();
        let mut owner: Vec<Option<usize>> = Vec::new();
        for (q, s) in sides.iter().enumerate() {
            for code in s.owned.iter().flat_map(|&p| every_code(p)) {
                if owner.len() <= code as usize {
                    owner.resize(code as usize + 1, None);
                }
                owner[code as usize] = Some(q);
            }
        }
        Roles { protected, owner }
    }

    /// The side `attacked` asks about for a piece of code `code` found by
    /// `side`'s search: the piece's owner, else `side`.
    pub(crate) fn defender(&self, code: Code, side: usize) -> usize {
        self.owner.get(code as usize).copied().flatten().unwrap_or(side)
    }
}

/// The codes of `piece` with every set of marks.
fn every_code(piece: PieceId) -> impl Iterator<Item = Code> {
    (0..1u8 << MARK_BITS).map(move |m| piece_code(piece, Marks(m)))
}
