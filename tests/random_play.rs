//! Positions nobody wrote by hand: random games of every rule file in
//! `rules/`. Every position they reach reads back from its FEN (the
//! plausibility checks never refuse a position the game's moves reach), and
//! every legal move has a name of its own in its position (in `moves`, in
//! `--divide`, in SAN), none empty.

use std::collections::HashSet;

mod common;

use chessalg::core::Rng;
use chessalg::engine::Cache;
use chessalg::game::Game;

/// Plays `games` random games of at most `plies` plies of `game`, calling
/// `visit` on every position reached and its legal moves.
fn random_games(
    game: &Game,
    games: usize,
    plies: usize,
    seed: u64,
    visit: &mut dyn FnMut(&chessalg::game::State, &[chessalg::game::Action], &mut Cache),
) {
    let mut cache = Cache::new();
    let mut rng = Rng::new(seed);
    for _ in 0..games {
        let mut state = game.initial();
        for _ in 0..plies {
            let legal = game.legal_actions(&state, &mut cache).unwrap();
            visit(&state, &legal, &mut cache);
            if legal.is_empty() || game.ending(&state, &legal, &mut cache).unwrap().is_some() {
                break;
            }
            state = game.play(&state, &legal[rng.below(legal.len())]);
        }
    }
}

#[test]
fn every_position_of_random_play_reads_back_from_its_fen() {
    let mut failures = Vec::new();
    for (path, game) in common::games() {
        let mut checked = 0;
        random_games(&game, 12, 150, 0x5EED, &mut |state, _, cache| {
            let fen = game.to_fen(state);
            match game.from_fen_checked(&fen, cache) {
                Ok(back) => {
                    assert_eq!(
                        game.to_fen(&back),
                        fen,
                        "{path}: {fen} reads back as another position"
                    );
                }
                Err(e) if failures.len() < 20 => failures.push(format!("{path}: {fen}: {e}")),
                Err(_) => {}
            }
            checked += 1;
        });
        assert!(checked > 10, "{path}: only {checked} positions");
    }
    assert!(failures.is_empty(), "refused:\n{}", failures.join("\n"));
}

#[test]
fn every_move_of_random_play_has_a_name_of_its_own() {
    let mut failures = Vec::new();
    for (path, game) in common::games() {
        random_games(&game, 12, 150, 0xC0FFEE, &mut |state, legal, cache| {
            let names = game.move_names(state, legal);
            let sans = game.san_all(state, legal, cache).unwrap();
            for (kind, list) in [("name", &names), ("SAN", &sans)] {
                let mut seen = HashSet::new();
                for n in list.iter() {
                    if (n.trim().is_empty() || !seen.insert(n.as_str())) && failures.len() < 20 {
                        failures.push(format!(
                            "{path}: {}: the {kind} `{n}` is empty or given twice among {list:?}",
                            game.to_fen(state)
                        ));
                    }
                }
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
