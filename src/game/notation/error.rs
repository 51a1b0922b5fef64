//! Why a FEN or a typed move is refused.

use miette::Diagnostic;
use thiserror::Error;

/// Why a FEN string does not describe a position of this game.
#[derive(Clone, Debug, PartialEq, Eq, Error, Diagnostic)]
pub enum FenError {
    /// A field is wrong; the message says which and why.
    #[error("bad FEN: {field} field: {reason}")]
    #[diagnostic(code = "chessalg::game::fen")]
    Field {
        /// Which field (`board`, `turn`, `rights (third)`, `target square (fourth)`, `halfmove clock`, `move number`).
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The position reads, but could not arise in the game.
    #[error("implausible FEN: {reason}")]
    #[diagnostic(code = "chessalg::game::implausible_fen", help("`--lenient` loads it anyway"))]
    Implausible {
        /// Why not, for the first thing found.
        reason: String,
    },
}

/// A [`FenError`] for `field`, saying why.
pub(super) fn bad(field: &'static str, reason: impl Into<String>) -> FenError {
    FenError::Field {
        field,
        reason: reason.into(),
    }
}

/// Why a typed move does not name one legal move.
#[derive(Clone, Debug, PartialEq, Eq, Error, Diagnostic)]
pub enum MoveInputError {
    /// No legal move reads that way.
    #[error("`{text}` is not a legal move")]
    #[diagnostic(code = "chessalg::game::illegal_move")]
    NoMatch {
        /// What was typed.
        text: String,
    },
    /// Several legal moves read that way.
    #[error("`{text}` could be any of {}", candidates.join(", "))]
    #[diagnostic(code = "chessalg::game::ambiguous_move")]
    Ambiguous {
        /// What was typed.
        text: String,
        /// The SAN of each move it could be.
        candidates: Vec<String>,
    },
}
