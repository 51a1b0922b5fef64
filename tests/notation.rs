//! `notation numbered` on `rules/checkers.alg`: squares numbered 1-32,
//! moves `11-15` and `15x24x31`, positions `B:W21,...:B1,...`, read and
//! written by the game layer and the `moves`, `show` and `play` commands.

use chessalg::engine::Cache;
use chessalg::game::{Ending, Game, MoveInputError, PgnTags, State};

mod common;
use common::{game, run, text};

fn checkers() -> Game {
    game("rules/checkers.alg")
}

/// The names of the legal moves, in the engine's order.
fn names(game: &Game, state: &State) -> Vec<String> {
    let mut cache = Cache::new();
    let legal = game.legal_actions(state, &mut cache).unwrap();
    let mut names: Vec<String> = legal.iter().map(|a| game.action_name(state, a)).collect();
    names.sort();
    names
}

/// The name of the legal move `text` reads as, or why it reads as none.
fn read(game: &Game, state: &State, text: &str) -> Result<String, MoveInputError> {
    let mut cache = Cache::new();
    let legal = game.legal_actions(state, &mut cache).unwrap();
    game.read_move(state, &legal, text)
        .map(|i| game.action_name(state, &legal[i]))
}

#[test]
fn squares_count_from_the_top_left_in_reading_order() {
    let g = checkers();
    // b8 is 1, h8 is 4, a7 is 5, g1 is 32 (the board's dark squares).
    for (file, rank, n) in [(1, 7, 1), (7, 7, 4), (0, 6, 5), (0, 0, 29), (6, 0, 32)] {
        assert_eq!(g.square_number(g.square_at(file, rank)), Some(n));
        assert_eq!(g.square_label(g.square_at(file, rank)), n.to_string());
    }
    assert_eq!(g.square_number(g.square_at(0, 7)), None, "a8 is no square");
}

#[test]
fn the_opening_moves_are_written_as_players_write_them() {
    let g = checkers();
    assert_eq!(
        names(&g, &g.initial()),
        ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
    );
}

#[test]
fn positions_are_written_and_read_in_the_numbered_form() {
    let g = checkers();
    let start = "B:B1,2,3,4,5,6,7,8,9,10,11,12:W21,22,23,24,25,26,27,28,29,30,31,32";
    assert_eq!(g.to_fen(&g.initial()), start);
    // Runs, either order of the lists, lower-case tags: the same position.
    for same in ["B:W21-32:B1-12", "b:b1-12:w21-32", "B:B1-4,5-12:W21-32"] {
        assert_eq!(g.from_fen(same).unwrap(), g.initial(), "{same}");
    }
    // Kings carry their letter; white to move.
    let s = g.from_fen("W:W14,22,K23:B9-12").unwrap();
    assert_eq!(g.to_fen(&s), "W:B9,10,11,12:W14,22,K23");
    assert_eq!(g.player_name(s.turn()), "white");
    // The board's own FEN still reads.
    assert!(
        g.from_fen("1M1M1M1M/M1M1M1M1/1M1M1M1M/8/8/m1m1m1m1/1m1m1m1m/m1m1m1m1 w")
            .is_ok()
    );
}

#[test]
fn bad_numbered_positions_say_what_is_wrong() {
    let g = checkers();
    for (fen, says) in [
        ("X:W14:B1", "`X` names no player"),
        ("B:W40:B1", "`40` is not a square number (1 to 32)"),
        ("B:WQ14:B1", "`Q` is not a piece letter of white"),
        ("B:W14:W15", "white is listed twice"),
        ("B:W14:B1,14", "square 14 is listed twice"),
        ("B:Z14", "does not start with a player"),
    ] {
        let e = g.from_fen(fen).unwrap_err().to_string();
        assert!(e.contains(says), "{fen}: {e}");
    }
}

#[test]
fn a_capture_chain_writes_every_landing_square() {
    let g = checkers();
    // A man on 9 jumps 14 and then 22.
    let s = g.from_fen("B:W14,22:B9").unwrap();
    assert_eq!(names(&g, &s), ["9x18x25"]);
    // A king on 9 can turn either way after the first jump.
    let s = g.from_fen("B:W14,22,23:BK9").unwrap();
    assert_eq!(names(&g, &s), ["9x18x25", "9x18x27"]);
}

#[test]
fn typed_moves_may_leave_out_the_middle_of_a_chain_when_that_is_clear() {
    let g = checkers();
    let s = g.from_fen("B:W14,22:B9").unwrap();
    assert_eq!(read(&g, &s, "9x18x25").unwrap(), "9x18x25");
    assert_eq!(read(&g, &s, "9x25").unwrap(), "9x18x25");
    assert_eq!(read(&g, &s, "9-25").unwrap(), "9x18x25");
    assert!(matches!(
        read(&g, &s, "9x18"),
        Err(MoveInputError::NoMatch { .. })
    ));
    assert!(matches!(
        read(&g, &s, "9x99"),
        Err(MoveInputError::NoMatch { .. })
    ));
    // From 2 to 18 over 9 or over 11: `2x18` is either, so it is refused.
    let s = g.from_fen("B:W6,7,14,15:B2").unwrap();
    assert_eq!(names(&g, &s), ["2x11x18", "2x9x18"]);
    match read(&g, &s, "2x18") {
        Err(MoveInputError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates.len(), 2);
        }
        other => panic!("2x18 read as {other:?}"),
    }
    assert_eq!(read(&g, &s, "2x9x18").unwrap(), "2x9x18");
    // Coordinates still read.
    assert_eq!(read(&g, &g.initial(), "b6a5").unwrap(), "9-13");
}

#[test]
fn the_record_tags_the_players_by_their_colours() {
    let g = checkers();
    let mut cache = Cache::new();
    let start = g.initial();
    let legal = g.legal_actions(&start, &mut cache).unwrap();
    let first = legal
        .iter()
        .find(|a| g.action_name(&start, a) == "11-15")
        .unwrap();
    let black = start.turn();
    let tags = PgnTags {
        players: vec!["Ann".to_string(), "Bob".to_string()],
        ..PgnTags::default()
    };
    let pgn = g
        .pgn(
            &start,
            std::slice::from_ref(first),
            Some(Ending::Win(black)),
            &tags,
            &mut cache,
        )
        .unwrap();
    // Black moves first in checkers: the first player is the `Black` tag,
    // and a win of black's is `0-1`.
    assert!(pgn.contains("[White \"Bob\"]"), "{pgn}");
    assert!(pgn.contains("[Black \"Ann\"]"), "{pgn}");
    // From the rule file's own start: no `FEN` tag (the `Variant` says it).
    assert!(
        !pgn.contains("[FEN") && pgn.contains("[Variant \"Checkers\"]"),
        "{pgn}"
    );
    let later = g.play(&start, first);
    let set_up = g.pgn(&later, &[], None, &tags, &mut cache).unwrap();
    assert!(set_up.contains("[SetUp \"1\"]\n[FEN \""), "{set_up}");
    assert!(pgn.contains("1. 11-15 0-1"), "{pgn}");
}

#[test]
fn the_commands_read_and_write_the_numbered_forms() {
    let out = run(&["moves", "rules/checkers.alg", "--fen", "B:W6,7,14,15:B2"], b"");
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "2x9x18\n2x11x18\n");
    let out = run(&["show", "rules/checkers.alg", "--fen", "W:W14:BK1"], b"");
    let shown = text(&out.stdout);
    assert!(shown.contains("FEN: W:BK1:W14"), "{shown}");
    // The board is drawn with the squares' numbers beside it.
    assert!(
        shown.contains(" 8  ⛃ . . .         1     2     3     4"),
        "{shown}"
    );
    let out = run(&["moves", "rules/checkers.alg", "--fen", "B:W99"], b"");
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stderr).trim(),
        "error: bad FEN: board field: `99` is not a square number (1 to 32)"
    );
    // In play, a move typed by number is made; a wrong one is refused with
    // the moves from its square.
    let out = run(
        &[
            "play",
            "rules/checkers.alg",
            "--line",
            "--white",
            "random",
            "--quiet",
            "--max-plies",
            "2",
        ],
        b"12-17\n11-15\n",
    );
    let said = text(&out.stdout);
    assert!(
        said.contains("`12-17` is not a legal move; legal: 12-16"),
        "{said}"
    );
    // Black's move was made: white answers it.
    assert!(said.contains("1... white plays"), "{said}");
}
