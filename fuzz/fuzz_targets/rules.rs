//! Rule text through the whole pipeline: parse, expand, check the game,
//! compile for the fast engine, list the moves of the start and count
//! perft 1. Any rule text gets an answer or diagnostics, never a panic,
//! within the limits.
#![no_main]

use chessalg::engine::{Cache, EngineChoice};
use chessalg::game::perft;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Some((_, game)) = chessalg_fuzz::game_of(text, EngineChoice::Fast) else {
        return;
    };
    let mut cache = Cache::new();
    let start = game.initial();
    if let Ok(legal) = game.legal_actions(&start, &mut cache) {
        let _ = game.move_names(&start, &legal);
        let _ = game.to_fen(&start);
    }
    let _ = perft(&game, &start, 1, &mut cache);
});
