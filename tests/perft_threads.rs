//! Parallel perft (`perft --threads N`) gives the published counts, the same
//! as on one thread, on either engine.

mod common;

use chessalg::engine::Cache;
use chessalg::game;

/// Published counts (copied from `tests/data/perft/`): rule file, depth, leaves.
const CASES: [(&str, u32, u64); 5] = [
    ("rules/chess.alg", 4, 197_281),
    ("rules/connect4.alg", 6, 117_649),
    ("rules/checkers.alg", 7, 179_740),
    ("rules/othello.alg", 5, 1_396),
    // Games that end by a pattern have no children there.
    ("rules/tictactoe.alg", 8, 200_448),
];

#[test]
fn perft_on_several_threads_gives_the_published_counts() {
    for (rules, depth, published) in CASES {
        let g = common::game(rules);
        let start = g.initial();
        let one = game::perft(&g, &start, depth, &mut Cache::new()).unwrap();
        assert_eq!(one, published, "{rules} depth {depth} on one thread");
        for threads in [2, 3] {
            let n = game::perft_parallel(&g, &start, depth, threads).unwrap();
            assert_eq!(n, published, "{rules} depth {depth} on {threads} threads");
        }
    }
}

#[test]
fn divide_on_several_threads_matches_one_thread() {
    let g = common::chess();
    let start = g.initial();
    let one = game::divide(&g, &start, 3, &mut Cache::new()).unwrap();
    let two = game::divide_parallel(&g, &start, 3, 2).unwrap();
    assert_eq!(one, two);
    assert_eq!(two.iter().map(|(_, n)| n).sum::<u64>(), 8_902);
}

#[test]
fn the_threads_flag_keeps_the_count() {
    let out = common::run(&["perft", "rules/chess.alg", "-d", "3", "--threads", "2"], b"");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "8902");
    let bad = common::run(&["perft", "rules/chess.alg", "-d", "3", "--threads", "many"], b"");
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("--threads"), "{err}");
}
