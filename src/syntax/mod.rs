//! The syntax layer: rule-file text to a typed AST with spans.
//!
//! The grammar is `grammar/chessalg.pest`; [`parse_file`] and
//! [`parse_expression`] are the entry points, [`mod@print`] shows an AST as an
//! S-expression (what the parse snapshots check).

pub mod ast;
mod declaration;
mod error;
mod format;
mod parse;
pub mod print;

pub use error::SyntaxError;

/// The words that begin a declaration line (the grammar's `*_decl` rules).
pub const DECLARATION_KEYWORDS: [&str; 20] = [
    "import", "weights", "piece", "game", "players", "player", "edge", "labels", "mark", "box", "region",
    "board", "moves", "outcome", "quiet", "legality", "search", "turns", "notation", "fen",
];
pub use format::format_file;
pub use parse::{MAX_COUNT, MAX_EXPONENT, MAX_NESTING, parse_expression, parse_file};

#[cfg(test)]
mod tests;
pub(crate) use declaration::declarations;
