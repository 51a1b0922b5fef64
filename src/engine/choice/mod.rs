//! The choice strategy: a program that chooses one rewrite among several
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
//! [`plan`] compiles a program, or says why this strategy declines it
//! ([`Decline`]): pieces of interest, loops, guards, ordered choices,
//! `attacked`, boxes and boards of more than
//! [`MAX_SQUARES`](crate::engine::squares::MAX_SQUARES) squares.

pub(crate) mod compile;
pub mod perft;

use std::ops::ControlFlow;

use super::position::Position;
use super::squares::{Decline, PlanOutput, SetScratch, Squares};
use crate::core::{self as code, Change, Code, CodeSet, Content, Coord};
use crate::engine::hash;
use crate::engine::position::CellWrite;
use crate::engine::successor::Successor;
use crate::program::Program;
use smallvec::SmallVec;

/// The places where a check holds, given the squares `held` holding what
/// it accepts: those whose square `shift` bits on is one of them, on the
/// board (`inside`), and those from which it is off the board where that is
/// accepted (`outside`).
#[inline(always)]
pub(in crate::engine) fn check_places<W: Word>(held: W, shift: i32, inside: Squares, outside: Squares) -> W {
    // A rotation, not a shift, without a branch on the shift's sign: from
    // a square of `inside` the square `shift` bits on is on the board, so
    // its bit comes round unwrapped; the bits that wrap land outside it.
    // (`shift as u32` is `shift` modulo 2^32, which the rotation takes
    // modulo the word's width.)
    held.rotr(shift as u32).and(W::of(inside)).or(W::of(outside))
}

/// A machine word holding one bit per square (of a board that fits it).
pub(in crate::engine) trait Word: Copy {
    /// The low bits of a square set.
    fn of(set: Squares) -> Self;
    /// Rotated towards bit 0 by `n` modulo the width.
    fn rotr(self, n: u32) -> Self;
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn is_zero(self) -> bool;
    /// The set of square `i` alone.
    fn bit(i: usize) -> Self;
    /// Every square not in the set.
    fn not(self) -> Self;
    /// How many squares the set has.
    fn count(self) -> u32;
    /// The lowest square of a set that has one.
    fn lowest(self) -> u32;
    /// The set without its lowest square.
    fn without_lowest(self) -> Self;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            #[inline(always)]
            fn of(set: Squares) -> Self {
                set as $t
            }
            #[inline(always)]
            fn rotr(self, n: u32) -> Self {
                self.rotate_right(n)
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
            #[inline(always)]
            fn bit(i: usize) -> Self {
                1 << i
            }
            #[inline(always)]
            fn not(self) -> Self {
                !self
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lowest(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline(always)]
            fn without_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }
        }
    };
}
word!(u64);
word!(u128);
/// A program compiled for the choice strategy on boards of one size.
#[derive(Clone, Debug)]
pub struct Plan {
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// Every square of the board.
    pub(crate) all: Squares,
    /// One per alternative of each rewrite, in the backtracker's order.
    pub(crate) rules: Vec<Rule>,
    /// Whether the program may also change nothing at all (`nil`).
    pub(crate) nil: bool,
    /// Whether no two matches can make the same changes (see [`compile`]).
    pub(crate) distinct: bool,
    /// One more than the largest content code a check accepts.
    pub(crate) codes: usize,
    /// Whether a rule has tails (its results are then made one by one).
    pub(crate) tails: bool,
    /// Per rule (none: no first look), per option of its tails: its checks
    /// as square sets, for a first look at where, the piece landed, the
    /// tails may make something ([`Plan::tails_may_match`]).
    pub(crate) tail_gates: Vec<Vec<Vec<TailGate>>>,
    /// Every content some check accepts.
    pub(crate) accepted: CodeSet,
}

/// One alternative of a left side, with each choice of its right side.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    /// The squares it checks, measured from one that must be on the board
    /// (the first, at offset zero).
    pub(crate) checks: Vec<SetCheck>,
    /// Per choice: the squares it changes, in reading order.
    pub(crate) choices: Vec<Vec<SetWrite>>,
    /// Where the program's offsets put the square the checks are measured from.
    pub(crate) reference: (i32, i32),
    /// Per choice, for a rule of a traced plan ([`compile::traced_plan`]):
    /// the move it makes (else empty).
    pub(crate) traces: Vec<TracedMove>,
    /// For a rule of a traced plan: the choices made at the piece after the
    /// rule's rewrite, in turn.
    pub(crate) tails: Vec<Tail>,
}

/// An ordered choice made at the piece of interest after a traced rule's
/// rewrite: the first of its rewrites that matches is made (none: nothing).
#[derive(Clone, Debug)]
pub(crate) struct Tail {
    /// Each a choice of rewrites: the first with a rewrite that matches
    /// makes each that matches, a result each.
    pub(crate) options: Vec<Vec<TailRewrite>>,
}

/// One rewrite of a [`Tail`], its offsets from the piece.
#[derive(Clone, Debug)]
pub(crate) struct TailRewrite {
    pub(crate) checks: Vec<TailCheck>,
    /// What it writes, in order: offset and content.
    pub(crate) writes: Vec<(i32, i32, Code)>,
}

/// A check of a [`TailRewrite`] as square sets, looked at from the square
/// the piece landed on: it may hold where its square is off the board and
/// "no square" is accepted, where its square is on the board and holds
/// "no square" if that is all it accepts, and anywhere on the board if it
/// accepts more (what is there depends on the move's own writes).
#[derive(Clone, Debug)]
pub(crate) struct TailGate {
    /// `dx + dy * width`.
    pub(crate) shift: i32,
    /// The landing squares from which its square is on the board.
    pub(crate) inside: Squares,
    /// The landing squares from which its square is off the board, if it
    /// accepts that (else none).
    pub(crate) outside: Squares,
    /// Whether it accepts nothing but "no square".
    pub(crate) holes_only: bool,
}

/// A square a [`TailRewrite`] checks.
#[derive(Clone, Debug)]
pub(crate) struct TailCheck {
    pub(crate) dx: i32,
    pub(crate) dy: i32,
    pub(crate) accepts: CodeSet,
    /// Whether it also accepts the piece itself there.
    pub(crate) poi: bool,
}

/// The move a result of a traced rule makes: from and to as bit distances
/// from the place it matches at, and what the piece became.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TracedMove {
    pub(crate) from: i32,
    pub(crate) to: i32,
    /// `from` as an offset from the place.
    pub(crate) from_at: (i32, i32),
    /// From `from` to `to` on the board.
    pub(crate) step: (i32, i32),
    pub(crate) became: Option<Code>,
    /// The code of the piece that moves.
    pub(crate) piece: Code,
    /// Its code once moved (what it became, if anything).
    pub(crate) poi: Code,
}

/// One square a left side checks.
#[derive(Clone, Debug)]
pub(crate) struct SetCheck {
    pub(crate) dx: i32,
    pub(crate) dy: i32,
    /// `dx + dy * width`: the bit distance to the square.
    pub(crate) shift: i32,
    /// The contents it accepts.
    pub(crate) accepts: CodeSet,
    /// The same, listed (only those below [`Plan::codes`]).
    pub(crate) codes: Vec<Code>,
    /// The places whose checked square is on the board.
    pub(crate) inside: Squares,
    /// The places whose checked square is off the board, when "no square"
    /// is accepted (else none).
    pub(crate) outside: Squares,
}

/// One square a right side changes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SetWrite {
    pub(crate) dx: i32,
    pub(crate) dy: i32,
    /// `dx + dy * width`.
    pub(crate) shift: i32,
    /// What it writes.
    pub(crate) code: Code,
    /// Whether the square never held it before (the check does not accept it).
    pub(crate) always: bool,
}

/// Compiles `program` for boards of exactly `width` by `height`, or says
/// why the choice strategy leaves it to another.
pub fn plan(program: &Program, width: u32, height: u32) -> Result<Plan, Decline> {
    compile::plan(program, width, height)
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
            at = at.and(check_places(W::of(held), c.shift, c.inside, c.outside));
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

    /// For a traced plan ([`compile::entry_plan`]'s): the squares of the
    /// pieces some rule matches at, on a position whose square sets are
    /// `occupied` (every square where a rule is not traced).
    pub(crate) fn poi_places(&self, occupied: &[Squares]) -> Squares {
        self.rules.iter().fold(0, |set, r| {
            let Some(t) = r.traces.first() else {
                return self.all;
            };
            let at = self.places(r, occupied);
            set | if t.from >= 0 { at << t.from } else { at >> -t.from }
        })
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
    pub(crate) fn may_hold_anew(&self, mut touched: u128, cells: &[Code]) -> bool {
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
    pub(crate) fn holds(&self, position: &Position, scratch: &mut SetScratch) -> bool {
        if self.nil {
            return true;
        }
        scratch.load(position, self.codes);
        self.rules.iter().any(|r| self.places(r, &scratch.occupied) != 0)
    }

    /// How many results the program has on `position` (which must fit),
    /// whose square sets are `occupied`; `out` keeps the results a count
    /// of a program whose results may meet tells apart.
    pub(crate) fn count(&self, position: &Position, occupied: &[Squares], out: &mut PlanOutput) -> u64 {
        if !self.distinct {
            let mut n = 0;
            self.each(position, occupied, out, &mut |_| {
                n += 1;
                ControlFlow::Continue(())
            });
            return n;
        }
        self.count_on(occupied)
    }

    /// Calls `found` with each result on `position` (which must fit), whose
    /// square sets are `occupied`, each once, until it says to stop; `out`
    /// holds the results as they are made.
    pub(crate) fn each(
        &self,
        position: &Position,
        occupied: &[Squares],
        out: &mut PlanOutput,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) {
        if self.rules.first().is_some_and(|r| !r.traces.is_empty()) {
            let tracing = out.tracing;
            let mut changes = std::mem::take(&mut out.changes);
            let mut cells = std::mem::take(&mut out.cell_writes);
            let cells_out = out.cells.then_some(&mut cells);
            self.each_traced(position, occupied, &mut changes, cells_out, tracing, found);
            out.changes = changes;
            out.cell_writes = cells;
            return;
        }
        out.forget();
        let mut unchanged = self.nil;
        let mut changes = std::mem::take(&mut out.changes);
        'rules: for rule in &self.rules {
            let mut places = self.places(rule, occupied);
            while places != 0 {
                let t = places.trailing_zeros() as i32;
                places &= places - 1;
                for writes in &rule.choices {
                    changes.clear();
                    let mut h = position.hash;
                    for wr in writes {
                        self.change(position, t + wr.shift, wr.code, &mut h, &mut changes, None);
                    }
                    if changes.is_empty() {
                        unchanged = true;
                        continue;
                    }
                    if !self.distinct && !out.keep(h, &changes) {
                        continue;
                    }
                    let s = Successor {
                        changes: &changes,
                        poi_from: None,
                        poi_to: None,
                        became: None,
                        path: &[],
                        hash: h,
                        cells: &[],
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
                cells: &[],
            });
        }
        out.changes = changes;
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
        mut cells: Option<&mut Vec<CellWrite>>,
        tracing: bool,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) {
        let w = self.width as i32;
        let places: SmallVec<[Squares; 16]> = self.rules.iter().map(|r| self.places(r, occupied)).collect();
        let mut any = places.iter().fold(0, |a, &p| a | p);
        // (Looked at once per rule, where the plan has tails at all.)
        let tails_at: SmallVec<[Squares; 16]> = match self.tails {
            true => (0..self.rules.len())
                .map(|k| self.tails_may_match(k, occupied))
                .collect(),
            false => SmallVec::new(),
        };
        let coord = |i: i32| Coord::new(i % w, i / w);
        'squares: while any != 0 {
            let t = any.trailing_zeros() as i32;
            any &= any - 1;
            for (k, (rule, &p)) in self.rules.iter().zip(&places).enumerate() {
                if p >> t & 1 == 0 {
                    continue;
                }
                for (writes, trace) in rule.choices.iter().zip(&rule.traces) {
                    changes.clear();
                    if let Some(cells) = cells.as_deref_mut() {
                        cells.clear();
                    }
                    let mut h = position.hash;
                    let mut became = trace.became;
                    let mut made: SmallVec<[(i32, Code); 8]> = SmallVec::new();
                    if !rule.tails.is_empty()
                        && tails_at.get(k).is_none_or(|at| at >> (t + trace.to) & 1 == 1)
                    {
                        made.extend(writes.iter().map(|wr| (t + wr.shift, wr.code)));
                        became = self.tails(position, &rule.tails, t + trace.to, trace, &mut made);
                    }
                    if made.len() <= writes.len() {
                        // No tail made a rewrite: the rule's own writes, in
                        // reading order, each square once.
                        for wr in writes {
                            self.change(
                                position,
                                t + wr.shift,
                                wr.code,
                                &mut h,
                                changes,
                                cells.as_deref_mut(),
                            );
                        }
                    } else {
                        // The last write to each square, where it changes it,
                        // in reading order.
                        made.reverse();
                        made.sort_by_key(|&(i, _)| (-(i / w), i % w));
                        made.dedup_by_key(|&mut (i, _)| i);
                        for &(i, code) in &made {
                            self.change(position, i, code, &mut h, changes, cells.as_deref_mut());
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
                        cells: cells.as_deref().map_or(&[], |c| &c[..]),
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
    /// changes it) in `cells` as a cell write where given, else in
    /// `changes`, and the resulting hash `h`.
    #[inline]
    fn change(
        &self,
        position: &Position,
        i: i32,
        code: Code,
        h: &mut u64,
        changes: &mut Vec<Change>,
        cells: Option<&mut Vec<CellWrite>>,
    ) {
        let old = position.cells[i as usize];
        if old == code {
            return;
        }
        let w = self.width as i32;
        let (x, y) = (i % w, i / w);
        *h ^= hash::square(x, y, old) ^ hash::square(x, y, code);
        match cells {
            Some(cells) => cells.push((i as u32, code)),
            None => changes.push(Change {
                at: Coord::new(x, y),
                content: Content::from_code(code),
            }),
        }
    }

    /// The squares where, the piece of rule `k` landed there, its tails may
    /// make something, on a position whose square sets are `occupied` (a
    /// superset: [`TailGate`]); every square where the rule has no gates.
    fn tails_may_match(&self, k: usize, occupied: &[Squares]) -> Squares {
        let Some(options) = self.tail_gates.get(k).filter(|o| !o.is_empty()) else {
            return Squares::MAX;
        };
        let Some(&holes) = occupied.first() else {
            return Squares::MAX;
        };
        options.iter().fold(0, |set, gates| {
            set | gates.iter().fold(self.all, |at, g| {
                let here = if g.holes_only {
                    let back = if g.shift >= 0 {
                        holes.checked_shr(g.shift as u32).unwrap_or(0)
                    } else {
                        holes.checked_shl(g.shift.unsigned_abs()).unwrap_or(0)
                    };
                    back & g.inside
                } else {
                    g.inside
                };
                at & (here | g.outside)
            })
        })
    }

    /// Makes `tails` after a traced rule's writes `made` (square and content,
    /// in order), with the piece on square `at`: in each, the first rewrite
    /// that matches. Gives what the piece became.
    fn tails(
        &self,
        position: &Position,
        tails: &[Tail],
        at: i32,
        trace: &TracedMove,
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

    /// Whether some result on the cells `cells` (a position this plan
    /// fits), whose square sets are `occupied`, changes square `at` (an
    /// index among the cells).
    pub(crate) fn changes_square(&self, cells: &[Code], occupied: &[Squares], at: u32) -> bool {
        let (w, h) = (self.width as i32, self.height as i32);
        let Some(&old) = cells.get(at as usize).filter(|_| at < (w * h) as u32) else {
            return false;
        };
        let target = at as i32;
        self.rules.iter().any(|rule| {
            let places = self.places(rule, occupied);
            rule.choices.iter().flatten().any(|wr| {
                let t = target - wr.shift;
                !code::same_but_marks(wr.code, old) && (0..w * h).contains(&t) && places >> t & 1 == 1
            })
        })
    }
}
