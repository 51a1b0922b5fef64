//! Perft: the number of leaves of the legal-move tree at a given depth.
//!
//! The convention of published perft tables: a position where the game is
//! over has no children. Over means an outcome that ends the game at once:
//! no legal move (no children anyway), or an `outcome when ...` pattern that
//! holds (see [`Game::ends_tree`]). The outcomes that a player claims or that
//! chess's tables leave out (`repetition`, `quiet`, `material`) do not cut the
//! tree, so chess keeps its published counts.

use rayon::prelude::*;

use crate::engine::Cache;

use super::{Game, PlayError, State};

/// The number of move sequences of exactly `depth` legal moves from `state`,
/// none of them going on from a position where a `when` outcome ended the
/// game (see the module docs).
pub fn perft(game: &Game, state: &State, depth: u32, cache: &mut Cache) -> Result<u64, PlayError> {
    let mut state = state.clone();
    count(game, &mut state, depth, cache)
}

/// Perft on `state`, walked down and back up in place.
fn count(game: &Game, state: &mut State, depth: u32, cache: &mut Cache) -> Result<u64, PlayError> {
    if depth == 0 {
        return Ok(1);
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
        let n = count(game, state, depth - 1, cache);
        game.unmake(state, undo);
        total += n?;
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
            count(game, &mut next, depth - 1, cache)
        };
        game.unmake(&mut next, undo);
        out.push((name, n?));
    }
    out.sort();
    Ok(out)
}

/// Perft on `threads` threads: the tree is split at the first plies into
/// at least eight subtrees per thread (each still deep enough to count its
/// last ply in bulk), which the threads take in turn; the same count as
/// [`perft`].
pub fn perft_parallel(game: &Game, state: &State, depth: u32, threads: usize) -> Result<u64, PlayError> {
    let mut cache = Cache::new();
    if threads <= 1 || depth <= 2 {
        return perft(game, state, depth, &mut cache);
    }
    let want = threads * 8;
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
    pool(threads)?.install(|| {
        frontier
            .par_iter()
            .map_init(Cache::new, |cache, s| perft(game, s, left, cache))
            .try_reduce(|| 0, |a, b| Ok(a + b))
    })
}

/// [`divide`] on `threads` threads, one first move at a time each.
pub fn divide_parallel(
    game: &Game,
    state: &State,
    depth: u32,
    threads: usize,
) -> Result<Vec<(String, u64)>, PlayError> {
    let mut cache = Cache::new();
    if threads <= 1 {
        return divide(game, state, depth, &mut cache);
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
                    perft(game, &next, depth - 1, cache)?
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
