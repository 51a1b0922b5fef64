//! Positions and the backtracking search over them.
//!
//! A [`Position`] is a finite set of squares at integer coordinates, each
//! empty or holding a piece. [`search`] runs a compiled [`Program`] against a
//! position and yields every resulting position once, as a change list
//! ([`Outcome`]); [`apply`] is the convenience that returns the positions
//! themselves, sorted. The search keeps its scratch in a [`Cache`] separate
//! from the program, edits one working board in place and undoes on
//! backtracking, and is bounded by [`Limits`]: a runaway rule ends in an
//! [`EngineError`], never a hang.

mod board;
mod hash;
mod position;
mod search;

pub use position::{DiagramError, Position};
pub use search::{
    BoardView, Cache, NoAttacks, Oracle, Outcome, Outcomes, Suspects, search, search_changes_loaded,
    search_with, suspects,
};

use miette::Diagnostic;
use thiserror::Error;

use crate::program::Program;

/// Bounds on one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most states (arrivals at loop heads and join points, guards and
    /// ordered choices included) one search may count.
    pub max_states: u64,
    /// The most cells the working grid may grow to when replacements create
    /// squares outside the board.
    pub max_cells: usize,
}

impl Limits {
    /// The default cap on states explored per search.
    pub const DEFAULT_MAX_STATES: u64 = 1_000_000;
    /// The default cap on the working grid's size.
    pub const DEFAULT_MAX_CELLS: usize = 1 << 24;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_states: Self::DEFAULT_MAX_STATES,
            max_cells: Self::DEFAULT_MAX_CELLS,
        }
    }
}

/// Why a search stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq, Error, Diagnostic)]
pub enum EngineError {
    /// The search explored more states than [`Limits::max_states`].
    #[error("the search explored more than {limit} states without finishing")]
    #[diagnostic(
        code(chessalg::engine::state_limit),
        help(
            "a rule such as `(. -> X)*` on a large board has astronomically many results; \
             if the search is meant to be this large, raise the limit (`--max-states`)"
        )
    )]
    StateLimit {
        /// The limit that was reached.
        limit: u64,
    },
    /// Replacements grew the board beyond [`Limits::max_cells`].
    #[error("replacements grew the board beyond {limit} cells")]
    #[diagnostic(
        code(chessalg::engine::board_limit),
        help("a rule that keeps creating squares outside the board never reaches a fixpoint")
    )]
    BoardLimit {
        /// The limit that was reached.
        limit: usize,
    },
}

/// Every position `program` leads to from `position`, each once, sorted (see
/// [`Position`]'s ordering: reading order, square by square).
pub fn apply(program: &Program, position: &Position, limits: &Limits) -> Result<Vec<Position>, EngineError> {
    let mut cache = Cache::new();
    let outcomes = search(program, position, &mut cache, limits)?;
    let mut out: Vec<Position> = outcomes
        .iter()
        .map(|o| position.with_changes(o.changes))
        .collect();
    out.sort_unstable();
    Ok(out)
}
