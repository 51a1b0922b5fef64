//! What can stop a move from compiling.

use miette::Diagnostic;
use thiserror::Error;

/// Which side of a rewrite a problem is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RewriteSide {
    /// The pattern to find (`f` in `f -> g`).
    Left,
    /// The replacement (`g` in `f -> g`).
    Right,
}

impl std::fmt::Display for RewriteSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RewriteSide::Left => "left",
            RewriteSide::Right => "right",
        })
    }
}

/// A move the compiler cannot turn into a matcher program.
#[derive(Clone, Debug, PartialEq, Eq, Error, Diagnostic)]
pub enum CompileError {
    /// `%` is used in a rewrite that no `%p:` encloses.
    #[error("`%` on the {side} of a rewrite, but no piece of interest is bound here")]
    #[diagnostic(
        code = "chessalg::compile::unbound_poi",
        help("wrap the move in `%p: ...` to say which piece `%` stands for")
    )]
    UnboundPoi {
        /// The side of the rewrite that uses `%`.
        side: RewriteSide,
    },

    /// `attacked` is used where no piece of interest is bound.
    #[error("`attacked` asks about the square of the piece of interest, but none is bound here")]
    #[diagnostic(
        code = "chessalg::compile::attacked_without_poi",
        help("use `attacked` inside `%p: ...`, e.g. `%X: !{{attacked}} M`")
    )]
    AttackedWithoutPoi,

    /// `%from:` is used where no piece of interest is bound.
    #[error("`%from:` asks where the piece of interest started, but none is bound here")]
    #[diagnostic(
        code = "chessalg::compile::origin_without_poi",
        help("use `%from: ...` inside `%p: ...`, after the piece has moved, e.g. `%X: M (%from: N)`")
    )]
    OriginWithoutPoi,

    /// A left side with no square that must be on the board matches everywhere.
    #[error(
        "the left side of a rewrite has no square that must be on the board, so it matches at infinitely many places"
    )]
    #[diagnostic(
        code = "chessalg::compile::unanchored_pattern",
        help("add a square that must exist (`.`, a piece or `%`) to every alternative of the pattern")
    )]
    Unanchored,

    /// One choice of a replacement writes `%` on more than one square.
    #[error(
        "one choice of a replacement writes `%` on {count} squares; the piece of interest can only be on one"
    )]
    #[diagnostic(
        code = "chessalg::compile::several_poi_writes",
        help(
            "write `%` on one square of the replacement; name the piece on the others (`% + r. -> X + r%`)"
        )
    )]
    SeveralPoiWrites {
        /// How many `%` the choice writes.
        count: usize,
    },

    /// A pattern has too many alternatives once its `|` are multiplied out.
    #[error("a pattern has more than {limit} alternatives once its `|` choices are multiplied out")]
    #[diagnostic(
        code = "chessalg::compile::too_many_alternatives",
        help("split the rule into a union of smaller rewrites")
    )]
    TooManyAlternatives {
        /// The most alternatives one rewrite side may have.
        limit: usize,
    },

    /// `%p:` names something that is not a piece.
    #[error("`%p:` must name pieces; `{what}` is not a piece")]
    #[diagnostic(
        code = "chessalg::compile::poi_not_a_piece",
        help("name one or more pieces after `%`, as in `%X:` or `%(X | Y):`")
    )]
    PoiNotAPiece {
        /// What was named instead (`.`, `%` or `#`).
        what: &'static str,
    },

    /// The program would be larger than the compiler allows.
    #[error("the compiled program would have more than {limit} instructions")]
    #[diagnostic(
        code = "chessalg::compile::program_too_large",
        help("large repetition counts such as `M{{1000}}` are unrolled; use `*` or `+` instead")
    )]
    TooLarge {
        /// The most instructions a program may have.
        limit: usize,
    },

    /// Moves are nested deeper than the compiler allows.
    #[error("moves are nested more than {limit} levels deep")]
    #[diagnostic(
        code = "chessalg::compile::nesting_too_deep",
        help(
            "guards, ordered choices and `%p:` nest a level each; give inner parts names and simplify them"
        )
    )]
    TooDeep {
        /// The deepest nesting allowed.
        limit: usize,
    },

    /// The piece table declares more pieces than positions can hold.
    #[error("{count} pieces are declared; at most {limit} are supported")]
    #[diagnostic(
        code = "chessalg::compile::too_many_pieces",
        help("declare fewer `piece` symbols")
    )]
    TooManyPieces {
        /// How many are declared.
        count: usize,
        /// The most supported.
        limit: usize,
    },
}
