//! The engine differential: a rule file (mutated from the bundled ones) run
//! on the fast engine and on the backtracker (the reference) must give the
//! same legal moves at the start and the same perft 2 (where the start has
//! at most 64 moves), wherever both finish within the limit.
#![no_main]

use chessalg::engine::{Cache, EngineChoice};
use chessalg::game::perft;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Some((_, fast)) = chessalg_fuzz::game_of(text, EngineChoice::Fast) else {
        return;
    };
    let Some((_, reference)) = chessalg_fuzz::game_of(text, EngineChoice::Backtrack) else {
        panic!("the game builds on the fast engine only");
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
    assert_eq!(names, reference_names, "the legal moves at the start differ");
    // Perft 2 where it is small (the reference is slow on wide games).
    if mine.len() <= 64
        && let (Ok(x), Ok(y)) = (
            perft(&fast, &start, 2, &mut a),
            perft(&reference, &start, 2, &mut b),
        )
    {
        assert_eq!(x, y, "perft 2 differs");
    }
});
