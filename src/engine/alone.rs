//! One program run alone on a position (nothing is `attacked`), on the
//! backtracker: `chessalg apply` and analyses.

use crate::engine::backtrack::{self, Successors};
use crate::engine::cache::Cache;
use crate::engine::meter::{EngineError, Limits};
use crate::engine::position::Position;
use crate::program::Program;

/// Runs `program` alone on `position` (nothing is `attacked`); the results
/// live in `cache` until its next use.
pub fn search<'c>(
    program: &Program,
    position: &Position,
    cache: &'c mut Cache,
    limits: &Limits,
) -> Result<Successors<'c>, EngineError> {
    let meter = cache.clock.start(limits)?;
    let results = backtrack::search_with(
        backtrack::Compiled::plain(program),
        position,
        &mut cache.backtrack,
        &meter,
        &backtrack::NoAttacks,
    );
    cache.clock.end(&meter);
    results
}

/// Every position `program` leads to from `position`, each once, sorted (see
/// [`Position`]'s ordering: reading order, square by square).
pub fn apply(program: &Program, position: &Position, limits: &Limits) -> Result<Vec<Position>, EngineError> {
    let mut cache = Cache::new();
    let mut out: Vec<Position> = search(program, position, &mut cache, limits)?
        .iter()
        .map(|o| position.with_changes(o.changes))
        .collect();
    out.sort_unstable();
    // Two moves may leave one position.
    out.dedup();
    Ok(out)
}
