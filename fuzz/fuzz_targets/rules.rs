//! Rule text through the whole pipeline: parse, expand, check the game,
//! compile for the fast engine, list the moves of the start (each with a
//! name of its own) and count perft 1. Any rule text gets an answer or
//! diagnostics, never a panic, within the limits.
#![no_main]

use chessalg::engine::{Cache, EngineChoice};
use chessalg::game::perft;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Some((_, game)) = chessalg_fuzz::game_of(text, EngineChoice::all()) else {
        return;
    };
    let mut cache = Cache::new();
    let start = game.initial();
    if let Ok(legal) = game.legal_actions(&start, &mut cache) {
        // Every move has a name of its own, never an empty one.
        let mut names = game.move_names(&start, &legal);
        assert!(
            names.iter().all(|n| !n.trim().is_empty()),
            "an empty name: {names:?}"
        );
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "a name given twice: {names:?}");
        let _ = game.to_fen(&start);
    }
    let _ = perft(&game, &start, 1, &mut cache);
});
