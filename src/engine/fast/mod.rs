//! The bit-parallel engine: a program that chooses one rewrite among several
//! (a placement, a drop, a pattern test) run as operations on square sets.
//!
//! A position becomes one set of squares per content (a bitboard each, one
//! bit per square, row-major from the bottom row). A left side's check at
//! offset `d` accepting contents `S` matches at the places `t` where
//! `t + d` holds one of `S`: the union of their sets shifted by `d`, masked
//! to the places where `t + d` is on the board (or, when `S` accepts "no
//! square", where it is off it). The places a left side matches are the
//! intersection over its checks; each is one result per choice of the right
//! side. Counting them is a population count when no two matches can make
//! the same changes ([`Plan`] works that out when it is built).
//!
//! Programs with pieces of interest go to the [`Walker`] (see [`walk`]).
//! [`prepare`] compiles a program for one or the other, or says why both
//! decline it ([`Decline`]): ordered choices, `attacked`, boxes and boards of
//! more than [`MAX_SQUARES`] squares are left to the backtracker.

mod bulk;
mod compile;
mod keys;
mod legal;
mod placed;
pub mod walk;

use std::ops::ControlFlow;

pub use compile::{Decline, MAX_SQUARES};
use keys::KeySet;
pub(crate) use legal::{Walkers, walker_of};
pub use walk::Walker;
use walk::{TooLong, WalkScratch};

use super::position::{Position, Version};
use super::{EngineError, Meter, Successor, hash};
use crate::core::{self as code, Change, Code, CodeSet, Content, Coord};
use crate::program::Program;
use smallvec::SmallVec;

/// A set of squares, one bit each.
pub(crate) type Squares = u128;

/// A machine word holding one bit per square (of a board that fits it).
trait Word: Copy {
    /// The low bits of a square set.
    fn of(set: Squares) -> Self;
    /// Shifted towards bit 0 (none left when `n` is the width or more).
    fn shr(self, n: u32) -> Self;
    /// Shifted away from bit 0 (none left when `n` is the width or more).
    fn shl(self, n: u32) -> Self;
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn is_zero(self) -> bool;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            #[inline(always)]
            fn of(set: Squares) -> Self {
                set as $t
            }
            #[inline(always)]
            fn shr(self, n: u32) -> Self {
                self.checked_shr(n).unwrap_or(0)
            }
            #[inline(always)]
            fn shl(self, n: u32) -> Self {
                self.checked_shl(n).unwrap_or(0)
            }
            #[inline(always)]
            fn and(self, other: Self) -> Self {
                self & other
            }
            #[inline(always)]
            fn or(self, other: Self) -> Self {
                self | other
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0
            }
        }
    };
}
word!(u64);
word!(u128);

/// A program compiled for the bit-parallel engine on boards of one size.
#[derive(Clone, Debug)]
pub struct Plan {
    width: u32,
    height: u32,
    /// Every square of the board.
    all: Squares,
    /// One per alternative of each rewrite, in the backtracker's order.
    rules: Vec<Rule>,
    /// Whether the program may also change nothing at all (`nil`).
    nil: bool,
    /// Whether no two matches can make the same changes (see [`compile`]).
    distinct: bool,
    /// One more than the largest content code a check accepts.
    codes: usize,
    /// Whether a rule has tails (its results are then made one by one).
    tails: bool,
    /// Every content some check accepts.
    accepted: CodeSet,
}

/// One alternative of a left side, with each choice of its right side.
#[derive(Clone, Debug)]
struct Rule {
    /// The squares it checks, measured from one that must be on the board
    /// (the first, at offset zero).
    checks: Vec<Check>,
    /// Per choice: the squares it changes, in reading order.
    choices: Vec<Vec<Write>>,
    /// Where the program's offsets put the square the checks are measured from.
    reference: (i32, i32),
    /// Per choice, for a rule of a traced plan ([`compile::traced_plan`]):
    /// the move it makes (else empty).
    traces: Vec<Trace>,
    /// For a rule of a traced plan: the choices made at the piece after the
    /// rule's rewrite, in turn.
    tails: Vec<Tail>,
}

/// An ordered choice made at the piece of interest after a traced rule's
/// rewrite: the first of its rewrites that matches is made (none: nothing).
#[derive(Clone, Debug)]
struct Tail {
    /// Each a choice of rewrites: the first with a rewrite that matches
    /// makes each that matches, a result each.
    options: Vec<Vec<TailRewrite>>,
}

/// One rewrite of a [`Tail`], its offsets from the piece.
#[derive(Clone, Debug)]
struct TailRewrite {
    checks: Vec<TailCheck>,
    /// What it writes, in order: offset and content.
    writes: Vec<(i32, i32, Code)>,
}

/// A square a [`TailRewrite`] checks.
#[derive(Clone, Debug)]
struct TailCheck {
    dx: i32,
    dy: i32,
    accepts: CodeSet,
    /// Whether it also accepts the piece itself there.
    poi: bool,
}

/// The move a result of a traced rule makes: from and to as bit distances
/// from the place it matches at, and what the piece became.
#[derive(Clone, Copy, Debug)]
struct Trace {
    from: i32,
    to: i32,
    /// `from` as an offset from the place.
    from_at: (i32, i32),
    /// From `from` to `to` on the board.
    step: (i32, i32),
    became: Option<Code>,
    /// The code of the piece that moves.
    piece: Code,
    /// Its code once moved (what it became, if anything).
    poi: Code,
}

/// One square a left side checks.
#[derive(Clone, Debug)]
struct Check {
    dx: i32,
    dy: i32,
    /// `dx + dy * width`: the bit distance to the square.
    shift: i32,
    /// The contents it accepts.
    accepts: CodeSet,
    /// The same, listed (only those below [`Plan::codes`]).
    codes: Vec<Code>,
    /// The places whose checked square is on the board.
    inside: Squares,
    /// The places whose checked square is off the board, when "no square"
    /// is accepted (else none).
    outside: Squares,
}

/// One square a right side changes.
#[derive(Clone, Copy, Debug)]
struct Write {
    dx: i32,
    dy: i32,
    /// `dx + dy * width`.
    shift: i32,
    /// What it writes.
    code: Code,
    /// Whether the square never held it before (the check does not accept it).
    always: bool,
}

/// Compiles `program` for boards of exactly `width` by `height`, or says
/// why the bit-parallel engine leaves it to another.
pub fn plan(program: &Program, width: u32, height: u32) -> Result<Plan, Decline> {
    compile::plan(program, width, height)
}

/// A program prepared for one of the fast engines.
#[derive(Clone, Debug)]
pub enum FastProgram {
    /// A choice of rewrites, run on square sets.
    Choice(Plan),
    /// A program with pieces of interest, walked.
    Walk(Box<Walker>),
}

/// Prepares `program` for the fast engine that takes it, or says why the
/// walker (the more general one) declines it.
pub fn prepare(program: &Program, width: u32, height: u32) -> Result<FastProgram, Decline> {
    match plan(program, width, height) {
        Ok(p) => Ok(FastProgram::Choice(p)),
        Err(Decline::NotAChoice(_)) => {
            let mut walker = Walker::new(program, width, height)?;
            bulk::attach(&mut walker, width, height);
            Ok(FastProgram::Walk(Box::new(walker)))
        }
        Err(e) => Err(e),
    }
}

impl FastProgram {
    /// The names of the shapes it runs on square sets (see
    /// [`crate::engine::EngineReport::shapes`]).
    pub fn shapes(&self) -> Vec<&'static str> {
        match self {
            FastProgram::Choice(_) => vec!["choice of rewrites"],
            FastProgram::Walk(w) => {
                let mut shapes = vec!["walk"];
                shapes.extend(w.shapes());
                shapes
            }
        }
    }

    /// Whether it holds for `position`'s grid.
    pub(crate) fn fits(&self, position: &Position) -> bool {
        match self {
            FastProgram::Choice(p) => p.fits(position),
            FastProgram::Walk(w) => w.fits(position),
        }
    }

    /// Whether it runs `attacked` (and so needs every side walked).
    pub(crate) fn attacks(&self) -> bool {
        matches!(self, FastProgram::Walk(w) if w.attacks())
    }

    /// Whether there is a result on `position`; an error when the search
    /// passes the limit on states, as the backtracker's would.
    pub(crate) fn holds(
        &self,
        position: &Position,
        scratch: &mut Scratch,
        limits: &Meter,
    ) -> Result<bool, EngineError> {
        match self {
            FastProgram::Choice(p) => Ok(p.holds(position, scratch)),
            FastProgram::Walk(w) if let Some(p) = w.choice_tests() => Ok(p.holds(position, scratch)),
            FastProgram::Walk(w) => {
                scratch.load(position, w.codes());
                w.holds(position, &scratch.occupied, &mut scratch.walk, limits, None)
                    .map_err(|TooLong| limits.state_limit())
            }
        }
    }

    /// [`FastProgram::holds`] for the game's pattern number `pattern`,
    /// remembering where it did not hold: on a position made by one change
    /// in place from such a one, a change that left no square holding what
    /// a check of the pattern accepts, it does not hold either, untested.
    pub(crate) fn pattern_holds(
        &self,
        pattern: usize,
        position: &Position,
        scratch: &mut Scratch,
        limits: &Meter,
    ) -> Result<bool, EngineError> {
        let plan = match self {
            FastProgram::Choice(p) => p,
            FastProgram::Walk(w) => match w.choice_tests() {
                Some(p) => p,
                None => return self.holds(position, scratch, limits),
            },
        };
        if scratch.unmet.len() <= pattern {
            scratch.unmet.resize(pattern + 1, Unmet::default());
        }
        let unmet = &mut scratch.unmet[pattern];
        if unmet.has(position.version) {
            return Ok(false);
        }
        if let Some((from, touched)) = position.came_from
            && unmet.has(from)
            && !plan.may_hold_anew(touched, &position.cells)
        {
            unmet.add(position.version);
            return Ok(false);
        }
        let holds = plan.holds(position, scratch);
        if !holds {
            scratch.unmet[pattern].add(position.version);
        }
        Ok(holds)
    }

    /// Whether some result on `position` changes `at`; errors as
    /// [`FastProgram::holds`].
    pub(crate) fn changes_square(
        &self,
        position: &Position,
        at: Coord,
        scratch: &mut Scratch,
        limits: &Meter,
    ) -> Result<bool, EngineError> {
        match self {
            FastProgram::Choice(p) => Ok(p.changes_square(position, at, scratch)),
            FastProgram::Walk(w) if let Some(p) = w.choice_tests().filter(|p| !p.tails) => {
                Ok(p.changes_square(position, at, scratch))
            }
            FastProgram::Walk(w) => {
                if position.code_at(at.x, at.y) == crate::core::OFF {
                    return Ok(false);
                }
                scratch.load(position, w.codes());
                let i = (at.y * position.width as i32 + at.x) as u32;
                w.changes_at(
                    &position.cells,
                    &scratch.occupied,
                    &[],
                    i,
                    &mut scratch.aux,
                    limits,
                )
                .map(|(hit, _)| hit)
                .map_err(|TooLong| limits.state_limit())
            }
        }
    }
}

/// Scratch for the bit-parallel engine: the square sets of the position
/// last loaded, and the results of a search that deduplicates.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    /// Per content code: the squares holding it.
    occupied: Vec<Squares>,
    /// The position those sets are of: its version and cells.
    loaded: Option<Loaded>,
    /// Per pattern of the game: the last positions it did not hold on.
    unmet: Vec<Unmet>,
    changes: Vec<Change>,
    /// The resulting hashes of the results given so far (deduplicating searches).
    seen: KeySet,
    /// Those results: hash and range of [`Scratch::kept_changes`].
    kept: Vec<(u64, u32, u32)>,
    kept_changes: Vec<Change>,
    /// The walker's scratch.
    walk: WalkScratch,
    /// A second one, for the tests made in the middle of a walk.
    aux: WalkScratch,
}

/// Makes cell `i` of a loaded position, holding `*old`, hold `new`, and
/// the square sets `occupied` say so.
#[inline]
fn move_cell(occupied: &mut [Squares], old: &mut Code, new: Code, i: usize) {
    if *old != new {
        let bit: Squares = 1 << i;
        if let Some(set) = occupied.get_mut(*old as usize) {
            *set &= !bit;
        }
        if let Some(set) = occupied.get_mut(new as usize) {
            *set |= bit;
        }
        *old = new;
    }
}

/// The squares holding one of `codes` (each of which `holds` accepts) on a
/// position whose square sets are `occupied`, with the writes `overlay` made.
#[inline]
fn on_board(
    codes: &[Code],
    holds: impl Fn(Code) -> bool,
    occupied: &[Squares],
    overlay: &[(u32, Code)],
) -> Squares {
    let mut on = (codes.iter()).fold(0, |s: Squares, &c| {
        s | occupied.get(c as usize).copied().unwrap_or(0)
    });
    for &(s, c) in overlay {
        if holds(c) {
            on |= 1 << s;
        } else {
            on &= !(1 << s);
        }
    }
    on
}

/// The position a [`Scratch`]'s square sets are of.
#[derive(Clone, Debug)]
struct Loaded {
    version: Version,
    /// Its [`Position::came_from`].
    came_from: Option<(Version, u128)>,
    cells: Vec<Code>,
}

/// The last few positions (by version) a pattern did not hold on: a
/// search that makes and takes back moves comes back to them.
#[derive(Clone, Copy, Debug)]
struct Unmet {
    versions: [Version; 8],
    next: usize,
}

impl Default for Unmet {
    fn default() -> Unmet {
        Unmet {
            versions: [Version::NEVER; 8],
            next: 0,
        }
    }
}

impl Unmet {
    fn has(&self, v: Version) -> bool {
        self.versions.contains(&v)
    }

    fn add(&mut self, v: Version) {
        self.versions[self.next] = v;
        self.next = (self.next + 1) % self.versions.len();
    }
}

impl Scratch {
    /// Makes walks trace (or not) the squares the outermost piece of
    /// interest moves to.
    pub(crate) fn trace_paths(&mut self, on: bool) {
        self.walk.trace_paths(on);
    }

    /// Makes the square sets those of `position` (kept if it is loaded already).
    fn load(&mut self, position: &Position, codes: usize) {
        if self.occupied.len() >= codes
            && let Some(loaded) = &mut self.loaded
            && loaded.cells.len() == position.cells.len()
        {
            if loaded.version == position.version {
                return;
            }
            // The cells that may differ, when the two positions are one
            // change in place apart, or two from a common one.
            let near = match (position.came_from, loaded.came_from) {
                (Some((from, touched)), _) if from == loaded.version => Some(touched),
                (_, Some((from, touched))) if from == position.version => Some(touched),
                (Some((a, here)), Some((b, there))) if a == b => Some(here | there),
                _ => None,
            };
            loaded.version = position.version;
            loaded.came_from = position.came_from;
            if let Some(mut touched) = near {
                while touched != 0 {
                    let i = touched.trailing_zeros() as usize;
                    touched &= touched - 1;
                    move_cell(&mut self.occupied, &mut loaded.cells[i], position.cells[i], i);
                }
                return;
            }
            // Else update the sets where the cells differ, sixteen at a
            // time (compared without an early exit, so that many cells go
            // at once).
            let differ = |a: &[Code], b: &[Code]| a.iter().zip(b).fold(0, |d, (x, y)| d | (x ^ y)) != 0;
            for (k, (old, new)) in loaded
                .cells
                .chunks_mut(16)
                .zip(position.cells.chunks(16))
                .enumerate()
            {
                if !differ(old, new) {
                    continue;
                }
                for (j, (o, &n)) in old.iter_mut().zip(new).enumerate() {
                    move_cell(&mut self.occupied, o, n, k * 16 + j);
                }
            }
            return;
        }
        let size = codes.max(self.occupied.len());
        self.occupied.clear();
        self.occupied.resize(size, 0);
        for (i, &c) in position.cells.iter().enumerate() {
            if let Some(set) = self.occupied.get_mut(c as usize) {
                *set |= 1 << i;
            }
        }
        let mut cells = self.loaded.take().map(|l| l.cells).unwrap_or_default();
        cells.clear();
        cells.extend_from_slice(&position.cells);
        self.loaded = Some(Loaded {
            version: position.version,
            came_from: position.came_from,
            cells,
        });
    }
}

impl Plan {
    /// Whether the plan holds for `position`'s grid.
    pub(crate) fn fits(&self, position: &Position) -> bool {
        position.x0 == 0 && position.y0 == 0 && position.width == self.width && position.height == self.height
    }

    /// The places where `rule`'s left side matches.
    #[inline]
    fn places(&self, rule: &Rule, occupied: &[Squares]) -> Squares {
        if self.all >> 64 == 0 {
            // A board of 64 squares or fewer: the same in 64-bit words.
            return Self::places_in::<u64>(self.all as u64, rule, occupied) as Squares;
        }
        Self::places_in::<Squares>(self.all, rule, occupied)
    }

    /// [`Plan::places`] in words of type `W` (wide enough for the board).
    #[inline(always)]
    fn places_in<W: Word>(all: W, rule: &Rule, occupied: &[Squares]) -> W {
        let mut at = all;
        for c in &rule.checks {
            let held = match c.codes[..] {
                [code] => occupied.get(code as usize).copied().unwrap_or(0),
                _ => c.codes.iter().fold(0, |held, &code| {
                    held | occupied.get(code as usize).copied().unwrap_or(0)
                }),
            };
            let held = W::of(held);
            let shifted = if c.shift >= 0 {
                held.shr(c.shift as u32)
            } else {
                held.shl(-c.shift as u32)
            };
            at = at.and(shifted.and(W::of(c.inside)).or(W::of(c.outside)));
            if at.is_zero() {
                break;
            }
        }
        at
    }

    /// The places where some rule matches, on a position whose square sets
    /// are `occupied` (every place when the plan may change nothing).
    pub(crate) fn anywhere(&self, occupied: &[Squares]) -> Squares {
        if self.nil {
            return self.all;
        }
        self.rules.iter().fold(0, |set, r| set | self.places(r, occupied))
    }

    /// Whether the plan has a result on a position whose square sets are
    /// `occupied` (stops at the first rule that matches).
    pub(crate) fn holds_on(&self, occupied: &[Squares]) -> bool {
        self.nil || self.rules.iter().any(|r| self.places(r, occupied) != 0)
    }

    /// One more than the largest code a check accepts.
    pub(crate) fn codes(&self) -> usize {
        self.codes
    }

    /// Whether a position where the plan has no result may have one after
    /// a change that left `cells` (a position's) at the cells `touched`:
    /// only if one of them now holds a content some check accepts.
    fn may_hold_anew(&self, mut touched: u128, cells: &[Code]) -> bool {
        if self.nil {
            return true;
        }
        while touched != 0 {
            let i = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            if cells.get(i).is_none_or(|&c| self.accepted.contains(c)) {
                return true;
            }
        }
        false
    }

    /// Whether the program has a result on `position` (which must fit).
    pub(crate) fn holds(&self, position: &Position, scratch: &mut Scratch) -> bool {
        if self.nil {
            return true;
        }
        scratch.load(position, self.codes);
        self.rules.iter().any(|r| self.places(r, &scratch.occupied) != 0)
    }

    /// How many results the program has on `position` (which must fit).
    pub(crate) fn count(&self, position: &Position, scratch: &mut Scratch) -> u64 {
        if !self.distinct {
            let mut n = 0;
            self.each(position, scratch, &mut |_| {
                n += 1;
                ControlFlow::Continue(())
            });
            return n;
        }
        scratch.load(position, self.codes);
        self.count_on(&scratch.occupied)
    }

    /// Calls `found` with each result on `position` (which must fit), each
    /// once, until it says to stop.
    pub(crate) fn each(
        &self,
        position: &Position,
        scratch: &mut Scratch,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) {
        if self.rules.first().is_some_and(|r| !r.traces.is_empty()) {
            scratch.load(position, self.codes);
            let tracing = scratch.walk.tracing();
            let mut changes = std::mem::take(&mut scratch.changes);
            self.each_traced(position, &scratch.occupied, &mut changes, tracing, found);
            scratch.changes = changes;
            return;
        }
        scratch.load(position, self.codes);
        scratch.seen.clear();
        scratch.kept.clear();
        scratch.kept_changes.clear();
        let mut unchanged = self.nil;
        let mut changes = std::mem::take(&mut scratch.changes);
        'rules: for rule in &self.rules {
            let mut places = self.places(rule, &scratch.occupied);
            while places != 0 {
                let t = places.trailing_zeros() as i32;
                places &= places - 1;
                for writes in &rule.choices {
                    changes.clear();
                    let mut h = position.hash;
                    for wr in writes {
                        self.change(position, t + wr.shift, wr.code, &mut h, &mut changes);
                    }
                    if changes.is_empty() {
                        unchanged = true;
                        continue;
                    }
                    if !self.distinct && !scratch.keep(h, &changes) {
                        continue;
                    }
                    let s = Successor {
                        changes: &changes,
                        poi_from: None,
                        poi_to: None,
                        became: None,
                        path: &[],
                        hash: h,
                    };
                    if found(&s).is_break() {
                        unchanged = false;
                        break 'rules;
                    }
                }
            }
        }
        if unchanged {
            let _ = found(&Successor {
                changes: &[],
                poi_from: None,
                poi_to: None,
                became: None,
                path: &[],
                hash: position.hash,
            });
        }
        scratch.changes = changes;
    }

    /// [`Plan::each`] for a traced plan (whose results are distinct): in the
    /// walker's order, by the square the piece starts from, then by rule.
    /// On `position`, whose square sets are `occupied`, with `changes` to
    /// build each result's changes in and paths traced or not.
    pub(crate) fn each_traced(
        &self,
        position: &Position,
        occupied: &[Squares],
        changes: &mut Vec<Change>,
        tracing: bool,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) {
        let w = self.width as i32;
        let places: SmallVec<[Squares; 16]> = self.rules.iter().map(|r| self.places(r, occupied)).collect();
        let mut any = places.iter().fold(0, |a, &p| a | p);
        let coord = |i: i32| Coord::new(i % w, i / w);
        'squares: while any != 0 {
            let t = any.trailing_zeros() as i32;
            any &= any - 1;
            for (rule, &p) in self.rules.iter().zip(&places) {
                if p >> t & 1 == 0 {
                    continue;
                }
                for (writes, trace) in rule.choices.iter().zip(&rule.traces) {
                    changes.clear();
                    let mut h = position.hash;
                    let mut became = trace.became;
                    if rule.tails.is_empty() {
                        for wr in writes {
                            self.change(position, t + wr.shift, wr.code, &mut h, changes);
                        }
                    } else {
                        let mut made: SmallVec<[(i32, Code); 8]> =
                            writes.iter().map(|wr| (t + wr.shift, wr.code)).collect();
                        became = self.tails(position, &rule.tails, t + trace.to, trace, &mut made);
                        // The last write to each square, where it changes it,
                        // in reading order.
                        made.reverse();
                        made.sort_by_key(|&(i, _)| (-(i / w), i % w));
                        made.dedup_by_key(|&mut (i, _)| i);
                        for &(i, code) in &made {
                            self.change(position, i, code, &mut h, changes);
                        }
                    }
                    // The path a walk traces: the square the piece moved to.
                    let to = [coord(t + trace.to)];
                    let path = if tracing && trace.to != trace.from {
                        &to[..]
                    } else {
                        &[]
                    };
                    let s = Successor {
                        changes,
                        poi_from: Some(coord(t + trace.from)),
                        poi_to: Some(to[0]),
                        became: became.and_then(code::as_piece).map(|(p, _)| p),
                        path,
                        hash: h,
                    };
                    if found(&s).is_break() {
                        break 'squares;
                    }
                }
            }
        }
    }

    /// How many results a plan whose results are distinct has on a
    /// position whose square sets are `occupied`.
    pub(crate) fn count_on(&self, occupied: &[Squares]) -> u64 {
        debug_assert!(self.distinct);
        let found: u64 = self
            .rules
            .iter()
            .map(|r| self.places(r, occupied).count_ones() as u64 * r.choices.len() as u64)
            .sum();
        found + self.nil as u64
    }

    /// Notes the change of square `i` of `position` to `code` (if it
    /// changes it) in `changes` and the resulting hash `h`.
    #[inline]
    fn change(&self, position: &Position, i: i32, code: Code, h: &mut u64, changes: &mut Vec<Change>) {
        let old = position.cells[i as usize];
        if old == code {
            return;
        }
        let w = self.width as i32;
        let (x, y) = (i % w, i / w);
        *h ^= hash::square(x, y, old) ^ hash::square(x, y, code);
        changes.push(Change {
            at: Coord::new(x, y),
            content: Content::from_code(code),
        });
    }

    /// Makes `tails` after a traced rule's writes `made` (square and content,
    /// in order), with the piece on square `at`: in each, the first rewrite
    /// that matches. Gives what the piece became.
    fn tails(
        &self,
        position: &Position,
        tails: &[Tail],
        at: i32,
        trace: &Trace,
        made: &mut SmallVec<[(i32, Code); 8]>,
    ) -> Option<Code> {
        let (w, h) = (self.width as i32, self.height as i32);
        let (px, py) = (at % w, at / w);
        let read = |made: &[(i32, Code)], x: i32, y: i32| -> Code {
            if !(0..w).contains(&x) || !(0..h).contains(&y) {
                return crate::core::OFF;
            }
            let i = y * w + x;
            made.iter()
                .rev()
                .find(|m| m.0 == i)
                .map_or(position.cells[i as usize], |m| m.1)
        };
        let (mut poi, mut became) = (trace.poi, trace.became);
        for tail in tails {
            // (A plan whose options branch is not distinct: its results
            // are not made here, one per rule.)
            let made_one = tail.options.iter().flatten().find(|o| {
                o.checks.iter().all(|c| {
                    let here = read(made, px + c.dx, py + c.dy);
                    c.accepts.contains(here) || (c.poi && here == poi)
                })
            });
            if let Some(o) = made_one {
                made.extend(
                    o.writes
                        .iter()
                        .map(|&(dx, dy, code)| ((py + dy) * w + px + dx, code)),
                );
                // Another piece left where the piece stands: it is that piece now.
                let here = read(made, px, py);
                if here != poi && code::as_piece(here).is_some() {
                    (poi, became) = (here, Some(here));
                }
            }
        }
        became
    }

    /// Whether some result on `position` (which must fit) changes square `at`.
    pub(crate) fn changes_square(&self, position: &Position, at: Coord, scratch: &mut Scratch) -> bool {
        let (w, h) = (self.width as i32, self.height as i32);
        if !(0..w).contains(&at.x) || !(0..h).contains(&at.y) {
            return false;
        }
        scratch.load(position, self.codes);
        let target = at.x + at.y * w;
        let old = position.cells[target as usize];
        self.rules.iter().any(|rule| {
            let places = self.places(rule, &scratch.occupied);
            rule.choices.iter().flatten().any(|wr| {
                let t = target - wr.shift;
                wr.code != old && (0..w * h).contains(&t) && places >> t & 1 == 1
            })
        })
    }
}

impl Scratch {
    /// Whether the result with resulting hash `hash` and `changes` is new
    /// (then it is kept); changes are compared in full when hashes meet.
    fn keep(&mut self, hash: u64, changes: &[Change]) -> bool {
        if !self.seen.insert(hash) {
            let kept = &self.kept_changes;
            let same = self
                .kept
                .iter()
                .any(|&(h, s, e)| h == hash && &kept[s as usize..e as usize] == changes);
            if same {
                return false;
            }
        }
        let start = self.kept_changes.len() as u32;
        self.kept_changes.extend_from_slice(changes);
        self.kept.push((hash, start, self.kept_changes.len() as u32));
        true
    }
}
