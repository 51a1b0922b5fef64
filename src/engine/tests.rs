//! (Test code only: declared `#[cfg(test)] mod tests;` in `mod.rs`.)
//!
//! Unit tests of the engine's search modes: collecting every result
//! ([`engine::search`]), asking whether there is one (guards, ordered
//! choice, [`Engine::has_result`], [`Engine::can_change`]), and listing the
//! moves of a side with and without the safety test ([`Engine::each_move`]),
//! on small boards with a few rules defined below.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use crate::core::{Coord, PieceId};
use crate::engine::{self, Cache, Engine, EngineError, Limits, Position, Side, Successor};
use crate::ir::{Rules, Value};
use crate::program::{Program, compile};
use crate::source::Source;

/// Rooks and kings of both colours, and a white pawn that only steps up.
/// Each piece takes the other colour's pieces, never its own.
const DEFS: &str = "\
in_any_direction(M) = M | R M | R² M | R³ M
black_piece = ♟ | ♜ | ♚
white_piece = ♙ | ♖ | ♔
wt = . | black_piece
bt = . | white_piece
rook_w = %♖: in_any_direction((% + u. -> . + u%)* (% + u wt -> . + u%))
king_w = %♔: in_any_direction((% + u wt -> . + u%) | (% + ur wt -> . + ur%))
pawn_w = %♙: (% + u. -> . + u%)
rook_b = %♜: in_any_direction((% + u. -> . + u%)* (% + u bt -> . + u%))
king_b = %♚: in_any_direction((% + u bt -> . + u%) | (% + ur bt -> . + ur%))
white_moves = rook_w | king_w | pawn_w
black_moves = rook_b | king_b
";

const WHITE: usize = 0;
const BLACK: usize = 1;

/// The rules above, and helpers to compile moves and read boards with them.
struct Fixture {
    rules: Rules,
}

impl Fixture {
    fn new() -> Fixture {
        let rules = Rules::load(&Source::new("<defs>", DEFS))
            .unwrap_or_else(|p| panic!("the test rules load: {p:?}"))
            .0;
        Fixture { rules }
    }

    fn program(&self, expr: &str) -> Program {
        let value = self
            .rules
            .expand(&Source::new("<expr>", expr))
            .unwrap_or_else(|p| panic!("{expr} does not expand: {p:?}"));
        let Value::Move(mv) = value else {
            panic!("{expr} is not a move")
        };
        compile(&mv, self.rules.pieces()).unwrap_or_else(|e| panic!("{expr} does not compile: {e}"))
    }

    fn board(&self, diagram: &str) -> Position {
        Position::from_diagram(diagram, self.rules.pieces()).expect("the board reads")
    }

    fn diagram(&self, position: &Position) -> String {
        position.diagram(self.rules.pieces())
    }

    fn piece(&self, symbol: char) -> PieceId {
        self.rules.pieces().lookup(symbol).expect("a prelude piece")
    }

    /// The fixture's moves, unprotected, with `patterns` as the game's
    /// patterns, prepared for boards of 4 by 4.
    fn patterns_on(&self, patterns: &[&str], choice: engine::EngineChoice) -> Box<dyn Engine> {
        let side = |moves| Side {
            moves: self.program(moves),
            protected: vec![],
            owned: vec![],
        };
        let sides = vec![side("white_moves"), side("black_moves")];
        let programs = patterns.iter().map(|p| self.program(p)).collect();
        engine::prepare(sides, programs, 4, 4, choice)
    }

    /// White (`white_moves`, protecting ♔) and black (`black_moves`,
    /// protecting ♚), prepared for boards at most `width` by `height`.
    fn engine(&self, width: u32, height: u32) -> Box<dyn Engine> {
        self.engine_with("white_moves", "black_moves", width, height)
    }

    /// White moving by `white`, black by `black`, kings protected.
    fn engine_with(&self, white: &str, black: &str, width: u32, height: u32) -> Box<dyn Engine> {
        self.engine_on(white, black, width, height, engine::EngineChoice::default())
    }

    /// The same, on the engines `choice` allows.
    fn engine_on(
        &self,
        white: &str,
        black: &str,
        width: u32,
        height: u32,
        choice: engine::EngineChoice,
    ) -> Box<dyn Engine> {
        let sides = vec![
            Side {
                moves: self.program(white),
                protected: vec![self.piece('♔')],
                owned: "♙♘♗♖♕♔".chars().map(|c| self.piece(c)).collect(),
            },
            Side {
                moves: self.program(black),
                protected: vec![self.piece('♚')],
                owned: "♟♞♝♜♛♚".chars().map(|c| self.piece(c)).collect(),
            },
        ];
        engine::prepare(sides, Vec::new(), width, height, choice)
    }

    /// The diagrams of `expr`'s results on `board`, in the order found.
    fn results(&self, expr: &str, board: &str) -> Vec<String> {
        let program = self.program(expr);
        let position = self.board(board);
        let mut cache = Cache::new();
        let outcomes = engine::search(&program, &position, &mut cache, &Limits::default()).unwrap();
        outcomes
            .iter()
            .map(|o| self.diagram(&position.with_changes(o.changes)))
            .collect()
    }
}

/// A square named as in chess: file letter from `a` (x = 0), rank from `1` (y = 0).
fn sq(name: &str) -> Coord {
    let mut chars = name.chars();
    let file = chars.next().unwrap();
    let rank: i32 = chars.as_str().parse().unwrap();
    Coord::new(file as i32 - 'a' as i32, rank - 1)
}

/// The name of a square, as [`sq`] reads it.
fn name(at: Coord) -> String {
    format!("{}{}", (b'a' + at.x as u8) as char, at.y + 1)
}

/// One result as the tests compare them: its changes, the squares its piece
/// of interest left and reached, and its hash.
type Seen = (Vec<crate::core::Change>, Option<Coord>, Option<Coord>, u64);

fn seen(o: &Successor<'_>) -> Seen {
    (o.changes.to_vec(), o.poi_from, o.poi_to, o.hash)
}

/// Calls `f` with every move of `side` (`safe` or not), in the order found.
fn each_move(
    engine: &dyn Engine,
    side: usize,
    position: &Position,
    safe: bool,
    mut f: impl FnMut(&Successor<'_>),
) {
    engine
        .each_move(
            side,
            position,
            safe,
            &mut Cache::new(),
            &Limits::default(),
            &mut |o| {
                f(o);
                ControlFlow::Continue(())
            },
        )
        .unwrap();
}

/// Every move of `side` (`safe` or not) as `from-to` names, in the order found.
fn moves(engine: &dyn Engine, side: usize, position: &Position, safe: bool) -> Vec<String> {
    let mut out = Vec::new();
    each_move(engine, side, position, safe, |o| {
        out.push(format!(
            "{}-{}",
            name(o.poi_from.unwrap()),
            name(o.poi_to.unwrap())
        ));
    });
    out
}

/// Every move of `side` as the resulting positions, sorted.
fn move_positions(engine: &dyn Engine, side: usize, position: &Position, safe: bool) -> Vec<Position> {
    let mut out = Vec::new();
    each_move(engine, side, position, safe, |o| {
        out.push(position.with_changes(o.changes))
    });
    out.sort();
    out
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn can_change(engine: &dyn Engine, side: usize, position: &Position, at: &str) -> bool {
    engine
        .can_change(side, position, sq(at), &mut Cache::new(), &Limits::default())
        .unwrap()
}

/// Every square of `position` some move of `program` changes, found by
/// collecting all its results: what `can_change` must agree with.
fn changed_squares(program: &Program, position: &Position) -> BTreeSet<Coord> {
    let mut cache = Cache::new();
    let outcomes = engine::search(program, position, &mut cache, &Limits::default()).unwrap();
    outcomes
        .iter()
        .flat_map(|o| o.changes.iter().map(|c| c.at))
        .collect()
}

// ---- Collect mode ---------------------------------------------------------

#[test]
fn a_rook_slide_gives_each_position_once_in_a_fixed_order() {
    let f = Fixture::new();
    let program = f.program("%♖: (% + u. -> . + u%)+");
    let position = f.board(".....\n.....\n.....\n.....\n..♖..\n");
    let mut cache = Cache::new();
    let first: Vec<Seen> = engine::search(&program, &position, &mut cache, &Limits::default())
        .unwrap()
        .iter()
        .map(|o| seen(&o))
        .collect();
    let reached: Vec<String> = first.iter().map(|s| name(s.2.unwrap())).collect();
    // Depth first: the longest slide is found first.
    assert_eq!(reached, ["c5", "c4", "c3", "c2"]);
    for (changes, from, _, hash) in &first {
        assert_eq!(*from, Some(sq("c1")));
        // Two squares change: the one left and the one reached.
        assert_eq!(changes.len(), 2, "{changes:?}");
        assert_eq!(*hash, position.with_changes(changes).content_hash());
    }
    let hashes: BTreeSet<u64> = first.iter().map(|s| s.3).collect();
    assert_eq!(hashes.len(), 4);
    // The same again, with the cache reused and with a fresh one.
    let again: Vec<Seen> = engine::search(&program, &position, &mut cache, &Limits::default())
        .unwrap()
        .iter()
        .map(|o| seen(&o))
        .collect();
    assert_eq!(again, first);
    let fresh: Vec<Seen> = engine::search(&program, &position, &mut Cache::new(), &Limits::default())
        .unwrap()
        .iter()
        .map(|o| seen(&o))
        .collect();
    assert_eq!(fresh, first);
}

#[test]
fn a_rook_in_the_middle_reaches_eight_squares_each_once() {
    let f = Fixture::new();
    let got = f.results("rook_w", ".....\n.....\n..♖..\n.....\n.....\n");
    assert_eq!(got.len(), 8);
    assert_eq!(got.iter().collect::<BTreeSet<_>>().len(), 8);
    assert!(got.contains(&".....\n.....\n♖....\n.....\n.....\n".to_string()));
    assert!(!got.contains(&".....\n.....\n..♖..\n.....\n.....\n".to_string()));
}

#[test]
fn two_pieces_leaving_one_position_are_two_moves() {
    let f = Fixture::new();
    // Either rook takes the pawn between them and both vanish: one board,
    // but two moves (they start from different squares).
    let program = f.program("%♖: (% + r♟ + rr♖ -> . + r. + rr.) | (% + l♟ + ll♖ -> . + l. + ll.)");
    let position = f.board("♖♟♖\n");
    let mut cache = Cache::new();
    let found = engine::search(&program, &position, &mut cache, &Limits::default()).unwrap();
    let froms: BTreeSet<String> = found.iter().map(|o| name(o.poi_from.unwrap())).collect();
    assert_eq!(found.len(), 2);
    assert_eq!(froms.len(), 2);
    assert!(found.iter().all(|o| o.hash == found.get(0).unwrap().hash));
    // As positions, they are one.
    assert_eq!(
        engine::apply(&program, &position, &Limits::default())
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_piece_left_on_the_piece_of_interest_is_what_it_became() {
    let f = Fixture::new();
    // The pawn becomes a rook or a knight, then its square is emptied: one
    // board, two moves, told apart by what the piece became; `%` matches
    // the new piece.
    let program = f.program("%♙: ((% -> ♖) | (% -> ♘)) (% -> .)");
    let position = f.board(".♙.\n");
    let mut cache = Cache::new();
    let found = engine::search(&program, &position, &mut cache, &Limits::default()).unwrap();
    assert_eq!(found.len(), 2);
    let became: BTreeSet<_> = found.iter().map(|o| o.became).collect();
    assert_eq!(became.len(), 2);
    assert!(found.iter().all(|o| o.changes.len() == 1));
    // Without the change of piece, `%` no longer matched after `% -> ♖`.
    assert_eq!(f.results("%♙: (% -> ♖) (% + r. -> . + r%)", ".♙.\n"), ["..♖\n"]);
}

#[test]
fn two_paths_to_one_position_are_one_result() {
    let f = Fixture::new();
    let board = "...\n♙.♙\n";
    // Either pawn: two results.
    assert_eq!(sorted(f.results("♙ -> .", board)), ["...\n..♙\n", "...\n♙..\n"]);
    // Both pawns, in either order: one position, found once.
    assert_eq!(f.results("(♙ -> .) (♙ -> .)", board), ["...\n...\n"]);
    let program = f.program("(♙ -> .) (♙ -> .)");
    let position = f.board(board);
    let mut cache = Cache::new();
    let outcomes = engine::search(&program, &position, &mut cache, &Limits::default()).unwrap();
    assert_eq!(outcomes.len(), 1);
    assert_eq!(outcomes.get(0).unwrap().changes.len(), 2);
    // The same move twice in a choice: still each position once.
    assert_eq!(f.results("(♙ -> .) | (♙ -> .)", board).len(), 2);
}

#[test]
fn many_paths_along_a_file_give_each_square_once() {
    let f = Fixture::new();
    // Steps of one and two squares: c5 is reached five ways (1111, 112, 121,
    // 211, 22), c4 three ways, c3 two.
    let got = f.results(
        "%♖: ((% + u. -> . + u%) | (% + u. + uu. -> . + u. + uu%))+",
        ".\n.\n.\n.\n♖\n",
    );
    assert_eq!(
        sorted(got),
        [
            ".\n.\n.\n♖\n.\n",
            ".\n.\n♖\n.\n.\n",
            ".\n♖\n.\n.\n.\n",
            "♖\n.\n.\n.\n.\n"
        ]
    );
}

#[test]
fn states_are_counted_and_bounded_by_the_limit() {
    let f = Fixture::new();
    let program = f.program("(. -> ♙)*");
    let small = f.board("..\n..\n");
    let large = f.board("...\n...\n...\n");
    let mut cache = Cache::new();
    let (n, states) = {
        let o = engine::search(&program, &small, &mut cache, &Limits::default()).unwrap();
        (o.len(), o.states())
    };
    // Every subset of the four squares, each an arrival at the loop head.
    assert_eq!(n, 16);
    assert!(states >= 16, "{states} states");
    let large_states = engine::search(&program, &large, &mut cache, &Limits::default())
        .unwrap()
        .states();
    assert!(large_states >= 512, "{large_states} states");
    assert!(large_states > states);
    // Exactly as many states as the search counts is enough; one fewer is not.
    let exact = Limits {
        max_states: states,
        ..Limits::default()
    };
    let o = engine::search(&program, &small, &mut cache, &exact).unwrap();
    assert_eq!((o.len(), o.states()), (16, states));
    let short = Limits {
        max_states: states - 1,
        ..Limits::default()
    };
    assert_eq!(
        engine::search(&program, &small, &mut cache, &short).err(),
        Some(EngineError::StateLimit { limit: states - 1 })
    );
}

// ---- Exists mode: guards and ordered choice -----------------------------

#[test]
fn guards_keep_or_drop_the_position_unchanged() {
    let f = Fixture::new();
    let with_rook = "♜..\n♙.♙\n";
    let without = "...\n♙.♙\n";
    // `?{M}` goes on when M has a result, without M's changes.
    assert_eq!(
        sorted(f.results("?{♜ -> .} (♙ -> .)", with_rook)),
        ["♜..\n..♙\n", "♜..\n♙..\n"]
    );
    assert!(f.results("?{♜ -> .} (♙ -> .)", without).is_empty());
    // `!{M}` goes on when M has none.
    assert!(f.results("!{♜ -> .} (♙ -> .)", with_rook).is_empty());
    assert_eq!(
        sorted(f.results("!{♜ -> .} (♙ -> .)", without)),
        ["...\n..♙\n", "...\n♙..\n"]
    );
    // A guard alone: one result, the position itself (no change).
    let program = f.program("?{♜ -> .}");
    let position = f.board(with_rook);
    let mut cache = Cache::new();
    let outcomes = engine::search(&program, &position, &mut cache, &Limits::default()).unwrap();
    assert_eq!(outcomes.len(), 1);
    assert!(outcomes.get(0).unwrap().changes.is_empty());
}

#[test]
fn a_guard_on_the_piece_of_interest_tests_that_piece() {
    let f = Fixture::new();
    // The a1 pawn is blocked by the rook, the c1 pawn can step.
    let board = "♜..\n♙.♙\n";
    assert_eq!(
        f.results("%♙: ?{% + u. -> . + u%} (% -> .)", board),
        ["♜..\n♙..\n"]
    );
    assert_eq!(
        f.results("%♙: !{% + u. -> . + u%} (% -> .)", board),
        ["♜..\n..♙\n"]
    );
}

#[test]
fn a_guard_stops_at_its_first_result() {
    let f = Fixture::new();
    let position = f.board("....\n....\n....\n....\n");
    let fill = f.program("(. -> ♙)*");
    let guarded = f.program("?{(. -> ♙)*}");
    let mut cache = Cache::new();
    let all = engine::search(&fill, &position, &mut cache, &Limits::default()).unwrap();
    // Every subset of the sixteen squares.
    assert_eq!(all.len(), 1 << 16);
    let collect_states = all.states();
    assert!(collect_states >= 1 << 16, "{collect_states}");
    let first = engine::search(&guarded, &position, &mut cache, &Limits::default()).unwrap();
    assert_eq!(first.len(), 1);
    assert!(first.get(0).unwrap().changes.is_empty());
    let exists_states = first.states();
    assert!(exists_states <= 100, "{exists_states}");
    let tight = Limits {
        max_states: 1000,
        ..Limits::default()
    };
    assert_eq!(
        engine::search(&guarded, &position, &mut cache, &tight)
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        engine::search(&fill, &position, &mut cache, &tight).err(),
        Some(EngineError::StateLimit { limit: 1000 })
    );
}

/// `(. -> ♙){9}` on an empty 3x3 board walks 9! = 362,880 paths through
/// 511 distinct boards to its one result; `{n}` unrolls into a sequence of
/// rewrites that the visited set skips, so each rewrite made there counts
/// against [`Limits::max_states`] itself (`{12}` on 4x4, 16!/4! paths, would
/// otherwise run for hours whatever the limit).
#[test]
fn the_state_limit_bounds_an_unrolled_repetition() {
    let f = Fixture::new();
    let program = f.program("(. -> ♙){9}");
    let position = f.board("...\n...\n...\n");
    let limits = Limits {
        max_states: 100,
        ..Limits::default()
    };
    let result = engine::search(&program, &position, &mut Cache::new(), &limits).map(|o| o.states());
    assert_eq!(result, Err(EngineError::StateLimit { limit: 100 }));
}

#[test]
fn ordered_choice_takes_the_second_only_when_the_first_has_none() {
    let f = Fixture::new();
    let choice = "(♙ + u. -> . + u♙) / (♙ -> .)";
    // The c1 pawn can step: the removals are not taken, not even of a1.
    assert_eq!(f.results(choice, "♜..\n♙.♙\n"), ["♜.♙\n♙..\n"]);
    // Both can step: both steps, nothing else.
    assert_eq!(
        sorted(f.results(choice, "...\n♙.♙\n")),
        ["..♙\n♙..\n", "♙..\n..♙\n"]
    );
    // Neither can: every result of the second.
    assert_eq!(
        sorted(f.results(choice, "♜.♜\n♙.♙\n")),
        ["♜.♜\n..♙\n", "♜.♜\n♙..\n"]
    );
    // Inside `%♙:` the choice is made for each pawn.
    assert_eq!(
        sorted(f.results("%♙: (% + u. -> . + u%) / (% -> .)", "♜..\n♙.♙\n")),
        ["♜..\n..♙\n", "♜.♙\n♙..\n"]
    );
}

// ---- has_result and `attacked` -------------------------------------------

fn has_result(engine: &dyn Engine, f: &Fixture, expr: &str, side: usize, board: &str) -> bool {
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
    assert!(has_result(&*e, &f, attacked, WHITE, open));
    assert!(!has_result(&*e, &f, "%♔: !{attacked}", WHITE, open));
    // A white pawn between them.
    let blocked = "♜....\n.....\n♙....\n.....\n♔....\n";
    assert!(!has_result(&*e, &f, attacked, WHITE, blocked));
    assert!(has_result(&*e, &f, "%♔: !{attacked}", WHITE, blocked));
    // A rook on the next file.
    assert!(!has_result(
        &*e,
        &f,
        attacked,
        WHITE,
        ".♜...\n.....\n.....\n.....\n♔....\n"
    ));
    // A black king beside it.
    assert!(has_result(
        &*e,
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
        &*e,
        &f,
        "%♔: (l. + % -> l% + .) attacked",
        WHITE,
        board
    ));
    // Stepping up to c2 leaves the rook's lines.
    assert!(!has_result(
        &*e,
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
    assert!(!has_result(&*e, &f, "%♔: attacked", BLACK, free));
    assert!(!has_result(&*e, &f, "%♔: attacked", WHITE, free));
    let checked = "♜....\n.....\n.....\n.♙...\n♔....\n";
    assert!(has_result(&*e, &f, "%♔: attacked", BLACK, checked));
    assert!(has_result(&*e, &f, "%♔: attacked", WHITE, checked));
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
    for choice in [engine::EngineChoice::Backtrack, engine::EngineChoice::Fast] {
        let e = f.engine_on("white_moves", black, 5, 5, choice);
        for at in ["a5", "a4", "e5", "e4", "b4", "d4", "a3"] {
            assert_eq!(
                can_change(&*e, WHITE, &board, at),
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
        assert!(can_change(&*e, WHITE, &open, at), "{at}");
    }
    for at in ["b1", "b4", "c3", "e4"] {
        assert!(!can_change(&*e, WHITE, &open, at), "{at}");
    }
    // e3 only the white rook reaches: black cannot change it, white can.
    assert!(!can_change(&*e, WHITE, &open, "e3"));
    assert!(can_change(&*e, BLACK, &open, "e3"));
    assert!(!can_change(&*e, BLACK, &open, "a4"));
    // A white pawn on a3: the rook takes it, and goes no further.
    let blocked = f.board("♜....\n.....\n♙....\n.....\n....♖\n");
    assert!(can_change(&*e, WHITE, &blocked, "a4"));
    assert!(can_change(&*e, WHITE, &blocked, "a3"));
    assert!(!can_change(&*e, WHITE, &blocked, "a2"));
    assert!(!can_change(&*e, WHITE, &blocked, "a1"));
    // A black piece in the way: the rook stops before it.
    let own = f.board("♜....\n.....\n♚....\n.....\n....♖\n");
    assert!(!can_change(&*e, WHITE, &own, "a1"));
    assert!(can_change(&*e, WHITE, &own, "a2"));
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
            can_change(&*e, WHITE, &f.board(&with), "a1"),
            "rook on a{rank}:\n{with}"
        );
        assert!(
            !can_change(&*e, WHITE, &f.board(&without), "a1"),
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
        sorted(moves(&*e, WHITE, &position, false)),
        ["c1-b1", "c1-b2", "c1-c2", "c1-d1", "c1-d2"]
    );
    assert_eq!(
        sorted(moves(&*e, WHITE, &position, true)),
        ["c1-b1", "c1-b2", "c1-c2"]
    );
}

#[test]
fn a_pinned_rook_stays_on_the_line() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    let position = f.board("♜....\n.....\n♖....\n.....\n♔....\n");
    assert_eq!(
        sorted(moves(&*e, WHITE, &position, false)),
        [
            "a1-a2", "a1-b1", "a1-b2", "a3-a2", "a3-a4", "a3-a5", "a3-b3", "a3-c3", "a3-d3", "a3-e3"
        ]
    );
    assert_eq!(
        sorted(moves(&*e, WHITE, &position, true)),
        ["a1-a2", "a1-b1", "a1-b2", "a3-a2", "a3-a4", "a3-a5"]
    );
}

#[test]
fn a_king_takes_an_unprotected_rook_but_not_a_protected_one() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    let protected = f.board("...♜.\n.....\n.....\n...♜.\n..♔..\n");
    assert_eq!(moves(&*e, WHITE, &protected, true), ["c1-b1"]);
    let alone = f.board(".....\n.....\n.....\n...♜.\n..♔..\n");
    assert_eq!(sorted(moves(&*e, WHITE, &alone, true)), ["c1-b1", "c1-d2"]);
    assert_eq!(moves(&*e, WHITE, &alone, false).len(), 5);
}

#[test]
fn safe_moves_of_black_protect_the_black_king() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    // The mirror of the pinned rook, for black.
    let position = f.board("♚....\n.....\n♜....\n.....\n♖....\n");
    assert_eq!(
        sorted(moves(&*e, BLACK, &position, true)),
        ["a3-a1", "a3-a2", "a3-a4", "a5-a4", "a5-b4", "a5-b5"]
    );
    assert_eq!(moves(&*e, BLACK, &position, false).len(), 10);
}

#[test]
fn each_move_lists_each_position_once_in_a_fixed_order() {
    let f = Fixture::new();
    let e = f.engine(5, 5);
    for board in BOARDS {
        let position = f.board(board);
        for safe in [false, true] {
            let first = moves(&*e, WHITE, &position, safe);
            assert_eq!(first, moves(&*e, WHITE, &position, safe), "{board}");
            let positions = move_positions(&*e, WHITE, &position, safe);
            let distinct: BTreeSet<String> = positions.iter().map(|p| f.diagram(p)).collect();
            assert_eq!(distinct.len(), positions.len(), "{board}");
        }
        // The safe moves are some of the moves.
        let all = move_positions(&*e, WHITE, &position, false);
        assert!(
            move_positions(&*e, WHITE, &position, true)
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
            moves(&*e, WHITE, &f.board(board), safe)
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
    assert!(can_change(&*e, WHITE, &position, "a1"));
    assert!(!can_change(&*e, WHITE, &position, "b1"));
    assert_eq!(
        sorted(moves(&*e, WHITE, &position, true)),
        ["b1-b2", "b1-c1", "b1-c2"]
    );
    let far = f.board("....♜\n.....\n.....\n.....\n♔....\n");
    assert!(can_change(&*e, WHITE, &far, "a5"));
    assert!(can_change(&*e, WHITE, &far, "e1"));
    // The king walks four squares, to e1, under the rook.
    let walk = "%♔: (% + r. -> . + r%){4} attacked";
    assert!(has_result(
        &*e,
        &f,
        walk,
        WHITE,
        "....♜\n.....\n.....\n.....\n♔....\n"
    ));
    assert!(!has_result(
        &*e,
        &f,
        walk,
        WHITE,
        "...♜.\n.....\n.....\n.....\n♔....\n"
    ));
    assert_eq!(sorted(moves(&*e, WHITE, &far, true)), ["a1-a2", "a1-b1", "a1-b2"]);
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
                        move_positions(&*other, side, &position, safe),
                        move_positions(&*right, side, &position, safe),
                        "{pw}x{ph}, side {side}, safe {safe} on\n{board}"
                    );
                }
                let has = |e: &dyn Engine| {
                    e.has_result(&attacked, side, &position, &mut Cache::new(), &Limits::default())
                        .unwrap()
                };
                assert_eq!(has(&*other), has(&*right), "{pw}x{ph}, side {side} on\n{board}");
            }
        }
    }
}

/// A small deterministic generator of boards (xorshift).
struct Boards(u64);

impl Boards {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
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
    let mut boards = Boards(0x9e37_79b9_7f4a_7c15);
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
            if want_safe.len() < move_positions(&*engines[1].1, side, &position, false).len() {
                restricted += 1;
            }
            changeable += want_changed.len();
            for ((pw, ph), e) in &engines {
                assert_eq!(
                    move_positions(&**e, side, &position, true),
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
    let all: Vec<Vec<_>> = [engine::EngineChoice::Fast, engine::EngineChoice::Backtrack]
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
        let engine = f.engine_on(white, "black_moves", 4, 4, engine::EngineChoice::Fast);
        let mut cache = Cache::new();
        for _ in 0..2 {
            let n = engine
                .count_moves(0, &position, false, &mut cache, &Limits::default())
                .unwrap();
            let listed = move_positions(&*engine, 0, &position, false);
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
    let mut boards = Boards(0x9E37_79B9_7F4A_7C15);
    for white in programs {
        let fast = f.engine_on(white, "black_moves", 5, 5, engine::EngineChoice::Fast);
        let reference = f.engine_on(white, "black_moves", 5, 5, engine::EngineChoice::Backtrack);
        let mut moved = 0;
        for _ in 0..300 {
            let position = f.board(&boards.board(5, 5));
            let found = |engine: &dyn Engine| {
                let mut out = Vec::new();
                each_move(engine, WHITE, &position, false, |o| out.push(seen(o)));
                out.sort_by_key(|s| format!("{s:?}"));
                out
            };
            let (a, b) = (found(&*fast), found(&*reference));
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
        f.patterns_on(&patterns, engine::EngineChoice::Fast),
        f.patterns_on(&patterns, engine::EngineChoice::Backtrack),
    );
    let mut boards = Boards(0x2545_F491_4F6C_DD1D);
    let mut held = [0; 5];
    for _ in 0..300 {
        let position = f.board(&boards.board(4, 4));
        for (i, held) in held.iter_mut().enumerate() {
            let ask =
                |e: &dyn Engine| e.pattern_holds(i, WHITE, &position, &mut Cache::new(), &Limits::default());
            let answer = ask(&*fast).unwrap();
            assert_eq!(
                answer,
                ask(&*reference).unwrap(),
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
        f.patterns_on(&patterns, engine::EngineChoice::Fast),
        f.patterns_on(&patterns, engine::EngineChoice::Backtrack),
    );
    let contents = [
        crate::core::Content::Empty,
        crate::core::Content::Empty,
        crate::core::Content::Empty,
        crate::core::Content::Piece(f.piece('♖'), Default::default()),
        crate::core::Content::Piece(f.piece('♜'), Default::default()),
    ];
    let mut boards = Boards(0x1234_5678_9ABC_DEF1);
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
        let fast = f.engine_on(white, "black_moves", 5, 5, engine::EngineChoice::Fast);
        let reference = f.engine_on(white, "black_moves", 5, 5, engine::EngineChoice::Backtrack);
        for board in boards {
            let position = f.board(board);
            let listed = move_positions(&*reference, WHITE, &position, false);
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
fn a_count_of_safe_moves_tests_a_move_that_puts_another_sides_piece_near_the_king() {
    let f = Fixture::new();
    // White's pawns put a black king above them: next to the white king
    // it could take it, though the test of the white king read no square
    // that the move changes.
    let white = "%♙: % + u. -> % + u♚";
    let board = ".....\n.....\n.....\n.....\n.♙♔♙.\n";
    let position = f.board(board);
    for choice in [engine::EngineChoice::Fast, engine::EngineChoice::Backtrack] {
        let e = f.engine_on(white, "black_moves", 5, 5, choice);
        assert_eq!(move_positions(&*e, WHITE, &position, false).len(), 2);
        assert!(move_positions(&*e, WHITE, &position, true).is_empty());
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
    for choice in [engine::EngineChoice::Fast, engine::EngineChoice::Backtrack] {
        let e = f.engine_on(white, "black_moves", 5, 5, choice);
        let safe = move_positions(&*e, WHITE, &position, true).len();
        assert_eq!(safe, 0, "{choice:?}");
        let n = e
            .count_moves(WHITE, &position, true, &mut Cache::new(), &Limits::default())
            .unwrap();
        assert_eq!(n, 0, "{choice:?}");
    }
}
