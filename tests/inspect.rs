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

#[test]
fn explain_derives_castling_in_the_files_words() {
    let (code, out, err) = chessalg(&[
        "explain",
        "rules/chess.alg",
        "--fen",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "O-O",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    for says in [
        "e1g1 is a legal move of white. Its derivation:",
        "moves white = piece_moves | castle_3(r) | castle_4(l)",
        "`|` branch 2 of 3: castle_3(r)",
        "with m = r",
        "the piece of interest: ♔° on e1",
        "step 2: !{attacked}",
        "held: e1 is not attacked",
        "step 3: (% + m. -> . + m%)   [e1 ♔° -> ., f1 . -> ♔]",
        "held: f1 is not attacked",
        "[f1 ♔ -> ♖, g1 . -> ♔, h1 ♖° -> .]",
        "legal (royal_safe)",
    ] {
        assert!(out.contains(says), "{says}\n{out}");
    }
    assert!(out.contains("rules/chess.alg:94"), "lines are named: {out}");
    // A slide says how often its repetition went round.
    let (code, out, _) = chessalg(&[
        "explain",
        "rules/chess.alg",
        "--fen",
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        "a1a5",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("went round 3 times (the piece of interest: a1 → a2 → a3 → a4)"),
        "{out}"
    );
    // A checkers king's chain of jumps, landing by landing.
    let (code, out, _) = chessalg(&[
        "explain",
        "rules/checkers.alg",
        "--fen",
        "W:W31,K22:B18,11,10",
        "22x15x6",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("chain(J) = J+ !{J}   with J = king_jump"), "{out}");
    assert!(
        out.contains("went round 2 times (the piece of interest: 22 → 15 → 6)"),
        "{out}"
    );
}

#[test]
fn explain_says_why_castling_through_check_is_not_given() {
    let (code, out, err) = chessalg(&[
        "explain",
        "rules/chess.alg",
        "--fen",
        "r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1",
        "e1g1",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("e1g1 is not a move of white here"), "{out}");
    let castle = out
        .lines()
        .position(|l| l.trim().starts_with("castle_3(r)"))
        .expect(&out);
    let next = out.lines().nth(castle + 1).unwrap();
    assert!(
        next.contains("stopped at step 4: !{attacked}: f1 is attacked by ♝ on c4"),
        "{out}"
    );
    // The king in check: the first `!{attacked}` stops it, on e1.
    let (_, out, _) = chessalg(&[
        "explain",
        "rules/chess.alg",
        "--fen",
        "r3k2r/8/8/8/1b6/8/8/R3K2R w KQkq - 0 1",
        "e1g1",
    ]);
    assert!(
        out.contains("stopped at step 2: !{attacked}: e1 is attacked by ♝ on b4"),
        "{out}"
    );
}

#[test]
fn explain_says_what_attacks_the_king_after_a_move_into_check() {
    let (code, out, _) = chessalg(&[
        "explain",
        "rules/chess.alg",
        "--fen",
        "4k3/8/8/8/8/8/5r2/4K3 w - - 0 1",
        "e1d2",
    ]);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("e1d2 is given by white's moves, but it is not legal"),
        "{out}"
    );
    assert!(out.contains("`|` branch 2 of 4: R M"), "{out}");
    assert!(
        out.contains("white's ♔ on d2 is attacked by black's ♜ on f2 (f2d2)"),
        "{out}"
    );
    // Numbered squares (checkers): the man on 11 can step to 15 or 16, not 20.
    let (code, out, _) = chessalg(&["explain", "rules/checkers.alg", "11-20"]);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("the derivations for the piece on 11 that got furthest"),
        "{out}"
    );
    assert!(out.contains("its moves end on 15 16"), "{out}");
    let (code, out, _) = chessalg(&["explain", "rules/checkers.alg", "11-15"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("flipped(...) of turn"), "{out}");
    let (code, _, err) = chessalg(&["explain", "rules/chess.alg", "a10b11"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("`a10b11` is not a move"), "{err}");
    let (code, _, err) = chessalg(&["explain", "rules/chess.alg", "zz"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("`zz` is not a move of this position"), "{err}");
}

/// Whether python-chess is installed (`.ci/run` installs it).
fn python_chess() -> bool {
    Command::new("python3")
        .args(["-c", "import chess.variant"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_python_chess_adapter_checks_a_variant_fairy_stockfish_lacks() {
    if !python_chess() {
        eprintln!("python-chess is not installed: skipped (pip install chess)");
        return;
    }
    let engine = "python3 scripts/pychess_uci.py";
    let (code, out, err) = chessalg(&[
        "diff",
        "rules/atomic.alg",
        "--uci",
        engine,
        "--variant",
        "atomic",
        "--depth",
        "1",
        "--games",
        "5",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("no difference"), "{out}");
    // Chess is not atomic: the first capture's explosion tells them apart.
    let (code, out, err) = chessalg(&[
        "diff",
        "rules/chess.alg",
        "--uci",
        engine,
        "--variant",
        "atomic",
        "--depth",
        "1",
        "--games",
        "10",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("first difference at ply"), "{out}");
    let (code, _, err) = chessalg(&[
        "diff",
        "rules/chess.alg",
        "--uci",
        engine,
        "--variant",
        "nonsense",
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("offers no UCI_Variant `nonsense`"), "{err}");
}
