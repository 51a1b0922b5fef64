//! `chessalg train` and `--weights`: weights learned from self-play are
//! written, read back by `match`, `play` and `uci`, and refused with one
//! line when they do not fit.

use std::io::Write;
use std::process::{Command, Stdio};

mod common;

fn chessalg(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chessalg"))
        .args(args)
        .env(
            "CHESSALG_DATA_DIR",
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("chessalg-data"),
        )
        .output()
        .expect("run chessalg");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str) -> String {
    std::env::temp_dir()
        .join(format!("chessalg-learn-{}-{name}", std::process::id()))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn train_writes_weights_and_a_learning_curve_that_match_reads() {
    let (weights, curve) = (temp("ttt.json"), temp("ttt.svg"));
    let (ok, out, err) = chessalg(&[
        "train",
        "rules/tictactoe.alg",
        "--games",
        "64",
        "--out",
        &weights,
        "--curve",
        &curve,
        "--curve-every",
        "32",
        "--curve-games",
        "4",
    ]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("64 self-play games of Tic-tac-toe"), "{out}");
    assert_eq!(err.matches("against the starting weights").count(), 2, "{err}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&weights).unwrap()).unwrap();
    assert_eq!(json["game"], "Tic-tac-toe");
    assert_eq!(json["games"], 64);
    assert!(std::fs::read_to_string(&curve).unwrap().contains("<polyline"));
    let (ok, out, err) = chessalg(&[
        "match",
        "rules/tictactoe.alg",
        "--white",
        "ai",
        "--black",
        "ai",
        "--depth",
        "2",
        "--games",
        "4",
        "--alternate",
        "--weights",
        &format!("crosses={weights}"),
    ]);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("the setup given for crosses (playing both sides in turn)"),
        "{out}"
    );
    let best = uci_best("rules/tictactoe.alg", &["--weights", &weights], "go depth 2");
    assert!(!best.is_empty(), "uci with weights");
    for f in [weights, curve] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn games_zero_writes_the_starting_weights() {
    let weights = temp("start.json");
    let (ok, out, _) = chessalg(&["train", "rules/chess.alg", "--games", "0", "--out", &weights]);
    assert!(ok && out.contains("starting weights of Chess"), "{out}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&weights).unwrap()).unwrap();
    assert_eq!(json["pieces"][0], 100.0, "a pawn is worth its declared 1");
    let _ = std::fs::remove_file(weights);
}

#[test]
fn weights_that_do_not_fit_are_refused_in_one_line() {
    let checkers = temp("checkers.json");
    assert!(chessalg(&["train", "rules/checkers.alg", "--games", "0", "--out", &checkers]).0);
    let bad = temp("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    for (args, says) in [
        (
            vec!["match", "rules/chess.alg", "--weights", &checkers],
            "Checkers",
        ),
        (
            vec!["play", "rules/chess.alg", "--weights", "/no/such.json"],
            "/no/such.json",
        ),
        (
            vec!["uci", "rules/chess.alg", "--weights", &bad],
            "not a weights file",
        ),
        (
            vec!["train", "rules/chess.alg", "--from", &checkers, "--out", &bad],
            "Checkers",
        ),
        (
            vec!["train", "rules/chess.alg", "--lambda", "2", "--out", &bad],
            "--lambda",
        ),
    ] {
        let (ok, out, err) = chessalg(&args);
        assert!(!ok, "{args:?}: {out}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    for f in [checkers, bad] {
        let _ = std::fs::remove_file(f);
    }
}

/// The best move of `uci RULES [ARGS]` from the start, searched with `go`.
fn uci_best(rules: &str, args: &[&str], go: &str) -> String {
    let mut uci = Command::new(env!("CARGO_BIN_EXE_chessalg"))
        .arg("uci")
        .arg(rules)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    uci.stdin
        .take()
        .unwrap()
        .write_all(format!("uci\nisready\nposition startpos\n{go}\nquit\n").as_bytes())
        .unwrap();
    let out = String::from_utf8_lossy(&uci.wait_with_output().unwrap().stdout).into_owned();
    let best = out.lines().find_map(|l| l.strip_prefix("bestmove "));
    best.unwrap_or_else(|| panic!("no bestmove: {out}")).to_string()
}

#[test]
fn a_rule_file_names_the_weights_its_ai_plays_with() {
    let dir = temp("named");
    std::fs::create_dir_all(&dir).unwrap();
    let at = |f: &str| format!("{dir}/{f}");
    // Weights that prize a cross in the corner a1 above all.
    assert!(
        chessalg(&[
            "train",
            "rules/tictactoe.alg",
            "--games",
            "0",
            "--out",
            &at("w.json")
        ])
        .0
    );
    let mut w: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(at("w.json")).unwrap()).unwrap();
    w["squares"][0] = 1000.0.into();
    std::fs::write(at("w.json"), w.to_string()).unwrap();
    let ttt = std::fs::read_to_string("rules/tictactoe.alg").unwrap();
    std::fs::write(at("ttt.alg"), format!("{ttt}\nweights \"w.json\"\n")).unwrap();
    assert_eq!(
        uci_best(&at("ttt.alg"), &[], "go depth 1"),
        "a1",
        "the file's weights"
    );
    let plain = uci_best("rules/tictactoe.alg", &[], "go depth 1");
    assert_ne!(plain, "a1", "without them");
    assert_eq!(
        uci_best(&at("ttt.alg"), &["--weights", "none"], "go depth 1"),
        plain
    );
    // A file that imports it plays another game: it does not inherit them.
    std::fs::write(at("import.alg"), "import \"ttt.alg\"\n").unwrap();
    assert_eq!(uci_best(&at("import.alg"), &[], "go depth 1"), plain);
    // `match` and `play` load them too: a1 is the AI's first move.
    let (ok, out, err) = chessalg(&[
        "match",
        &at("ttt.alg"),
        "--player",
        "crosses=ai",
        "--player",
        "noughts=ai",
        "--depth",
        "1",
        "--games",
        "1",
        "--pgn",
        &at("g.pgn"),
    ]);
    assert!(ok, "{out}{err}");
    let pgn = std::fs::read_to_string(at("g.pgn")).unwrap();
    assert!(pgn.contains("1. a1 "), "{pgn}");
    // A missing file is the rule file's error, at the path.
    std::fs::write(at("bad.alg"), format!("{ttt}\nweights \"nowhere.json\"\n")).unwrap();
    let (ok, _, err) = chessalg(&["check", &at("bad.alg")]);
    assert!(!ok);
    assert!(err.contains("cannot use weights \"nowhere.json\""), "{err}");
    assert!(err.contains("relative to the rule file's folder"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The action space of every rule file, as the table of `docs/python.md`
/// gives it: its size, and how many of its actions are table moves.
#[test]
fn the_manual_gives_every_rule_files_action_space() {
    let readme = std::fs::read_to_string("docs/python.md").unwrap();
    let mut missing = Vec::new();
    for (path, game) in common::games() {
        let space = chessalg::learn::ActionSpace::new(&game);
        let name = path.trim_start_matches("rules/").trim_end_matches(".alg");
        let row = format!("| {name} | {} | {} |", space.len(), space.table_moves());
        if !readme.contains(&row) {
            missing.push(row);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/python.md lacks these rows:\n{}",
        missing.join("\n")
    );
}
