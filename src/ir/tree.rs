//! The core IR: what every rule means once names, functions, movements,
//! `colour_swapped` and `flipped` are resolved.
//!
//! Fragments are sets of squares at offsets from a centre; patterns allow a
//! set of contents per square and alternatives of whole fragments; moves are
//! a small regular language over rewrites. Values are built only through the
//! smart constructors here, which keep every value in one canonical form, so
//! two expressions that mean the same thing by the algebra's laws (`ur = ru`,
//! `f + g = g + f`, `nil M = M`, `M{0} = nil`) compare equal and print alike.

use crate::core::{BoxId, Marks, PieceId, PieceTable};
use crate::core::{Movement, MovementOverflow, Offset};

/// What one square of a fragment is or becomes.
///
/// Marks mean "at least these" on the left of `->` (`♔°` matches a king
/// with the mark `°`, `♔` any king) and "exactly these" on the right (`♔`
/// writes a bare king; `%` writes the piece of interest bare, `%ᵉ` with `ᵉ`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cell {
    /// `.`: an empty square of the board.
    Empty,
    /// A declared piece with marks on a square.
    Piece(PieceId, Marks),
    /// `%`: the square of the piece of interest, with marks.
    Poi(Marks),
    /// `#`: a coordinate that is not a square of the board.
    OffBoard,
    /// `_`: any square of the board, empty or holding a piece (left sides only).
    Any,
}

/// A non-empty, sorted set of contents one square may have; on the left of
/// `->` any of them matches, on the right each gives its own result.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellSet(Vec<Cell>);

impl CellSet {
    /// The set holding just `cell`.
    pub fn one(cell: Cell) -> Self {
        CellSet(vec![cell])
    }

    /// The set of the given cells; `None` if there are none.
    pub fn new(mut cells: Vec<Cell>) -> Option<Self> {
        cells.sort();
        cells.dedup();
        (!cells.is_empty()).then_some(CellSet(cells))
    }

    /// The contents in canonical order.
    pub fn cells(&self) -> &[Cell] {
        &self.0
    }

    /// The single content, if the set has exactly one.
    pub fn single(&self) -> Option<Cell> {
        match self.0.as_slice() {
            [c] => Some(*c),
            _ => None,
        }
    }

    fn union(&self, other: &CellSet) -> CellSet {
        let mut cells = self.0.clone();
        cells.extend_from_slice(&other.0);
        CellSet::new(cells).expect("union of non-empty sets")
    }

    fn map_pieces(&self, f: &impl Fn(PieceId) -> PieceId) -> CellSet {
        let cells = self
            .0
            .iter()
            .map(|c| match *c {
                Cell::Piece(p, m) => Cell::Piece(f(p), m),
                other => other,
            })
            .collect();
        CellSet::new(cells).expect("mapping keeps sets non-empty")
    }

    /// The set with `marks` added to every piece and `%`; `None` if it holds
    /// an empty square or `#`, which cannot carry marks.
    pub fn marked(&self, marks: Marks) -> Option<CellSet> {
        let cells = self
            .0
            .iter()
            .map(|c| match *c {
                Cell::Piece(p, m) => Some(Cell::Piece(p, m.union(marks))),
                Cell::Poi(m) => Some(Cell::Poi(m.union(marks))),
                Cell::Empty | Cell::OffBoard | Cell::Any => None,
            })
            .collect::<Option<Vec<_>>>()?;
        CellSet::new(cells)
    }
}

/// One glued part of a pattern.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// One square at an offset from the centre, with its possible contents.
    Square {
        /// Where the square is, relative to the pattern's centre.
        at: Offset,
        /// What the square may hold.
        contents: CellSet,
    },
    /// `f | g | ...` over fragments that are not all single squares at one spot.
    Either(Vec<Pattern>),
    /// `hand ♘`: `count` of `piece` in a box (taken out on the left of `->`,
    /// put in on the right).
    Boxed {
        /// The box.
        bx: BoxId,
        /// The piece.
        piece: PieceId,
        /// How many.
        count: u32,
    },
}

/// A board fragment pattern: terms glued together with `+` (`0` when empty).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Pattern {
    terms: Vec<Term>,
}

/// Two squares of a glued fragment land on the same spot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overlap {
    /// The spot, relative to the fragment's centre.
    pub at: Offset,
}

impl Pattern {
    /// `0`: the empty fragment.
    pub fn empty() -> Self {
        Pattern::default()
    }

    /// One square at `at` holding any of `contents`.
    pub fn square(at: Offset, contents: CellSet) -> Self {
        Pattern {
            terms: vec![Term::Square { at, contents }],
        }
    }

    /// `count` of `piece` in box `bx`.
    pub fn boxed(bx: BoxId, piece: PieceId, count: u32) -> Self {
        Pattern {
            terms: vec![Term::Boxed { bx, piece, count }],
        }
    }

    /// Sorts terms and adds up the counts of one piece in one box.
    fn normalised(mut terms: Vec<Term>) -> Pattern {
        terms.sort();
        let mut out: Vec<Term> = Vec::with_capacity(terms.len());
        for t in terms {
            if let (
                Some(Term::Boxed { bx, piece, count }),
                Term::Boxed {
                    bx: b2,
                    piece: p2,
                    count: c2,
                },
            ) = (out.last_mut(), &t)
                && *bx == *b2
                && *piece == *p2
            {
                *count = count.saturating_add(*c2);
                continue;
            }
            out.push(t);
        }
        // Adding up counts kept the order: only equal box terms were merged.
        Pattern { terms: out }
    }

    /// The glued terms in canonical order.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// The pattern as a choice of patterns without `|` between whole
    /// fragments (`% + (@d1 | @e1)` is `% + @d1` or `% + @e1`), or `None`
    /// past `most` alternatives.
    pub fn alternatives(&self, most: usize) -> Option<Vec<Pattern>> {
        let mut out = vec![Pattern::empty()];
        for term in &self.terms {
            let choices: Vec<Pattern> = match term {
                Term::Either(alts) => {
                    let mut all = Vec::new();
                    for a in alts {
                        all.extend(a.alternatives(most)?);
                    }
                    all
                }
                other => vec![Pattern::normalised(vec![other.clone()])],
            };
            let mut next = Vec::new();
            for base in &out {
                for c in &choices {
                    next.push(base.glue(c).ok()?);
                    if next.len() > most {
                        return None;
                    }
                }
            }
            out = next;
        }
        Some(out)
    }

    /// Whether this is `0`.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// `f + g`, refusing two squares on one spot (in any choice of
    /// alternatives), unless one of them is only looked at (`_`, as a place
    /// on a board with holes has them): that one takes the other's contents.
    pub fn glue(&self, other: &Pattern) -> Result<Pattern, Overlap> {
        let mine = self.reach();
        if let Some(at) = other.reach().into_iter().find(|at| mine.contains(at)) {
            return self.glue_looking(other).ok_or(Overlap { at });
        }
        let mut terms = self.terms.clone();
        terms.extend(other.terms.iter().cloned());
        Ok(Pattern::normalised(terms))
    }

    /// `f + g` where squares meet, each alternative of one with each of the
    /// other: a square only looked at (`_`) takes the contents of the square
    /// it meets, which must be a square of the board (`None` otherwise, or
    /// past a few hundred alternatives).
    fn glue_looking(&self, other: &Pattern) -> Option<Pattern> {
        const MOST: usize = 256;
        let lefts = self.alternatives(MOST)?;
        let rights = other.alternatives(MOST)?;
        let looked = CellSet::one(Cell::Any);
        let mut out = Vec::new();
        for a in &lefts {
            for b in &rights {
                let mut terms = a.terms.clone();
                for t in &b.terms {
                    let Term::Square { at, contents } = t else {
                        terms.push(t.clone());
                        continue;
                    };
                    let met = terms.iter_mut().find_map(|u| match u {
                        Term::Square { at: a, contents: c } if a == at => Some(c),
                        _ => None,
                    });
                    match met {
                        None => terms.push(t.clone()),
                        Some(c) if *c == looked && !contents.cells().contains(&Cell::OffBoard) => {
                            *c = contents.clone()
                        }
                        Some(c) if *contents == looked && !c.cells().contains(&Cell::OffBoard) => {}
                        Some(_) => return None,
                    }
                }
                out.push(Pattern::normalised(terms));
                if out.len() > MOST {
                    return None;
                }
            }
        }
        Some(Pattern::either(out))
    }

    /// `f | g`: single squares at one spot merge into one set of contents.
    pub fn either(alternatives: Vec<Pattern>) -> Pattern {
        let mut flat: Vec<Pattern> = Vec::new();
        for p in alternatives {
            match p.terms.as_slice() {
                [Term::Either(inner)] => flat.extend(inner.iter().cloned()),
                _ => flat.push(p),
            }
        }
        // Merge alternatives that are single squares at the same spot.
        let mut merged: Vec<Pattern> = Vec::new();
        for p in flat {
            let single = match p.terms.as_slice() {
                [Term::Square { at, contents }] => Some((*at, contents.clone())),
                _ => None,
            };
            if let Some((at, contents)) = single {
                let found = merged.iter_mut().find_map(|q| match q.terms.as_mut_slice() {
                    [Term::Square { at: a, contents: c }] if *a == at => Some(c),
                    _ => None,
                });
                if let Some(c) = found {
                    *c = c.union(&contents);
                    continue;
                }
            }
            merged.push(p);
        }
        merged.sort();
        merged.dedup();
        if merged.len() == 1 {
            return merged.pop().expect("one alternative");
        }
        Pattern {
            terms: vec![Term::Either(merged)],
        }
    }

    /// Every spot some choice of alternatives covers, sorted, without repeats.
    pub fn reach(&self) -> Vec<Offset> {
        let mut out = Vec::new();
        for t in &self.terms {
            match t {
                Term::Square { at, .. } => out.push(*at),
                Term::Either(alts) => alts.iter().for_each(|a| out.extend(a.reach())),
                Term::Boxed { .. } => {}
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The pattern moved by `m`.
    pub fn moved(&self, m: Movement) -> Result<Pattern, MovementOverflow> {
        let mut terms = Vec::with_capacity(self.terms.len());
        for t in &self.terms {
            terms.push(match t {
                Term::Square { at, contents } => Term::Square {
                    at: m.try_apply(*at).ok_or(MovementOverflow)?,
                    contents: contents.clone(),
                },
                Term::Either(alts) => {
                    Term::Either(alts.iter().map(|a| a.moved(m)).collect::<Result<Vec<_>, _>>()?)
                }
                boxed @ Term::Boxed { .. } => boxed.clone(),
            });
        }
        Ok(Pattern::rebuilt(terms))
    }

    /// The pattern with every piece replaced by `f(piece)`.
    pub fn map_pieces(&self, f: &impl Fn(PieceId) -> PieceId) -> Pattern {
        let terms = self
            .terms
            .iter()
            .map(|t| match t {
                Term::Square { at, contents } => Term::Square {
                    at: *at,
                    contents: contents.map_pieces(f),
                },
                Term::Either(alts) => Term::Either(alts.iter().map(|a| a.map_pieces(f)).collect()),
                Term::Boxed { bx, piece, count } => Term::Boxed {
                    bx: *bx,
                    piece: f(*piece),
                    count: *count,
                },
            })
            .collect();
        Pattern::rebuilt(terms)
    }

    /// The offsets of the squares that may be `_` (any square).
    pub fn any_offsets(&self) -> Vec<Offset> {
        let mut out = Vec::new();
        for t in &self.terms {
            match t {
                Term::Square { at, contents } if contents.cells().contains(&Cell::Any) => out.push(*at),
                Term::Square { .. } | Term::Boxed { .. } => {}
                Term::Either(alts) => alts.iter().for_each(|a| out.extend(a.any_offsets())),
            }
        }
        out
    }

    /// Whether every alternative of the pattern has a square at `at`.
    pub fn fixes(&self, at: Offset) -> bool {
        self.terms.iter().any(|t| match t {
            Term::Square { at: a, .. } => *a == at,
            Term::Either(alts) => alts.iter().all(|a| a.fixes(at)),
            Term::Boxed { .. } => false,
        })
    }

    /// Whether any square may be `%` (with any marks).
    pub fn mentions_poi(&self) -> bool {
        self.terms.iter().any(|t| match t {
            Term::Square { contents, .. } => contents.cells().iter().any(|c| matches!(c, Cell::Poi(_))),
            Term::Either(alts) => alts.iter().any(|a| a.mentions_poi()),
            Term::Boxed { .. } => false,
        })
    }

    /// The pattern with `marks` added to every piece and `%`; `None` if some
    /// square is empty or `#`.
    pub fn marked(&self, marks: Marks) -> Option<Pattern> {
        let mut terms = Vec::with_capacity(self.terms.len());
        for t in &self.terms {
            terms.push(match t {
                Term::Square { at, contents } => Term::Square {
                    at: *at,
                    contents: contents.marked(marks)?,
                },
                Term::Either(alts) => {
                    Term::Either(alts.iter().map(|a| a.marked(marks)).collect::<Option<Vec<_>>>()?)
                }
                // Pieces in a box carry no marks.
                Term::Boxed { .. } => return None,
            });
        }
        Some(Pattern::rebuilt(terms))
    }

    /// Rebuilds canonical order after terms were transformed one by one.
    fn rebuilt(terms: Vec<Term>) -> Pattern {
        let mut out = Pattern::empty();
        for t in terms {
            let p = match t {
                Term::Either(alts) => Pattern::either(alts),
                sq => Pattern { terms: vec![sq] },
            };
            out.terms.extend(p.terms);
        }
        Pattern::normalised(out.terms)
    }
}

/// `lhs -> rhs`: where `lhs` matches under some translation, it becomes `rhs`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rewrite {
    /// The pattern to find.
    pub lhs: Pattern,
    /// What the matched squares become.
    pub rhs: Pattern,
}

/// A move: a function from a position to the set of positions it leads to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// `nil`: the position unchanged.
    Nil,
    /// `f -> g`.
    Rewrite(Rewrite),
    /// `%p: M`: each square holding one of `pieces` becomes the POI in turn.
    WithPoi {
        /// The pieces that may become the POI.
        pieces: CellSet,
        /// The move made with that POI.
        body: Box<Move>,
    },
    /// `M N ...`: each in turn, on every result of the one before.
    Seq(Vec<Move>),
    /// `M | N | ...`: all results of any.
    Union(Vec<Move>),
    /// `M / N / ...`: the results of the first that has any.
    Ordered(Vec<Move>),
    /// `M{min, max}`: M repeated k times for min <= k <= max (no max: unbounded).
    Repeat {
        /// The repeated move.
        body: Box<Move>,
        /// Fewest repetitions.
        min: u32,
        /// Most repetitions; `None` for `*` and `+`.
        max: Option<u32>,
    },
    /// `?{M}` (`holds`) or `!{M}` (not `holds`): the position unchanged when M
    /// has a result (has none), else no result.
    Guard {
        /// Whether M must have a result (`?{}`) or must have none (`!{}`).
        holds: bool,
        /// The move tested.
        body: Box<Move>,
    },
    /// `attacked`: the position unchanged when an opponent has a move that
    /// changes the POI's square, else no result.
    Attacked,
    /// `no_reply`: the position unchanged when the next player would have no
    /// legal move in it, else no result (a drop that may not mate).
    NoReply,
    /// `%from: M`: M with the square the piece of interest started its move
    /// on as the piece of interest, when the piece left it empty (a gate to
    /// fill, a zone to look up after the piece left it); else no result.
    AtOrigin(Box<Move>),
}

/// Where a move uses the piece of interest outside every `%p:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnboundPoi {
    /// `%` on the left of a rewrite.
    Left,
    /// `%` on the right of a rewrite.
    Right,
    /// `attacked`, which asks about the piece of interest's square.
    Attacked,
    /// `%from:`, which asks where the piece of interest started.
    Origin,
}

impl Move {
    /// The first use of the piece of interest that no `%p:` binds, if any
    /// (guards and ordered choices see the piece their move binds).
    pub fn unbound_poi(&self) -> Option<UnboundPoi> {
        match self {
            Move::Nil | Move::WithPoi { .. } | Move::NoReply => None,
            Move::Rewrite(rw) if rw.lhs.mentions_poi() => Some(UnboundPoi::Left),
            Move::Rewrite(rw) if rw.rhs.mentions_poi() => Some(UnboundPoi::Right),
            Move::Rewrite(_) => None,
            Move::Attacked => Some(UnboundPoi::Attacked),
            Move::AtOrigin(_) => Some(UnboundPoi::Origin),
            Move::Seq(ms) | Move::Union(ms) | Move::Ordered(ms) => ms.iter().find_map(Move::unbound_poi),
            Move::Repeat { body, .. } | Move::Guard { body, .. } => body.unbound_poi(),
        }
    }

    /// `f -> g`.
    pub fn rewrite(lhs: Pattern, rhs: Pattern) -> Move {
        Move::Rewrite(Rewrite { lhs, rhs })
    }

    /// `%p: M`.
    pub fn with_poi(pieces: CellSet, body: Move) -> Move {
        Move::WithPoi {
            pieces,
            body: Box::new(body),
        }
    }

    /// `M N ...`, dropping `nil` and flattening nested sequences.
    pub fn seq(moves: Vec<Move>) -> Move {
        let mut flat = Vec::new();
        for m in moves {
            match m {
                Move::Nil => {}
                Move::Seq(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        match flat.len() {
            0 => Move::Nil,
            1 => flat.pop().expect("one move"),
            _ => Move::Seq(flat),
        }
    }

    /// `M | N ...`, flattening nested unions and merging equal alternatives
    /// (order is kept: the first occurrence stays).
    pub fn union(moves: Vec<Move>) -> Move {
        let mut flat: Vec<Move> = Vec::new();
        for m in moves {
            let items = match m {
                Move::Union(inner) => inner,
                other => vec![other],
            };
            for i in items {
                if !flat.contains(&i) {
                    flat.push(i);
                }
            }
        }
        match flat.len() {
            1 => flat.pop().expect("one move"),
            _ => Move::Union(flat),
        }
    }

    /// `M / N ...`, flattening nested ordered choices.
    pub fn ordered(moves: Vec<Move>) -> Move {
        let mut flat = Vec::new();
        for m in moves {
            match m {
                Move::Ordered(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        match flat.len() {
            1 => flat.pop().expect("one move"),
            _ => Move::Ordered(flat),
        }
    }

    /// `M{min, max}`: `M{0}` is `nil`, `M{1}` is M, `nil*` is `nil`.
    pub fn repeat(body: Move, min: u32, max: Option<u32>) -> Move {
        match (&body, min, max) {
            (_, _, Some(0)) | (Move::Nil, _, _) => Move::Nil,
            (_, 1, Some(1)) => body,
            _ => Move::Repeat {
                body: Box::new(body),
                min,
                max,
            },
        }
    }

    /// `?{M}` or `!{M}`.
    pub fn guard(holds: bool, body: Move) -> Move {
        Move::Guard {
            holds,
            body: Box::new(body),
        }
    }

    /// Rebuilds this move with every pattern transformed by `f`.
    pub fn map_patterns<E>(&self, f: &impl Fn(&Pattern) -> Result<Pattern, E>) -> Result<Move, E> {
        let each = |ms: &[Move]| {
            ms.iter()
                .map(|m| m.map_patterns(f))
                .collect::<Result<Vec<_>, E>>()
        };
        Ok(match self {
            Move::Nil => Move::Nil,
            Move::Rewrite(r) => Move::rewrite(f(&r.lhs)?, f(&r.rhs)?),
            Move::WithPoi { pieces, body } => Move::with_poi(pieces.clone(), body.map_patterns(f)?),
            Move::Seq(ms) => Move::seq(each(ms)?),
            Move::Union(ms) => Move::union(each(ms)?),
            Move::Ordered(ms) => Move::ordered(each(ms)?),
            Move::Repeat { body, min, max } => Move::repeat(body.map_patterns(f)?, *min, *max),
            Move::Guard { holds, body } => Move::guard(*holds, body.map_patterns(f)?),
            Move::Attacked => Move::Attacked,
            Move::NoReply => Move::NoReply,
            Move::AtOrigin(body) => Move::AtOrigin(Box::new(body.map_patterns(f)?)),
        })
    }

    /// The move with every fragment moved by `m` (both sides of every rewrite).
    pub fn moved(&self, m: Movement) -> Result<Move, MovementOverflow> {
        self.map_patterns(&|p| p.moved(m))
    }

    /// The move with every piece replaced by `f(piece)`, the POI choices too.
    pub fn map_pieces(&self, f: &impl Fn(PieceId) -> PieceId) -> Move {
        let swapped = self
            .map_patterns::<std::convert::Infallible>(&|p| Ok(p.map_pieces(f)))
            .unwrap_or_else(|never| match never {});
        swapped.map_poi_pieces(f)
    }

    fn map_poi_pieces(self, f: &impl Fn(PieceId) -> PieceId) -> Move {
        let each = |ms: Vec<Move>| ms.into_iter().map(|m| m.map_poi_pieces(f)).collect::<Vec<_>>();
        match self {
            Move::WithPoi { pieces, body } => Move::with_poi(pieces.map_pieces(f), body.map_poi_pieces(f)),
            Move::Seq(ms) => Move::seq(each(ms)),
            Move::Union(ms) => Move::union(each(ms)),
            Move::Ordered(ms) => Move::ordered(each(ms)),
            Move::Repeat { body, min, max } => Move::repeat(body.map_poi_pieces(f), min, max),
            Move::Guard { holds, body } => Move::guard(holds, body.map_poi_pieces(f)),
            Move::AtOrigin(body) => Move::AtOrigin(Box::new(body.map_poi_pieces(f))),
            other => other,
        }
    }
}

/// A fully expanded value: what a name, a call or an expression stands for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A movement such as `ur` or `R²`.
    Movement(Movement),
    /// A board fragment or fragment pattern.
    Pattern(Pattern),
    /// A move.
    Move(Move),
    /// A box's name, which applies to a piece after it (`hand ♘`).
    Box(BoxId),
}

impl Value {
    /// What kind of value this is, for messages: "a movement", "a fragment", "a move".
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Movement(_) => "a movement",
            Value::Pattern(_) => "a fragment",
            Value::Move(_) => "a move",
            Value::Box(_) => "a box",
        }
    }

    /// `colour_swapped(X)`: every piece replaced by its colour partner.
    pub fn colour_swapped(&self, pieces: &PieceTable) -> Value {
        let f = |p| pieces.colour_swapped(p);
        match self {
            Value::Movement(m) => Value::Movement(*m),
            Value::Pattern(p) => Value::Pattern(p.map_pieces(&f)),
            Value::Move(m) => Value::Move(m.map_pieces(&f)),
            Value::Box(b) => Value::Box(*b),
        }
    }

    /// The value moved by `m` (a movement composes: `m self`).
    pub fn moved(&self, m: Movement) -> Result<Value, MovementOverflow> {
        Ok(match self {
            Value::Movement(n) => Value::Movement(m.compose(*n)?),
            Value::Pattern(p) => Value::Pattern(p.moved(m)?),
            Value::Move(mv) => Value::Move(mv.moved(m)?),
            Value::Box(b) => Value::Box(*b),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(x: i32, y: i32, c: Cell) -> Pattern {
        Pattern::square(Offset::new(x, y), CellSet::one(c))
    }

    #[test]
    fn gluing_commutes() {
        let a = sq(0, 0, Cell::Poi(Marks::NONE));
        let b = sq(0, 1, Cell::Empty);
        assert_eq!(a.glue(&b).unwrap(), b.glue(&a).unwrap());
    }

    #[test]
    fn gluing_refuses_overlap() {
        let a = sq(0, 0, Cell::Piece(PieceId(0), Marks::NONE));
        let b = sq(0, 0, Cell::Piece(PieceId(6), Marks::NONE));
        assert_eq!(
            a.glue(&b),
            Err(Overlap {
                at: Offset::new(0, 0)
            })
        );
        let either = Pattern::either(vec![sq(0, 1, Cell::Empty), sq(0, 0, Cell::Empty)]);
        assert!(a.glue(&either).is_err());
    }

    #[test]
    fn single_square_alternatives_merge() {
        let p = Pattern::either(vec![
            sq(1, 1, Cell::Piece(PieceId(2), Marks::NONE)),
            sq(1, 1, Cell::Empty),
        ]);
        assert_eq!(p.terms().len(), 1);
        assert!(matches!(&p.terms()[0], Term::Square { contents, .. } if contents.cells().len() == 2));
    }

    #[test]
    fn seq_and_repeat_laws() {
        let m = Move::rewrite(sq(0, 0, Cell::Poi(Marks::NONE)), sq(0, 1, Cell::Poi(Marks::NONE)));
        assert_eq!(Move::seq(vec![Move::Nil, m.clone(), Move::Nil]), m);
        assert_eq!(Move::repeat(m.clone(), 0, Some(0)), Move::Nil);
        assert_eq!(Move::repeat(m.clone(), 1, Some(1)), m);
        assert_eq!(Move::union(vec![m.clone(), m.clone()]), m);
    }

    #[test]
    fn moving_a_move_moves_both_sides() {
        let m = Move::rewrite(sq(0, 1, Cell::Empty), sq(0, 1, Cell::Poi(Marks::NONE)));
        let turned = m.moved(Movement::TURN).unwrap();
        assert_eq!(
            turned,
            Move::rewrite(sq(-1, 0, Cell::Empty), sq(-1, 0, Cell::Poi(Marks::NONE)))
        );
    }
}
