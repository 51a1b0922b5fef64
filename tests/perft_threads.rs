//! Parallel perft (`perft --threads N`) and perft with a table of counted
//! subtrees (`perft --hash MB`) give the published counts, the same as on
//! one thread without a table.

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
            let n = game::perft_parallel(&g, &start, depth, threads, None).unwrap();
            assert_eq!(n, published, "{rules} depth {depth} on {threads} threads");
        }
    }
}

#[test]
fn a_watched_perft_counts_the_same_and_notes_every_subtree() {
    for (rules, depth, published) in CASES {
        let g = common::game(rules);
        for threads in [1, 2] {
            let progress = game::PerftProgress::default();
            let n = game::perft_watched(&g, &g.initial(), depth, threads, None, Some(&progress)).unwrap();
            assert_eq!(
                n, published,
                "{rules} depth {depth} on {threads} threads, watched"
            );
            let load = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed);
            assert!(
                load(&progress.parts) >= 8,
                "{rules}: split into {}",
                load(&progress.parts)
            );
            assert_eq!(load(&progress.done), load(&progress.parts), "{rules}");
            assert_eq!(load(&progress.leaves), published, "{rules}");
        }
    }
}

#[test]
fn divide_on_several_threads_matches_one_thread() {
    let g = common::chess();
    let start = g.initial();
    let one = game::divide(&g, &start, 3, &mut Cache::new()).unwrap();
    let two = game::divide_parallel(&g, &start, 3, 2, None).unwrap();
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

#[test]
fn a_table_of_counted_subtrees_keeps_the_published_counts() {
    for (rules, depth, published) in CASES {
        let g = common::game(rules);
        let start = g.initial();
        // A small table: slots are overwritten often.
        let table = game::PerftTable::with_megabytes(1).unwrap();
        let n = game::perft_with(&g, &start, depth, &mut Cache::new(), Some(&table)).unwrap();
        assert_eq!(n, published, "{rules} depth {depth} with a table");
        // Filled already: the same count again, now mostly from the table.
        let again = game::perft_with(&g, &start, depth, &mut Cache::new(), Some(&table)).unwrap();
        assert_eq!(again, published, "{rules} depth {depth} from the table");
        let table = game::PerftTable::with_megabytes(4).unwrap();
        let n = game::perft_parallel(&g, &start, depth, 2, Some(&table)).unwrap();
        assert_eq!(n, published, "{rules} depth {depth} with a table on 2 threads");
    }
}

#[test]
fn the_hash_flag_keeps_the_count() {
    let out = common::run(&["perft", "rules/chess.alg", "-d", "4", "--hash", "8"], b"");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "197281");
    let out = common::run(
        &["perft", "rules/chess.alg", "-d", "3", "--hash", "8", "--divide"],
        b"",
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Nodes searched: 8902"));
    for bad in ["0", "lots", "100000"] {
        let out = common::run(&["perft", "rules/chess.alg", "-d", "3", "--hash", bad], b"");
        assert!(!out.status.success(), "--hash {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--hash"), "{err}");
    }
}
