//! Perft speed of chessalg's generic engine running `rules/chess.alg`,
//! against the `shakmaty` crate on the same positions (making every leaf move,
//! no bulk counting). Run with `cargo bench --bench perft`; besides
//! criterion's timings it prints nodes per second and the ratio
//! shakmaty / chessalg for each position, then nodes per second of the
//! other games of `rules/`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};

use chessalg::engine::Cache;
use chessalg::game::{self, Game};
use chessalg::source::Source;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

const POSITIONS: [(&str, &str, u32); 2] = [
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        4,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        3,
    ),
];

fn chess() -> Game {
    let text = std::fs::read_to_string("rules/chess.alg").expect("rules/chess.alg");
    let (rules, _) =
        chessalg::decl::Spec::load(&Source::new("rules/chess.alg", text)).expect("chess.alg loads");
    Game::new(&rules).expect("chess.alg is a game")
}

/// shakmaty's perft, playing every move down to the leaves.
fn shakmaty_perft(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        n += shakmaty_perft(&child, depth - 1);
    }
    n
}

fn shakmaty_position(fen: &str) -> Chess {
    let fen: Fen = fen.parse().expect("a valid FEN");
    fen.into_position(CastlingMode::Standard)
        .expect("a legal position")
}

/// Nodes per second of `f`, timed over at least half a second.
fn rate(mut f: impl FnMut() -> u64) -> f64 {
    let started = Instant::now();
    let mut nodes = 0;
    while started.elapsed() < Duration::from_millis(500) {
        nodes += f();
    }
    nodes as f64 / started.elapsed().as_secs_f64()
}

fn bench(c: &mut Criterion) {
    let game = chess();
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, fen, depth) in POSITIONS {
        let state = game.from_fen(fen).expect("a valid FEN");
        let mut cache = Cache::new();
        group.bench_function(format!("chessalg {name} depth {depth}"), |b| {
            b.iter(|| game::perft(&game, black_box(&state), depth, &mut cache).expect("perft"))
        });
        let pos = shakmaty_position(fen);
        group.bench_function(format!("shakmaty {name} depth {depth}"), |b| {
            b.iter(|| shakmaty_perft(black_box(&pos), depth))
        });
    }
    group.finish();
}

/// Prints nodes per second of both and their ratio, the figure our notes report.
fn summary() {
    let game = chess();
    println!("\nperft nodes per second, single-threaded (ratio = shakmaty / chessalg):");
    for (name, fen, depth) in POSITIONS {
        let state = game.from_fen(fen).expect("a valid FEN");
        let mut cache = Cache::new();
        let pos = shakmaty_position(fen);
        // Alternate the two, nine rounds each, and keep each one's best:
        // a busy machine slows a round down, never speeds it up.
        let (mut ours, mut theirs) = (0f64, 0f64);
        for _ in 0..9 {
            ours = ours.max(rate(|| {
                game::perft(&game, &state, depth, &mut cache).expect("perft")
            }));
            theirs = theirs.max(rate(|| shakmaty_perft(&pos, depth)));
        }
        println!(
            "  {name:<9} depth {depth}: chessalg {ours:>12.0}  shakmaty {theirs:>12.0}  ratio {:.1}",
            theirs / ours
        );
    }
}

/// The other games of `rules/`, from their initial positions, at a depth
/// that takes a fraction of a second: nodes per second, so a change that
/// slows one game shows (no reference engine to compare with here).
const GAMES: [(&str, u32); 10] = [
    ("rules/tictactoe.alg", 9),
    ("rules/irreversible.alg", 3),
    ("rules/connect4.alg", 5),
    ("rules/breakthrough.alg", 3),
    ("rules/othello.alg", 7),
    ("rules/checkers.alg", 7),
    ("rules/ataxx.alg", 4),
    ("rules/clobber.alg", 4),
    ("rules/hex.alg", 3),
    ("rules/amazons.alg", 2),
];

/// Prints nodes per second of each game of `GAMES`.
fn games() {
    println!("\nperft nodes per second of the other games, single-threaded (best of five):");
    for (path, depth) in GAMES {
        let text = std::fs::read_to_string(path).expect("a rule file of rules/");
        let (spec, _) = chessalg::decl::Spec::load(&Source::new(path, text)).expect("the rule file loads");
        let game = Game::new(&spec).expect("a game");
        let state = game.initial();
        let mut cache = Cache::new();
        let best = (0..5)
            .map(|_| rate(|| game::perft(&game, &state, depth, &mut cache).expect("perft")))
            .fold(0f64, f64::max);
        println!("  {path:<24} depth {depth}: {best:>12.0}");
    }
}

criterion_group!(benches, bench);

fn main() {
    benches();
    summary();
    games();
    Criterion::default().configure_from_args().final_summary();
}
