//! The `chessalg` binary run as a user runs it: exit codes, stdout, stderr.

use std::process::Output;

mod common;
use common::text;

fn chessalg(args: &[&str], stdin: Option<&[u8]>) -> Output {
    common::run(args, stdin.unwrap_or_default())
}

#[test]
fn check_accepts_valid_files() {
    let out = chessalg(
        &["check", "rules/prelude.alg", "tests/data/seed/seed003.alg"],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("seed003.alg: ok"));
}

#[test]
fn check_reports_every_error_of_every_file() {
    let out = chessalg(
        &[
            "check",
            "tests/data/errors/syntax_two_errors.alg",
            "tests/data/seed/seed003.alg",
            "tests/data/errors/overlap.alg",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(err.matches("chessalg::syntax::expected").count(), 2, "{err}");
    assert!(err.contains("chessalg::expand::overlap"), "{err}");
    assert!(err.contains("2 of 3 file(s) failed"), "{err}");
}

#[test]
fn check_refuses_text_that_is_not_utf8() {
    let path = std::env::temp_dir().join("chessalg-not-utf8.alg");
    std::fs::write(&path, "a = .\n// caf\u{e9} \n".as_bytes()).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    // The é's first byte alone: line 2, column 7, byte 12.
    bytes.remove(13);
    std::fs::write(&path, &bytes).unwrap();
    let out = chessalg(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("chessalg::syntax::not_utf8"), "{err}");
    assert!(err.contains("line 2, column 7 (byte 12)"), "{err}");
}

#[test]
fn random_bytes_never_crash() {
    let path = std::env::temp_dir().join("chessalg-random.alg");
    let mut rng = chessalg::core::Rng::new(0x2545_f491_4f6c_dd1d);
    let bytes: Vec<u8> = (0..4096).map(|_| rng.next_u64() as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    let out = chessalg(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}

#[test]
fn check_names_a_missing_file_in_one_line() {
    let out = chessalg(&["check", "no/such/file.alg"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("error: cannot read no/such/file.alg"), "{err}");
}

#[test]
fn expand_prints_named_definitions() {
    let out = chessalg(
        &["expand", "tests/data/seed/seed003.alg", "rook_move", "ru_pawn"],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    insta::assert_snapshot!(text(&out.stdout), @r"
    rook_move = %♖: (% + u. -> . + u%)+ | (l. + % -> l% + .)+ | (d. + % -> d% + .)+ | (% + r. -> . + r%)+
    ru_pawn = l♟
    ");
}

#[test]
fn expand_refuses_an_unknown_name() {
    let out = chessalg(&["expand", "tests/data/seed/seed003.alg", "bishop"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("has no definition `bishop`"));
}

#[test]
fn expand_an_expression_with_definitions() {
    let out = chessalg(
        &[
            "expand",
            "--expr",
            "%♖: in_any_direction(rook_move_u)",
            "--with",
            "tests/data/seed/seed003.alg",
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "%♖: (% + u. -> . + u%)+ | (l. + % -> l% + .)+ | (d. + % -> d% + .)+ | (% + r. -> . + r%)+\n"
    );
}

#[test]
fn expand_an_expression_from_stdin() {
    let out = chessalg(
        &["expand", "--expr", "-"],
        Some("flipped(♙ + u. -> . + u♙)\n".as_bytes()),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "d. + ♟ -> d♟ + .\n");
}

#[test]
fn expand_reports_errors_in_the_expression() {
    let out = chessalg(&["expand", "--expr", "♙ + ♟"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("chessalg::expand::overlap") && err.contains("<expr>"),
        "{err}"
    );
}

#[test]
fn apply_prints_every_position_then_the_count() {
    let out = chessalg(
        &[
            "apply",
            "--board",
            "tests/data/apply/two_pawns.board",
            "--expr",
            "♙ -> . + u♙",
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "....♙..\n..♙....\n\n..♙....\n....♙..\n\n2 positions\n"
    );
    let count = chessalg(
        &[
            "apply",
            "--board",
            "tests/data/apply/two_pawns.board",
            "--expr",
            "♙ -> . + u♙",
            "--count",
        ],
        None,
    );
    assert_eq!(text(&count.stdout), "2 positions\n");
}

#[test]
fn apply_stops_a_runaway_rule_with_one_line() {
    let out = chessalg(
        &[
            "apply",
            "--board",
            "tests/data/apply/empty8.board",
            "--expr",
            "(. -> ♙)*",
            "--count",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    // The error, then how to raise the limit.
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].contains("more than 1000000 states"), "{err}");
    assert!(
        lines[1].contains("help:") && lines[1].contains("--max-states N"),
        "{err}"
    );
    // Raised, the same rule runs further (and still stops).
    let out = chessalg(
        &[
            "apply",
            "--board",
            "tests/data/apply/empty8.board",
            "--expr",
            "(. -> ♙)*",
            "--count",
            "--max-states",
            "2000000",
        ],
        None,
    );
    assert!(text(&out.stderr).contains("more than 2000000 states"));
}

#[test]
fn apply_refuses_a_board_that_is_not_a_diagram() {
    let out = chessalg(
        &[
            "apply",
            "--board",
            "tests/data/apply/two_pawns.board",
            "--expr",
            "%: . -> .",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let path = std::env::temp_dir().join("chessalg-bad.board");
    std::fs::write(&path, "..★\n").unwrap();
    let out = chessalg(
        &["apply", "--board", path.to_str().unwrap(), "--expr", ". -> ♙"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains('★'), "{}", text(&out.stderr));
}

#[test]
fn check_locates_an_unbound_piece_of_interest() {
    let out = chessalg(&["check", "tests/data/errors/unbound_poi.alg"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("chessalg::expand::unbound_poi"), "{err}");
    assert!(err.contains("unbound_poi.alg:8:15"), "{err}");
    assert!(err.contains("in the moves of white"), "{err}");
}

#[test]
fn any_square_and_places_expand_to_edge_patterns() {
    let expand = |expr: &str| {
        let out = chessalg(&["expand", "--expr", expr], None);
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    // `@b2`: one square of the board, then the edge, to the left and below.
    let (code, out, err) = expand("♔ + @b2 -> ♔ + @b2");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "dd# + d_ + ll# + l_ + ♔ -> dd# + d_ + ll# + l_ + ♔\n");
    // Turned half round, the place counts from the other edges (g7 on 8x8).
    let (_, out, _) = expand("flipped(♔ + @b2 -> ♔ + @b2)");
    assert_eq!(out, "♚ + r_ + rr# + u_ + uu# -> ♚ + r_ + rr# + u_ + uu#\n");
    // `u_` is `u` applied to `_`; on the right `_` keeps what the left found.
    let (code, out, _) = expand("♙ + u_ -> . + u_");
    assert_eq!((code, out.as_str()), (Some(0), "♙ + u_ -> . + u_\n"));
    // `_` cannot create a square.
    let (code, _, err) = expand("♙ -> ♙ + u_");
    assert_eq!(code, Some(1));
    assert!(err.contains("chessalg::expand::any_written"), "{err}");
    let (code, _, err) = expand("♙ + @a999");
    assert_eq!(code, Some(1));
    assert!(err.contains("chessalg::syntax::bad_place"), "{err}");
}

#[test]
fn any_square_matches_every_content_and_keeps_it() {
    let dir = std::env::temp_dir().join(format!("chessalg-any-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let board = dir.join("board.txt");
    std::fs::write(&board, "♟..\n♙.♙\n").unwrap();
    let board = board.to_str().unwrap();
    // Both pawns have a square above them (one empty, one holding ♟): each
    // leaves its square and `u_` keeps what is above.
    let out = chessalg(
        &["apply", "--board", board, "--expr", "♙ + u_ -> . + u_", "--count"],
        None,
    );
    assert_eq!(text(&out.stdout).trim(), "2 positions");
    // `@a1`: only the pawn on a1 (nothing to its left, nothing below).
    let out = chessalg(&["apply", "--board", board, "--expr", "♙ + @a1 -> . + @a1"], None);
    assert_eq!(text(&out.stdout), "♟..\n..♙\n\n1 position\n");
}

#[test]
fn bench_measures_the_positions_of_a_file_and_refuses_a_bad_line() {
    let dir = std::env::temp_dir().join(format!("chessalg-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("positions.txt");
    std::fs::write(&file, "# tic-tac-toe\nrules/tictactoe.alg ; start ; 2 ; 3\n").unwrap();
    let out = chessalg(&["bench", file.to_str().unwrap(), "--rounds", "1"], None);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.starts_with("rules/tictactoe.alg"))
        .unwrap();
    let fields: Vec<&str> = row.split_whitespace().collect();
    // rules, depth, nodes, nodes/s, perft depth, leaves (9 * 8 * 7), leaves/s, node cost
    assert_eq!(fields[1], "2");
    assert_eq!(fields[5], "504");
    std::fs::write(&file, "rules/tictactoe.alg ; start ; two ; 3\n").unwrap();
    let out = chessalg(&["bench", file.to_str().unwrap()], None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(":1: expected"), "{err}");
}

/// A command whose reader has gone away (`chessalg show FILE | head -1`)
/// ends quietly, as Unix tools do: no panic, nothing on stderr.
#[cfg(unix)]
#[test]
fn commands_end_quietly_when_their_reader_goes_away() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    for args in [
        &["show", "rules/chess.alg"][..],
        &["expand", "rules/chess.alg"],
        &["moves", "rules/chess.alg"],
        &["perft", "rules/chess.alg", "--depth", "2", "--divide"],
    ] {
        // A pipe whose reading end is closed before chessalg writes a byte.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_chessalg"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {err}");
        assert!(
            out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {:?}",
            out.status
        );
    }
}

#[test]
fn bundled_games_are_found_by_name_from_any_directory() {
    let elsewhere = std::env::temp_dir();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_chessalg"))
            .args(args)
            .current_dir(&elsewhere)
            .output()
            .unwrap()
    };
    // A bare name, and a bundled file that imports another.
    let out = run(&["perft", "chess", "-d", "2"]);
    assert_eq!(text(&out.stdout).trim(), "400", "{}", text(&out.stderr));
    let out = run(&["perft", "irreversible-castling", "-d", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // An unknown name says which games there are.
    let out = run(&["show", "no-such-game"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot read no-such-game")
            && err.contains("bundled games: ")
            && err.contains(" amazons,"),
        "{err}"
    );
}

#[test]
fn fen_refuses_a_position_the_game_cannot_reach_unless_lenient() {
    let fen = "8/8/8/8/8/8/8/KPk5 w - - 0 1";
    let out = chessalg(&["show", "rules/chess.alg", "--fen", fen], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("implausible FEN: ♙ on b1") && err.contains("--lenient"),
        "{err}"
    );
    let out = chessalg(&["show", "rules/chess.alg", "--fen", fen, "--lenient"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
