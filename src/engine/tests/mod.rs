//! (Test code only: declared `#[cfg(test)] mod tests;` in `mod.rs`.)
//!
//! Unit tests of the engine's search modes: collecting every result
//! ([`engine::search`]), asking whether there is one (guards, ordered
//! choice, [`Engine::has_result`], [`Engine::can_change`]), and listing the
//! moves of a side with and without the safety test ([`Engine::each_move`]),
//! on small boards with a few rules defined below.

mod attacks;
mod deadline;
mod strategies;

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
    fn patterns_on(&self, patterns: &[&str], choice: engine::EngineChoice) -> Engine {
        let side = |moves| Side {
            moves: self.program(moves),
            protected: vec![],
            owned: vec![],
        };
        let sides = vec![side("white_moves"), side("black_moves")];
        let programs = patterns.iter().map(|p| self.program(p)).collect();
        engine::prepare(sides, programs, 4, 4, &choice)
    }

    /// White (`white_moves`, protecting ♔) and black (`black_moves`,
    /// protecting ♚), prepared for boards at most `width` by `height`.
    fn engine(&self, width: u32, height: u32) -> Engine {
        self.engine_with("white_moves", "black_moves", width, height)
    }

    /// White moving by `white`, black by `black`, kings protected.
    fn engine_with(&self, white: &str, black: &str, width: u32, height: u32) -> Engine {
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
    ) -> Engine {
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
        engine::prepare(sides, Vec::new(), width, height, &choice)
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
    engine: &Engine,
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
fn moves(engine: &Engine, side: usize, position: &Position, safe: bool) -> Vec<String> {
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
fn move_positions(engine: &Engine, side: usize, position: &Position, safe: bool) -> Vec<Position> {
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

fn can_change(engine: &Engine, side: usize, position: &Position, at: &str) -> bool {
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
        .flat_map(|o| o.changes.iter())
        .filter(|c| !same_but_marks(c.content, position.get(c.at)))
        .map(|c| c.at)
        .collect()
}

/// Whether two contents are the same but for the piece's marks.
fn same_but_marks(a: crate::core::Content, b: crate::core::Content) -> bool {
    use crate::core::{Content, Marks};
    let plain = |c| match c {
        Content::Piece(p, _) => Content::Piece(p, Marks::NONE),
        c => c,
    };
    plain(a) == plain(b)
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
