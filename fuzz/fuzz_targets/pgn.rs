//! PGN text for several games: refused with a reason, or read into moves
//! that are legal in turn and written back as PGN that reads the same.
#![no_main]

use chessalg::engine::Cache;
use chessalg::game::PgnTags;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let game = chessalg_fuzz::bundled(which as usize);
    let mut cache = Cache::new();
    let Ok(read) = game.read_pgn(text, &mut cache) else {
        return;
    };
    let Ok(written) = game.pgn(&read.start, &read.actions, None, &PgnTags::default(), &mut cache) else {
        return;
    };
    let again = game
        .read_pgn(&written, &mut cache)
        .unwrap_or_else(|e| panic!("{text:?} reads, but the PGN written of it does not: {e}\n{written}"));
    assert_eq!(again.actions, read.actions);
});
