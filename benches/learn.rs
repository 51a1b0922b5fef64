//! Steps per second of a learning environment's random play in Rust alone
//! (what one game of `chessalg.VectorEnv` does per step, on one core):
//! listing the legal moves, their actions, the observation, playing the
//! chosen move and asking whether the game has ended. Run with
//! `cargo bench --bench learn`; it prints microseconds per step, split
//! by phase, for Connect Four, chess, Othello and checkers, and for chess
//! the reference: the `shakmaty` crate's random play (its legal moves and
//! playing one), with the ratio of chessalg's same two phases to it.
//! `LEARN_BENCH_SECONDS` (3) sets the time per game, `LEARN_BENCH_GAME`
//! picks the games whose path contains it.

use std::time::{Duration, Instant};

use chessalg::core::Rng;
use chessalg::engine::Cache;
use chessalg::game::Game;
use chessalg::learn::{ActionSpace, observe_into};
use chessalg::source::Source;

fn load(path: &str) -> Game {
    let text = std::fs::read_to_string(path).expect("a rule file");
    let (rules, _) = chessalg::decl::Spec::load(&Source::new(path, text)).expect("loads");
    Game::new(&rules).expect("a game")
}

fn main() {
    let seconds: f64 = std::env::var("LEARN_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    println!(
        "{:<14} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11}",
        "game", "legal", "actions", "observe", "play", "ending", "steps/s"
    );
    let only = std::env::var("LEARN_BENCH_GAME").unwrap_or_default();
    for path in [
        "rules/connect4.alg",
        "rules/chess.alg",
        "rules/othello.alg",
        "rules/checkers.alg",
    ] {
        if !path.contains(only.as_str()) {
            continue;
        }
        let game = load(path);
        let space = ActionSpace::new(&game);
        let (files, ranks) = game.dimensions();
        let mut obs = vec![0.0f32; (files * ranks) as usize * ActionSpace::planes(&game)];
        let mut cache = Cache::new();
        let mut state = game.initial();
        let mut rng = Rng::new(1);
        let mut t = [Duration::ZERO; 5];
        let mut steps = 0u64;
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < seconds {
            for _ in 0..256 {
                let a = Instant::now();
                let legal = game.legal_actions(&state, &mut cache).expect("moves");
                let b = Instant::now();
                let steps_of = space.encode(&game, &state, &legal);
                let c = Instant::now();
                observe_into(&game, &space, &state, &[], &mut obs);
                let d = Instant::now();
                let ended = legal.is_empty()
                    || game
                        .ending_reason(&state, &legal, &mut cache)
                        .expect("ending")
                        .is_some();
                let e = Instant::now();
                if ended {
                    state = game.initial();
                } else {
                    let i = rng.below(legal.len());
                    std::hint::black_box(&steps_of);
                    game.make(&mut state, &legal[i]);
                }
                let f = Instant::now();
                for (k, d) in [b - a, c - b, d - c, f - e, e - d].into_iter().enumerate() {
                    t[k] += d;
                }
                steps += 1;
            }
        }
        let us = |d: Duration| d.as_secs_f64() * 1e6 / steps as f64;
        let total: Duration = t.iter().sum();
        println!(
            "{:<14} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>11.0}",
            game.name(),
            us(t[0]),
            us(t[1]),
            us(t[2]),
            us(t[3]),
            us(t[4]),
            steps as f64 / total.as_secs_f64()
        );
        if path == "rules/chess.alg" {
            let theirs = shakmaty_step(seconds);
            let ours = (t[0] + t[3]).as_secs_f64() * 1e6 / steps as f64;
            println!(
                "{:<14} {:>9.2} {:>9} {:>9} {:>9} {:>9} {:>11.0}   chessalg's legal + play / shakmaty's: {:.0}x",
                "  shakmaty",
                theirs,
                "-",
                "-",
                "",
                "-",
                1e6 / theirs,
                ours / theirs
            );
        }
    }
}

/// Microseconds per step of random chess play with shakmaty: the legal
/// moves, then one of them played (a finished game starts again).
fn shakmaty_step(seconds: f64) -> f64 {
    use shakmaty::{Chess, Position};
    let mut pos = Chess::default();
    let mut rng = Rng::new(1);
    let (mut steps, start) = (0u64, Instant::now());
    while start.elapsed().as_secs_f64() < seconds {
        for _ in 0..256 {
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.is_insufficient_material() || pos.halfmoves() >= 100 {
                pos = Chess::default();
            } else {
                let m = &moves[rng.below(moves.len())];
                pos.play_unchecked(*m);
            }
            steps += 1;
        }
    }
    start.elapsed().as_secs_f64() * 1e6 / steps as f64
}
