//! Errors of the syntax layer: text that is not a rule file.

use miette::Diagnostic;
use thiserror::Error;

use crate::source::Span;

/// Something wrong with the text itself, before any meaning is looked at.
#[derive(Clone, Debug, Error, Diagnostic, PartialEq, Eq)]
pub enum SyntaxError {
    /// The parser expected something else here.
    #[error("expected {expected}")]
    #[diagnostic(code = "chessalg::syntax::expected", help("{help}"))]
    Expected {
        /// Where parsing stopped.
        #[label("found {found} here")]
        span: Span,
        /// A readable list of what would have fit.
        expected: String,
        /// What was there instead.
        found: String,
        /// How to fix it.
        help: String,
    },

    /// The text is not UTF-8.
    #[error(
        "the text is not valid UTF-8: line {line}, column {column} (byte {offset}) starts an invalid sequence"
    )]
    #[diagnostic(
        code = "chessalg::syntax::not_utf8",
        help("rule files are UTF-8 text: save the file as UTF-8 (the byte is shown as �)")
    )]
    NotUtf8 {
        /// Byte offset of the first invalid byte.
        offset: usize,
        /// Its line, from 1.
        line: usize,
        /// Its column in characters, from 1.
        column: usize,
    },

    /// Brackets nest deeper than the parser allows.
    #[error("brackets nest more than {limit} deep")]
    #[diagnostic(
        code = "chessalg::syntax::too_deep",
        help("split the expression into named definitions")
    )]
    TooDeep {
        /// The bracket that went past the limit.
        #[label("nesting limit reached here")]
        span: Span,
        /// The limit.
        limit: usize,
    },

    /// `%p:` bindings and brackets nest deeper than the parser allows.
    #[error("`%p:` bindings and brackets nest more than {limit} deep")]
    #[diagnostic(
        code = "chessalg::syntax::too_deep",
        help(
            "a `%p:` binding takes everything to its right up to the bracket that closes it, so each one nests; bind the piece once, or split the expression into named definitions"
        )
    )]
    TooDeepBinding {
        /// The binding or bracket that went past the limit.
        #[label("nesting limit reached here")]
        span: Span,
        /// The limit.
        limit: usize,
    },

    /// More suffixes on one operand than the parser allows.
    #[error("more than {limit} suffixes on one operand")]
    #[diagnostic(
        code = "chessalg::syntax::too_many_suffixes",
        help(
            "each suffix (`*`, `+`, `?`, `{{n}}`, `<n>`, `^n`, `²`) applies to the operand with the suffixes before it; write the repetition once, e.g. `M{{2, 5}}`, or name the repeated part"
        )
    )]
    TooManySuffixes {
        /// The first suffix past the limit.
        #[label("suffix limit reached here")]
        span: Span,
        /// The limit.
        limit: usize,
    },

    /// A bracket that is opened and never closed.
    #[error("this bracket is never closed")]
    #[diagnostic(
        code = "chessalg::syntax::unclosed",
        help("add `{expected}` where the bracketed part ends")
    )]
    Unclosed {
        /// The opening bracket.
        #[label("opened here")]
        span: Span,
        /// The closing bracket it needs.
        expected: char,
    },

    /// A closing bracket with no opening one.
    #[error("`{found}` closes a bracket that was never opened")]
    #[diagnostic(
        code = "chessalg::syntax::unopened",
        help("delete it, or open the bracket where it should start")
    )]
    Unopened {
        /// The closing bracket.
        #[label("nothing to close")]
        span: Span,
        /// The bracket.
        found: char,
    },

    /// A closing bracket of the wrong kind.
    #[error("expected `{expected}` but found `{found}`")]
    #[diagnostic(
        code = "chessalg::syntax::mismatched",
        help("brackets close in the order they were opened")
    )]
    Mismatched {
        /// The closing bracket.
        #[label("this closes the wrong bracket")]
        span: Span,
        /// The bracket it should close.
        #[label("this is still open")]
        open: Span,
        /// The bracket expected.
        expected: char,
        /// The bracket found.
        found: char,
    },

    /// A power that is not an integer, or out of range.
    #[error("malformed power")]
    #[diagnostic(
        code = "chessalg::syntax::malformed_power",
        help("a power is an integer, e.g. `u^3`, `u^-1`, `R²` or `u⁻¹`, of at most a million in size")
    )]
    MalformedPower {
        /// The power as written.
        #[label("this power")]
        span: Span,
    },

    /// A place whose rank is not a number from 1 to 256.
    #[error("`{text}` is not a place on a board")]
    #[diagnostic(
        code = "chessalg::syntax::bad_place",
        help(
            "a place is a file letter and a rank from 1 to 256 (`@d4`), a file alone (`@d`) or a rank alone (`@4`)"
        )
    )]
    BadPlace {
        /// The place as written.
        #[label("this place")]
        span: Span,
        /// Its text.
        text: String,
    },

    /// Repetition bounds that are not counts, or out of order.
    #[error("bad repetition bounds: {reason}")]
    #[diagnostic(
        code = "chessalg::syntax::repetition_bounds",
        help("write `M{{n}}`, `M{{i, j}}` with 0 <= i <= j <= {max_count}, `M{{i,}}` or `M<n>`")
    )]
    RepetitionBounds {
        /// The bounds as written.
        #[label("these bounds")]
        span: Span,
        /// What is wrong with them.
        reason: String,
        /// The largest count allowed.
        max_count: u32,
    },
}

impl SyntaxError {
    /// The error for `bytes`, valid UTF-8 up to `offset`: where that byte is.
    pub fn not_utf8(bytes: &[u8], offset: usize) -> SyntaxError {
        let before = String::from_utf8_lossy(&bytes[..offset.min(bytes.len())]);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        SyntaxError::NotUtf8 { offset, line, column }
    }

    /// Where the error is, when it has a place in the text.
    pub fn span(&self) -> Option<Span> {
        match self {
            SyntaxError::Expected { span, .. }
            | SyntaxError::TooDeep { span, .. }
            | SyntaxError::TooDeepBinding { span, .. }
            | SyntaxError::TooManySuffixes { span, .. }
            | SyntaxError::Unclosed { span, .. }
            | SyntaxError::Unopened { span, .. }
            | SyntaxError::Mismatched { span, .. }
            | SyntaxError::MalformedPower { span }
            | SyntaxError::BadPlace { span, .. }
            | SyntaxError::RepetitionBounds { span, .. } => Some(*span),
            // Shown in the text read with the bad byte as U+FFFD (three bytes).
            SyntaxError::NotUtf8 { offset, .. } => Some(Span::new(*offset, *offset + '\u{FFFD}'.len_utf8())),
        }
    }
}
