//! Whether a position could arise in a game, as far as its rule file tells:
//! the checks `--fen` makes before it loads a position (`--lenient` skips
//! them).
//!
//! The checks never refuse a position the game's moves can reach. They
//! rest on what the compiled moves can possibly do, not on trying them on
//! some boards ([`Arrivals`]): the moves are followed instruction by
//! instruction with, for each piece of interest, the pieces it can be and
//! the squares it can stand on. Every rewrite is taken to match wherever
//! the board's edges allow its left side (whatever the squares hold:
//! guards and legality aside), so what it writes may land there. A piece
//! on a square where no move can leave it, and where it does not start, is
//! refused; so is a royal piece more often than the game starts with it
//! (board and boxes) when no move can make one. Where the moves change the
//! board's shape, nothing is refused.

use rustc_hash::FxHashMap;

use crate::core::{Code, CodeSet, Content, Coord, OFF, PieceId, as_piece};
use crate::decl::Spec;
use crate::engine::Cache;
use crate::ir::{ExpandError, Problems};
use crate::program::{Alternative, Check, Inst, Program, SquareWrite, Write};
use crate::syntax::ast::{Declaration, Item};

use super::{Game, State};

impl Game {
    /// What makes `state`'s board one the game could not reach: more of a
    /// royal piece than the game starts with where no move can make one, or
    /// a piece on a square where no move can put it and where it does not
    /// start. Each reason is one line; none when nothing was found.
    pub fn implausible(&self, state: &State, _cache: &mut Cache) -> Vec<String> {
        let mut doubts = Vec::new();
        let Some(arrivals) = self.arrivals() else {
            return doubts;
        };
        let board = state.position();
        let initial = self.initial.position();
        let count = |p: PieceId, squares: &mut dyn Iterator<Item = Content>| {
            squares
                .filter(|c| matches!(c, Content::Piece(q, _) if *q == p))
                .count()
        };
        for (i, info) in self.info.iter().enumerate() {
            let p = PieceId(i as u16);
            if !info.royal || arrivals.made[i] {
                continue;
            }
            let boxed = self.spec.box_contents.iter().filter(|&&(_, q)| q == p).count();
            let (now, start) = (
                count(p, &mut board.squares().map(|(_, c)| c)),
                count(p, &mut initial.squares().map(|(_, c)| c)) + boxed,
            );
            if now > start {
                doubts.push(format!(
                    "{now} of the royal piece {} where the game starts with {start}",
                    self.pieces.symbol(p)
                ));
            }
        }
        for (at, content) in board.squares() {
            let Content::Piece(p, _) = content else { continue };
            let starts_there = matches!(initial.get(at), Content::Piece(q, _) if q == p);
            if !starts_there && !arrivals.may_leave(p, at) {
                doubts.push(format!(
                    "{} on {}: no move of the game leaves it there, and it does not start there",
                    self.pieces.symbol(p),
                    self.square_label(at)
                ));
            }
        }
        doubts
    }
}

/// Where the game's moves can possibly leave each piece (see the module
/// docs): an over-approximation, so that a square not in it is one no move
/// can leave the piece on.
#[derive(Debug)]
pub(crate) struct Arrivals {
    /// Per piece: the squares (by index into `squares`) a move may leave it on.
    left: Vec<SquareSet>,
    /// Per piece: whether a move may make one more of it (write it by name,
    /// or write the piece of interest twice or without taking it away).
    made: Vec<bool>,
    /// The board's squares, and each one's index.
    squares: Vec<Coord>,
    index: FxHashMap<Coord, usize>,
}

/// A set of squares, by index.
#[derive(Clone, Debug, PartialEq, Eq)]
struct SquareSet(Vec<u64>);

impl SquareSet {
    fn empty(n: usize) -> SquareSet {
        SquareSet(vec![0; n.div_ceil(64)])
    }

    fn full(n: usize) -> SquareSet {
        let mut s = SquareSet::empty(n);
        (0..n).for_each(|i| s.insert(i));
        s
    }

    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// Adds `other`; whether that changed anything.
    fn union_with(&mut self, other: &SquareSet) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            changed |= *b & !*a != 0;
            *a |= b;
        }
        changed
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(k, &w)| (0..64).filter(move |b| w >> b & 1 == 1).map(move |b| k * 64 + b))
    }
}

/// One piece of interest as the analysis sees it: per piece, the squares
/// it may be that piece on (empty: it is not that piece).
type Interest = Vec<SquareSet>;

/// The pieces of interest at an instruction, innermost last.
type Stack = Vec<Interest>;

/// Joins `add` into `into`; whether that changed it (none: the stacks
/// differ in depth, which the analysis cannot follow).
fn join(into: &mut Stack, add: &Stack) -> Option<bool> {
    if into.len() != add.len() {
        return None;
    }
    let mut changed = false;
    for (a, b) in into.iter_mut().zip(add) {
        for (x, y) in a.iter_mut().zip(b) {
            changed |= x.union_with(y);
        }
    }
    Some(changed)
}

/// Whether a check needs a square of the board there.
fn on(c: &Check) -> bool {
    c.poi || !c.accepts.contains(OFF)
}

/// Whether a check needs no square there.
fn off(c: &Check) -> bool {
    !c.poi && c.accepts.codes().all(|k| k == OFF)
}

/// A translation of a rewrite's alternative, with the piece of interest
/// it is made with (none: not made at the piece of interest).
type Place = (Coord, Option<usize>);

/// One choice of a rewrite's alternative, as it is made at its places.
struct Written<'a> {
    /// What the choice writes.
    choice: &'a [SquareWrite],
    /// Its write of the piece of interest, if it has one.
    poi_write: Option<&'a SquareWrite>,
    /// The alternative's check of the piece of interest, if it has one.
    poi_check: Option<&'a Check>,
}

/// Where write `w` lands with its alternative translated by `t`.
fn landing(t: Coord, w: &SquareWrite) -> Coord {
    Coord::new(t.x + w.dx, t.y + w.dy)
}

/// Whether an alternative may make or remove squares: a write where its
/// left side checks nothing, or allows no square, or of no square, unless
/// it writes back what it checked (`u# -> u#`).
fn changes_squares(alt: &Alternative) -> bool {
    for choice in alt.choices.iter() {
        for w in choice.iter() {
            let Some(check) = alt.checks.iter().find(|c| (c.dx, c.dy) == (w.dx, w.dy)) else {
                return true;
            };
            let writes_back = matches!(w.write, Write::Code(c) if check.accepts == CodeSet::of([c]));
            let off_check = check.accepts.contains(OFF) && !check.poi;
            if !writes_back && (off_check || w.write == Write::Code(OFF)) {
                return true;
            }
        }
    }
    false
}

/// The checks of an alternative that need a square of the board there
/// (true) or none (false), as (dx, dy, on).
fn squares_needed(alt: &Alternative) -> Vec<(i32, i32, bool)> {
    (alt.checks.iter())
        .filter(|c| on(c) || off(c))
        .map(|c| (c.dx, c.dy, on(c)))
        .collect()
}

impl Arrivals {
    /// The arrivals of `game`'s moves; none when they change the board's
    /// shape (then the board's edges tell nothing) or cannot be followed.
    pub(crate) fn of(game: &Game) -> Option<Arrivals> {
        let squares: Vec<Coord> = game.initial.position().squares().map(|(at, _)| at).collect();
        let index = squares.iter().enumerate().map(|(i, &at)| (at, i)).collect();
        let pieces = game.info.len();
        let mut arrivals = Arrivals {
            left: vec![SquareSet::empty(squares.len()); pieces],
            made: vec![false; pieces],
            squares,
            index,
        };
        for side in 0..game.players.len() {
            arrivals.add_program(game.engine.program(side), pieces)?;
        }
        Some(arrivals)
    }

    /// Whether a move may leave `piece` on `at`.
    fn may_leave(&self, piece: PieceId, at: Coord) -> bool {
        self.index
            .get(&at)
            .is_some_and(|&i| self.left[piece.index()].contains(i))
    }

    /// The index of the square `at`, if it is one of the board.
    fn square(&self, at: Coord) -> Option<usize> {
        self.index.get(&at).copied()
    }

    /// Notes that `piece` (a code) may be left on square `at`.
    fn leave(&mut self, code: Code, at: usize) {
        if let Some((p, _)) = as_piece(code) {
            self.left[p.index()].insert(at);
        }
    }

    /// Notes every piece of `interest` where it may be.
    fn leave_interest(&mut self, interest: &Interest) {
        for (p, at) in interest.iter().enumerate() {
            self.left[p].union_with(at);
        }
    }

    /// Follows `program`: the pieces of interest and their squares at each
    /// instruction, to a fixpoint; notes what its moves may leave where.
    fn add_program(&mut self, program: &Program, pieces: usize) -> Option<()> {
        let n = self.squares.len();
        let insts = &program.insts;
        // Where the results of each ordered choice's alternatives go on,
        // and which instructions belong to guards (whose changes are
        // taken back: nothing they do is left).
        let mut goes_on: Vec<Vec<u32>> = vec![Vec::new(); insts.len()];
        let mut in_guard = vec![false; insts.len()];
        for inst in insts {
            match *inst {
                Inst::Ordered { id, next } => {
                    for sub in program.ordered[id.index()].iter() {
                        for m in sub_matches(program, program.subs[sub.index()]) {
                            goes_on[m as usize].push(next);
                        }
                    }
                }
                Inst::Guard { sub, .. } => {
                    mark_all(program, program.subs[sub.index()], &mut in_guard);
                }
                _ => {}
            }
        }
        let mut states: Vec<Option<Stack>> = vec![None; insts.len()];
        let mut work: Vec<u32> = Vec::new();
        let flow =
            |pc: u32, stack: Stack, states: &mut Vec<Option<Stack>>, work: &mut Vec<u32>| -> Option<()> {
                match &mut states[pc as usize] {
                    slot @ None => {
                        *slot = Some(stack);
                        work.push(pc);
                    }
                    Some(old) => {
                        if join(old, &stack)? {
                            work.push(pc);
                        }
                    }
                }
                Some(())
            };
        flow(program.start, Vec::new(), &mut states, &mut work)?;
        while let Some(pc) = work.pop() {
            let stack = states[pc as usize]
                .clone()
                .expect("a state where work was queued");
            let keep = !in_guard[pc as usize];
            match insts[pc as usize] {
                Inst::Jump { to } => flow(to, stack, &mut states, &mut work)?,
                Inst::Split { first, second } => {
                    flow(first, stack.clone(), &mut states, &mut work)?;
                    flow(second, stack, &mut states, &mut work)?;
                }
                Inst::Bind { id, next } => {
                    let mut interest = vec![SquareSet::empty(n); pieces];
                    for &c in program.binds[id.index()].iter() {
                        if let Some((p, _)) = as_piece(c) {
                            interest[p.index()] = SquareSet::full(n);
                        }
                    }
                    let mut s = stack;
                    s.push(interest);
                    flow(next, s, &mut states, &mut work)?;
                }
                Inst::Origin { next } => {
                    let mut s = stack;
                    s.push(vec![SquareSet::full(n); pieces]);
                    flow(next, s, &mut states, &mut work)?;
                }
                Inst::Unbind { next } => {
                    let mut s = stack;
                    let gone = s.pop()?;
                    if keep {
                        self.leave_interest(&gone);
                    }
                    flow(next, s, &mut states, &mut work)?;
                }
                Inst::Rewrite { id, next } => {
                    let mut s = stack;
                    let top = self.rewrite(program, id.index(), s.last(), keep, pieces)?;
                    if let (Some(t), Some(new)) = (s.last_mut(), top) {
                        *t = new;
                    }
                    flow(next, s, &mut states, &mut work)?;
                }
                Inst::Guard { sub, next, .. } => {
                    flow(program.subs[sub.index()], stack.clone(), &mut states, &mut work)?;
                    flow(next, stack, &mut states, &mut work)?;
                }
                Inst::Ordered { id, .. } => {
                    // Each alternative runs only where the ones before it
                    // may have no result.
                    let mut rest = stack;
                    for sub in program.ordered[id.index()].iter() {
                        let start = program.subs[sub.index()];
                        flow(start, rest.clone(), &mut states, &mut work)?;
                        if let Some(top) = rest.last_mut() {
                            self.drop_certain(program, start, top);
                        }
                    }
                }
                Inst::Test { next, .. } | Inst::Attacked { next } | Inst::NoReply { next } => {
                    flow(next, stack, &mut states, &mut work)?
                }
                Inst::Match => {
                    if goes_on[pc as usize].is_empty() {
                        // The end of a move (or of a guard's body).
                        if keep {
                            for interest in &stack {
                                self.leave_interest(interest);
                            }
                        }
                    } else {
                        for &next in &goes_on[pc as usize] {
                            flow(next, stack.clone(), &mut states, &mut work)?;
                        }
                    }
                }
            }
        }
        Some(())
    }

    /// Rewrite `id` made with the piece of interest `top` (none outside
    /// every `%p:`): notes the pieces it writes by name where they land
    /// (when `keep`), and gives the piece of interest afterwards. None when
    /// it makes or removes squares.
    fn rewrite(
        &mut self,
        program: &Program,
        id: usize,
        top: Option<&Interest>,
        keep: bool,
        pieces: usize,
    ) -> Option<Option<Interest>> {
        let n = self.squares.len();
        let mut after: Option<Interest> = top.map(|_| vec![SquareSet::empty(n); pieces]);
        for alt in program.rewrites[id].alternatives.iter() {
            if changes_squares(alt) {
                return None;
            }
            // The checks that need a square there (or none), worked out once.
            let needs = squares_needed(alt);
            let poi_check = alt.checks.iter().find(|c| c.poi);
            // The translations, each with the piece of interest it is made
            // with: anchored at the piece, from the squares it may be on.
            let places = match (poi_check, top) {
                (Some(c), Some(interest)) => self.places_at_interest(&needs, c, interest),
                (Some(_), None) => return None,
                (None, _) => {
                    let Some(anchor) = alt.checks.iter().find(|c| on(c)) else {
                        continue;
                    };
                    self.places_from_anchor(&needs, anchor)
                }
            };
            for choice in alt.choices.iter() {
                self.note_made(choice, poi_check, top);
                let written = Written {
                    choice,
                    poi_write: choice.iter().find(|w| matches!(w.write, Write::Poi(_))),
                    poi_check,
                };
                for &(t, poi) in &places {
                    if keep {
                        for w in choice.iter() {
                            if let Write::Code(c) = w.write
                                && let Some(at) = self.square(landing(t, w))
                            {
                                self.leave(c, at);
                            }
                        }
                    }
                    if let Some(after) = after.as_mut() {
                        self.arrive(&written, (t, poi), top, after);
                    }
                }
            }
            // Not made at the piece of interest, the rewrite may leave it be.
            if poi_check.is_none()
                && let (Some(after), Some(interest)) = (after.as_mut(), top)
            {
                for (a, b) in after.iter_mut().zip(interest) {
                    a.union_with(b);
                }
            }
        }
        Some(after)
    }

    /// Whether an alternative whose checks are `needs` (see
    /// [`squares_needed`]) fits the board translated by `t`: a square of
    /// the board wherever it needs one, none where it needs none.
    fn fits(&self, needs: &[(i32, i32, bool)], t: Coord) -> bool {
        needs
            .iter()
            .all(|&(dx, dy, on)| self.index.contains_key(&Coord::new(t.x + dx, t.y + dy)) == on)
    }

    /// The translations of an alternative (its checks `needs`) anchored
    /// at its check `c` of the piece of interest, on each square where
    /// `interest` may be, each with the piece it is there.
    fn places_at_interest(&self, needs: &[(i32, i32, bool)], c: &Check, interest: &Interest) -> Vec<Place> {
        let mut places = Vec::new();
        // Whether the rewrite fits with the piece on each square,
        // asked once per square whatever the piece.
        let mut fit: Vec<Option<bool>> = vec![None; self.squares.len()];
        for (p, at) in interest.iter().enumerate() {
            for i in at.iter() {
                let s = self.squares[i];
                let t = Coord::new(s.x - c.dx, s.y - c.dy);
                if *fit[i].get_or_insert_with(|| self.fits(needs, t)) {
                    places.push((t, Some(p)));
                }
            }
        }
        places
    }

    /// The translations of an alternative (its checks `needs`) without a
    /// piece of interest, its check `anchor` on each square of the board.
    fn places_from_anchor(&self, needs: &[(i32, i32, bool)], anchor: &Check) -> Vec<Place> {
        let mut places = Vec::new();
        for &s in &self.squares {
            let t = Coord::new(s.x - anchor.dx, s.y - anchor.dy);
            if self.fits(needs, t) {
                places.push((t, None));
            }
        }
        places
    }

    /// Notes the pieces `choice` may make one more of: those it writes by
    /// name, and the pieces of interest (`top`) when it writes the piece of
    /// interest twice, or once without taking it from its square (the
    /// alternative's `poi_check`).
    fn note_made(&mut self, choice: &[SquareWrite], poi_check: Option<&Check>, top: Option<&Interest>) {
        let pois = choice.iter().filter(|w| matches!(w.write, Write::Poi(_))).count();
        let leaves_its_square = poi_check.is_some_and(|c| {
            choice
                .iter()
                .any(|w| (w.dx, w.dy) == (c.dx, c.dy) && !matches!(w.write, Write::Poi(_)))
        });
        for w in choice.iter() {
            if let Write::Code(c) = w.write
                && let Some((p, _)) = as_piece(c)
            {
                self.made[p.index()] = true;
            }
        }
        if pois > 1 || (pois == 1 && !leaves_its_square) {
            // A second piece of interest, or one that stays where it was too.
            if let Some(interest) = top {
                for (p, at) in interest.iter().enumerate() {
                    self.made[p] |= !at.is_empty();
                }
            }
        }
    }

    /// Adds to `after` where the piece of interest may be, and as what,
    /// once `written` is made at `place`: made at the piece of interest,
    /// where it is then and what a piece written there makes it; else (the
    /// pieces of interest being `top`) it may have been moved there, or
    /// become a piece written on it.
    fn arrive(&self, written: &Written<'_>, (t, poi): Place, top: Option<&Interest>, after: &mut Interest) {
        let choice = written.choice;
        let land = |w: &SquareWrite| landing(t, w);
        match poi {
            Some(p) => {
                // Where the piece of interest is now, and what
                // a piece written there makes it.
                let at = match (written.poi_write, written.poi_check) {
                    (Some(w), _) => land(w),
                    (None, Some(c)) => Coord::new(t.x + c.dx, t.y + c.dy),
                    (None, None) => return,
                };
                let became = choice
                    .iter()
                    .filter(|w| land(w) == at)
                    .find_map(|w| match w.write {
                        Write::Code(c) => as_piece(c).map(|(q, _)| q.index()),
                        Write::Poi(_) => None,
                    })
                    .unwrap_or(p);
                if let Some(i) = self.square(at) {
                    after[became].insert(i);
                }
            }
            None => {
                // Not made at the piece of interest: it may have
                // been moved here, or become a piece written on it.
                if let (Some(w), Some(interest)) = (written.poi_write, top)
                    && let Some(i) = self.square(land(w))
                {
                    for (p, at) in interest.iter().enumerate() {
                        if !at.is_empty() {
                            after[p].insert(i);
                        }
                    }
                }
                for w in choice.iter() {
                    if let Write::Code(c) = w.write
                        && let (Some((q, _)), Some(i)) = (as_piece(c), self.square(land(w)))
                    {
                        after[q.index()].insert(i);
                    }
                }
            }
        }
    }

    /// Takes out of `top` the squares where ordered alternative `start`
    /// surely has a result, so that the alternatives after it never run
    /// there (see [`Arrivals::sure`]).
    fn drop_certain(&self, program: &Program, start: u32, top: &mut Interest) {
        for squares in top.iter_mut() {
            let sure: Vec<usize> = squares
                .iter()
                .filter(|&i| {
                    self.sure(
                        program,
                        start,
                        self.squares[i],
                        &mut vec![false; program.insts.len()],
                    )
                })
                .collect();
            for i in sure {
                squares.0[i / 64] &= !(1 << (i % 64));
            }
        }
    }

    /// Whether the sub-program from `pc` surely has a result with the piece
    /// of interest on `at`: `nil`; a choice with a branch that does; or a
    /// rewrite, then the match, with a left side that checks only the piece
    /// of interest and squares off the board (`% + u# -> ♕ + u#`), which the
    /// board's edges allow there.
    fn sure(&self, program: &Program, pc: u32, at: Coord, seen: &mut [bool]) -> bool {
        if std::mem::replace(&mut seen[pc as usize], true) {
            return false;
        }
        match program.insts[pc as usize] {
            Inst::Match => true,
            Inst::Jump { to } => self.sure(program, to, at, seen),
            Inst::Split { first, second } => {
                self.sure(program, first, at, seen) || self.sure(program, second, at, seen)
            }
            Inst::Rewrite { id, next } => {
                let mut end = next;
                while let Inst::Jump { to } = program.insts[end as usize] {
                    if std::mem::replace(&mut seen[end as usize], true) {
                        return false;
                    }
                    end = to;
                }
                program.insts[end as usize] == Inst::Match
                    && program.rewrites[id.index()].alternatives.iter().any(|alt| {
                        let Some(poi) = alt.checks.iter().find(|c| c.poi) else {
                            return false;
                        };
                        poi.poi_marks.is_empty()
                            && alt.tally_checks.is_empty()
                            && alt.checks.iter().filter(|c| !c.poi).all(|c| {
                                off(c)
                                    && !self
                                        .index
                                        .contains_key(&Coord::new(at.x - poi.dx + c.dx, at.y - poi.dy + c.dy))
                            })
                    })
            }
            _ => false,
        }
    }
}

/// The matches sub-program `start` ends at (its own: not those of the
/// guards and ordered choices inside it).
fn sub_matches(program: &Program, start: u32) -> Vec<u32> {
    let mut seen = vec![false; program.insts.len()];
    let mut todo = vec![start];
    let mut found = Vec::new();
    while let Some(pc) = todo.pop() {
        if std::mem::replace(&mut seen[pc as usize], true) {
            continue;
        }
        if program.insts[pc as usize] == Inst::Match {
            found.push(pc);
        }
        todo.extend(program.insts[pc as usize].successors());
    }
    found
}

/// Marks every instruction sub-program `start` may run, its own guards'
/// and ordered choices' included.
fn mark_all(program: &Program, start: u32, marked: &mut [bool]) {
    let mut todo = vec![start];
    while let Some(pc) = todo.pop() {
        if std::mem::replace(&mut marked[pc as usize], true) {
            continue;
        }
        match program.insts[pc as usize] {
            Inst::Guard { sub, .. } => todo.push(program.subs[sub.index()]),
            Inst::Ordered { id, .. } => todo.extend(
                program.ordered[id.index()]
                    .iter()
                    .map(|s| program.subs[s.index()]),
            ),
            _ => {}
        }
        todo.extend(program.insts[pc as usize].successors());
    }
}

impl Game {
    /// The declared pieces that can never be on the board: not on it at the
    /// start nor in a box, and left nowhere by any move (none when the
    /// moves cannot be followed, see `Arrivals`).
    pub fn pieces_never_on_board(&self) -> Vec<PieceId> {
        let Some(arrivals) = self.arrivals() else {
            return Vec::new();
        };
        let initial = self.initial.position();
        (0..self.info.len())
            .map(|i| PieceId(i as u16))
            .filter(|&p| {
                let placed = initial
                    .squares()
                    .any(|(_, c)| matches!(c, Content::Piece(q, _) if q == p));
                let boxed = self.spec.box_contents.iter().any(|&(_, q)| q == p);
                !placed && !boxed && arrivals.left[p.index()].is_empty() && !arrivals.made[p.index()]
            })
            .collect()
    }
}

impl Game {
    /// What `check` makes of a loaded file (its own `warnings` given): when
    /// it declares a game, the game built with `build` and the game's
    /// warnings added to the file's. The game is `None` for a library file.
    /// The command line, the language server and the tests all check so.
    pub fn checked<E>(
        spec: &Spec,
        mut warnings: Problems,
        build: impl FnOnce(&Spec) -> Result<Game, E>,
    ) -> (Problems, Option<Result<Game, E>>) {
        if !spec.game().is_game() {
            return (warnings, None);
        }
        let game = build(spec);
        if let Ok(game) = &game {
            warnings.append(game.lint(spec));
        }
        (warnings, Some(game))
    }

    /// The warnings that need the compiled game, for the file `spec` was
    /// read from: each piece the file declares that can never be on the
    /// board.
    pub fn lint(&self, spec: &Spec) -> Problems {
        let mut problems = Problems::default();
        let never: Vec<char> = self
            .pieces_never_on_board()
            .into_iter()
            .map(|p| self.pieces.symbol(p))
            .collect();
        for (item, origin) in spec.rules().items() {
            let Item::Declaration(Declaration::Piece(d)) = item else {
                continue;
            };
            if origin != 0 {
                continue;
            }
            for &(symbol, span) in &d.symbols {
                if never.contains(&symbol) {
                    problems.push(
                        spec.rules().source_of(0),
                        ExpandError::PieceNeverOnBoard { span, symbol },
                    );
                }
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::Cache;
    use crate::game::test_game;

    /// The FEN after the moves `names` from the start, read back with the checks.
    fn after(path: &str, names: &[&str]) -> Result<String, String> {
        let game = test_game(path);
        let mut cache = Cache::new();
        let mut state = game.initial();
        for name in names {
            let legal = game.legal_actions(&state, &mut cache).unwrap();
            let k = game.read_move(&state, &legal, name).unwrap();
            state = game.play(&state, &legal[k]);
        }
        let fen = game.to_fen(&state);
        game.from_fen_checked(&fen, &mut cache)
            .map(|_| fen)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn positions_reached_with_moves_that_need_other_pieces_are_let_in() {
        // A rook moving sideways towards its partner needs the partner.
        after("rules/irreversible-sideways.alg", &["b1c3", "b8c6", "a1b1"]).unwrap();
        // Castling needs the rook.
        after(
            "rules/chess.alg",
            &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "O-O"],
        )
        .unwrap();
    }

    #[test]
    fn what_no_move_can_do_is_refused() {
        let game = test_game("rules/chess.alg");
        let mut cache = Cache::new();
        let refused = |fen: &str| {
            game.from_fen_checked(fen, &mut Cache::new())
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        // A white pawn on the first rank: every pawn move ends higher.
        let e = refused("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RPBQKBNR w KQkq - 0 1");
        assert!(e.contains("♙ on b1"), "{e}");
        // A second white king: no move makes one.
        let e = refused("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1");
        assert!(e.contains("2 of the royal piece ♔"), "{e}");
        // A queen anywhere, a knight in a corner: moves can.
        game.from_fen_checked("Q3k3/8/8/8/8/8/8/4K2n w - - 0 1", &mut cache)
            .unwrap();
    }
}
