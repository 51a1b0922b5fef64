//! chessalg: an interpreter for the chess algebra.
//!
//! Rules flow through layers, each depending only on the ones before it, the
//! way the `regex` crate layers parse, HIR, NFA and engines:
//!
//! 0. [`core`]: the shared vocabulary (pieces and marks, players, geometry,
//!    square contents, the one [`core::Change`]); depends on nothing.
//! 1. [`syntax`]: rule-file text to a typed AST with spans (a pest grammar,
//!    `grammar/chessalg.pest`).
//! 2. [`ir`]: the AST expanded to the core IR: names, functions, movements,
//!    `colour_swapped` and `flipped` resolved; printable as canonical text.
//! 3. [`decl`]: the game a rule file declares, checked against the file,
//!    one module per declaration kind.
//! 4. [`program`]: the core IR compiled to a matcher program.
//! 5. [`engine`]: positions, and the strategies that run a game's programs
//!    on them (square sets, the walker, the backtracker as the reference),
//!    chosen per program by the [`engine::Engine`].
//! 6. [`game`]: a playable game: state made and taken back, legality and
//!    turn policies, outcomes, perft, FEN, SAN and PGN.
//! 7. [`ai`]: a player for any game; [`session`]: a game in progress.
//! 8. Protocols and tools over games and rule files: [`uci`] for engine
//!    GUIs, [`lsp`] for editors, [`inspect`] for authors, [`web`] for the
//!    browser ([`lsp`] and [`web`] behind the cargo features of those
//!    names, on by default; the Python package builds without them).
//!
//! Front ends (the `chessalg` binary's `cli`) sit on top and are the only
//! place that prints.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod ai;
pub mod bundled;
pub mod core;
pub mod decl;
pub mod engine;
pub mod file;
pub mod game;
pub mod inspect;
pub mod ir;
pub mod learn;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod program;
pub mod report;
pub mod session;
pub mod source;
pub mod syntax;
pub mod uci;
#[cfg(feature = "web")]
pub mod web;
