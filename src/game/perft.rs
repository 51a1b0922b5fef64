//! Perft: the number of leaves of the legal-move tree at a given depth.
//!
//! The convention of published perft tables: a position where the game is
//! over has no children. Over means an outcome that ends the game at once:
//! no legal move (no children anyway), or an `outcome when ...` pattern that
//! holds (see [`Game::ends_tree`]). The outcomes that a player claims or that
//! chess's tables leave out (`repetition`, `quiet`, `material`) do not cut the
//! tree, so chess keeps its published counts.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;

use std::ops::ControlFlow;

use smallvec::SmallVec;

use crate::core::{Change, PlayerId};
use crate::decl::{Condition, Legality, TurnOrder};
use std::time::Instant;

use crate::engine::{Cache, CellWrite, EngineError, Position, SetPerft};

use super::{Game, PlayError, State};

/// Counts of subtrees already counted, by position, player to move and
/// depth, shared by the threads of a parallel perft (`perft --hash MB`).
///
/// Each entry keeps the 64-bit key (XORed with its count, so that a torn
/// write between threads reads as a miss) and the count; a newer count
/// replaces an older one in its slot. Counts stay exact but for a 64-bit
/// key collision between two different positions, the chance Stockfish's
/// perft table takes too.
#[derive(Debug)]
pub struct PerftTable {
    entries: Vec<[AtomicU64; 2]>,
}

impl PerftTable {
    /// A table of at most `megabytes` MiB (a power of two of entries, at
    /// least one), or an error when the memory cannot be had.
    pub fn with_megabytes(megabytes: usize) -> Result<PerftTable, PlayError> {
        let want = (megabytes.saturating_mul(1 << 20) / 16).max(1);
        let size = if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() / 2
        };
        let mut entries = Vec::new();
        entries
            .try_reserve_exact(size)
            .map_err(|_| PlayError::Table(megabytes))?;
        entries.extend((0..size).map(|_| [AtomicU64::new(0), AtomicU64::new(0)]));
        Ok(PerftTable { entries })
    }

    /// The key of a subtree: the state's key mixed with the depth.
    fn key(state_key: u64, depth: u32) -> u64 {
        crate::engine::mix_key(state_key ^ (depth as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93))
    }

    fn probe(&self, key: u64) -> Option<u64> {
        let e = &self.entries[key as usize & (self.entries.len() - 1)];
        let (a, count) = (e[0].load(Ordering::Relaxed), e[1].load(Ordering::Relaxed));
        (a ^ count == key && count != 0).then_some(count)
    }

    fn store(&self, key: u64, count: u64) {
        let e = &self.entries[key as usize & (self.entries.len() - 1)];
        e[0].store(key ^ count, Ordering::Relaxed);
        e[1].store(count, Ordering::Relaxed);
    }
}

impl Game {
    /// The key a perft table files `state` under (in a game it serves, see
    /// [`Game::perft_table_applies`]): the position and the player to move,
    /// the quiet count where an automatic `quiet` outcome reads it, and
    /// the passes in a row and runs of `when ... for N` where outcomes read them.
    fn perft_key(&self, state: &State) -> u64 {
        let mut key = state.key();
        if self
            .outcomes
            .iter()
            .any(|o| o.automatic && matches!(o.condition, Condition::Quiet(_)))
        {
            key ^= (state.quiet_plies() as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407);
        }
        if self
            .outcomes
            .iter()
            .any(|o| matches!(o.condition, Condition::Passes(_) | Condition::WhenFor(..)))
        {
            key ^= state.counters_key();
        }
        key
    }

    /// Per player, the `when` patterns that end the tree on their turn, when
    /// the rest of a move is only its changes and the turn passing to the
    /// next player (no expiring marks; a pass, where the turn order has
    /// them, is the turn passing alone) and every outcome that ends the tree
    /// is such a pattern (or no legal move); else none. Perft may then count
    /// on the position alone ([`Lean`]).
    fn tree_ends(&self) -> Option<Vec<Vec<usize>>> {
        let passes_on = matches!(
            self.turn_order,
            TurnOrder::Alternate | TurnOrder::AlternatePassing
        );
        if !passes_on || !self.expiring.is_empty() {
            return None;
        }
        let mut ends = vec![Vec::new(); self.players.len()];
        for o in self.outcomes.iter().filter(|o| o.automatic) {
            match o.condition {
                Condition::NoMoves { .. } => {}
                Condition::When(pattern) => {
                    for (side, list) in ends.iter_mut().enumerate() {
                        if o.turn.is_none_or(|p| p.index() == side) {
                            list.push(pattern);
                        }
                    }
                }
                _ => return None,
            }
        }
        Some(ends)
    }

    /// The engine's perft counter on square sets for `state`, given what
    /// [`Game::tree_ends`] gave, where no player passes and the engine has
    /// one ([`Engine::set_perft`](crate::engine::Engine::set_perft)).
    fn set_perft(&self, state: &State, ends: &[Vec<usize>]) -> Option<SetPerft<'_>> {
        if self.turn_order != TurnOrder::Alternate {
            return None;
        }
        let safe = self.legality == Legality::RoyalSafe;
        self.engine.set_perft(state.position(), safe, ends)
    }

    /// Whether perft from `state` (without a perft table) counts on square
    /// sets alone (see [`Engine::set_perft`](crate::engine::Engine::set_perft)):
    /// every player's moves and every pattern that ends the game are
    /// choices of rewrites, and the turn only passes (no player ever passes).
    pub fn perft_on_square_sets(&self, state: &State) -> bool {
        self.tree_ends()
            .is_some_and(|ends| self.set_perft(state, &ends).is_some())
    }

    /// Whether a perft table can serve this game: not when an automatic
    /// `repetition` outcome makes counts depend on the moves before.
    pub fn perft_table_applies(&self) -> bool {
        !self
            .outcomes
            .iter()
            .any(|o| o.automatic && matches!(o.condition, Condition::Repetition(_)))
    }
}

/// The number of move sequences of exactly `depth` legal moves from `state`,
/// none of them going on from a position where a `when` outcome ended the
/// game (see the module docs).
pub fn perft(game: &Game, state: &State, depth: u32, cache: &mut Cache) -> Result<u64, PlayError> {
    perft_with(game, state, depth, cache, None)
}

/// [`perft`], looking subtrees up in `table` (and filing them there) when
/// one is given and the game allows it ([`Game::perft_table_applies`]).
pub fn perft_with(
    game: &Game,
    state: &State,
    depth: u32,
    cache: &mut Cache,
    table: Option<&PerftTable>,
) -> Result<u64, PlayError> {
    let table = table.filter(|_| game.perft_table_applies());
    subtree(game, state, depth, cache, table, None)
}

/// Perft on a copy of `state`, without a table where the game allows it
/// ([`Game::tree_ends`]): on square sets alone where no player passes and
/// the engine has a counter for them
/// ([`Engine::set_perft`](crate::engine::Engine::set_perft)),
/// else on the position alone ([`Lean`]); otherwise move by move ([`count`]).
fn subtree(
    game: &Game,
    state: &State,
    depth: u32,
    cache: &mut Cache,
    table: Option<&PerftTable>,
    stop: Option<&AtomicBool>,
) -> Result<u64, PlayError> {
    if table.is_none()
        && depth >= 2
        && let Some(ends) = game.tree_ends()
    {
        if let Some(counter) = game.set_perft(state, &ends) {
            let deadline = cache.deadline();
            return counter
                .count(state.position(), state.turn().index(), depth, stop, deadline)
                .map_err(|_| match deadline {
                    Some(d) if Instant::now() >= d => PlayError::Engine(EngineError::OutOfTime),
                    _ => PlayError::Stopped,
                });
        }
        let lean = Lean {
            game,
            ends,
            safe: game.legality == Legality::RoyalSafe,
            passing: game.turn_order == TurnOrder::AlternatePassing,
            stop,
        };
        let mut position = state.position().clone();
        let mut moves = LeanMoves::default();
        return lean.count(&mut position, state.turn().index(), depth, cache, &mut moves);
    }
    count(game, &mut state.clone(), depth, cache, table, stop)
}

/// Perft on the position alone, for a game where a move is its changes and
/// the turn passing on ([`Game::tree_ends`]): no state, move list or undo
/// record is built on the way down, the same counts as [`count`].
struct Lean<'g> {
    game: &'g Game,
    /// Per player: the patterns that end the tree on their turn.
    ends: Vec<Vec<usize>>,
    /// Whether moves must leave the mover's royal pieces safe.
    safe: bool,
    /// Whether a player without a move passes while another has one.
    passing: bool,
    stop: Option<&'g AtomicBool>,
}

/// The moves of the plies a [`Lean`] count is in, one after another: those
/// made of cell writes alone as such, the others as changes.
#[derive(Default)]
struct LeanMoves {
    writes: Vec<CellWrite>,
    changes: Vec<Change>,
}

impl Lean<'_> {
    /// The leaves below `position` with `side` to move, `depth` plies on;
    /// `moves` holds the moves of the plies above (and is left so).
    fn count(
        &self,
        position: &mut Position,
        side: usize,
        depth: u32,
        cache: &mut Cache,
        moves: &mut LeanMoves,
    ) -> Result<u64, PlayError> {
        if depth == 0 {
            return Ok(1);
        }
        if depth >= 2 && self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Err(PlayError::Stopped);
        }
        let (engine, limits) = (&self.game.engine, &self.game.limits);
        for &pattern in &self.ends[side] {
            if engine.pattern_holds(pattern, side, position, cache, limits)? {
                return Ok(0);
            }
        }
        let next = (side + 1) % self.ends.len();
        if depth == 1 {
            let n = engine.count_moves(side, position, self.safe, cache, limits)?;
            if n == 0 && self.passing && self.game.another_can_move(position, PlayerId::new(side), cache)? {
                return Ok(1);
            }
            return Ok(n);
        }
        // Each move, one after another: as cell writes where it changes
        // only square contents in place (the common case), else as changes;
        // where each ends, its hash, and which it is.
        let (base, wbase) = (moves.changes.len(), moves.writes.len());
        let mut ends: SmallVec<[(usize, u64, bool); 48]> = SmallVec::new();
        cache.give_cells(true);
        let listed = engine.each_move(side, position, self.safe, cache, limits, &mut |s| {
            if !s.cells.is_empty() {
                moves.writes.extend_from_slice(s.cells);
                ends.push((moves.writes.len(), s.hash, true));
                return ControlFlow::Continue(());
            }
            let start = moves.writes.len();
            let cells = s.changes.iter().all(|c| match position.cell_write(c) {
                Some(w) => {
                    moves.writes.push(w);
                    true
                }
                None => false,
            });
            if cells {
                ends.push((moves.writes.len(), s.hash, true));
            } else {
                moves.writes.truncate(start);
                moves.changes.extend_from_slice(s.changes);
                ends.push((moves.changes.len(), s.hash, false));
            }
            ControlFlow::Continue(())
        });
        cache.give_cells(false);
        listed?;
        if ends.is_empty()
            && self.passing
            && self.game.another_can_move(position, PlayerId::new(side), cache)?
        {
            // The only move is a pass: the position stays, the turn goes on.
            return self.count(position, next, depth - 1, cache, moves);
        }
        let (mut start, mut wstart, mut total, hash) = (base, wbase, 0, position.hash);
        for (end, after, cells) in ends {
            let version = position.version;
            let n = if cells {
                let before = position.write_cells(&moves.writes[wstart..end], after);
                let n = self.count(position, next, depth - 1, cache, moves);
                position.unwrite_cells(&before, version, hash);
                wstart = end;
                n
            } else {
                let before = position.apply_hashed(&moves.changes[start..end], Some(after));
                let n = self.count(position, next, depth - 1, cache, moves);
                position.undo_hashed(&before, version, Some(hash));
                start = end;
                n
            };
            total += n?;
        }
        moves.writes.truncate(wbase);
        moves.changes.truncate(base);
        Ok(total)
    }
}

/// Perft on `state`, walked down and back up in place.
fn count(
    game: &Game,
    state: &mut State,
    depth: u32,
    cache: &mut Cache,
    table: Option<&PerftTable>,
    stop: Option<&AtomicBool>,
) -> Result<u64, PlayError> {
    if depth == 0 {
        return Ok(1);
    }
    if depth >= 2 && stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
        return Err(PlayError::Stopped);
    }
    // Subtrees of two plies or more are worth a look-up.
    let key = match table {
        Some(t) if depth >= 2 => Some((t, PerftTable::key(game.perft_key(state), depth))),
        _ => None,
    };
    if let Some((t, k)) = key
        && let Some(n) = t.probe(k)
    {
        return Ok(n);
    }
    if game.ends_tree(state, cache)? {
        return Ok(0);
    }
    if depth == 1 {
        return game.count_legal(state, cache);
    }
    let actions = game.legal_actions(state, cache)?;
    let mut total = 0;
    for a in &actions {
        let undo = game.make(state, a);
        let n = count(game, state, depth - 1, cache, table, stop);
        game.unmake(state, undo);
        total += n?;
    }
    if let Some((t, k)) = key {
        t.store(k, total);
    }
    Ok(total)
}

/// Perft split by the first move: each move's name and its count, sorted by name.
pub fn divide(
    game: &Game,
    state: &State,
    depth: u32,
    cache: &mut Cache,
) -> Result<Vec<(String, u64)>, PlayError> {
    divide_with(game, state, depth, cache, None)
}

/// [`divide`] with a perft table (see [`perft_with`]).
pub fn divide_with(
    game: &Game,
    state: &State,
    depth: u32,
    cache: &mut Cache,
    table: Option<&PerftTable>,
) -> Result<Vec<(String, u64)>, PlayError> {
    divide_until(game, state, depth, cache, table, None)
}

/// [`divide_with`] that gives up with [`PlayError::Stopped`] soon after
/// `stop` is set (a UCI `stop` during `go perft`).
pub fn divide_until(
    game: &Game,
    state: &State,
    depth: u32,
    cache: &mut Cache,
    table: Option<&PerftTable>,
    stop: Option<&AtomicBool>,
) -> Result<Vec<(String, u64)>, PlayError> {
    let table = table.filter(|_| game.perft_table_applies());
    if game.ends_tree(state, cache)? {
        return Ok(Vec::new());
    }
    let actions = game.legal_actions(state, cache)?;
    let names = game.move_names(state, &actions);
    let mut out = Vec::with_capacity(actions.len());
    let mut next = state.clone();
    for (a, name) in actions.iter().zip(names) {
        let undo = game.make(&mut next, a);
        let n = if depth <= 1 {
            Ok(1)
        } else {
            subtree(game, &next, depth - 1, cache, table, stop)
        };
        game.unmake(&mut next, undo);
        out.push((name, n?));
    }
    out.sort();
    Ok(out)
}

/// How far a perft has come, for a progress line: how many subtrees it was
/// split into, how many are counted, and their leaves.
#[derive(Debug, Default)]
pub struct PerftProgress {
    /// The subtrees (set once the split is made).
    pub parts: AtomicU64,
    /// The subtrees counted so far.
    pub done: AtomicU64,
    /// The leaves of those.
    pub leaves: AtomicU64,
}

/// Perft on `threads` threads: the tree is split at the first plies into
/// at least eight subtrees per thread (each still deep enough to count its
/// last ply in bulk), which the threads take in turn; the same count as
/// [`perft`].
pub fn perft_parallel(
    game: &Game,
    state: &State,
    depth: u32,
    threads: usize,
    table: Option<&PerftTable>,
) -> Result<u64, PlayError> {
    perft_watched(game, state, depth, threads, table, None)
}

/// [`perft_parallel`], noting in `progress` (if any) each subtree counted
/// (with progress, one thread splits the tree too).
pub fn perft_watched(
    game: &Game,
    state: &State,
    depth: u32,
    threads: usize,
    table: Option<&PerftTable>,
    progress: Option<&PerftProgress>,
) -> Result<u64, PlayError> {
    let mut cache = Cache::new();
    if (threads <= 1 && progress.is_none()) || depth <= 2 {
        return perft_with(game, state, depth, &mut cache, table);
    }
    let want = threads.max(1) * 8;
    let mut frontier = vec![state.clone()];
    let mut left = depth;
    while frontier.len() < want && left > 2 {
        let mut next = Vec::new();
        for s in &frontier {
            if game.ends_tree(s, &mut cache)? {
                continue;
            }
            for a in &game.legal_actions(s, &mut cache)? {
                next.push(game.play(s, a));
            }
        }
        frontier = next;
        left -= 1;
    }
    if let Some(p) = progress {
        p.parts.store(frontier.len() as u64, Ordering::Relaxed);
    }
    let count = |cache: &mut Cache, s: &State| {
        let n = perft_with(game, s, left, cache, table)?;
        if let Some(p) = progress {
            p.done.fetch_add(1, Ordering::Relaxed);
            p.leaves.fetch_add(n, Ordering::Relaxed);
        }
        Ok(n)
    };
    pool(threads.max(1))?.install(|| {
        frontier
            .par_iter()
            .map_init(Cache::new, |cache, s| count(cache, s))
            .try_reduce(|| 0, |a, b| Ok(a + b))
    })
}

/// [`divide`] on `threads` threads, one first move at a time each.
pub fn divide_parallel(
    game: &Game,
    state: &State,
    depth: u32,
    threads: usize,
    table: Option<&PerftTable>,
) -> Result<Vec<(String, u64)>, PlayError> {
    let mut cache = Cache::new();
    if threads <= 1 {
        return divide_with(game, state, depth, &mut cache, table);
    }
    if game.ends_tree(state, &mut cache)? {
        return Ok(Vec::new());
    }
    let actions = game.legal_actions(state, &mut cache)?;
    let names = game.move_names(state, &actions);
    let mut out: Vec<(String, u64)> = pool(threads)?.install(|| {
        actions
            .par_iter()
            .zip(names)
            .map_init(Cache::new, |cache, (a, name)| {
                let next = game.play(state, a);
                let n = if depth <= 1 {
                    1
                } else {
                    perft_with(game, &next, depth - 1, cache, table)?
                };
                Ok::<_, PlayError>((name, n))
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    out.sort();
    Ok(out)
}

/// A pool of `threads` threads of its own (the global pool is left alone).
fn pool(threads: usize) -> Result<rayon::ThreadPool, PlayError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PlayError::Threads(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Rng;
    use crate::decl::Spec;
    use crate::engine::{Cache, EngineChoice};
    use crate::source::Source;

    /// [`Lean`] applies each move with the hash its engine gave
    /// ([`crate::engine::Successor::hash`]) instead of hashing the changes:
    /// on random games of every rule file, on both engines, that hash is the
    /// one the position gets when the changes are hashed square by square.
    #[test]
    fn every_engine_gives_each_move_the_hash_of_its_position() {
        let mut files: Vec<_> = std::fs::read_dir("rules")
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "alg"))
            .collect();
        files.sort();
        let mut moves = 0;
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let source = Source::new(path.to_string_lossy(), text);
            let Ok((spec, _)) = Spec::load(&source) else {
                continue;
            };
            for choice in [EngineChoice::all(), EngineChoice::backtrack()] {
                let Ok(game) = Game::with_engine(&spec, choice) else {
                    continue;
                };
                let mut cache = Cache::new();
                for g in 0..3u64 {
                    let mut state = game.initial();
                    let mut rng = Rng::new(g);
                    for _ in 0..40 {
                        let position = state.position();
                        let side = state.turn().index();
                        let safe = game.legality == Legality::RoyalSafe;
                        (game.engine)
                            .each_move(side, position, safe, &mut cache, &game.limits, &mut |s| {
                                let mut hashed = position.clone();
                                hashed.apply(s.changes);
                                assert_eq!(
                                    hashed.content_hash(),
                                    s.hash,
                                    "{}: a move's hash on {choice:?}",
                                    path.display()
                                );
                                moves += 1;
                                ControlFlow::Continue(())
                            })
                            .unwrap();
                        let legal = game.legal_actions(&state, &mut cache).unwrap();
                        if legal.is_empty() || game.ending(&state, &legal, &mut cache).unwrap().is_some() {
                            break;
                        }
                        state = game.play(&state, &legal[rng.below(legal.len())]);
                    }
                }
            }
        }
        assert!(moves > 10_000, "only {moves} moves checked");
    }
}
