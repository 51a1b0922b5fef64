//! `check`'s warnings: every file of `rules/` draws none, `--deny-warnings`
//! refuses a file that draws one, and the documented way to take the legal
//! moves of a choice first gives the moves the warning says are lost.
//! (Each warning's text and place: `tests/data/errors/lint_*.alg`, in the
//! diagnostics snapshots.)

mod common;

use common::{run, text};

#[test]
fn no_rule_file_draws_a_warning() {
    let files: Vec<String> = std::fs::read_dir("rules")
        .unwrap()
        .flatten()
        .map(|e| e.path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".alg"))
        .collect();
    assert!(files.len() > 30, "{} rule files", files.len());
    let mut args = vec!["check", "--deny-warnings"];
    args.extend(files.iter().map(String::as_str));
    let out = run(&args, b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn deny_warnings_refuses_a_file_with_a_warning() {
    let file = "tests/data/errors/lint_unused.alg";
    let out = run(&["check", file], b"");
    assert!(out.status.success());
    assert!(text(&out.stderr).contains("`sidestep` is never used"));
    let out = run(&["check", "--deny-warnings", file], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("3 warning(s), refused by --deny-warnings"));
}

#[test]
fn legal_moves_first_keeps_the_quiet_moves() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, moves: &str| {
        let path = dir.path().join(name);
        let body = format!(
            "import \"antichess.alg\"\npiece ♔ ♚  fen K k  royal\nmoves white = {moves}\nmoves black = flipped({moves})\n"
        );
        std::fs::write(&path, body).unwrap();
        path.to_string_lossy().into_owned()
    };
    let plain = write("plain.alg", "captures / piece_moves");
    let legal_first = write("legal_first.alg", "(captures !{%♔: attacked}) / piece_moves");
    // White's only capture (exd3) opens the e-file to the rook on e8.
    let fen = "k3r3/8/8/8/8/3n4/4P3/4K3 w - - 0 1";
    let moves = |file: &str| {
        let out = run(&["moves", file, "--fen", fen], b"");
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(moves(&plain), "");
    assert_eq!(moves(&legal_first), "e1d1\ne1d2\ne1f1\n");
    let warned = |file: &str| text(&run(&["check", file], b"").stderr).contains("lint::filtered_choice");
    assert!(warned(&plain));
    assert!(!warned(&legal_first));
}
