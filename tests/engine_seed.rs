//! Every worked example of seed 003 (and LANGUAGE.md section 2), run through
//! the whole pipeline: the expression is parsed and expanded from text,
//! compiled, and applied to a board diagram.

use chessalg::core::Coord;
use chessalg::engine::{self, EngineError, Limits, Position};
use chessalg::ir::{Rules, Value};
use chessalg::program::{CompileError, compile};
use chessalg::source::Source;

/// The expression's move compiled against the prelude's pieces (and `defs`).
fn program(defs: &str, expr: &str) -> (Rules, Result<chessalg::program::Program, CompileError>) {
    let rules = if defs.is_empty() {
        Rules::prelude()
    } else {
        Rules::load(&Source::new("<defs>", defs))
            .expect("definitions load")
            .0
    };
    let value = rules
        .expand(&Source::new("<expr>", expr))
        .unwrap_or_else(|p| panic!("{expr} does not expand: {p:?}"));
    let Value::Move(mv) = value else {
        panic!("{expr} is not a move")
    };
    let compiled = compile(&mv, rules.pieces());
    (rules, compiled)
}

/// The diagrams of every result of `expr` on `board`, in `apply`'s order.
fn run_with(defs: &str, expr: &str, board: &str, limits: &Limits) -> Result<Vec<String>, EngineError> {
    let (rules, compiled) = program(defs, expr);
    let prog = compiled.unwrap_or_else(|e| panic!("{expr} does not compile: {e}"));
    let pos = Position::from_diagram(board, rules.pieces()).expect("board reads");
    let results = engine::apply(&prog, &pos, limits)?;
    Ok(results.iter().map(|p| p.diagram(rules.pieces())).collect())
}

fn run(expr: &str, board: &str) -> Vec<String> {
    run_with("", expr, board, &Limits::default()).unwrap()
}

/// Diagrams given inline, one per `&str`, compared as sets.
fn assert_results(expr: &str, board: &str, expected: &[&str]) {
    let mut got = run(expr, board);
    got.sort();
    let mut want: Vec<String> = expected.iter().map(|d| d.to_string()).collect();
    want.sort();
    assert_eq!(got, want, "{expr} on\n{board}");
}

#[test]
fn pawn_push_gives_one_position_per_pawn() {
    assert_results(
        "♙ + u. -> . + u♙",
        ".......\n..♙.♙..\n",
        &["..♙....\n....♙..\n", "....♙..\n..♙....\n"],
    );
}

#[test]
fn pawn_push_on_the_start_position_moves_each_pawn() {
    let board = include_str!("data/apply/start.board");
    let results = run("♙ + u. -> . + u♙", board);
    assert_eq!(results.len(), 8);
    assert!(results.contains(
        &"♜♞♝♚♛♝♞♜\n♟♟♟♟♟♟♟♟\n........\n........\n........\n.....♙..\n♙♙♙♙♙.♙♙\n♖♘♗♔♕♗♘♖\n".to_string()
    ));
}

#[test]
fn pawn_captures_diagonally() {
    assert_results("♙ + ur♟ -> . + ur♙", ".♟\n♙.\n", &[".♙\n..\n"]);
    // The seed's own fragment: two squares only, the others are not squares.
    assert_results("♙ + ur♟ -> . + ur♙", " ♟\n♙\n", &[" ♙\n.\n"]);
    assert_results("♙ + ur♟ -> . + ur♙", "♟.\n♙.\n", &[]);
}

#[test]
fn rook_slides_with_plus() {
    let column = ".\n.\n.\n♖\n";
    let slides = ["♖\n.\n.\n.\n", ".\n♖\n.\n.\n", ".\n.\n♖\n.\n"];
    assert_results("(♖ + u. -> . + u♖)+", column, &slides);
    // The seed's rule written out in one rewrite gives the same three.
    assert_results(
        "♖ + u. + uu. + uuu. -> (. + u♖ + uu. + uuu.) | (. + u. + uu♖ + uuu.) | (. + u. + uu. + uuu♖)",
        column,
        &slides,
    );
    // And three explicit steps give only the last.
    assert_results(
        "(♖ + u. -> . + u♖)(♖ + u. -> . + u♖)(♖ + u. -> . + u♖)",
        column,
        &[slides[0]],
    );
}

#[test]
fn poi_moves_the_same_rook_twice() {
    let board = "..\n..\n♖♖\n";
    // Move a rook up, then the same rook up again.
    assert_results(
        "%♖: (% + u. -> . + u%){2}",
        board,
        &["♖.\n..\n.♖\n", ".♖\n..\n♖.\n"],
    );
    // Without the POI, the second step may move the other rook.
    assert_results(
        "(♖ + u. -> . + u♖){2}",
        board,
        &["♖.\n..\n.♖\n", ".♖\n..\n♖.\n", "..\n♖♖\n..\n"],
    );
}

#[test]
fn a_rook_twice_then_a_pawn_twice() {
    assert_results(
        "(%♖: (% + u. -> . + u%){2})(%♙: (% + u. -> . + u%){2})",
        "..\n..\n♖♙\n",
        &["♖♙\n..\n..\n"],
    );
}

#[test]
fn king_up_then_right_is_king_up_right() {
    let board = "...\n...\n♔..\n";
    let two = run("(♔ -> . + u♔)(♔ -> . + r♔)", board);
    assert_eq!(two, run("♔ -> . + ur♔", board));
    assert_eq!(two, vec!["...\n.♔.\n...\n".to_string()]);
}

#[test]
fn some_pawn_twice_is_not_one_pawn_two_squares() {
    let board = ".......\n.......\n..♙.♙..\n";
    let twice = run("(♙ -> . + u♙)(♙ -> . + u♙)", board);
    let double = run("♙ -> . + u. + uu♙", board);
    assert_eq!(double.len(), 2);
    // Twice: each pawn two squares, or both pawns one square each.
    assert_eq!(twice.len(), 3);
    assert!(double.iter().all(|d| twice.contains(d)));
}

#[test]
fn appendix_a() {
    let column = ".\n.\n.\n♖\n";
    let twice = run("%♖: (% + u. -> . + u%){2}", column);
    assert_eq!(twice, vec![".\n♖\n.\n.\n".to_string()]);

    let choice = run("%♖: (% + u. -> . + u%) | (% + u. + uu. -> . + u. + uu%)", column);
    let maybe = run("%♖: (% + u. -> . + u%)(% + u. -> . + u%)?", column);
    assert_eq!(choice.len(), 2);
    assert_eq!(choice, maybe);
    assert_ne!(twice, choice);
}

#[test]
fn closure_on_a_4x4_board_gives_every_subset() {
    let board = "....\n....\n....\n....\n";
    let (rules, prog) = program("", "(. -> ♙)*");
    let pos = Position::from_diagram(board, rules.pieces()).unwrap();
    let results = engine::apply(&prog.unwrap(), &pos, &Limits::default()).unwrap();
    assert_eq!(results.len(), 65_536);
}

#[test]
fn a_runaway_closure_hits_the_state_limit() {
    let board = "........\n".repeat(8);
    let limits = Limits {
        max_states: 200_000,
        ..Limits::default()
    };
    let err = run_with("", "(. -> ♙)*", &board, &limits).unwrap_err();
    assert_eq!(err, EngineError::StateLimit { limit: 200_000 });
    assert!(err.to_string().contains("200000"));
}

#[test]
fn a_closure_that_grows_the_board_stops_with_an_error() {
    let limits = Limits {
        max_states: 100_000,
        max_cells: 1 << 16,
    };
    let err = run_with("", "(♖ -> . + ur♖)*", "♖\n", &limits).unwrap_err();
    assert!(
        matches!(
            err,
            EngineError::BoardLimit { .. } | EngineError::StateLimit { .. }
        ),
        "{err}"
    );
}

#[test]
fn off_board_anchors_the_double_step() {
    let rule = "dd# + ♙ + u. + uu. -> dd# + . + u. + uu♙";
    // The pawn on the second row of a five-row column: below it, one square
    // and then no square.
    assert_results(rule, ".\n.\n.\n♙\n.\n", &[".\n♙\n.\n.\n.\n"]);
    // Two squares below it: `dd#` does not match.
    assert_results(rule, ".\n.\n♙\n.\n.\n", &[]);
}

#[test]
fn promotion_writes_where_the_seed_says() {
    // `♙ + u# -> . + u♕`: the queen is written on the spot above, which was
    // not a square and now is.
    assert_results("♙ + u# -> . + u♕", "♙\n.\n", &["♕\n.\n.\n"]);
    assert_results("♙ + u# -> ♕ + u#", "♙\n.\n", &["♕\n.\n"]);
}

#[test]
fn squares_not_covered_by_the_replacement_disappear() {
    assert_results("♖ + u. -> u♖", ".\n♖\n", &["♖\n"]);
    assert_results("♖ + u. -> u♖", ".\n♖\n.\n", &["♖\n\n.\n"]);
    assert_results("♖ -> #", ".♖.\n", &[". .\n"]);
    assert_results("♖ -> 0", "♖\n", &[""]);
}

#[test]
fn unbound_poi_is_a_compile_error() {
    let (_, prog) = program("", "% + u. -> . + u%");
    assert!(matches!(prog, Err(CompileError::UnboundPoi { .. })));
    let (_, prog) = program("", "♙ + u. -> . + u%");
    assert!(matches!(prog, Err(CompileError::UnboundPoi { .. })));
}

#[test]
fn guards_and_ordered_choice() {
    let board = ".♟.\n.♙.\n";
    assert_results("?{♙ + u. -> . + u♙}", ".\n♙\n", &[".\n♙\n"]);
    assert_results("!{♙ + u. -> . + u♙}", ".\n♙\n", &[]);
    assert_results("!{♙ + u. -> . + u♙}", board, &[board]);
    // Mandatory capture: the push only when no capture exists.
    let rule = "(♙ + ur♟ -> . + ur♙) | (♙ + ul♟ -> . + ul♙) / (♙ + u. -> . + u♙)";
    assert_results(rule, "♟..\n.♙.\n", &["♙..\n...\n"]);
    assert_results(rule, "...\n.♙.\n", &[".♙.\n...\n"]);
}

#[test]
fn rotations_and_flips() {
    let defs = "in_any_direction(M) = M | R M | R² M | R³ M\n";
    let got = run_with(
        defs,
        "%♖: in_any_direction((% + u. -> . + u%)+)",
        "...\n.♖.\n...\n",
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(got.len(), 4);
    let black = run_with("", "flipped(♙ + u. -> . + u♙)", "♟\n.\n", &Limits::default()).unwrap();
    assert_eq!(black, vec![".\n♟\n".to_string()]);
}

/// Pseudo-legal perft: the number of move sequences of `depth` plies.
fn perft(depth: u32) -> usize {
    let defs = include_str!("data/apply/chess_moves.alg");
    let rules = Rules::load(&Source::new("chess_moves.alg", defs)).unwrap().0;
    let side = |name: &str| {
        let Some(Value::Move(m)) = rules.get(name) else {
            panic!("{name}")
        };
        compile(m, rules.pieces()).unwrap()
    };
    let (white, black) = (side("white"), side("black"));
    let start = Position::from_diagram(include_str!("data/apply/start.board"), rules.pieces()).unwrap();
    let mut cache = engine::Cache::new();
    let mut frontier = vec![start];
    let mut leaves = 1;
    for ply in 0..depth {
        let prog = if ply % 2 == 0 { &white } else { &black };
        let mut next = Vec::new();
        leaves = 0;
        for pos in &frontier {
            let out = engine::search(prog, pos, &mut cache, &Limits::default()).unwrap();
            leaves += out.len();
            if ply + 1 < depth {
                next.extend(out.iter().map(|o| pos.with_changes(o.changes)));
            }
        }
        frontier = next;
    }
    leaves
}

#[test]
fn chess_start_position_perft() {
    assert_eq!(perft(1), 20);
    assert_eq!(perft(2), 400);
    assert_eq!(perft(3), 8_902);
}

#[test]
fn outcomes_say_where_the_piece_of_interest_went() {
    let (rules, prog) = program("", "%♖: (% + u. -> . + u%)+");
    let pos = Position::from_diagram(".\n.\n♖\n", rules.pieces()).unwrap();
    let mut cache = engine::Cache::new();
    let out = engine::search(&prog.unwrap(), &pos, &mut cache, &Limits::default()).unwrap();
    let mut ends: Vec<_> = out.iter().map(|o| (o.poi_from, o.poi_to)).collect();
    ends.sort();

    assert_eq!(
        ends,
        vec![
            (Some(Coord::new(0, 0)), Some(Coord::new(0, 1))),
            (Some(Coord::new(0, 0)), Some(Coord::new(0, 2)))
        ]
    );
}
