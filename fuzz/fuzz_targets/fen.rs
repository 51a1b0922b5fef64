//! FEN text for several games: refused with a reason, or read into a
//! position whose FEN reads back the same and whose moves can be listed.
#![no_main]

use chessalg::engine::Cache;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(fen) = std::str::from_utf8(rest) else {
        return;
    };
    let game = chessalg_fuzz::bundled(which as usize);
    let mut cache = Cache::new();
    let Ok(state) = game.from_fen_checked(fen, &mut cache) else {
        return;
    };
    let written = game.to_fen(&state);
    let again = game
        .from_fen(&written)
        .unwrap_or_else(|e| panic!("{fen:?} reads, but its FEN {written:?} does not: {e}"));
    assert_eq!(game.to_fen(&again), written, "{fen:?}");
    if let Ok(legal) = game.legal_actions(&state, &mut cache) {
        let _ = game.san_all(&state, &legal, &mut cache);
        let _ = game.ending_reason(&state, &legal, &mut cache);
    }
});
