//! `chessalg diff` and `chessalg stats`: the tools for people who write
//! rule files, run as a user runs them.

use std::process::Command;

fn chessalg(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chessalg"))
        .args(args)
        .output()
        .expect("run chessalg");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Irreversible Chess's start (king and queen change places).
const IRREVERSIBLE: &str = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1";

#[test]
fn chess_and_irreversible_chess_first_differ_where_a_knight_could_go_back() {
    let (code, out, err) = chessalg(&[
        "diff",
        "rules/chess.alg",
        "--fen",
        IRREVERSIBLE,
        "rules/irreversible.alg",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("first difference at ply 2:"), "{out}");
    // The first position shown: after 1. Nc3 a6, the knight's way back.
    assert!(out.contains("after Nc3 a6 (b1c3 a7a6)"), "{out}");
    assert!(out.contains("only in rules/chess.alg: c3b1 a1b1\n"), "{out}");
    assert!(out.contains("only in rules/irreversible.alg: none\n"), "{out}");
    assert!(out.contains(" 1 ♖.♗♔♕♗♘♖"), "the board is drawn: {out}");
    assert!(
        out.contains("FEN rnbkqbnr/1ppppppp/p7/8/8/2N5/PPPPPPPP/R1BKQBNR w - - 0 2"),
        "{out}"
    );
}

#[test]
fn a_file_against_itself_differs_nowhere() {
    let (code, out, err) = chessalg(&["diff", "rules/chess.alg", "rules/chess.alg", "--games", "10"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("no difference"), "{out}");
    // Every position to ply 3 (9,322 after transpositions at most 8,902 + 400 + 20 + 1) and 10 games.
    let compared: u64 = out.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(compared > 9_000, "{out}");
}

#[test]
fn a_uci_engine_that_counts_perft_is_compared_too() {
    let me = env!("CARGO_BIN_EXE_chessalg");
    let engine = format!("{me} uci rules/chess.alg");
    let (code, out, err) = chessalg(&[
        "diff",
        "rules/chess.alg",
        "--uci",
        &engine,
        "--depth",
        "2",
        "--games",
        "3",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("no difference"), "{out}");
    // The same engine playing Irreversible Chess differs from chess at ply 2.
    let engine = format!("{me} uci rules/irreversible.alg");
    let (code, out, err) = chessalg(&[
        "diff",
        "rules/chess.alg",
        "--fen",
        IRREVERSIBLE,
        "--uci",
        &engine,
        "--games",
        "0",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("first difference at ply 2:"), "{out}");
    assert!(out.contains(&format!("only in {engine}: none")), "{out}");
}

#[test]
fn a_bad_engine_or_option_is_one_line() {
    for (args, says) in [
        (
            vec!["diff", "rules/chess.alg", "--uci", "/no/such/engine"],
            "cannot start",
        ),
        (vec!["diff", "rules/chess.alg"], "<SECOND>"),
        (
            vec!["diff", "rules/chess.alg", "--uci", "x", "--option", "Hash"],
            "NAME=VALUE",
        ),
    ] {
        let (code, out, err) = chessalg(&args);
        assert_ne!(code, Some(0), "{args:?}: {out}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn stats_measure_games_played_out() {
    let plot = std::env::temp_dir().join(format!("chessalg-stats-{}.svg", std::process::id()));
    let plot = plot.to_string_lossy().into_owned();
    let (code, out, err) = chessalg(&[
        "stats",
        "rules/tictactoe.alg",
        "--games",
        "30",
        "--json",
        "--plot",
        &plot,
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(json["game"], "Tic-tac-toe");
    for kind in ["ai", "random"] {
        let m = &json[kind];
        assert_eq!(m["games"], 30);
        // Nine empty squares at the first ply, eight at the second.
        assert_eq!(m["branching_by_ply"][0], 9.0, "{kind}");
        assert_eq!(m["branching_by_ply"][1], 8.0, "{kind}");
        let (least, most) = (m["length"][1].as_u64().unwrap(), m["length"][2].as_u64().unwrap());
        assert!(
            (5..=9).contains(&least) && (least..=9).contains(&most),
            "{kind}: {m}"
        );
        let ended: u64 = m["endings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e[1].as_u64().unwrap())
            .sum();
        assert_eq!(ended, 30, "{kind}");
        let wins: u64 = m["wins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_u64().unwrap())
            .sum();
        assert_eq!(wins, 30, "{kind}");
        assert_eq!(m["captures"], 0.0);
        // One X or O more on the board each ply, counted as material.
        assert_eq!(m["material_by_ply"][0][2], 1.0, "{kind}");
    }
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.contains("legal moves per position") && svg.matches("<polyline").count() == 6,
        "{svg}"
    );
    let _ = std::fs::remove_file(plot);
    // Chess: captures and promotions are counted.
    let (code, out, err) = chessalg(&["stats", "rules/chess.alg", "--games", "4", "--depth", "1"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let captures = out.lines().find(|l| l.starts_with("captures per game")).unwrap();
    let random: f64 = captures.split_whitespace().last().unwrap().parse().unwrap();
    assert!(random > 5.0, "{out}");
    assert!(out.contains("how games end:"), "{out}");
}
