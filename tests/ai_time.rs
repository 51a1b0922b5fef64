//! The AI keeps its time on any rule file: asked for 100 ms, it answers
//! with a legal move within a small margin, from its first answer on, on
//! boards where that first answer once took half a minute (a 50x50 board
//! where each move puts a stone on an empty square, a 40x40 board of chess's
//! sliding pieces), through the library and through the web API.

use std::time::{Duration, Instant};

use chessalg::ai::{Ai, Budget};
use chessalg::engine::Cache;

mod common;

use common::served::Served;

/// The time the AI is asked for.
const ASKED: Duration = Duration::from_millis(100);

/// The most an answer may take: the time asked for and a margin generous
/// for a loaded machine of two cores.
const AT_MOST: Duration = Duration::from_millis(1500);

/// The large boards: a placement game, and chess's pieces.
const BOARDS: [&str; 2] = ["tests/data/gomoku50.alg", "tests/data/chess40.alg"];

#[test]
fn the_ai_answers_in_its_time_on_large_boards_from_its_first_answer() {
    for path in BOARDS {
        // A new game: nothing it works out once is known yet.
        let game = common::game(path);
        let mut state = game.initial();
        let mut cache = Cache::new();
        for ply in 0..3 {
            let legal = game.legal_actions(&state, &mut cache).unwrap();
            let started = Instant::now();
            let budget = Budget {
                depth: 64,
                time: Some(ASKED),
            };
            let choice = Ai::new(7)
                .choose(&game, &state, &legal, budget, &mut cache)
                .unwrap();
            let took = started.elapsed();
            eprintln!(
                "{path}, ply {ply}: {} of {} legal moves in {took:?} (depth {}, {} positions)",
                choice.index,
                legal.len(),
                choice.depth,
                choice.nodes
            );
            assert!(took < AT_MOST, "{path}, ply {ply}: {took:?}");
            assert!(choice.index < legal.len(), "{path}");
            // The search's deadline is gone from the cache.
            assert_eq!(cache.deadline(), None);
            game.make(&mut state, &legal[choice.index]);
        }
    }
}

#[test]
fn a_deadline_already_on_the_cache_bounds_the_ai_too_and_stays() {
    let game = common::game(BOARDS[1]);
    let state = game.initial();
    let mut cache = Cache::new();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let started = Instant::now();
    let deadline = started + ASKED;
    cache.set_deadline(Some(deadline));
    let budget = Budget {
        depth: 64,
        time: Some(Duration::from_secs(30)),
    };
    let choice = Ai::new(7)
        .choose(&game, &state, &legal, budget, &mut cache)
        .unwrap();
    let took = started.elapsed();
    eprintln!("thirty seconds asked, 100 ms on the cache: answered in {took:?}");
    assert!(took < AT_MOST, "{took:?}");
    assert!(choice.index < legal.len());
    assert_eq!(cache.deadline(), Some(deadline));
}

#[test]
fn the_web_ai_answers_in_the_time_asked_on_large_boards() {
    for path in BOARDS {
        let served = Served::start_with(path, &["--time-cap", "10"]);
        let (status, body) = served.request("POST", "/api/games", "{}");
        assert_eq!(status, 200, "{body}");
        let game: serde_json::Value = serde_json::from_str(&body).unwrap();
        let id = game["id"].as_u64().unwrap();
        for ply in 0..2 {
            let started = Instant::now();
            let (status, body) = served.request("POST", &format!("/api/games/{id}/ai"), r#"{"time_ms":100}"#);
            let took = started.elapsed();
            eprintln!("{path} through the web API, ply {ply}: {took:?}");
            assert_eq!(status, 200, "{body}");
            let after: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(
                after["plies"].as_u64(),
                Some(ply + 1),
                "{path}: the AI's move was played"
            );
            assert!(took < AT_MOST, "{path}, ply {ply}: {took:?}");
        }
    }
}
