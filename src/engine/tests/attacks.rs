//! `attacked`, safe moves and `can_change`, on both engines.

use super::*;

fn has_result(engine: &Engine, f: &Fixture, expr: &str, side: usize, board: &str) -> bool {
    engine
        .has_result(
            &f.program(expr),
            side,
            &f.board(board),
            &mut Cache::new(),
            &Limits::default(),
        )
        .unwrap()
}

#[test]
fn the_king_is_attacked_only_where_a_black_move_changes_its_square() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    let attacked = "%♔: attacked";
    // A black rook down an open file.
    let open = "♜....\n.....\n.....\n.....\n♔....\n";
    assert!(has_result(&e, &f, attacked, WHITE, open));
    assert!(!has_result(&e, &f, "%♔: !{attacked}", WHITE, open));
    // A white pawn between them.
    let blocked = "♜....\n.....\n♙....\n.....\n♔....\n";
    assert!(!has_result(&e, &f, attacked, WHITE, blocked));
    assert!(has_result(&e, &f, "%♔: !{attacked}", WHITE, blocked));
    // A rook on the next file.
    assert!(!has_result(
        &e,
        &f,
        attacked,
        WHITE,
        ".♜...\n.....\n.....\n.....\n♔....\n"
    ));
    // A black king beside it.
    assert!(has_result(
        &e,
        &f,
        attacked,
        WHITE,
        ".....\n.....\n.....\n.♚...\n♔....\n"
    ));
    // `search` runs alone: nothing is attacked there.
    let program = f.program(attacked);
    let mut cache = Cache::new();
    let position = f.board(open);
    assert!(
        engine::search(&program, &position, &mut cache, &Limits::default())
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        engine::search(
            &f.program("%♔: !{attacked}"),
            &position,
            &mut cache,
            &Limits::default()
        )
        .unwrap()
        .len(),
        1
    );
}

#[test]
fn attacked_is_asked_of_the_board_as_the_move_left_it() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    // The king steps from c1 to b1, away from the rook on e1: the rook now
    // reaches b1 through c1, which the king has left.
    let board = ".....\n.....\n.....\n.....\n..♔.♜\n";
    assert!(has_result(
        &e,
        &f,
        "%♔: (l. + % -> l% + .) attacked",
        WHITE,
        board
    ));
    // Stepping up to c2 leaves the rook's lines.
    assert!(!has_result(
        &e,
        &f,
        "%♔: (% + u. -> . + u%) attacked",
        WHITE,
        board
    ));
}

#[test]
fn attacked_asks_the_players_other_than_the_owner_whoever_searches() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    // The white king is attacked when black can change its square, asked in
    // white's search or in black's: the owner's own moves never count.
    let free = ".....\n.....\n.....\n♙♙...\n♔....\n";
    assert!(!has_result(&e, &f, "%♔: attacked", BLACK, free));
    assert!(!has_result(&e, &f, "%♔: attacked", WHITE, free));
    let checked = "♜....\n.....\n.....\n.♙...\n♔....\n";
    assert!(has_result(&e, &f, "%♔: attacked", BLACK, checked));
    assert!(has_result(&e, &f, "%♔: attacked", WHITE, checked));
}

// ---- can_change ----------------------------------------------------------

#[test]
fn a_move_of_two_pieces_in_turn_changes_what_either_changes() {
    let f = Fixture::new();
    // Black steps its rook down, then its king down: the king cannot reach
    // the rook's square, nor the rook the king's.
    let black = "(%♜: (% + d. -> . + d%)) (%♚: (% + d. -> . + d%))";
    let board = f.board("♜...♚\n.....\n.....\n.....\n....♔\n");
    let program = f.program(black);
    let changed = changed_squares(&program, &board);
    assert_eq!(changed.len(), 4, "{changed:?}");
    for choice in [engine::EngineChoice::backtrack(), engine::EngineChoice::all()] {
        let e = f.engine_on("white_moves", black, 5, 5, choice);
        for at in ["a5", "a4", "e5", "e4", "b4", "d4", "a3"] {
            assert_eq!(
                can_change(&e, WHITE, &board, at),
                changed.contains(&sq(at)),
                "{choice}: {at}"
            );
        }
    }
}

#[test]
fn a_black_rook_changes_the_squares_along_its_open_lines() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    let open = f.board("♜....\n.....\n.....\n.....\n....♖\n");
    for at in ["a1", "a2", "a3", "a4", "a5", "b5", "e5"] {
        assert!(can_change(&e, WHITE, &open, at), "{at}");
    }
    for at in ["b1", "b4", "c3", "e4"] {
        assert!(!can_change(&e, WHITE, &open, at), "{at}");
    }
    // e3 only the white rook reaches: black cannot change it, white can.
    assert!(!can_change(&e, WHITE, &open, "e3"));
    assert!(can_change(&e, BLACK, &open, "e3"));
    assert!(!can_change(&e, BLACK, &open, "a4"));
    // A white pawn on a3: the rook takes it, and goes no further.
    let blocked = f.board("♜....\n.....\n♙....\n.....\n....♖\n");
    assert!(can_change(&e, WHITE, &blocked, "a4"));
    assert!(can_change(&e, WHITE, &blocked, "a3"));
    assert!(!can_change(&e, WHITE, &blocked, "a2"));
    assert!(!can_change(&e, WHITE, &blocked, "a1"));
    // A black piece in the way: the rook stops before it.
    let own = f.board("♜....\n.....\n♚....\n.....\n....♖\n");
    assert!(!can_change(&e, WHITE, &own, "a1"));
    assert!(can_change(&e, WHITE, &own, "a2"));
}

#[test]
fn can_change_does_not_depend_on_how_far_the_pieces_are() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    // The attacker of a1 at each distance along the file, with black
    // pieces near and far that do not reach a1.
    for rank in 2..=5 {
        let mut rows: Vec<Vec<char>> = vec![".....".chars().collect(); 5];
        rows[5 - rank][0] = '♜';
        rows[0][4] = if rank == 5 { '.' } else { '♚' };
        rows[2][3] = '♚';
        rows[4][2] = '♙';
        let with: String = rows.iter().map(|r| r.iter().collect::<String>() + "\n").collect();
        rows[5 - rank][0] = '.';
        let without: String = rows.iter().map(|r| r.iter().collect::<String>() + "\n").collect();
        assert!(
            can_change(&e, WHITE, &f.board(&with), "a1"),
            "rook on a{rank}:\n{with}"
        );
        assert!(
            !can_change(&e, WHITE, &f.board(&without), "a1"),
            "no rook:\n{without}"
        );
    }
}

/// Boards with several black and white pieces, near and far from each other.
const BOARDS: &[&str] = &[
    "♜....\n.....\n.....\n.....\n....♖\n",
    "♜...♚\n.....\n..♙..\n.....\n♔...♜\n",
    "....♜\n.♚...\n.....\n...♖.\n♔.♜..\n",
    "♚....\n.....\n♜.♔.♜\n.....\n....♜\n",
    "..♜..\n.....\n♜.♙.♜\n.....\n..♔..\n",
    "♜......\n.......\n...♚...\n.......\n.......\n.......\n♔.....♜\n",
];

#[test]
fn can_change_agrees_with_every_result_of_the_other_side() {
    let f = Fixture::new();
    let programs = [f.program("white_moves"), f.program("black_moves")];
    for board in BOARDS {
        let position = f.board(board);
        let e = f.engine(position.width, position.height);
        for side in [WHITE, BLACK] {
            let want = changed_squares(&programs[1 - side], &position);
            let got: BTreeSet<Coord> = position
                .squares()
                .map(|(at, _)| at)
                .filter(|&at| {
                    e.can_change(side, &position, at, &mut Cache::new(), &Limits::default())
                        .unwrap()
                })
                .collect();
            assert_eq!(got, want, "side {side} on\n{board}");
        }
    }
}

// ---- each_move, with and without `safe` ----------------------------------

#[test]
fn a_king_may_not_step_onto_a_rooks_line() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    let position = f.board("...♜.\n.....\n.....\n.....\n..♔..\n");
    assert_eq!(
        sorted(moves(&e, WHITE, &position, false)),
        ["c1-b1", "c1-b2", "c1-c2", "c1-d1", "c1-d2"]
    );
    assert_eq!(
        sorted(moves(&e, WHITE, &position, true)),
        ["c1-b1", "c1-b2", "c1-c2"]
    );
}

#[test]
fn a_pinned_rook_stays_on_the_line() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    let position = f.board("♜....\n.....\n♖....\n.....\n♔....\n");
    assert_eq!(
        sorted(moves(&e, WHITE, &position, false)),
        [
            "a1-a2", "a1-b1", "a1-b2", "a3-a2", "a3-a4", "a3-a5", "a3-b3", "a3-c3", "a3-d3", "a3-e3"
        ]
    );
    assert_eq!(
        sorted(moves(&e, WHITE, &position, true)),
        ["a1-a2", "a1-b1", "a1-b2", "a3-a2", "a3-a4", "a3-a5"]
    );
}

#[test]
fn a_king_takes_an_unprotected_rook_but_not_a_protected_one() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    let protected = f.board("...♜.\n.....\n.....\n...♜.\n..♔..\n");
    assert_eq!(moves(&e, WHITE, &protected, true), ["c1-b1"]);
    let alone = f.board(".....\n.....\n.....\n...♜.\n..♔..\n");
    assert_eq!(sorted(moves(&e, WHITE, &alone, true)), ["c1-b1", "c1-d2"]);
    assert_eq!(moves(&e, WHITE, &alone, false).len(), 5);
}

#[test]
fn safe_moves_of_black_protect_the_black_king() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    // The mirror of the pinned rook, for black.
    let position = f.board("♚....\n.....\n♜....\n.....\n♖....\n");
    assert_eq!(
        sorted(moves(&e, BLACK, &position, true)),
        ["a3-a1", "a3-a2", "a3-a4", "a5-a4", "a5-b4", "a5-b5"]
    );
    assert_eq!(moves(&e, BLACK, &position, false).len(), 10);
}

#[test]
fn each_move_lists_each_position_once_in_a_fixed_order() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    for board in BOARDS {
        let position = f.board(board);
        for safe in [false, true] {
            let first = moves(&e, WHITE, &position, safe);
            assert_eq!(first, moves(&e, WHITE, &position, safe), "{board}");
            let positions = move_positions(&e, WHITE, &position, safe);
            let distinct: BTreeSet<String> = positions.iter().map(|p| f.diagram(p)).collect();
            assert_eq!(distinct.len(), positions.len(), "{board}");
        }
        // The safe moves are some of the moves.
        let all = move_positions(&e, WHITE, &position, false);
        assert!(
            move_positions(&e, WHITE, &position, true)
                .iter()
                .all(|p| all.contains(p))
        );
    }
}

#[test]
fn each_move_stops_when_told() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    let position = f.board("♜....\n.....\n♖....\n.....\n♔....\n");
    for safe in [false, true] {
        let mut calls = 0;
        let mut first = None;
        e.each_move(
            WHITE,
            &position,
            safe,
            &mut Cache::new(),
            &Limits::default(),
            &mut |o| {
                calls += 1;
                first = Some(seen(o));
                ControlFlow::Break(())
            },
        )
        .unwrap();
        assert_eq!(calls, 1, "safe: {safe}");
        // The one move given is the first of the full listing.
        let mut all = Vec::new();
        e.each_move(
            WHITE,
            &position,
            safe,
            &mut Cache::new(),
            &Limits::default(),
            &mut |o| {
                all.push(seen(o));
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        assert_eq!(first.as_ref(), all.first(), "safe: {safe}");
        assert_eq!(all.len(), if safe { 6 } else { 10 });
    }
}

#[test]
fn a_cache_serves_one_search_after_another() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    let pinned = f.board("♜....\n.....\n♖....\n.....\n♔....\n");
    let king = f.board("...♜.\n.....\n.....\n.....\n..♔..\n");
    let mut cache = Cache::new();
    let count = |position: &Position, safe: bool, cache: &mut Cache| {
        let mut n = 0;
        e.each_move(WHITE, position, safe, cache, &Limits::default(), &mut |_| {
            n += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
        n
    };
    for _ in 0..2 {
        assert_eq!(count(&pinned, true, &mut cache), 6);
        assert_eq!(count(&king, true, &mut cache), 3);
        assert!(
            e.can_change(WHITE, &pinned, sq("a4"), &mut cache, &Limits::default())
                .unwrap()
        );
        assert_eq!(count(&pinned, false, &mut cache), 10);
        assert_eq!(count(&king, false, &mut cache), 5);
    }
}

#[test]
fn a_move_that_tests_attacked_is_listed_only_where_the_test_passes() {
    let f = Fixture::new();
    // Castling, roughly: the king walks two squares right, neither from an
    // attacked square nor across one; the landing square is left to `safe`.
    let white = "king_w | (%♔: !{attacked} (% + r. -> . + r%) !{attacked} (% + r. -> . + r%))";
    for (w, h) in [(5, 5), (3, 3)] {
        let e = f.engine_with(white, "black_moves", w, h);
        let castles = |board: &str, safe: bool| {
            moves(&e, WHITE, &f.board(board), safe)
                .iter()
                .filter(|m| *m == "a1-c1")
                .count()
        };
        // The rook on the b-file guards the square crossed: no castling.
        let across = ".♜...\n.....\n.....\n.....\n♔....\n";
        assert_eq!((castles(across, false), castles(across, true)), (0, 0), "{w}x{h}");
        // On the a-file it attacks the king where it stands.
        let start = "♜....\n.....\n.....\n.....\n♔....\n";
        assert_eq!((castles(start, false), castles(start, true)), (0, 0), "{w}x{h}");
        // On the c-file the guards pass, but the king lands attacked.
        let landing = "..♜..\n.....\n.....\n.....\n♔....\n";
        assert_eq!(
            (castles(landing, false), castles(landing, true)),
            (1, 0),
            "{w}x{h}"
        );
        // On the e-file nothing is in the way.
        let clear = "....♜\n.....\n.....\n.....\n♔....\n";
        assert_eq!((castles(clear, false), castles(clear, true)), (1, 1), "{w}x{h}");
    }
}

// ---- Boards larger than the engine was prepared for ---------------------

#[test]
fn a_distant_rook_is_seen_on_a_board_larger_than_prepared() {
    let f = Fixture::new();
    // Prepared for 3x3; the rook is four squares from the king.
    let e = f.engine(3, 3);
    let position = f.board("♜....\n.....\n.....\n.....\n.♔...\n");
    assert!(can_change(&e, WHITE, &position, "a1"));
    assert!(!can_change(&e, WHITE, &position, "b1"));
    assert_eq!(
        sorted(moves(&e, WHITE, &position, true)),
        ["b1-b2", "b1-c1", "b1-c2"]
    );
    let far = f.board("....♜\n.....\n.....\n.....\n♔....\n");
    assert!(can_change(&e, WHITE, &far, "a5"));
    assert!(can_change(&e, WHITE, &far, "e1"));
    // The king walks four squares, to e1, under the rook.
    let walk = "%♔: (% + r. -> . + r%){4} attacked";
    assert!(has_result(
        &e,
        &f,
        walk,
        WHITE,
        "....♜\n.....\n.....\n.....\n♔....\n"
    ));
    assert!(!has_result(
        &e,
        &f,
        walk,
        WHITE,
        "...♜.\n.....\n.....\n.....\n♔....\n"
    ));
    assert_eq!(sorted(moves(&e, WHITE, &far, true)), ["a1-a2", "a1-b1", "a1-b2"]);
}

#[test]
fn an_engine_prepared_too_small_answers_as_one_prepared_right() {
    let f = Fixture::new();
    let attacked = f.program("%♔: attacked");
    for board in BOARDS {
        let position = f.board(board);
        let (w, h) = (position.width, position.height);
        let right = f.engine(w, h);
        for (pw, ph) in [(1, 1), (3, 3), (w - 1, h), (w, h - 1), (w + 3, h + 3)] {
            let other = f.engine(pw, ph);
            for side in [WHITE, BLACK] {
                for (at, _) in position.squares() {
                    let want = right
                        .can_change(side, &position, at, &mut Cache::new(), &Limits::default())
                        .unwrap();
                    let got = other
                        .can_change(side, &position, at, &mut Cache::new(), &Limits::default())
                        .unwrap();
                    assert_eq!(got, want, "{pw}x{ph}, side {side}, {} on\n{board}", name(at));
                }
                for safe in [false, true] {
                    assert_eq!(
                        move_positions(&other, side, &position, safe),
                        move_positions(&right, side, &position, safe),
                        "{pw}x{ph}, side {side}, safe {safe} on\n{board}"
                    );
                }
                let has = |e: &Engine| {
                    e.has_result(&attacked, side, &position, &mut Cache::new(), &Limits::default())
                        .unwrap()
                };
                assert_eq!(has(&other), has(&right), "{pw}x{ph}, side {side} on\n{board}");
            }
        }
    }
}
