//! The vocabulary every layer shares, with no dependency on any of them:
//! pieces and marks, geometry (offsets, movements, coordinates), what a
//! square holds and how it is encoded, the one change a move makes, and the
//! one deterministic random source (the AI's tie-breaks, generated tests).
//!
//! Nothing here knows about rule files, programs or games; the layers above
//! import these types instead of each other's.

pub mod budget;
mod content;
mod geometry;
pub mod memory;
mod piece;
mod player;
mod rng;

pub use content::{Change, Content, MAX_PIECES};
pub(crate) use content::{
    Code, CodeSet, EMPTY, MARK_BITS, OFF, as_piece, at_least, has_marks, piece as piece_code, same_but_marks,
    with_marks,
};
pub(crate) use geometry::write_steps;
pub use geometry::{Coord, MAX_TRANSLATION, Movement, MovementOverflow, Offset, superscript};
pub use piece::{BoxId, MAX_MARKS, Marks, PieceId, PieceTable};
pub use player::PlayerId;
pub use rng::Rng;
