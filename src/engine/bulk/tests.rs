//! Tests of the choice among pieces: its groups' counts and changes, with
//! the rest walked, against the walker's of the whole program.
use super::{Bulk, Moves};
use crate::core::{self as code, Code, CodeSet, Content, Coord, Marks, Rng};
use crate::engine::position::Position;
use crate::engine::squares::Squares;
use crate::engine::walk::{ChangeQuery, Keep, Query, WalkScratch, Walker};
use crate::ir::{Rules, Value};
use crate::program::{Program, compile};
use crate::source::Source;

/// The choice among pieces `program` is on 8x8, if it is one, and the
/// alternatives it leaves, walked.
fn bulk_of(program: &Program) -> Option<(Bulk, Option<Walker>)> {
    let walker = Walker::new(program, 8, 8).unwrap();
    let (bulk, rest) = Bulk::of(&walker, 8, 8).ok()?;
    Some((bulk, rest.map(|rest| Walker::new(&rest, 8, 8).unwrap())))
}

/// A meter no test here reaches the end of.
fn unbounded() -> crate::engine::meter::Meter {
    crate::engine::meter::Meter::new(&crate::engine::meter::Limits {
        max_states: u64::MAX / 2,
        ..Default::default()
    })
}

/// Chess's rules, whose definitions the tests' moves use.
fn chess() -> Rules {
    let text = include_str!("../../../rules/chess.alg");
    Rules::load(&Source::new("chess.alg", text))
        .expect("chess loads")
        .0
}

fn program(rules: &Rules, expr: &str) -> Program {
    let Value::Move(m) = rules.expand(&Source::new("<test>", expr)).unwrap() else {
        panic!("{expr} is not a move")
    };
    compile(&m, rules.pieces()).unwrap()
}

/// The kinds of `bulk`'s groups in order ("rays" or "rules") and whether it walks a rest.
fn shape((bulk, rest): &(Bulk, Option<Walker>)) -> (Vec<&'static str>, bool) {
    let kinds = (bulk.groups.iter())
        .map(|g| match g.moves {
            Moves::Rays(_) => "rays",
            Moves::Rules(_) => "rules",
        })
        .collect();
    (kinds, rest.is_some())
}

#[test]
fn chess_pieces_are_counted_by_square_sets_and_castling_is_walked() {
    let rules = chess();
    let white = bulk_of(&program(&rules, "piece_moves | castle_3(r) | castle_4(l)"));
    let white = white.expect("a choice among pieces");
    assert_eq!(
        shape(&white),
        (vec!["rules", "rays", "rays", "rays", "rays", "rays"], true)
    );
    assert!(white.0.answers_changes());
    // A walked alternative of the king's that may end one step up: the
    // king's steps are walked with it.
    let shared = "king | (%♔: ?{% + d# -> % + d#} (% + u. -> . + u%))";
    let bulk = bulk_of(&program(&rules, &format!("knight | {shared}"))).unwrap();
    assert_eq!(shape(&bulk), (vec!["rays"], true));
    // One that ends two squares away leaves them to square sets.
    let apart = "king | (%♔: ?{% + d# -> % + d#} (% + uu. -> . + uu%))";
    let bulk = bulk_of(&program(&rules, &format!("knight | {apart}"))).unwrap();
    assert_eq!(shape(&bulk), (vec!["rays", "rays"], true));
    // Two alternatives that may move one piece by the same step: walked.
    let twice = "(%♘: step(u)) | (%♘: slide(u))";
    assert!(bulk_of(&program(&rules, twice)).is_none());
}

/// A random set of the 64 squares, each in it with `density` percent.
fn squares(rng: &mut Rng, density: usize) -> Squares {
    (0..64).fold(0, |s, i| if rng.below(100) < density { s | 1 << i } else { s })
}

/// A random board: pieces of both sides with random marks, pawns off
/// the first rank, often one step from promotion.
fn board(rules: &Rules, rng: &mut Rng) -> Position {
    let symbols: Vec<char> = "♙♘♗♖♕♔♟♞♝♜♛♚".chars().collect();
    let pieces = rules.pieces();
    let squares = (0..64).map(|i| {
        let at = Coord::new(i % 8, i / 8);
        let content = if rng.below(100) < 40 {
            let symbol = symbols[rng.below(12)];
            let marks = Marks(rng.below(4) as u8);
            Content::Piece(pieces.lookup(symbol).unwrap(), marks)
        } else {
            Content::Empty
        };
        (at, content)
    });
    Position::from_squares(squares)
}

/// The square sets of `position` for codes below `codes`.
fn occupied(position: &Position, codes: usize) -> Vec<Squares> {
    let mut sets = vec![0; codes];
    for (i, &c) in position.cells.iter().enumerate() {
        if let Some(set) = sets.get_mut(c as usize) {
            *set |= 1 << i;
        }
    }
    sets
}

/// The codes of `symbols`' pieces, any marks.
fn codes(rules: &Rules, symbols: &str) -> Vec<Code> {
    let pieces = rules.pieces();
    (symbols.chars())
        .flat_map(|s| (0..4).map(move |m| code::piece_code(pieces.lookup(s).unwrap(), Marks(m))))
        .collect()
}

#[test]
fn square_sets_count_and_find_changes_as_the_walk_does() {
    let rules = chess();
    // Chess's, and pieces that move one way only (steps and slides).
    let programs = [
        "piece_moves | castle_3(r) | castle_4(l)",
        "(%♙: pawn_double | en_passant) | (%♘: step(uur) | step(u)) | (%♖: slide(u) | slide(r)) | (%♔: step(dl))",
    ];
    for expr in programs {
        sweep(&rules, &program(&rules, expr));
    }
}

/// Counts and changes of `moves` on random boards, by square sets and walked.
fn sweep(rules: &Rules, moves: &Program) {
    let (bulk, rest) = bulk_of(moves).expect("a choice among pieces");
    let walked = Walker::new(moves, 8, 8).unwrap();
    let all_codes = walked.codes().max(bulk.codes());
    let hot = CodeSet::of(codes(rules, "♔"));
    let wary_codes = codes(rules, "♟♞♝♜♛♚");
    let wary = CodeSet::of(wary_codes.iter().copied());
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    let mut scratch = WalkScratch::default();
    let (mut tested, mut kept, mut changes) = (0, 0, 0);
    for i in 0..400 {
        let position = board(rules, &mut rng);
        let sets = occupied(&position, all_codes);
        let diagram = position.diagram(rules.pieces());
        let meter = unbounded();
        // The whole program walked (`by_pieces` false), or the groups
        // counted and the rest walked.
        let mut count = |by_pieces: bool, mut keep: Option<&mut Keep<'_>>| {
            let mut query = Query {
                position: &position,
                occupied: &sets,
                scratch: &mut scratch,
                meter: &meter,
                attacks: None,
            };
            if !by_pieces {
                return walked.count(&mut query, keep).unwrap();
            }
            let rest = rest
                .as_ref()
                .map_or(0, |w| w.count(&mut query, keep.as_deref_mut()).unwrap());
            rest + bulk.count(&position, &sets, keep)
        };
        assert_eq!(count(true, None), count(false, None), "counts on\n{diagram}");
        // A filter: untested where its definition says so, else kept
        // by a fixed rule of the changes.
        let (cold, calm) = (!squares(&mut rng, i % 50), !squares(&mut rng, 30));
        let cells = position.cells.clone();
        let mut calls = 0;
        let mut rule = |diff: &[(u32, Code)]| {
            calls += 1;
            let untested = !diff.is_empty()
                && diff.iter().all(|&(at, c)| {
                    cold >> at & 1 == 1
                        && !hot.contains(c)
                        && (calm >> at & 1 == 1 || !(wary.contains(c) || wary.contains(cells[at as usize])))
                });
            untested || diff.iter().map(|&(at, c)| at as u64 * 31 + c as u64).sum::<u64>() % 3 != 0
        };
        let mut counts = [0; 2];
        for (n, by_pieces) in counts.iter_mut().zip([true, false]) {
            let mut keep = Keep {
                cold,
                hot: &hot,
                calm,
                wary: &wary,
                wary_codes: &wary_codes,
                test: &mut rule,
            };
            *n = count(by_pieces, Some(&mut keep));
        }
        assert_eq!(counts[0], counts[1], "filtered counts on\n{diagram}");
        tested += calls;
        kept += counts[0];
        // Which squares a move can change, with and without a change made first.
        for at in 0..64 {
            let write = rng.below(64) as u32;
            let overlay = [(write, position.cells[rng.below(64)])];
            for overlay in [&[][..], &overlay[..]] {
                let hit = |w: &Walker| {
                    let mut query = ChangeQuery {
                        base: &position.cells,
                        occupied: &sets,
                        overlay,
                        at,
                        scratch: &mut WalkScratch::default(),
                        meter: &meter,
                    };
                    w.changes_at(&mut query).unwrap().0
                };
                let want = hit(&walked);
                let by_pieces =
                    rest.as_ref().is_some_and(hit) || bulk.changes_at(&position.cells, &sets, overlay, at).0;
                assert_eq!(by_pieces, want, "changes at {at} with {overlay:?} on\n{diagram}");
                changes += want as usize;
            }
        }
    }
    // The sweep must not pass by testing nothing.
    assert!(
        tested > 2000 && kept > 2000 && changes > 5000,
        "{tested} {kept} {changes}"
    );
}
