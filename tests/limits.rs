//! One meaning of a limit: rule files whose moves repeat without bound stop
//! with the same error on every engine, within the stated limit on states;
//! no walk deepens the program's own stack (once the walk strategy died of a
//! stack overflow on a long one-row repetition).

use std::time::Instant;

use chessalg::decl::Spec;
use chessalg::engine::{EngineChoice, EngineError, Limits};
use chessalg::game::{Game, PlayError, perft};
use chessalg::source::Source;

mod common;

/// The game of `path` on `engine`.
fn game_on(path: &str, engine: EngineChoice) -> Game {
    let text = std::fs::read_to_string(path).unwrap();
    let (spec, _) = Spec::load(&Source::new(path, text)).unwrap();
    Game::with_engine(&spec, engine).unwrap()
}

/// Perft of `path` on each engine.
fn perft_on_each(path: &str, depth: u32) -> Vec<Result<u64, PlayError>> {
    [EngineChoice::all(), EngineChoice::backtrack()]
        .into_iter()
        .map(|e| {
            let game = game_on(path, e);
            perft(&game, &game.initial(), depth, &mut chessalg::engine::Cache::new())
        })
        .collect()
}

fn is_state_limit(r: &Result<u64, PlayError>, limit: u64) -> bool {
    matches!(r, Err(PlayError::Engine(EngineError::StateLimit { limit: l })) if *l == limit)
}

#[test]
fn runaway_rules_stop_at_the_same_limit_on_every_engine() {
    for path in [
        "tests/data/runaway/row64.alg",
        "tests/data/runaway/chess_repeated.alg",
        "tests/data/runaway/racing_repeated.alg",
    ] {
        let started = Instant::now();
        let results = perft_on_each(path, 2);
        for r in &results {
            assert!(is_state_limit(r, Limits::DEFAULT_MAX_STATES), "{path}: {r:?}");
        }
        // Stopped, not left to run (a generous bound for a slow machine).
        assert!(
            started.elapsed().as_secs() < 60,
            "{path}: {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn a_long_repetition_within_the_limit_is_counted_alike() {
    // Three rooks in a corner of a 32-square row: the backtracker's 4,961.
    let results = perft_on_each("tests/data/runaway/row32.alg", 1);
    for r in results {
        assert_eq!(r.unwrap(), 4961);
    }
    // On 64 squares, 41,665 (C(64, 3) spreads, and staying put).
    let text = std::fs::read_to_string("tests/data/runaway/row32.alg").unwrap();
    let long = text.replace(
        "♖♖♖.............................",
        &format!("♖♖♖{}", ".".repeat(61)),
    );
    assert_ne!(long, text);
    for engine in [EngineChoice::all(), EngineChoice::backtrack()] {
        let (spec, _) = Spec::load(&Source::new("row", long.clone())).unwrap();
        let game = Game::with_engine(&spec, engine).unwrap();
        let n = perft(&game, &game.initial(), 1, &mut chessalg::engine::Cache::new()).unwrap();
        assert_eq!(n, 41665, "{engine}");
    }
}

#[test]
fn a_raised_limit_is_a_limit_too() {
    let limits = Limits {
        max_states: 20_000,
        ..Limits::default()
    };
    for engine in [EngineChoice::all(), EngineChoice::backtrack()] {
        let game = game_on("tests/data/runaway/row32.alg", engine).with_limits(limits);
        let r = perft(&game, &game.initial(), 1, &mut chessalg::engine::Cache::new());
        assert!(is_state_limit(&r, 20_000), "{engine}: {r:?}");
    }
}

#[test]
fn the_command_line_says_the_limit_and_how_to_raise_it() {
    for engine in ["fast", "backtrack"] {
        let out = common::run(
            &[
                "--engine",
                engine,
                "perft",
                "tests/data/runaway/racing_repeated.alg",
                "--depth",
                "2",
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(1));
        let err = common::text(&out.stderr);
        assert!(err.contains("more than 1000000 states"), "{err}");
        assert!(err.contains("help:") && err.contains("--max-states N"), "{err}");
    }
    let out = common::run(&["perft", "--help"], b"");
    assert!(common::text(&out.stdout).contains("--max-states <N>"));
}

/// Whether `r` is the error of a search past its deadline.
fn is_out_of_time<T: std::fmt::Debug>(r: &Result<T, PlayError>) -> bool {
    matches!(r, Err(PlayError::Engine(EngineError::OutOfTime)))
}

#[test]
fn every_question_to_a_game_past_its_cache_deadline_stops() {
    use chessalg::engine::Cache;
    for engine in [EngineChoice::all(), EngineChoice::backtrack()] {
        for path in ["rules/chess.alg", "rules/connect4.alg", "tests/data/gomoku50.alg"] {
            let game = game_on(path, engine);
            let mut state = game.initial();
            let mut cache = Cache::new();
            let legal = game.legal_actions(&state, &mut cache).unwrap();
            let candidates = game.candidate_actions(&state, &mut cache).unwrap();
            cache.set_deadline(Some(Instant::now()));
            let what = format!("{path} on {engine}");
            assert!(is_out_of_time(&game.legal_actions(&state, &mut cache)), "{what}");
            assert!(
                is_out_of_time(&game.candidate_actions(&state, &mut cache)),
                "{what}"
            );
            assert!(
                is_out_of_time(&game.generated_actions(&state, &mut cache)),
                "{what}"
            );
            assert!(is_out_of_time(&game.count_legal(&state, &mut cache)), "{what}");
            assert!(is_out_of_time(&game.has_legal(&state, &mut cache)), "{what}");
            assert!(
                is_out_of_time(&game.ending_known(&state, None, &mut cache)),
                "{what}"
            );
            assert!(is_out_of_time(&perft(&game, &state, 3, &mut cache)), "{what}");
            if path.contains("chess") {
                // The legality of moves tried one by one, and the check that
                // ends a game without moves.
                assert!(!candidates.tested, "{what}");
                let first = &candidates.actions[0];
                let tried = game.try_make(&mut state, first, &candidates, &mut cache);
                assert!(is_out_of_time(&tried.map(|u| u.is_some())), "{what}");
                assert!(
                    is_out_of_time(&game.any_legal(&mut state, &candidates, &mut cache)),
                    "{what}"
                );
                assert!(
                    is_out_of_time(&game.ending_reason(&state, &[], &mut cache)),
                    "{what}"
                );
            } else {
                // The outcome patterns, and the look for a winning move.
                assert!(
                    is_out_of_time(&game.ending_reason(&state, &legal, &mut cache)),
                    "{what}"
                );
                let r = game.winning_move(&state, &candidates, &mut cache);
                assert!(is_out_of_time(&r), "{what}: {r:?}");
            }
            // Without the deadline, the same cache answers as before.
            cache.set_deadline(None);
            assert_eq!(game.legal_actions(&state, &mut cache).unwrap(), legal, "{what}");
            assert_eq!(state, game.initial(), "{what}");
        }
    }
}

#[test]
fn a_deadline_stops_a_long_perft_soon_after_it_passes() {
    use chessalg::engine::Cache;
    use std::time::Duration;
    // Chess move by move; Connect Four on square sets alone (millions of
    // leaves a second, too many for the depth asked).
    for (path, depth) in [("rules/chess.alg", 7), ("rules/connect4.alg", 14)] {
        let game = game_on(path, EngineChoice::all());
        let mut cache = Cache::new();
        let started = Instant::now();
        cache.set_deadline(Some(started + Duration::from_millis(100)));
        let r = perft(&game, &game.initial(), depth, &mut cache);
        let took = started.elapsed();
        eprintln!("{path}: perft {depth} stopped after {took:?}");
        assert!(is_out_of_time(&r), "{path}: {r:?}");
        assert!(took < Duration::from_millis(1500), "{path}: {took:?}");
    }
}
