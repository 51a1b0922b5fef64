//! chessalg: an interpreter for the chess algebra.
//!
//! Rules flow through layers, each depending only on the ones before it, the
//! way the `regex` crate layers parse, HIR, NFA and engines:
//!
//! 1. [`syntax`]: rule-file text to a typed AST with spans (a pest grammar,
//!    `grammar/chessalg.pest`).
//! 2. [`expand`]: the AST to the core IR: names, functions, movements,
//!    `colour_swapped` and `flipped` resolved; printable as canonical text.
//! 3. [`compile`]: the core IR to a matcher program.
//! 4. [`engine`]: positions, and the backtracking search that applies a
//!    program to a position.
//!
//! 5. [`game`]: turns, legality, outcomes, FEN, SAN, PGN and the AI, for any
//!    game a rule file declares; [`play`]: a match in progress.
//!
//! Front ends (the `chessalg` binary's `cli`) sit on top and are the only
//! place that prints.

pub mod compile;
pub mod engine;
pub mod expand;
pub mod game;
pub mod play;
pub mod report;
pub mod source;
pub mod syntax;
