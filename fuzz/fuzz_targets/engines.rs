//! The engine differential: a rule file (mutated from the bundled ones) run
//! on the engine's strategies (all of them, or one alone, or one with the
//! walk under it, picked by the text's length: see
//! `chessalg_fuzz::strategy_choices`) and on the backtracker (the
//! reference) must give the
//! same legal moves at the start and a few plies on, and the same perft 3
//! (perft 2 where the start has more than 12 moves: libFuzzer's time limit;
//! `tests/mutations.rs` compares perft 3 on chess-sized mutants), wherever
//! both finish within the limit.
#![no_main]

use chessalg::engine::{Cache, EngineChoice};
use chessalg::game::perft;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let choices = chessalg_fuzz::strategy_choices();
    let chosen = choices[text.len() % choices.len()];
    let Some((_, fast)) = chessalg_fuzz::game_of(text, chosen) else {
        return;
    };
    let Some((_, reference)) = chessalg_fuzz::game_of(text, EngineChoice::backtrack()) else {
        panic!("the game builds on `{chosen}` only");
    };
    let (mut a, mut b) = (Cache::new(), Cache::new());
    let start = fast.initial();
    let (Ok(mine), Ok(theirs)) = (
        fast.legal_actions(&start, &mut a),
        reference.legal_actions(&start, &mut b),
    ) else {
        return;
    };
    let mut names = fast.move_names(&start, &mine);
    let mut reference_names = reference.move_names(&start, &theirs);
    names.sort();
    reference_names.sort();
    assert_eq!(
        names, reference_names,
        "the legal moves at the start differ on `{chosen}`"
    );
    // A few plies on (the moves picked by the text's length), the same.
    let mut state = start.clone();
    let mut pick = text.len();
    for ply in 0..4 {
        let (Ok(mine), Ok(theirs)) = (
            fast.legal_actions(&state, &mut a),
            reference.legal_actions(&state, &mut b),
        ) else {
            break;
        };
        let mut x: Vec<(String, u64)> = (fast.move_names(&state, &mine).into_iter())
            .zip(mine.iter().map(|m| fast.play(&state, m).key()))
            .collect();
        let mut y: Vec<(String, u64)> = (reference.move_names(&state, &theirs).into_iter())
            .zip(theirs.iter().map(|m| reference.play(&state, m).key()))
            .collect();
        x.sort();
        y.sort();
        assert_eq!(x, y, "the legal moves differ after {ply} plies on `{chosen}`");
        if mine.is_empty() {
            break;
        }
        state = fast.play(&state, &mine[pick % mine.len()]);
        pick = pick.wrapping_mul(31).wrapping_add(7);
    }
    // Perft 3, or 2 on wide games (the reference is slow on them).
    let depth = if mine.len() <= 12 { 3 } else { 2 };
    if mine.len() <= 64
        && let (Ok(x), Ok(y)) = (
            perft(&fast, &start, depth, &mut a),
            perft(&reference, &start, depth, &mut b),
        )
    {
        assert_eq!(x, y, "perft {depth} differs on `{chosen}`");
    }
});
