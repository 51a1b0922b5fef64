//! `chessalg train` and `--weights`: weights learned from self-play are
//! written, read back by `match`, `play` and `uci`, and refused with one
//! line when they do not fit.

use std::io::Write;
use std::process::{Command, Stdio};

fn chessalg(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chessalg"))
        .args(args)
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
    let mut uci = Command::new(env!("CARGO_BIN_EXE_chessalg"))
        .args(["uci", "rules/tictactoe.alg", "--weights", &weights])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    uci.stdin
        .take()
        .unwrap()
        .write_all(b"uci\nisready\ngo depth 2\nquit\n")
        .unwrap();
    let out = uci.wait_with_output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("bestmove "),
        "uci with weights"
    );
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
