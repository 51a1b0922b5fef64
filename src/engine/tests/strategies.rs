//! The strategies against the backtracker on generated boards, and the
//! shortcuts each takes.

use super::*;
use crate::core::Rng;

/// A generator of boards over the crate's random source.
struct Boards(Rng);

impl Boards {
    /// A generator whose boards are fixed by `seed`.
    fn new(seed: u64) -> Boards {
        Boards(Rng::new(seed))
    }

    /// A number in `0..n`.
    fn next(&mut self, n: u64) -> u64 {
        self.0.below(n as usize) as u64
    }

    /// A `width` by `height` board with one king of each colour and up to
    /// four other pieces, none on a square twice.
    fn board(&mut self, width: usize, height: usize) -> String {
        let mut cells = vec!['.'; width * height];
        let extra = self.next(5) as usize;
        let pieces = ['♔', '♚']
            .into_iter()
            .chain((0..extra).map(|_| ['♖', '♙', '♜', '♜'][self.next(4) as usize]));
        for p in pieces.collect::<Vec<_>>() {
            loop {
                let i = self.next((width * height) as u64) as usize;
                if cells[i] == '.' {
                    cells[i] = p;
                    break;
                }
            }
        }
        cells
            .chunks(width)
            .map(|r| r.iter().collect::<String>() + "\n")
            .collect()
    }
}

/// The safe moves of `side` by their definition: the moves after which no
/// square holding the side's king is among those the other side changes.
fn safe_by_definition(f: &Fixture, side: usize, position: &Position) -> Vec<Position> {
    let (own, other) = if side == WHITE {
        ("white_moves", "black_moves")
    } else {
        ("black_moves", "white_moves")
    };
    let king = f.piece(if side == WHITE { '♔' } else { '♚' });
    let other = f.program(other);
    let mut cache = Cache::new();
    let after: Vec<Position> = engine::search(&f.program(own), position, &mut cache, &Limits::default())
        .unwrap()
        .iter()
        .map(|o| position.with_changes(o.changes))
        .collect();
    let mut out: Vec<Position> = after
        .into_iter()
        .filter(|p| {
            let changed = changed_squares(&other, p);
            p.squares().all(|(at, c)| {
                !matches!(c, crate::core::Content::Piece(k, _) if k == king) || !changed.contains(&at)
            })
        })
        .collect();
    out.sort();
    out
}

#[test]
fn safe_moves_and_can_change_agree_with_their_definitions_on_many_boards() {
    let f = Fixture::new();
    let programs = [f.program("white_moves"), f.program("black_moves")];
    let engines = [(3, 3), (5, 5), (8, 8)].map(|(w, h)| ((w, h), f.engine(w, h)));
    let mut boards = Boards::new(0x9e37_79b9_7f4a_7c15);
    // How many boards had an unsafe move, and how many squares could change:
    // the sweep must not pass by testing nothing.
    let (mut restricted, mut changeable) = (0, 0);
    for i in 0..300 {
        let (w, h) = [(4, 4), (5, 5), (6, 5), (5, 7)][i % 4];
        let board = boards.board(w, h);
        let position = f.board(&board);
        for side in [WHITE, BLACK] {
            let want_safe = safe_by_definition(&f, side, &position);
            let want_changed = changed_squares(&programs[1 - side], &position);
            if want_safe.len() < move_positions(&engines[1].1, side, &position, false).len() {
                restricted += 1;
            }
            changeable += want_changed.len();
            for ((pw, ph), e) in &engines {
                assert_eq!(
                    move_positions(e, side, &position, true),
                    want_safe,
                    "safe moves, prepared {pw}x{ph}, side {side} on\n{board}"
                );
                let counted = e
                    .count_moves(side, &position, true, &mut Cache::new(), &Limits::default())
                    .unwrap();
                assert_eq!(
                    counted,
                    want_safe.len() as u64,
                    "safe moves counted, prepared {pw}x{ph}, side {side} on\n{board}"
                );
                for (at, _) in position.squares() {
                    let got = e
                        .can_change(side, &position, at, &mut Cache::new(), &Limits::default())
                        .unwrap();
                    assert_eq!(
                        got,
                        want_changed.contains(&at),
                        "can_change {}, prepared {pw}x{ph}, side {side} on\n{board}",
                        name(at)
                    );
                }
            }
        }
    }
    assert!(restricted >= 300, "{restricted} boards with an unsafe move");
    assert!(changeable >= 5000, "{changeable} changeable squares");
}

/// The traced path of each result of `expr` on `board`, as square names.
fn paths(f: &Fixture, expr: &str, board: &str) -> Vec<Vec<String>> {
    let program = f.program(expr);
    let position = f.board(board);
    let mut cache = Cache::new();
    cache.trace_paths(true);
    engine::search(&program, &position, &mut cache, &Limits::default())
        .unwrap()
        .iter()
        .map(|o| o.path.iter().map(|&c| name(c)).collect())
        .collect()
}

#[test]
fn a_traced_search_gives_every_square_the_piece_moved_to() {
    let f = Fixture::new();
    let board = ".....\n.....\n.....\n.....\n♖....\n";
    // A slide of three: each step's square, in order.
    assert_eq!(
        paths(&f, "%♖: (% + u. -> . + u%){3}", board),
        [["a2", "a3", "a4"]]
    );
    // A path made inside an ordered choice carries out of it; the moves a
    // guard tries do not add to it.
    assert_eq!(
        paths(&f, "(%♖: (% + r. -> . + r%) (% + u. -> . + u%)) / nil", board),
        [["b1", "b2"]]
    );
    assert_eq!(
        paths(
            &f,
            "%♖: (% + r. -> . + r%) ?{% + u. -> . + u%} (% + r. -> . + r%)",
            board
        ),
        [["b1", "c1"]]
    );
    // Without tracing, no path.
    let program = f.program("%♖: (% + u. -> . + u%)");
    let mut cache = Cache::new();
    let found = engine::search(&program, &f.board(board), &mut cache, &Limits::default()).unwrap();
    assert!(found.iter().all(|o| o.path.is_empty()));
}

#[test]
fn a_piece_moved_by_one_rewrite_is_run_as_square_sets_and_traced_as_walked() {
    let f = Fixture::new();
    // Steps and a capture that promotes, for two kinds of piece.
    let white = "%(♙|♘): (% + u. -> . + u%) | (% + ur♟ -> . + ur♕) | (% + uul. -> . + uul%)";
    let board = "♟.♟.\n.♙..\n♘..♟\n.♙♙.\n";
    let position = f.board(board);
    let all: Vec<Vec<_>> = [engine::EngineChoice::all(), engine::EngineChoice::backtrack()]
        .into_iter()
        .map(|choice| {
            let engine = f.engine_on(white, "black_moves", 4, 4, choice);
            let mut cache = Cache::new();
            cache.trace_paths(true);
            let mut found = Vec::new();
            engine
                .each_move(0, &position, false, &mut cache, &Limits::default(), &mut |o| {
                    let path: Vec<String> = o.path.iter().map(|&c| name(c)).collect();
                    found.push((seen(o), o.became, path));
                    ControlFlow::Continue(())
                })
                .unwrap();
            let n = engine
                .count_moves(0, &position, false, &mut cache, &Limits::default())
                .unwrap();
            assert_eq!(n, found.len() as u64);
            found.sort_by_key(|f| format!("{f:?}"));
            found
        })
        .collect();
    // The same moves, traced the same (the pawn's capture promotes where
    // it lands: the piece of interest stays behind).
    assert_eq!(all[0], all[1]);
    let mut moved: Vec<_> = all[0]
        .iter()
        .map(|(s, ..)| (name(s.1.unwrap()), name(s.2.unwrap())))
        .collect();
    moved.sort();
    let names = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter().map(|&(a, b)| (a.to_string(), b.to_string())).collect()
    };
    assert_eq!(
        moved,
        names(&[
            ("a2", "a3"),
            ("b1", "a3"),
            ("b1", "b2"),
            ("b3", "b3"),
            ("b3", "b4"),
            ("c1", "c1"),
            ("c1", "c2"),
        ])
    );
}

#[test]
fn a_count_that_meets_one_result_twice_counts_it_once() {
    let f = Fixture::new();
    // The same step written twice, and two ways round to one square: each
    // result is one move.
    for white in [
        "%♖: (% + u. -> . + u%) | (% + u. -> . + u%)",
        "%♖: ((% + u. -> . + u%) (% + r. -> . + r%)) | ((% + r. -> . + r%) (% + u. -> . + u%))",
    ] {
        let board = "....\n....\n.♖..\n♖...\n";
        let position = f.board(board);
        let engine = f.engine_on(white, "black_moves", 4, 4, engine::EngineChoice::all());
        let mut cache = Cache::new();
        for _ in 0..2 {
            let n = engine
                .count_moves(0, &position, false, &mut cache, &Limits::default())
                .unwrap();
            let listed = move_positions(&engine, 0, &position, false);
            assert_eq!(n, listed.len() as u64, "{white}");
            assert_eq!(n, if white.contains("r.") { 1 } else { 2 }, "{white}");
        }
    }
}

#[test]
fn ordered_choices_and_guards_of_rewrites_at_the_piece_agree_on_both_engines() {
    let f = Fixture::new();
    let programs = [
        // Ordered choices of choices of rewrites, in turn.
        "%♖: ((% + u. -> . + u%) | (% + r(. | ♜) -> . + r%)) / (% + d. -> . + d%) ((% + l. -> . + l%) / nil)",
        // A placement that must flank, then flips where it does (Othello's shape).
        "(. -> ♙) (%♙: ?{(% + r♜ + r²♖ -> % + r♖ + r²♖) | (% + u♜ + u²(♖ | ♔) -> % + u♖ + u²♖)} \
         ((% + r♜ + r²♖ -> % + r♖ + r²♖) / nil) ((% + u♜ + u²(♖ | ♔) -> % + u♖ + u²♖) / nil) (% -> ♖))",
        // Guards after the piece moved: the square it left is empty now.
        "%♖: (% + d. -> . + d%) ?{(% + u♜ -> % + u♜) | (% + u. -> % + u.)}",
        "%♖: (% + d. -> . + d%) !{(% + l♜ -> % + l♜) | (% + r(♜ | #) -> % + r♜)}",
        // A guard before anything changed.
        "%♖: ?{(% + l♜ -> % + l♜) | (% + ur. -> % + ur.)} (% + u. -> . + u%)",
        // A guard whose piece may be another piece too: it can match away
        // from the piece (no square sets at the piece answer it).
        "%♖: (% + d. -> . + d%) !{(% | ♜) + u♖ -> ♜ + u♖}",
        "%♖: ?{(% | ♙) + r. -> ♜ + r.} (% + u. -> . + u%)",
        // Runs that cannot both match, each tried first at one square they
        // all check, then a step, then nothing: made at once.
        "%♖: ((% + r♜ + r²♖ -> % + r♖ + r²♖) | (% + r♜ + r²♜ + r³(♖ | ♔) -> % + r♖ + r²♖ + r³♖)) \
         / (% + u. -> . + u%) / nil (% + l. -> . + l%)",
        // Slides whose every stop ends the move: counted stop by stop.
        "%♖: (% + u. -> . + u%)* (% -> ♜)",
        "%♖: (% + u. -> . + u%)+ (% + r. -> % + r♙) (%♙: (% + r. -> . + r%)* (% -> ♜))",
        // A move, then a choice of pieces put down next to it and slid
        // (Amazons' arrows): counted without keys, ...
        "%♖: ((% + u. -> . + u%)+ | (% + r. -> . + r%)+ | (% + l. -> . + l%)+) \
         (((% + u. -> % + u♙) (%♙: (% + u. -> . + u%)* (% -> ♜))) \
         | ((% + d. -> % + d♙) (%♙: (% + d. -> . + d%)* (% -> ♜))) \
         | ((% + ur. -> % + ur♙) (%♙: (% + ur. -> . + ur%)* (% -> ♜))))",
        // ... with keys where the move may take what the arrows leave, ...
        "%♖: ((% + u(. | ♜) -> . + u%) | (% + r. -> . + r%)+) \
         (((% + u. -> % + u♙) (%♙: (% + u. -> . + u%)* (% -> ♜))) \
         | ((% + d. -> % + d♙) (%♙: (% + d. -> . + d%)* (% -> ♜))))",
        // ... or where two arrows fly the same way.
        "%♖: (% + r. -> . + r%)* \
         (((% + u. -> % + u♙) (%♙: (% + u. -> . + u%)* (% -> ♜))) \
         | ((% + uu. -> % + uu♙) (%♙: (% + uu. -> . + uu%)* (% -> ♜))))",
        // Chains of captures first, else a step.
        "(%♖: (% + u♜ + u². -> . + u. + u²%)+ !{% + u♜ + u². -> . + u. + u²%}) / (%♖: % + d. -> . + d%)",
        // Captures first, else moves of two kinds of piece, one of them
        // promoting where it lands (checkers' shape).
        "(%♖: % + u♜ + u². -> . + u. + u²%) /          ((%♙: ((% + u. -> . + u%) | (% + r(. | ♜) -> . + r%)) ((% + u# -> ♖ + u#) / nil)) | (%♖: % + d. -> . + d%))",
    ];
    let mut boards = Boards::new(0x9E37_79B9_7F4A_7C15);
    for white in programs {
        let fast = f.engine_on(white, "black_moves", 5, 5, engine::EngineChoice::all());
        let reference = f.engine_on(white, "black_moves", 5, 5, engine::EngineChoice::backtrack());
        let mut moved = 0;
        for _ in 0..300 {
            let position = f.board(&boards.board(5, 5));
            let found = |engine: &Engine| {
                let mut out = Vec::new();
                each_move(engine, WHITE, &position, false, |o| out.push(seen(o)));
                out.sort_by_key(|s| format!("{s:?}"));
                out
            };
            let (a, b) = (found(&fast), found(&reference));
            assert_eq!(a, b, "{white} on\n{}", f.diagram(&position));
            let n = fast
                .count_moves(WHITE, &position, false, &mut Cache::new(), &Limits::default())
                .unwrap();
            assert_eq!(n, a.len() as u64, "{white} on\n{}", f.diagram(&position));
            moved += a.len();
        }
        assert!(moved >= 10, "{white}: {moved} moves in all");
    }
}

#[test]
fn tests_of_pieces_and_patterns_answer_alike_on_both_engines() {
    let f = Fixture::new();
    let patterns = [
        "!{%♜: nil}",
        "?{%♖: (% + u. -> . + u%) | (% + r♜ -> . + r%)}",
        "!{♜ + d♖ -> ♜ + d♖}",
        "?{%♖: nil} ?{%♜: nil}",
        "%♙: nil",
    ];
    let (fast, reference) = (
        f.patterns_on(&patterns, engine::EngineChoice::all()),
        f.patterns_on(&patterns, engine::EngineChoice::backtrack()),
    );
    let mut boards = Boards::new(0x2545_F491_4F6C_DD1D);
    let mut held = [0; 5];
    for _ in 0..300 {
        let position = f.board(&boards.board(4, 4));
        for (i, held) in held.iter_mut().enumerate() {
            let ask =
                |e: &Engine| e.pattern_holds(i, WHITE, &position, &mut Cache::new(), &Limits::default());
            let answer = ask(&fast).unwrap();
            assert_eq!(
                answer,
                ask(&reference).unwrap(),
                "{} on\n{}",
                patterns[i],
                f.diagram(&position)
            );
            *held += answer as usize;
        }
    }
    // Each pattern held on some boards and failed on others.
    assert!(held.iter().all(|&n| n > 0 && n < 300), "{held:?}");
}

#[test]
fn a_pattern_remembered_not_to_hold_is_tested_again_where_a_change_may_complete_it() {
    let f = Fixture::new();
    let patterns = [
        "♜ + d♖ -> ♜ + d♖",
        "(♖ + r♖ -> ♖ + r♖) | (♜ + u. -> ♜ + u.)",
        "!{♜ + d♖ -> ♜ + d♖}",
    ];
    let (fast, reference) = (
        f.patterns_on(&patterns, engine::EngineChoice::all()),
        f.patterns_on(&patterns, engine::EngineChoice::backtrack()),
    );
    let contents = [
        crate::core::Content::Empty,
        crate::core::Content::Empty,
        crate::core::Content::Empty,
        crate::core::Content::Piece(f.piece('♖'), Default::default()),
        crate::core::Content::Piece(f.piece('♜'), Default::default()),
    ];
    let mut boards = Boards::new(0x1234_5678_9ABC_DEF1);
    // One cache across a chain of changes and take-backs, as a search
    // makes them: its memory of where a pattern failed must not hide a
    // change that completes it.
    let mut cache = Cache::new();
    let mut position = f.board(&boards.board(4, 4));
    let mut trail: Vec<(engine::Changes, engine::Version)> = Vec::new();
    let mut held = [0; 3];
    for step in 0..2000 {
        if boards.next(3) == 0
            && let Some((undo, version)) = trail.pop()
        {
            position.undo(&undo, version);
        } else {
            let at = Coord::new(boards.next(4) as i32, boards.next(4) as i32);
            let content = contents[boards.next(5) as usize];
            let version = position.version;
            let undo = position.apply(&[crate::core::Change { at, content }]);
            trail.push((undo, version));
        }
        for (i, held) in held.iter_mut().enumerate() {
            let answer = fast
                .pattern_holds(i, WHITE, &position, &mut cache, &Limits::default())
                .unwrap();
            let truth = reference
                .pattern_holds(i, WHITE, &position, &mut Cache::new(), &Limits::default())
                .unwrap();
            assert_eq!(
                answer,
                truth,
                "{} at step {step} on\n{}",
                patterns[i],
                f.diagram(&position)
            );
            *held += answer as usize;
        }
    }
    assert!(held.iter().all(|&n| n > 50 && n < 1950), "{held:?}");
}

#[test]
fn a_fan_of_arrows_counts_what_the_walk_lists() {
    let f = Fixture::new();
    let arrow = |m: &str| format!("((% + {m}. -> % + {m}♙) (%♙: (% + {m}. -> . + {m}%)* (% -> ♜)))");
    let (u, d, ur, uu) = (arrow("u"), arrow("d"), arrow("ur"), arrow("uu"));
    let programs = [
        // Counted without keys.
        format!("%♖: ((% + u. -> . + u%)+ | (% + r. -> . + r%)+) ({u} | {d} | {ur})"),
        // With keys: the move may take what an arrow leaves; two arrows the same way.
        format!("%♖: ((% + u(. | ♜) -> . + u%) | (% + r. -> . + r%)+) ({u} | {d})"),
        format!("%♖: (% + r. -> . + r%)* ({u} | {uu})"),
    ];
    let boards = [
        ".....\n.....\n.....\n.....\n♖...♔\n",
        "..♜..\n.....\n.♖...\n.....\n♖♜..♔\n",
        // An arrow piece on the board already: walked, not counted.
        ".....\n..♙..\n.....\n.....\n♖...♔\n",
    ];
    for white in &programs {
        let fast = f.engine_on(white, "black_moves", 5, 5, engine::EngineChoice::all());
        let reference = f.engine_on(white, "black_moves", 5, 5, engine::EngineChoice::backtrack());
        for board in boards {
            let position = f.board(board);
            let listed = move_positions(&reference, WHITE, &position, false);
            for _ in 0..2 {
                let n = fast
                    .count_moves(WHITE, &position, false, &mut Cache::new(), &Limits::default())
                    .unwrap();
                assert_eq!(n, listed.len() as u64, "{white} on\n{board}");
            }
            assert!(listed.len() > 8, "{white} on\n{board}");
        }
    }
}

#[test]
fn a_fan_counted_on_square_sets_agrees_with_the_walk_on_crowded_boards_with_holes() {
    // Arrows counted along rays of square sets (every arrow stamps what it
    // flies over): the count against the backtracker's list, on boards
    // where rays end at pieces, edges and holes, and where the rook
    // moved away from the square an arrow then flies over.
    let f = Fixture::new();
    let arrow = |m: &str| format!("((% + {m}. -> % + {m}♙) (%♙: (% + {m}. -> . + {m}%)* (% -> ♜)))");
    let arrows = ["u", "d", "l", "r", "ur", "ul", "dr", "dl"]
        .map(arrow)
        .join(" | ");
    let white = format!("%♖: ((% + u. -> . + u%)+ | (% + l. -> . + l%)+ | (% + dr. -> . + dr%)+) ({arrows})");
    let fast = f.engine_on(&white, "black_moves", 6, 6, engine::EngineChoice::all());
    let reference = f.engine_on(&white, "black_moves", 6, 6, engine::EngineChoice::backtrack());
    let mut boards = Boards::new(0x1B87_3593_C0FF_EE11);
    let mut counted = 0;
    for _ in 0..300 {
        let board = crowded(&mut boards, 6, 6, &['♖', '♖', '♜']);
        let position = f.board(&with_holes(&mut boards, &board, 5));
        let listed = move_positions(&reference, WHITE, &position, false);
        let n = fast
            .count_moves(WHITE, &position, false, &mut Cache::new(), &Limits::default())
            .unwrap();
        assert_eq!(n, listed.len() as u64, "{white} on\n{}", f.diagram(&position));
        counted += n;
    }
    assert!(counted > 3000, "{counted} moves");
}

#[test]
fn a_count_of_safe_moves_tests_a_move_that_puts_another_sides_piece_near_the_king() {
    let f = Fixture::new();
    // White's pawns put a black king above them: next to the white king
    // it could take it, though the test of the white king read no square
    // that the move changes.
    let white = "%♙: % + u. -> % + u♚";
    let board = ".....\n.....\n.....\n.....\n.♙♔♙.\n";
    let position = f.board(board);
    for choice in [engine::EngineChoice::all(), engine::EngineChoice::backtrack()] {
        let e = f.engine_on(white, "black_moves", 5, 5, choice);
        assert_eq!(move_positions(&e, WHITE, &position, false).len(), 2);
        assert!(move_positions(&e, WHITE, &position, true).is_empty());
        let n = e
            .count_moves(WHITE, &position, true, &mut Cache::new(), &Limits::default())
            .unwrap();
        assert_eq!(n, 0, "{choice:?}");
    }
}

#[test]
fn a_count_of_safe_moves_tests_a_move_that_changes_nothing() {
    let f = Fixture::new();
    // Standing still leaves the white king where the black rook takes it.
    let white = "(%♖: nil) | (%♔: % + u. -> . + u%)";
    let board = "♜....\n.....\n.....\n.....\n♔...♖\n";
    let position = f.board(board);
    for choice in [engine::EngineChoice::all(), engine::EngineChoice::backtrack()] {
        let e = f.engine_on(white, "black_moves", 5, 5, choice);
        let safe = move_positions(&e, WHITE, &position, true).len();
        assert_eq!(safe, 0, "{choice:?}");
        let n = e
            .count_moves(WHITE, &position, true, &mut Cache::new(), &Limits::default())
            .unwrap();
        assert_eq!(n, 0, "{choice:?}");
    }
}

/// A `width` by `height` board crowded with pieces: each square empty or
/// holding one of `pieces`, a king of each colour somewhere.
fn crowded(boards: &mut Boards, width: usize, height: usize, pieces: &[char]) -> String {
    let mut cells: Vec<char> = (0..width * height)
        .map(|_| match boards.next(2 * pieces.len() as u64) as usize {
            i if i < pieces.len() => pieces[i],
            _ => '.',
        })
        .collect();
    let (a, b) = (
        boards.next(cells.len() as u64) as usize,
        boards.next(cells.len() as u64) as usize,
    );
    cells[a] = '♔';
    let n = cells.len();
    cells[(b + (a == b) as usize) % n] = '♚';
    cells
        .chunks(width)
        .map(|r| r.iter().collect::<String>() + "\n")
        .collect()
}

/// `board` (6 by 6, as [`crowded`] makes it) with one in about `one_in` of
/// its empty squares made a hole, the corners kept (the grid stays 6 by 6).
fn with_holes(boards: &mut Boards, board: &str, one_in: u64) -> String {
    let mut text: Vec<char> = board.chars().collect();
    for (i, c) in text.iter_mut().enumerate() {
        let (row, col) = (i / 7, i % 7);
        let corner = (row == 0 || row == 5) && (col == 0 || col == 5);
        if *c == '.' && !corner && boards.next(one_in) == 0 {
            *c = ' ';
        }
    }
    text.into_iter().collect()
}

#[test]
fn chains_of_jumps_agree_on_both_engines() {
    let f = Fixture::new();
    let jump = |m: &str| format!("(% + {m}♜ + {m}{m}. -> . + {m}. + {m}{m}%)");
    let any = ["ur", "ul", "dr", "dl"].map(jump).join(" | ");
    let ahead = ["ur", "ul"].map(jump).join(" | ");
    let programs = [
        // Jumps every way: one set of captures by two paths is one move.
        format!("%♖: ({any})+ !{{{any}}}"),
        // Forward only, promoting on the far row (checkers' man).
        format!("%♙: ({ahead})+ !{{{ahead}}} ((% + u# -> ♖ + u#) / nil)"),
        // Captures first, by two kinds of piece, else steps.
        format!(
            "((%♙: ({ahead})+ !{{{ahead}}} ((% + u# -> ♖ + u#) / nil)) | (%♖: ({any})+ !{{{any}}})) \
             / ((%♙: (% + ur. -> . + ur%) | (% + ul. -> . + ul%)) | (%♖: % + dr. -> . + dr%))"
        ),
        // A step first, then the chain: one may end with no capture.
        format!("%♖: (% + u. -> . + u%) ({any})+ !{{{any}}} ((% -> ♙) / nil)"),
        // The tail has no `nil`: a chain that cannot end so gives nothing.
        format!("%♖: ({ahead})+ !{{{ahead}}} (% + u# -> ♙ + u#)"),
    ];
    let mut boards = Boards::new(0x6A09_E667_F3BC_C909);
    for white in &programs {
        let fast = f.engine_on(white, "black_moves", 6, 6, engine::EngineChoice::all());
        let reference = f.engine_on(white, "black_moves", 6, 6, engine::EngineChoice::backtrack());
        let (mut moved, mut long) = (0, 0);
        for _ in 0..600 {
            let position = f.board(&crowded(&mut boards, 6, 6, &['♜', '♜', '♖', '♙']));
            for safe in [false, true] {
                let found = |engine: &Engine| {
                    let mut cache = Cache::new();
                    cache.trace_paths(true);
                    let mut out = Vec::new();
                    engine
                        .each_move(WHITE, &position, safe, &mut cache, &Limits::default(), &mut |o| {
                            out.push((seen(o), o.became, o.path.to_vec()));
                            ControlFlow::Continue(())
                        })
                        .unwrap();
                    out.sort_by_key(|s| format!("{s:?}"));
                    out
                };
                let (a, b) = (found(&fast), found(&reference));
                assert_eq!(a, b, "{white} (safe: {safe}) on\n{}", f.diagram(&position));
                for engine in [&fast, &reference] {
                    let n =
                        (engine.count_moves(WHITE, &position, safe, &mut Cache::new(), &Limits::default()))
                            .unwrap();
                    assert_eq!(
                        n,
                        a.len() as u64,
                        "{white} (safe: {safe}) on\n{}",
                        f.diagram(&position)
                    );
                }
                moved += a.len();
                long += a.iter().filter(|(_, _, path)| path.len() > 1).count();
            }
        }
        assert!(
            moved >= 30 && long >= 5,
            "{white}: {moved} moves, {long} of several jumps"
        );
    }
}

#[test]
fn a_tail_that_looks_for_no_square_sees_the_holes_of_the_board() {
    // The square-set plan looks first where a tail may match: from a
    // landing square whose square above is off the board or a hole.
    let f = Fixture::new();
    let white = "%♙: ((% + u. -> . + u%) | (% + ur. -> . + ur%) | (% + ul. -> . + ul%)) \
                 ((% + u# -> ♖ + u#) / nil)";
    let fast = f.engine_on(white, "black_moves", 6, 6, engine::EngineChoice::all());
    let reference = f.engine_on(white, "black_moves", 6, 6, engine::EngineChoice::backtrack());
    let mut boards = Boards::new(0x3C6E_F372_FE94_F82B);
    let (mut below_holes, mut moves) = (0, 0);
    for _ in 0..300 {
        let board = crowded(&mut boards, 6, 6, &['♙', '♙', '♜']);
        let position = f.board(&with_holes(&mut boards, &board, 3));
        let found = |engine: &Engine| {
            let mut out = Vec::new();
            each_move(engine, WHITE, &position, false, |o| out.push((seen(o), o.became)));
            out.sort_by_key(|s| format!("{s:?}"));
            out
        };
        let (a, b) = (found(&fast), found(&reference));
        assert_eq!(a, b, "{white} on\n{}", f.diagram(&position));
        moves += a.len();
        below_holes += (a.iter())
            .filter(|((_, _, to, _), became)| became.is_some() && to.is_some_and(|t| t.y < 5))
            .count();
    }
    assert!(
        moves >= 300 && below_holes >= 20,
        "{moves} moves, {below_holes} promoted below a hole"
    );
}
