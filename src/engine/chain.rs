//! Chains made on a board of their own, without walking them: a program
//! that chooses among pieces, each making a first rewrite and then a chain
//! of rewrites for as long as one matches (`%p: j (j1 | j2)+ !{j1 | j2}`,
//! checkers' chains of captures), maybe followed by an ordered choice with
//! at most one result (a promotion or `nil`), as [`ChainedMoves`] reads it.
//!
//! The walker runs such a program too (its chain loop heads), but each
//! result there pays for the walk's frames, binds and records. Here every
//! rewrite is a list of checks and writes at offsets from the piece of
//! interest, made on a copy of the board with an undo log, depth first in
//! the walker's order (the binds' squares in order, the rewrites in the
//! program's), so the results come in the same order, with the same
//! identities, changes and hashes. A chain empties a square at every
//! rewrite ([`super::walk`]'s chain analysis), so its depth is at most the
//! number of occupied squares and no state comes back.
//!
//! Two paths may give one result (two orders of the same captures): a
//! count tells results apart by key and, where a key comes twice, counts
//! again keeping every result's changes, as the walker does. A count with
//! a legality filter is walked.

use std::ops::ControlFlow;

use super::choice::check_places;
use super::choice::compile::Geometry;
use super::position::Position;
use super::squares::{Decline, Squares};
use super::walk::{
    ChainedMoves, OwnBoardScratch, Query, TooLong, WalkScratch, Walker, changes_in_reading_order,
    identity_key,
};
use crate::core::{self as code, Code, CodeSet, Coord, Marks, OFF};
use crate::engine::hash;
use crate::engine::meter::Meter;
use crate::engine::successor::{MoveIdentity, Successor};
use crate::program::{Program, RewriteId, Write};

/// One square a rewrite checks, at an offset from the piece of interest.
#[derive(Clone, Debug)]
struct SquareTest {
    dx: i32,
    dy: i32,
    /// The same offset as a distance in squares (on the board).
    di: i32,
    accepts: CodeSet,
    /// Also accepted: the piece of interest, on its square.
    poi: bool,
    /// The marks it must then carry.
    poi_marks: Marks,
}

/// One square a rewrite writes, at an offset from the piece of interest.
#[derive(Clone, Copy, Debug)]
struct SquareWrite {
    dx: i32,
    dy: i32,
    /// The same offset as a distance in squares.
    di: i32,
    write: Write,
}

/// A rewrite made at the piece of interest: what it checks and writes.
#[derive(Clone, Debug)]
struct ChainRewrite {
    checks: Box<[SquareTest]>,
    puts: Box<[SquareWrite]>,
    /// The squares of the piece from which every square it checks is on
    /// the board (read there without testing the edges).
    inside: Squares,
}

/// A check of a first rewrite as square sets: the squares from which the
/// square `shift` bits on is on the board (`inside`) and holds one of
/// `codes` (whose squares are gathered once per search, as class `class`).
#[derive(Clone, Debug)]
struct StartTest {
    shift: i32,
    inside: Squares,
    codes: Box<[Code]>,
    class: usize,
}

impl StartTest {
    /// The squares where the check holds, given the squares of each class.
    #[inline(always)]
    fn places(&self, classes: &[Squares]) -> Squares {
        // (|shift| is below the board's size, at most 128 squares.)
        check_places(classes[self.class], self.shift, self.inside, 0)
    }
}

/// The most contents a [`StartTest`] gathers the squares of.
const MAX_SET_CODES: usize = 8;

/// The most classes of contents the start checks of [`Chains`] read, and
/// the most alternatives it has (a program with more is walked).
const MAX_CLASSES: usize = 8;
const MAX_PIECES: usize = 8;

/// The most rewrites of a first choice whose matches square sets tell.
const MAX_FIRST: usize = 16;

/// One alternative: the pieces it binds and the rewrites they make.
#[derive(Clone, Debug)]
struct Piece {
    /// The codes it binds.
    codes: Box<[Code]>,
    /// The choices of rewrites it makes first, one of each in turn.
    first: Box<[Box<[ChainRewrite]>]>,
    /// Per rewrite of the first choice: checks its matches need, as square
    /// sets (where none can match, the piece makes no chain).
    starts: Box<[Box<[StartTest]>]>,
    /// Per rewrite of the first choice: whether those checks are all it
    /// makes (but that the piece is on its square), so that the square
    /// sets tell where it matches (at most [`MAX_FIRST`] rewrites).
    exact: Box<[bool]>,
    chain: Box<[ChainRewrite]>,
    /// The ordered choice after the chain: per alternative its rewrites
    /// (none: `nil`); `None`: nothing follows the chain.
    tail: Option<Box<[Box<[ChainRewrite]>]>>,
}

/// A choice among pieces making chains, run on a board of its own.
#[derive(Debug)]
pub(super) struct Chains {
    pieces: Box<[Piece]>,
    /// The classes of contents the pieces' start checks read.
    classes: Box<[Box<[Code]>]>,
    width: i32,
    height: i32,
    /// Per square: its part of the square keys ([`hash::place`]).
    places: Box<[u64]>,
    /// The square keys of the codes below `key_codes`, per square
    /// (`square * key_codes + code`).
    keys: Box<[u64]>,
    key_codes: usize,
    codes: usize,
}

/// The most square keys [`Chains`] keeps in a table.
const MAX_KEYS: usize = 1 << 14;

/// The piece of interest as a chain moves it.
#[derive(Clone, Copy, Debug)]
struct ChainedPiece {
    at: u32,
    x: i32,
    y: i32,
    code: Code,
}

/// What a search does with the results.
enum ChainOutput<'f, 'g> {
    /// Counts them, telling them apart by key (`exact` false: a key seen
    /// twice stops the count) or by their changes.
    Count { n: u64, exact: bool },
    /// Gives each to the caller, once.
    Each(&'f mut (dyn FnMut(&Successor<'_>) -> ControlFlow<()> + 'g)),
}

/// Why a search stopped early.
enum Stop {
    /// The caller said so.
    Asked,
    /// A key came twice in a count by keys.
    Twice,
    /// The states ran out.
    TooLong,
}

/// One search: the board, the log, the results so far.
struct ChainSearch<'a> {
    chains: &'a Chains,
    base: &'a [Code],
    base_hash: u64,
    meter: &'a Meter,
    s: &'a mut OwnBoardScratch,
    tracing: bool,
    /// The hash of the changes made.
    delta: u64,
    /// Where the piece of interest was bound, and what it became.
    from: u32,
    became: Option<Code>,
    /// Whether results are given as cell writes ([`Successor::cells`]).
    cells: bool,
    /// Per rewrite of the piece's first choice: where it may match (where
    /// it matches, when [`Piece::exact`] says so).
    first: [Squares; MAX_FIRST],
}

/// The squares of the pieces `on` where `checks` hold.
#[inline(always)]
fn first_places(checks: &[StartTest], on: Squares, classes: &[Squares]) -> Squares {
    checks.iter().fold(on, |at, c| at & c.places(classes))
}

impl ChainRewrite {
    /// Rewrite `id` of `program`, made at the piece of interest (one
    /// alternative and one choice, [`ChainedMoves`] checked): its checks and
    /// writes from the piece's square; a write of what its check says the
    /// square holds (`#` on `#`) writes nothing and is left out.
    fn of(program: &Program, id: RewriteId, width: u32, height: u32) -> Option<ChainRewrite> {
        let w = width as i32;
        let a = program.rewrites[id.index()].alternatives.first()?;
        let poi = a.checks.iter().find(|c| c.poi)?;
        let (ox, oy) = (poi.dx, poi.dy);
        // (The piece's own square last: it is there, and others fail first.)
        let mut checks: Vec<SquareTest> = (a.checks.iter())
            .map(|c| SquareTest {
                dx: c.dx - ox,
                dy: c.dy - oy,
                di: (c.dy - oy) * w + c.dx - ox,
                accepts: c.accepts.clone(),
                poi: c.poi,
                poi_marks: c.poi_marks,
            })
            .collect();
        checks.sort_by_key(|c| c.poi);
        let checks: Box<[SquareTest]> = checks.into();
        let mut puts = Vec::new();
        for w in a.choices.first()?.iter() {
            let check = a.checks.iter().find(|c| (c.dx, c.dy) == (w.dx, w.dy))?;
            match w.write {
                Write::Code(c) if check.accepts == CodeSet::of([c]) && !check.poi => continue,
                Write::Code(OFF) => return None,
                _ => {}
            }
            puts.push(SquareWrite {
                dx: w.dx - ox,
                dy: w.dy - oy,
                di: (w.dy - oy) * width as i32 + w.dx - ox,
                write: w.write,
            });
        }
        let geometry = Geometry { width, height };
        let inside = (checks.iter()).fold(geometry.all(), |set, c| set & geometry.inside(c.dx, c.dy));
        Some(ChainRewrite {
            checks,
            puts: puts.into_boxed_slice(),
            inside,
        })
    }
}

impl ChainRewrite {
    /// Its checks that square sets can make from the piece's square: on
    /// the board, holding one of a few contents.
    fn set_checks(&self, width: u32, height: u32) -> Box<[StartTest]> {
        let geometry = Geometry { width, height };
        (self.checks.iter())
            .filter(|c| (c.dx, c.dy) != (0, 0) && !c.poi && !c.accepts.contains(OFF))
            .filter_map(|c| {
                let codes: Box<[Code]> = c.accepts.codes().collect();
                if codes.is_empty() || codes.len() > MAX_SET_CODES {
                    return None;
                }
                Some(StartTest {
                    shift: c.dy * width as i32 + c.dx,
                    inside: geometry.inside(c.dx, c.dy),
                    codes,
                    class: 0,
                })
            })
            .collect()
    }
}

impl Chains {
    /// The chains of `walker`'s program on boards of `width` by `height`, if
    /// it is a choice among pieces making chains.
    pub(crate) fn of(walker: &Walker, width: u32, height: u32) -> Result<Chains, Decline> {
        let ChainedMoves { alternatives } = walker.chained_moves().ok_or(Decline::NotChains)?;
        let program = walker.program();
        let steps = |ids: &[RewriteId]| -> Result<Box<[ChainRewrite]>, Decline> {
            ids.iter()
                .map(|&id| ChainRewrite::of(program, id, width, height).ok_or(Decline::ChainRewrite))
                .collect()
        };
        let mut pieces = Vec::new();
        for alt in alternatives {
            let tail = match &alt.tail {
                Some(subs) => Some(subs.iter().map(|s| steps(s)).collect::<Result<Box<[_]>, _>>()?),
                None => None,
            };
            let first = alt
                .first
                .iter()
                .map(|ids| steps(ids))
                .collect::<Result<Box<[_]>, _>>()?;
            let starts: Box<[Box<[StartTest]>]> = first
                .first()
                .ok_or(Decline::NotChains)?
                .iter()
                .map(|f| f.set_checks(width, height))
                .collect();
            let exact = (first[0].iter().zip(starts.iter()))
                .map(|(step, checks)| {
                    // Every check but the piece's own (with no marks asked
                    // for: the bound piece is there) is a set check.
                    let own = |c: &SquareTest| c.poi && (c.dx, c.dy) == (0, 0) && c.poi_marks.is_empty();
                    starts.len() <= MAX_FIRST
                        && step.checks.iter().filter(|c| !own(c)).count() == checks.len()
                })
                .collect();
            pieces.push(Piece {
                codes: program.binds[alt.bind.index()].clone(),
                first,
                starts,
                exact,
                chain: steps(&alt.chain)?,
                tail,
            });
        }
        let (w, h) = (width as i32, height as i32);
        // The classes of contents the start checks read, each once.
        let mut classes: Vec<Box<[Code]>> = Vec::new();
        for check in pieces.iter_mut().flat_map(|p| p.starts.iter_mut().flatten()) {
            check.class = match classes.iter().position(|c| *c == check.codes) {
                Some(i) => i,
                None => {
                    classes.push(check.codes.clone());
                    classes.len() - 1
                }
            };
        }
        if classes.len() > MAX_CLASSES || pieces.len() > MAX_PIECES {
            return Err(Decline::TooManyChains);
        }
        let read = classes.iter().flatten();
        let codes = (pieces.iter().flat_map(|p| p.codes.iter()).chain(read))
            .max()
            .map_or(1, |&c| c as usize + 1);
        let codes = codes.max(walker.codes());
        let places: Box<[u64]> = (0..w * h).map(|at| hash::place(at % w, at / w)).collect();
        let key_codes = if places.len() * codes <= MAX_KEYS {
            codes
        } else {
            0
        };
        let keys = (places.iter())
            .flat_map(|&place| (0..key_codes).map(move |c| hash::square_with(place, c as Code)))
            .collect();
        Ok(Chains {
            pieces: pieces.into_boxed_slice(),
            classes: classes.into_boxed_slice(),
            width: w,
            height: h,
            places,
            keys,
            key_codes,
            codes,
        })
    }

    /// The key of square `at` holding `code` ([`hash::square_with`]).
    #[inline(always)]
    fn key(&self, at: u32, code: Code) -> u64 {
        let n = self.key_codes;
        if (code as usize) < n {
            self.keys[at as usize * n + code as usize]
        } else {
            hash::square_with(self.places[at as usize], code)
        }
    }

    /// Runs the search on `position` into `sink`.
    fn search(
        &self,
        position: &Position,
        occupied: &[Squares],
        scratch: &mut WalkScratch,
        meter: &Meter,
        sink: &mut ChainOutput<'_, '_>,
    ) -> Result<(), Stop> {
        // Where each alternative's pieces can make a first rewrite: nowhere
        // (most positions of checkers, for its captures) is no search.
        let held = |c: Code| occupied.get(c as usize).copied().unwrap_or(0);
        let mut classes = [0; MAX_CLASSES];
        for (set, codes) in classes.iter_mut().zip(self.classes.iter()) {
            *set = codes.iter().fold(0, |set, &c| set | held(c));
        }
        let mut starts = [0; MAX_PIECES];
        for (start, piece) in starts.iter_mut().zip(self.pieces.iter()) {
            let on = piece.codes.iter().fold(0, |set, &c| set | held(c));
            if on != 0 {
                *start = (piece.starts.iter())
                    .map(|checks| first_places(checks, on, &classes))
                    .fold(0, |all, at| all | at);
            }
        }
        if starts.iter().all(|&s| s == 0) {
            return Ok(());
        }
        let (tracing, cells) = (scratch.tracing(), scratch.cells);
        let s = &mut scratch.own_board;
        s.cells.clear();
        s.cells.extend_from_slice(&position.cells);
        s.log.clear();
        s.keys.clear();
        s.kept.clear();
        s.kept_changes.clear();
        s.path.clear();
        let mut search = ChainSearch {
            chains: self,
            base: &position.cells,
            base_hash: position.hash,
            meter,
            s,
            tracing,
            delta: 0,
            from: 0,
            became: None,
            first: [0; MAX_FIRST],
            cells,
        };
        for (piece, mut squares) in self.pieces.iter().zip(starts) {
            if squares != 0 {
                let on = piece.codes.iter().fold(0, |set, &c| set | held(c));
                for (at, checks) in search.first.iter_mut().zip(piece.starts.iter()) {
                    *at = first_places(checks, on, &classes);
                }
            }
            while squares != 0 {
                let at = squares.trailing_zeros();
                squares &= squares - 1;
                let (x, y) = (at as i32 % self.width, at as i32 / self.width);
                let poi = ChainedPiece {
                    at,
                    x,
                    y,
                    code: search.s.cells[at as usize],
                };
                (search.from, search.became) = (at, None);
                search.after(piece, 0, poi, sink)?;
            }
        }
        Ok(())
    }
}

impl ChainSearch<'_> {
    /// What square `(x, y)` holds now (off the board: [`OFF`]).
    #[inline(always)]
    fn read(&self, x: i32, y: i32) -> Code {
        let c = self.chains;
        if x < 0 || y < 0 || x >= c.width || y >= c.height {
            return OFF;
        }
        self.s.cells[(y * c.width + x) as usize]
    }

    /// Whether `step` matches at the piece of interest `poi`.
    #[inline(always)]
    fn matches(&self, step: &ChainRewrite, poi: ChainedPiece) -> bool {
        let holds = |c: &SquareTest, here: Code| {
            c.accepts.contains(here)
                || (c.poi
                    && (c.dx, c.dy) == (0, 0)
                    && here == poi.code
                    && (c.poi_marks.is_empty() || code::has_marks(here, c.poi_marks)))
        };
        if step.inside >> poi.at & 1 == 1 {
            let cells = &self.s.cells;
            return (step.checks.iter()).all(|c| holds(c, cells[(poi.at as i32 + c.di) as usize]));
        }
        step.checks.iter().all(|c| {
            let here = self.read(poi.x + c.dx, poi.y + c.dy);
            c.accepts.contains(here)
                || (c.poi
                    && (c.dx, c.dy) == (0, 0)
                    && here == poi.code
                    && (c.poi_marks.is_empty() || code::has_marks(here, c.poi_marks)))
        })
    }

    /// Writes `code` at square `at`, logging what it held.
    #[inline(always)]
    fn write(&mut self, at: u32, code: Code) {
        let old = self.s.cells[at as usize];
        if old != code {
            self.s.log.push((at, old, self.delta));
            self.s.cells[at as usize] = code;
            self.delta ^= self.chains.key(at, old) ^ self.chains.key(at, code);
        }
    }

    /// Makes `step` at the piece of interest `poi`: the piece where it is now.
    #[inline(always)]
    fn make(&mut self, step: &ChainRewrite, mut poi: ChainedPiece) -> ChainedPiece {
        let (from, ox, oy) = (poi.at as i32, poi.x, poi.y);
        for put in step.puts.iter() {
            // (On the board: a written square's check accepts no `#`.)
            let (x, y, at) = (ox + put.dx, oy + put.dy, (from + put.di) as u32);
            let code = match put.write {
                Write::Code(code) => code,
                Write::Poi(marks) => {
                    poi.code = code::with_marks(poi.code, marks);
                    if poi.at != at {
                        (poi.at, poi.x, poi.y) = (at, x, y);
                        if self.tracing {
                            self.s.path.push(at);
                        }
                    }
                    poi.code
                }
            };
            self.write(at, code);
        }
        // Another piece left where the piece of interest stands: it is that piece now.
        let here = self.s.cells[poi.at as usize];
        if here != poi.code && code::as_piece(here).is_some() {
            poi.code = here;
            self.became = Some(here);
        }
        poi
    }

    /// Takes back the changes after the first `len`.
    #[inline(always)]
    fn undo_to(&mut self, len: usize) {
        while self.s.log.len() > len {
            let (at, old, delta) = self.s.log.pop().expect("a change to take back");
            self.s.cells[at as usize] = old;
            self.delta = delta;
        }
    }

    /// Makes each rewrite of `piece`'s choice `stage` (its first ones in
    /// turn, then the chain's) that matches at `poi` and goes on; in the
    /// chain, where none matches, the chain ends here.
    fn after(
        &mut self,
        piece: &Piece,
        stage: usize,
        poi: ChainedPiece,
        sink: &mut ChainOutput<'_, '_>,
    ) -> Result<(), Stop> {
        let chained = stage >= piece.first.len();
        let steps = if chained {
            &piece.chain
        } else {
            &piece.first[stage]
        };
        let mut any = false;
        for (k, step) in steps.iter().enumerate() {
            let matched = if stage == 0 && piece.exact[k] {
                self.first[k] >> poi.at & 1 == 1
            } else {
                self.matches(step, poi)
            };
            if !matched {
                continue;
            }
            any = true;
            if !self.meter.charge_many(1) {
                return Err(Stop::TooLong);
            }
            let (len, path, became) = (self.s.log.len(), self.s.path.len(), self.became);
            let moved = self.make(step, poi);
            let done = self.after(piece, (stage + 1).min(piece.first.len()), moved, sink);
            self.undo_to(len);
            self.s.path.truncate(path);
            self.became = became;
            done?;
        }
        if chained && !any {
            return self.end(piece, poi, sink);
        }
        Ok(())
    }

    /// The chain ends with the piece of interest at `poi`: the ordered
    /// choice after it, then the result.
    fn end(&mut self, piece: &Piece, poi: ChainedPiece, sink: &mut ChainOutput<'_, '_>) -> Result<(), Stop> {
        let Some(tail) = &piece.tail else {
            return self.result(poi, sink);
        };
        for sub in tail.iter() {
            if sub.is_empty() {
                return self.result(poi, sink);
            }
            if let Some(step) = sub.iter().find(|step| self.matches(step, poi)) {
                let (len, path, became) = (self.s.log.len(), self.s.path.len(), self.became);
                let moved = self.make(step, poi);
                let done = self.result(moved, sink);
                self.undo_to(len);
                self.s.path.truncate(path);
                self.became = became;
                return done;
            }
        }
        Ok(())
    }

    /// A result, the piece of interest ending at `poi`.
    fn result(&mut self, poi: ChainedPiece, sink: &mut ChainOutput<'_, '_>) -> Result<(), Stop> {
        let id = MoveIdentity {
            from: Some(self.from),
            to: Some(poi.at),
            became: self.became,
        };
        let key = self.delta ^ identity_key(&id);
        if let ChainOutput::Count { n, exact: false } = sink {
            if !self.s.keys.insert(key) {
                return Err(Stop::Twice);
            }
            *n += 1;
            return Ok(());
        }
        // The squares that differ from the position, in square order.
        let mut diff = std::mem::take(&mut self.s.diff);
        diff.clear();
        for &(at, _, _) in &self.s.log {
            let now = self.s.cells[at as usize];
            if now != self.base[at as usize] && !diff.iter().any(|&(d, _)| d == at) {
                diff.push((at, now));
            }
        }
        diff.sort_unstable_by_key(|&(at, _)| at);
        let fresh = self.s.keys.insert(key) || {
            let kept = &self.s.kept_changes;
            !(self.s.kept.iter()).any(|&(k, kid, start, end)| {
                k == key && kid == id && kept[start as usize..end as usize] == diff[..]
            })
        };
        let mut stop = false;
        if fresh {
            let start = self.s.kept_changes.len() as u32;
            self.s.kept_changes.extend_from_slice(&diff);
            self.s
                .kept
                .push((key, id, start, self.s.kept_changes.len() as u32));
            match sink {
                ChainOutput::Count { n, .. } => *n += 1,
                ChainOutput::Each(found) => {
                    let w = self.chains.width;
                    let coord = |at: u32| Coord::new(at as i32 % w, at as i32 / w);
                    let mut changes = std::mem::take(&mut self.s.changes);
                    changes.clear();
                    if !self.cells {
                        changes_in_reading_order(&diff, w, &mut changes);
                    }
                    let mut path = std::mem::take(&mut self.s.path_coords);
                    path.clear();
                    path.extend(self.s.path.iter().map(|&at| coord(at)));
                    let successor = Successor {
                        changes: &changes,
                        poi_from: id.from.map(coord),
                        poi_to: id.to.map(coord),
                        became: id.became.and_then(code::as_piece).map(|(p, _)| p),
                        path: &path,
                        hash: self.base_hash ^ self.delta,
                        cells: if self.cells { &diff } else { &[] },
                    };
                    stop = found(&successor).is_break();
                    self.s.changes = changes;
                    self.s.path_coords = path;
                }
            }
        }
        self.s.diff = diff;
        if stop { Err(Stop::Asked) } else { Ok(()) }
    }
}

impl Chains {
    /// One more than the largest code its square sets read.
    pub(crate) fn codes(&self) -> usize {
        self.codes
    }

    /// How many results the program has on the query's position (told
    /// apart by key, and by their changes where two keys meet).
    pub(crate) fn count(&self, query: &mut Query<'_>) -> Result<u64, TooLong> {
        for exact in [false, true] {
            let mut sink = ChainOutput::Count { n: 0, exact };
            match self.search(
                query.position,
                query.occupied,
                query.scratch,
                query.meter,
                &mut sink,
            ) {
                Ok(()) => {
                    let ChainOutput::Count { n, .. } = sink else {
                        unreachable!("a count")
                    };
                    return Ok(n);
                }
                Err(Stop::Twice) => continue,
                Err(Stop::TooLong) => return Err(TooLong),
                Err(Stop::Asked) => unreachable!("a count is never asked to stop"),
            }
        }
        unreachable!("a count keeping changes sees no key twice")
    }

    /// Calls `found` with each result on the query's position, each once,
    /// until it says to stop.
    pub(crate) fn each(
        &self,
        query: &mut Query<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), TooLong> {
        let mut sink = ChainOutput::Each(found);
        match self.search(
            query.position,
            query.occupied,
            query.scratch,
            query.meter,
            &mut sink,
        ) {
            Ok(()) | Err(Stop::Asked) => Ok(()),
            Err(Stop::TooLong) => Err(TooLong),
            Err(Stop::Twice) => unreachable!("only a count by keys stops at a key seen twice"),
        }
    }
}
