//! UCI command lines: every line gets its answers or an `info string`,
//! never a panic or a hang. Searches are kept short: every `go` is made
//! `go depth 1` (or `go perft` at most 2), and rule files are small bundled
//! ones.
#![no_main]

use std::path::Path;

use chessalg::engine::EngineChoice;
use chessalg::uci::Server;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if text.len() > 4096 {
        return;
    }
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.first() {
                Some(&"go") if words.contains(&"perft") => "go perft 2".to_string(),
                Some(&"go") => "go depth 1".to_string(),
                // Only small bundled games (a new game works out its
                // prospects for the AI, which takes long on a large board).
                Some(&"setoption") if line.to_ascii_lowercase().contains("rulesfile") => {
                    let small = ["tictactoe", "connect4", "breakthrough", "nonesuch"];
                    let name = small[line.len() % small.len()];
                    format!(
                        "setoption name RulesFile value {}/{name}.alg",
                        chessalg::bundled::DIR
                    )
                }
                _ => line.to_string(),
            }
        })
        .collect();
    let input = lines.join("\n");
    let game = chessalg_fuzz::bundled(0);
    let rules = format!("{}/chess.alg", chessalg::bundled::DIR);
    let server = Server::with_game(
        game,
        Path::new(&rules),
        Vec::new(),
        EngineChoice::all(),
        std::io::sink(),
    );
    server.run(input.as_bytes()).expect("reading from memory");
});
