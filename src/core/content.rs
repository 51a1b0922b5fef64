//! What a square holds ([`Content`]), the same as one small integer ([`Code`])
//! for the compiler and the engine, and the one [`Change`] a move makes to a square.

use super::geometry::Coord;
use super::piece::{Marks, PieceId};

/// What a square holds, as one number: [`OFF`] (not a square), [`EMPTY`], or
/// a piece with its marks (`2 + id * 16 + marks`).
pub(crate) type Code = u16;

/// Bits a code keeps for a piece's marks.
pub(crate) const MARK_BITS: u32 = 4;

/// A coordinate that is not a square of the board.
pub(crate) const OFF: Code = 0;

/// An empty square.
pub(crate) const EMPTY: Code = 1;

/// The most pieces a table may declare (their codes must fit in 16 bits).
pub const MAX_PIECES: usize = ((u16::MAX - 2) >> MARK_BITS) as usize;

/// The code of a square holding `piece` with `marks`.
pub(crate) fn piece(piece: PieceId, marks: Marks) -> Code {
    2 + (piece.0 << MARK_BITS) + marks.0 as Code
}

/// The piece and marks a code stands for, if it stands for a piece.
pub(crate) fn as_piece(code: Code) -> Option<(PieceId, Marks)> {
    (code >= 2).then(|| {
        let c = code - 2;
        (PieceId(c >> MARK_BITS), Marks((c & ((1 << MARK_BITS) - 1)) as u8))
    })
}

/// The same piece as `code`, with exactly `marks`.
pub(crate) fn with_marks(code: Code, marks: Marks) -> Code {
    match as_piece(code) {
        Some((p, _)) => piece(p, marks),
        None => code,
    }
}

/// Whether `a` and `b` hold the same thing but for marks: a move that
/// changes a square only from one to the other does not attack what
/// stands there (`attacked`).
pub(crate) fn same_but_marks(a: Code, b: Code) -> bool {
    with_marks(a, Marks::NONE) == with_marks(b, Marks::NONE)
}

/// Whether `code` is a piece carrying at least `marks`.
pub(crate) fn has_marks(code: Code, marks: Marks) -> bool {
    as_piece(code).is_some_and(|(_, m)| m.contains(marks))
}

/// The codes of `piece` with at least `marks`, among `mark_count` declared marks.
pub(crate) fn at_least(p: PieceId, marks: Marks, mark_count: usize) -> impl Iterator<Item = Code> {
    (0u8..(1u8 << mark_count.min(MARK_BITS as usize)))
        .map(Marks)
        .filter(move |m| m.contains(marks))
        .map(move |m| piece(p, m))
}

/// A set of codes, one bit each; codes below 256 (all of chess) need no heap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CodeSet {
    low: [u64; 4],
    high: Box<[u64]>,
}

impl CodeSet {
    /// The set of the given codes.
    pub(crate) fn of(codes: impl IntoIterator<Item = Code>) -> Self {
        let mut set = CodeSet::default();
        let mut high: Vec<u64> = Vec::new();
        for c in codes {
            if c < 256 {
                set.low[c as usize >> 6] |= 1 << (c % 64);
            } else {
                let i = (c as usize - 256) / 64;
                if high.len() <= i {
                    high.resize(i + 1, 0);
                }
                high[i] |= 1 << (c % 64);
            }
        }
        set.high = high.into_boxed_slice();
        set
    }

    /// Whether `code` is in the set.
    #[inline]
    pub(crate) fn contains(&self, code: Code) -> bool {
        if code < 256 {
            self.low[code as usize >> 6] >> (code % 64) & 1 == 1
        } else {
            let i = (code as usize - 256) / 64;
            self.high.get(i).is_some_and(|w| w >> (code % 64) & 1 == 1)
        }
    }

    /// The codes in either set.
    pub(crate) fn union(&self, other: &CodeSet) -> CodeSet {
        let (long, short) = if self.high.len() >= other.high.len() {
            (&self.high, &other.high)
        } else {
            (&other.high, &self.high)
        };
        let mut high = long.to_vec();
        for (w, o) in high.iter_mut().zip(short.iter()) {
            *w |= o;
        }
        CodeSet {
            low: std::array::from_fn(|i| self.low[i] | other.low[i]),
            high: high.into_boxed_slice(),
        }
    }

    /// The codes in the set, in increasing order.
    pub(crate) fn codes(&self) -> impl Iterator<Item = Code> + '_ {
        self.low
            .iter()
            .chain(self.high.iter())
            .enumerate()
            .flat_map(|(i, &word)| {
                let mut rest = word;
                std::iter::from_fn(move || {
                    (rest != 0).then(|| {
                        let b = rest.trailing_zeros();
                        rest &= rest - 1;
                        (i as u32 * 64 + b) as Code
                    })
                })
            })
    }

    /// Whether the set has no code.
    pub(crate) fn is_empty(&self) -> bool {
        self.low == [0; 4] && self.high.iter().all(|w| *w == 0)
    }

    /// Whether the set is exactly `{code}`.
    pub(crate) fn is_only(&self, code: Code) -> bool {
        *self == CodeSet::of([code])
    }
}

/// What a coordinate of a position holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Content {
    /// It is not a square of the board.
    NoSquare,
    /// An empty square.
    Empty,
    /// A square holding this piece, with these marks.
    Piece(PieceId, Marks),
    /// Not a square: how many of one piece a box holds (the content of a
    /// tally slot, see [`Coord::tally`]).
    Count(u16),
}

impl Content {
    pub(crate) fn code(self) -> Code {
        match self {
            Content::NoSquare => OFF,
            Content::Empty => EMPTY,
            Content::Piece(p, m) => piece(p, m),
            // A count is no square's content.
            Content::Count(_) => OFF,
        }
    }

    pub(crate) fn from_code(code: Code) -> Content {
        match code {
            OFF => Content::NoSquare,
            EMPTY => Content::Empty,
            c => {
                let (p, m) = as_piece(c).expect("codes above EMPTY are pieces");
                Content::Piece(p, m)
            }
        }
    }
}

/// One square a move changed, and what it holds afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Change {
    /// The square.
    pub at: Coord,
    /// What it holds now ([`Content::NoSquare`]: it stopped being a square).
    pub content: Content,
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_code_set_lists_its_codes_in_order() {
        let codes = [0, 1, 63, 64, 255, 256, 300, 1000];
        assert_eq!(CodeSet::of(codes).codes().collect::<Vec<_>>(), codes);
        assert_eq!(CodeSet::default().codes().count(), 0);
    }

    use super::*;

    #[test]
    fn small_and_large_codes() {
        let s = CodeSet::of([0, 5, 63, 64, 200, 256, 700]);
        for c in [0, 5, 63, 64, 200, 256, 700] {
            assert!(s.contains(c), "{c}");
        }
        for c in [1, 62, 65, 199, 255, 257, 1000] {
            assert!(!s.contains(c), "{c}");
        }
        assert!(CodeSet::of([7]).is_only(7));
        assert!(!s.is_only(0));
    }

    #[test]
    fn piece_codes_round_trip() {
        assert_eq!(
            as_piece(piece(PieceId(3), Marks(5))),
            Some((PieceId(3), Marks(5)))
        );
        assert_eq!(
            with_marks(piece(PieceId(3), Marks(5)), Marks(2)),
            piece(PieceId(3), Marks(2))
        );
        assert!(has_marks(piece(PieceId(1), Marks(3)), Marks(2)));
        assert!(!has_marks(piece(PieceId(1), Marks(1)), Marks(2)));
        let codes: Vec<Code> = at_least(PieceId(0), Marks(1), 2).collect();
        assert_eq!(
            codes,
            vec![piece(PieceId(0), Marks(1)), piece(PieceId(0), Marks(3))]
        );
        assert_eq!(as_piece(EMPTY), None);
        assert_eq!(as_piece(OFF), None);
    }
}
