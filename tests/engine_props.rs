//! Property tests of the engine: against a naive, set-at-a-time reading of
//! LANGUAGE.md section 2 on random small moves and boards, and the algebra's
//! symmetries (rotation, colour swap, commutative union).

use chessalg::core::{Content, Coord, Marks, PieceId, PieceTable};
use std::collections::BTreeSet;

use proptest::prelude::*;

use chessalg::core::{Movement, Offset};
use chessalg::engine::{self, Limits, Position};
use chessalg::ir::{Cell, CellSet, Move, Pattern, Term};
use chessalg::program::compile;

fn table() -> PieceTable {
    let mut t = PieceTable::new();
    for (a, b) in [('♙', '♟'), ('♖', '♜')] {
        let a = t.declare(a);
        let b = t.declare(b);
        t.pair(a, b);
    }
    t
}

/// Small limits: a case that grows the board or branches widely is skipped
/// (the reference below would be slow on it), not compared.
const LIMITS: Limits = Limits {
    max_states: 5_000,
    max_cells: 256,
};

// ---- strategies -------------------------------------------------------------

fn cell() -> impl Strategy<Value = Cell> {
    prop_oneof![
        6 => Just(Cell::Empty),
        4 => (0u16..4).prop_map(|p| Cell::Piece(PieceId::new(p), Marks::NONE)),
        1 => Just(Cell::OffBoard),
        2 => Just(Cell::Poi(Marks::NONE)),
    ]
}

fn cell_set() -> impl Strategy<Value = CellSet> {
    prop::collection::vec(cell(), 1..=2).prop_map(|cells| CellSet::new(cells).expect("non-empty"))
}

fn offsets() -> Vec<Offset> {
    let mut v = Vec::new();
    for x in -1..=1 {
        for y in -1..=1 {
            v.push(Offset::new(x, y));
        }
    }
    v
}

/// One to three squares at distinct offsets.
fn squares() -> impl Strategy<Value = Pattern> {
    (
        prop::sample::subsequence(offsets(), 1..=3),
        prop::collection::vec(cell_set(), 3),
    )
        .prop_map(|(at, sets)| {
            at.into_iter().zip(sets).fold(Pattern::empty(), |acc, (o, s)| {
                acc.glue(&Pattern::square(o, s)).expect("distinct offsets")
            })
        })
}

/// A fragment pattern of one to three squares, sometimes with a `|`.
fn pattern() -> impl Strategy<Value = Pattern> {
    prop_oneof![
        3 => squares(),
        1 => (squares(), squares()).prop_map(|(a, b)| Pattern::either(vec![a, b])),
    ]
}

fn moves() -> impl Strategy<Value = Move> {
    let leaf = prop_oneof![
        1 => Just(Move::Nil),
        6 => (pattern(), pattern()).prop_map(|(l, r)| Move::rewrite(l, r)),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Move::seq(vec![a, b])),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Move::Union(vec![a, b])),
            (inner.clone(), 0u32..2, prop::option::of(0u32..2))
                .prop_map(|(m, min, extra)| { Move::repeat(m, min, extra.map(|e| min + e)) }),
            (inner.clone(), any::<bool>()).prop_map(|(m, holds)| Move::guard(holds, m)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Move::Ordered(vec![a, b])),
            (inner, 0u16..4).prop_map(|(m, p)| Move::with_poi(
                CellSet::one(Cell::Piece(PieceId::new(p), Marks::NONE)),
                m
            )),
        ]
    })
}

/// A move, wrapped in `%p:` half of the time so that `%` is often bound.
fn top_move() -> impl Strategy<Value = Move> {
    (moves(), prop::option::of(0u16..4)).prop_map(|(m, p)| match p {
        Some(p) => Move::with_poi(CellSet::one(Cell::Piece(PieceId::new(p), Marks::NONE)), m),
        None => m,
    })
}

/// A board of up to 3x3 squares, some missing.
fn board() -> impl Strategy<Value = Position> {
    let content = prop_oneof![
        1 => Just(Content::NoSquare),
        4 => Just(Content::Empty),
        3 => (0u16..4).prop_map(|p| Content::Piece(PieceId::new(p), Marks::NONE)),
    ];
    (1i32..=3, 1i32..=3, prop::collection::vec(content, 9)).prop_map(|(w, h, cells)| {
        let squares = (0..w * h).map(|i| (Coord::new(i % w, i / w), cells[i as usize]));
        Position::from_squares(squares)
    })
}

// ---- a naive reference ------------------------------------------------------

type Poi = (Coord, PieceId);
type State = (Position, Vec<Poi>);

/// Gives up (None) when the reference would run too long.
struct Naive {
    budget: usize,
}

fn alternatives(p: &Pattern) -> Vec<Vec<(Offset, CellSet)>> {
    let mut out = vec![Vec::new()];
    for t in p.terms() {
        match t {
            Term::Square { at, contents } => out.iter_mut().for_each(|a| a.push((*at, contents.clone()))),
            Term::Either(alts) => {
                let choices: Vec<_> = alts.iter().flat_map(alternatives).collect();
                out = out
                    .iter()
                    .flat_map(|a| {
                        choices.iter().map(move |c| {
                            let mut j = a.clone();
                            j.extend(c.iter().cloned());
                            j
                        })
                    })
                    .collect();
            }
            Term::Boxed { .. } => unreachable!("the generator makes no boxes"),
        }
    }
    out
}

fn replacements(p: &Pattern) -> Vec<Vec<(Offset, Cell)>> {
    let mut out = Vec::new();
    for alt in alternatives(p) {
        let mut partial = vec![Vec::new()];
        for (at, set) in alt {
            partial = partial
                .iter()
                .flat_map(|v: &Vec<(Offset, Cell)>| {
                    set.cells().iter().map(move |c| {
                        let mut v = v.clone();
                        v.push((at, *c));
                        v
                    })
                })
                .collect();
        }
        out.extend(partial);
    }
    out
}

fn content(cell: Cell) -> Content {
    match cell {
        Cell::Empty => Content::Empty,
        Cell::Piece(p, m) => Content::Piece(p, m),
        Cell::OffBoard => Content::NoSquare,
        Cell::Poi(_) => unreachable!("handled by the caller"),
        Cell::Any => unreachable!("the generator makes no `_`"),
    }
}

impl Naive {
    fn spend(&mut self, n: usize) -> Option<()> {
        self.budget = self.budget.checked_sub(n)?;
        Some(())
    }

    fn eval(&mut self, m: &Move, states: BTreeSet<State>) -> Option<BTreeSet<State>> {
        self.spend(states.len() + 1)?;
        Some(match m {
            // Without opponents (the engine's `search`), nothing is attacked.
            // Nor has anyone to reply: no position is one without replies.
            Move::Attacked | Move::NoReply => BTreeSet::new(),
            // The generator makes no `%from:`; the model does not follow it.
            Move::AtOrigin(_) => return None,
            Move::Nil => states,
            Move::Rewrite(rw) => {
                let mut out = BTreeSet::new();
                for (pos, pois) in &states {
                    for alt in alternatives(&rw.lhs) {
                        let mut ts = BTreeSet::new();
                        for (sq, _) in pos.squares() {
                            for (o, _) in &alt {
                                ts.insert((sq.x - o.x, sq.y - o.y));
                            }
                        }
                        for (tx, ty) in ts {
                            let ok = alt.iter().all(|(o, set)| {
                                let at = Coord::new(tx + o.x, ty + o.y);
                                let here = pos.get(at);
                                set.cells().iter().any(|c| match c {
                                    Cell::Poi(_) => pois.last().is_some_and(|&(pa, pp)| {
                                        pa == at && here == Content::Piece(pp, Marks::NONE)
                                    }),
                                    c => content(*c) == here,
                                })
                            });
                            if !ok {
                                continue;
                            }
                            for choice in replacements(&rw.rhs) {
                                let mut changes = Vec::new();
                                let mut pois = pois.clone();
                                for (o, _) in &alt {
                                    if !choice.iter().any(|(c, _)| c == o) {
                                        changes.push(chessalg::core::Change {
                                            at: Coord::new(tx + o.x, ty + o.y),
                                            content: Content::NoSquare,
                                        });
                                    }
                                }
                                for (o, c) in &choice {
                                    let at = Coord::new(tx + o.x, ty + o.y);
                                    let content = match c {
                                        Cell::Poi(_) => {
                                            let top = pois.last_mut().expect("bound");
                                            top.0 = at;
                                            Content::Piece(top.1, Marks::NONE)
                                        }
                                        c => content(*c),
                                    };
                                    changes.push(chessalg::core::Change { at, content });
                                }
                                // Another piece left on the piece of interest's
                                // square is the piece of interest now.
                                if let Some(top) = pois.last_mut()
                                    && let Some(Content::Piece(p, _)) =
                                        changes.iter().rev().find(|c| c.at == top.0).map(|c| c.content)
                                {
                                    top.1 = p;
                                }
                                self.spend(1)?;
                                let q = pos.with_changes(&changes);
                                // Closures that keep growing the board: give up.
                                if q.len() > 40 {
                                    return None;
                                }
                                out.insert((q, pois));
                            }
                        }
                    }
                }
                out
            }
            Move::WithPoi { pieces, body } => {
                let mut out = BTreeSet::new();
                for (pos, pois) in &states {
                    for (at, c) in pos.squares() {
                        let Content::Piece(p, _) = c else { continue };
                        if !pieces.cells().contains(&Cell::Piece(p, Marks::NONE)) {
                            continue;
                        }
                        let mut inner = pois.clone();
                        inner.push((at, p));
                        for (q, mut qp) in self.eval(body, BTreeSet::from([(pos.clone(), inner)]))? {
                            qp.pop();
                            out.insert((q, qp));
                        }
                    }
                }
                out
            }
            Move::Seq(ms) => {
                let mut cur = states;
                for m in ms {
                    cur = self.eval(m, cur)?;
                }
                cur
            }
            Move::Union(ms) => {
                let mut out = BTreeSet::new();
                for m in ms {
                    out.extend(self.eval(m, states.clone())?);
                }
                out
            }
            Move::Repeat { body, min, max } => {
                let mut cur = states;
                for _ in 0..*min {
                    cur = self.eval(body, cur)?;
                }
                let mut acc = cur.clone();
                match max {
                    Some(max) => {
                        for _ in *min..*max {
                            cur = self.eval(body, cur)?;
                            acc.extend(cur.iter().cloned());
                        }
                    }
                    None => loop {
                        let next: BTreeSet<State> = self
                            .eval(body, cur)?
                            .into_iter()
                            .filter(|s| !acc.contains(s))
                            .collect();
                        if next.is_empty() {
                            break;
                        }
                        acc.extend(next.iter().cloned());
                        cur = next;
                    },
                }
                acc
            }
            Move::Guard { holds, body } => {
                let mut out = BTreeSet::new();
                for s in states {
                    let any = !self.eval(body, BTreeSet::from([s.clone()]))?.is_empty();
                    if any == *holds {
                        out.insert(s);
                    }
                }
                out
            }
            Move::Ordered(ms) => {
                let mut out = BTreeSet::new();
                for s in states {
                    for m in ms {
                        let r = self.eval(m, BTreeSet::from([s.clone()]))?;
                        if !r.is_empty() {
                            out.extend(r);
                            break;
                        }
                    }
                }
                out
            }
        })
    }
}

// ---- properties -------------------------------------------------------------

/// The engine's results as a set, or None when the move does not compile or
/// the search hits its limits.
fn engine_results(m: &Move, p: &Position) -> Option<BTreeSet<Position>> {
    let prog = compile(m, &table()).ok()?;
    let out = engine::apply(&prog, p, &LIMITS).ok()?;
    let n = out.len();
    let set: BTreeSet<Position> = out.into_iter().collect();
    assert_eq!(set.len(), n, "apply returned a duplicate");
    Some(set)
}

fn turned(m: &Move, k: u8) -> Move {
    (0..k).fold(m.clone(), |acc, _| {
        acc.moved(Movement::TURN).expect("small offsets")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn engine_agrees_with_the_naive_reading(m in top_move(), p in board()) {
        let Some(got) = engine_results(&m, &p) else { return Ok(()) };
        let mut naive = Naive { budget: 5_000 };
        let Some(want) = naive.eval(&m, BTreeSet::from([(p.clone(), Vec::new())])) else { return Ok(()) };
        let want: BTreeSet<Position> = want.into_iter().map(|(q, _)| q).collect();
        prop_assert_eq!(got, want, "{:?}", m);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn four_turns_are_the_identity(m in top_move(), p in board()) {
        let Some(once) = engine_results(&m, &p) else { return Ok(()) };
        prop_assert_eq!(engine_results(&turned(&m, 4), &p), Some(once));
    }

    #[test]
    fn turning_move_and_board_turns_the_results(m in top_move(), p in board()) {
        let Some(once) = engine_results(&m, &p) else { return Ok(()) };
        let turned_results = engine_results(&turned(&m, 1), &p.moved(Movement::TURN));
        let expected: BTreeSet<Position> = once.iter().map(|q| q.moved(Movement::TURN)).collect();
        prop_assert_eq!(turned_results, Some(expected));
    }

    #[test]
    fn colour_swapped_twice_is_the_identity(m in top_move(), p in board()) {
        let t = table();
        let swap = |id| t.colour_swapped(id);
        let Some(once) = engine_results(&m, &p) else { return Ok(()) };
        prop_assert_eq!(engine_results(&m.map_pieces(&swap).map_pieces(&swap), &p), Some(once.clone()));
        // Swapping move and board swaps the results.
        let swapped = engine_results(&m.map_pieces(&swap), &p.map_pieces(swap));
        let expected: BTreeSet<Position> = once.iter().map(|q| q.map_pieces(swap)).collect();
        prop_assert_eq!(swapped, Some(expected));
    }

    #[test]
    fn union_is_commutative(a in top_move(), b in top_move(), p in board()) {
        let ab = engine_results(&Move::Union(vec![a.clone(), b.clone()]), &p);
        let ba = engine_results(&Move::Union(vec![b.clone(), a.clone()]), &p);
        prop_assert_eq!(&ab, &ba);
        if let (Some(ab), Some(ra), Some(rb)) = (ab, engine_results(&a, &p), engine_results(&b, &p)) {
            prop_assert_eq!(ab, ra.union(&rb).cloned().collect::<BTreeSet<_>>());
        }
    }
}
