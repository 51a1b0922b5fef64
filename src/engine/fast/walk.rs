//! The walker: programs with pieces of interest (`%p:`), run by native
//! recursion on the position as it is plus a short list of the changes made
//! so far, with nothing to undo but truncating that list.
//!
//! The backtracker edits a copy of the board, logs every write to undo it,
//! and works out each result's changes by comparing the board with the
//! log; the walker reads a square from its change list (most recent first)
//! or else from the position, and a result's changes are that list with
//! each square's last write, where it differs from the position. Every
//! rewrite it runs is anchored at the piece of interest (one place to try,
//! no square to search for), loops that cannot repeat a state need no
//! visited set (the backtracker's analysis), and results are deduplicated
//! exactly as the backtracker does: the same changes, start, end and change
//! of piece are one move.
//!
//! It declines ordered choices, `attacked`, boxes, rewrites not anchored at
//! a piece of interest and writes that could create or remove a square.

use std::ops::ControlFlow;

use rustc_hash::FxHashSet;

use super::compile::Decline;
use super::{MAX_SQUARES, Squares};
use crate::core::{self as code, Change, Code, CodeSet, Content, Coord, OFF};
use crate::engine::backtrack::monotone_loops;
use crate::engine::position::Position;
use crate::engine::{Successor, hash};
use crate::program::{Inst, Pc, Program, RewriteId, Write};

/// A program with pieces of interest, prepared for the walker on boards of one size.
#[derive(Clone, Debug)]
pub struct Walker {
    prog: Program,
    /// Per instruction: whether arriving there consults the visited set.
    visit: Vec<bool>,
    /// Per rewrite, per alternative: the check of the piece of interest.
    anchors: Vec<Vec<usize>>,
    /// Per bind: the codes it binds.
    binds: Vec<CodeSet>,
    width: i32,
    height: i32,
    /// One more than the largest code a bind names.
    codes: usize,
}

/// The piece of interest: its square (as an index) and code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Poi {
    at: u32,
    code: Code,
}

/// Scratch for the walker: the change list, the pieces of interest, the
/// visited sets per nesting level and the results kept for deduplication.
#[derive(Clone, Debug, Default)]
pub(crate) struct WalkScratch {
    overlay: Vec<(u32, Code)>,
    pois: Vec<Poi>,
    visited: Vec<FxHashSet<(u64, u64)>>,
    changes: Vec<Change>,
    seen: FxHashSet<u64>,
    kept: Vec<Kept>,
    kept_changes: Vec<Change>,
}

/// A result kept to tell later ones apart.
#[derive(Clone, Copy, Debug)]
struct Kept {
    key: u64,
    start: u32,
    end: u32,
    trace: Trace,
}

/// Where the outermost piece of interest started and ended, and what it became.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Trace {
    from: Option<u32>,
    to: Option<u32>,
    became: Option<Code>,
}

impl Trace {
    fn key(&self) -> u64 {
        let at = |c: Option<u32>, salt: u64| c.map_or(0, |c| hash::mix(c as u64 ^ salt));
        at(self.from, 0x1F83_D9AB_FB41_BD6B)
            ^ at(self.to, 0x5BE0_CD19_137E_2179).rotate_left(17)
            ^ self.became.map_or(0, |b| hash::mix((b as u64 + 1) << 48))
    }
}

impl Walker {
    /// Prepares `program` for boards of exactly `width` by `height`, or says why not.
    pub(super) fn new(program: &Program, width: u32, height: u32) -> Result<Walker, Decline> {
        if width == 0 || height == 0 || width * height > MAX_SQUARES {
            return Err(Decline::BoardTooLarge);
        }
        let mut anchors = Vec::new();
        for rw in &program.rewrites {
            let mut per = Vec::new();
            for alt in rw.alternatives.iter() {
                if !alt.tally_checks.is_empty() || alt.tally_writes.iter().any(|w| !w.is_empty()) {
                    return Err(Decline::Boxes);
                }
                let Some(poi) = alt.checks.iter().position(|c| c.poi) else {
                    return Err(Decline::NotAChoice(
                        "a rewrite not anchored at a piece of interest",
                    ));
                };
                for choice in alt.choices.iter() {
                    for w in choice.iter() {
                        let check = alt.checks.iter().find(|c| (c.dx, c.dy) == (w.dx, w.dy));
                        let Some(check) = check else {
                            return Err(Decline::ChangesTheBoard);
                        };
                        let off = matches!(w.write, Write::Code(OFF));
                        let writes_back =
                            matches!(w.write, Write::Code(c) if check.accepts == CodeSet::of([c]));
                        if !writes_back && (off || check.accepts.contains(OFF)) {
                            return Err(Decline::ChangesTheBoard);
                        }
                    }
                }
                per.push(poi);
            }
            anchors.push(per);
        }
        for inst in &program.insts {
            match inst {
                Inst::Ordered { .. } => return Err(Decline::NotAChoice("an ordered choice")),
                Inst::Attacked { .. } => return Err(Decline::NotAChoice("`attacked`")),
                _ => {}
            }
        }
        let mut visit = program.visit.clone();
        for pc in monotone_loops(program, width, height) {
            visit[pc as usize] = false;
        }
        let binds: Vec<CodeSet> = program
            .binds
            .iter()
            .map(|b| CodeSet::of(b.iter().copied()))
            .collect();
        let codes = program
            .binds
            .iter()
            .flat_map(|b| b.iter().copied())
            .max()
            .map_or(1, |c| c as usize + 1);
        Ok(Walker {
            prog: program.clone(),
            visit,
            anchors,
            binds,
            width: width as i32,
            height: height as i32,
            codes,
        })
    }

    /// Whether the walker's size holds for `position`'s grid.
    pub(crate) fn fits(&self, position: &Position) -> bool {
        position.x0 == 0
            && position.y0 == 0
            && position.width as i32 == self.width
            && position.height as i32 == self.height
    }

    /// Calls `found` with each result on `position` (which must fit), each
    /// once, until it says to stop; `Err(TooLong)` when the search would
    /// pass `max_states` (the caller hands it to the backtracker, which
    /// reports it).
    pub(crate) fn each(
        &self,
        position: &Position,
        occupied: &[Squares],
        scratch: &mut WalkScratch,
        max_states: u64,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), TooLong> {
        let mut sink = Sink::Collect(found);
        self.start(position, occupied, scratch, max_states, &mut sink)
            .map(|_| ())
    }

    /// Whether the program has a result on `position` (which must fit).
    pub(crate) fn holds(
        &self,
        position: &Position,
        occupied: &[Squares],
        scratch: &mut WalkScratch,
        max_states: u64,
    ) -> Result<bool, TooLong> {
        self.start(position, occupied, scratch, max_states, &mut Sink::Exists)
    }

    /// How many codes the bitboards must cover.
    pub(crate) fn codes(&self) -> usize {
        self.codes
    }

    fn start(
        &self,
        position: &Position,
        occupied: &[Squares],
        scratch: &mut WalkScratch,
        max_states: u64,
        sink: &mut Sink<'_, '_>,
    ) -> Result<bool, TooLong> {
        scratch.overlay.clear();
        scratch.pois.clear();
        scratch.seen.clear();
        scratch.kept.clear();
        scratch.kept_changes.clear();
        let mut run = Run {
            w: self,
            base: &position.cells,
            base_hash: position.hash,
            occupied,
            s: scratch,
            delta: 0,
            trace: Trace::default(),
            states: max_states,
            too_long: false,
        };
        let found = run.level(0, self.prog.start, sink);
        if run.too_long { Err(TooLong) } else { Ok(found) }
    }
}

/// What a search does with a result.
enum Sink<'f, 'g> {
    /// Stops at the first.
    Exists,
    /// Gives each to the caller, once.
    Collect(&'f mut (dyn FnMut(&Successor<'_>) -> ControlFlow<()> + 'g)),
}

/// One search in progress.
struct Run<'a> {
    w: &'a Walker,
    base: &'a [Code],
    base_hash: u64,
    occupied: &'a [Squares],
    s: &'a mut WalkScratch,
    /// The hash of the changes made so far (XOR of old and new square keys).
    delta: u64,
    trace: Trace,
    /// How many more states the search may reach.
    states: u64,
    /// Whether it ran out of them (and stopped).
    too_long: bool,
}

/// A search that would pass its bound on states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooLong;

impl Run<'_> {
    /// Runs the (sub-)program from `start` as a search of its own at nesting `level`.
    fn level(&mut self, level: usize, start: Pc, sink: &mut Sink<'_, '_>) -> bool {
        if self.s.visited.len() <= level {
            self.s.visited.resize_with(level + 1, FxHashSet::default);
        }
        self.s.visited[level].clear();
        self.go(level, start, sink)
    }

    /// Counts one state; `true` (and the search stops) past the bound.
    #[inline]
    fn spent(&mut self) -> bool {
        if self.states == 0 {
            self.too_long = true;
            return true;
        }
        self.states -= 1;
        false
    }

    /// What square `(x, y)` holds now.
    #[inline]
    fn read(&self, x: i32, y: i32) -> Code {
        if x < 0 || y < 0 || x >= self.w.width || y >= self.w.height {
            return OFF;
        }
        let i = (y * self.w.width + x) as u32;
        for &(at, c) in self.s.overlay.iter().rev() {
            if at == i {
                return c;
            }
        }
        self.base[i as usize]
    }

    #[inline]
    fn xy(&self, at: u32) -> (i32, i32) {
        (at as i32 % self.w.width, at as i32 / self.w.width)
    }

    /// Writes `code` at square `at`.
    #[inline]
    fn write(&mut self, at: u32, code: Code) {
        let (x, y) = self.xy(at);
        let old = self.read(x, y);
        if old != code {
            self.delta ^= hash::square(x, y, old) ^ hash::square(x, y, code);
            self.s.overlay.push((at, code));
        }
    }

    /// Runs straight-line instructions from `pc`, recursing at choices;
    /// `true` when the search is to stop.
    fn go(&mut self, level: usize, mut pc: Pc, sink: &mut Sink<'_, '_>) -> bool {
        let prog = &self.w.prog;
        loop {
            if self.w.visit[pc as usize] {
                if self.spent() {
                    return true;
                }
                let mut pois = self.trace.key();
                for (d, p) in self.s.pois.iter().enumerate() {
                    let (x, y) = self.xy(p.at);
                    pois ^= hash::poi(d, x, y, p.code);
                }
                if !self.s.visited[level].insert((self.delta ^ hash::pc(pc), pois)) {
                    return false;
                }
            }
            match prog.insts[pc as usize] {
                Inst::Jump { to } => pc = to,
                Inst::Split { first, second } => {
                    if stacker::maybe_grow(32 * 1024, 1024 * 1024, || self.go(level, first, sink)) {
                        return true;
                    }
                    pc = second;
                }
                Inst::Bind { id, next } => return self.bind(level, id.index(), next, sink),
                Inst::Unbind { next } => {
                    let (saved, trace) = (self.s.pois.pop(), self.trace);
                    if let Some(p) = saved
                        && self.s.pois.is_empty()
                        && self.trace.to.is_none()
                    {
                        self.trace.to = Some(p.at);
                    }
                    let stop = self.go(level, next, sink);
                    self.trace = trace;
                    if let Some(p) = saved {
                        self.s.pois.push(p);
                    }
                    return stop;
                }
                Inst::Rewrite { id, next } => return self.rewrite(level, id, next, sink),
                Inst::Test { holds, id, next } => {
                    if self.matches_somewhere(id) != holds {
                        return false;
                    }
                    pc = next;
                }
                Inst::Guard { holds, sub, next } => {
                    let body = prog.subs[sub.index()];
                    let (overlay, delta, trace) = (self.s.overlay.len(), self.delta, self.trace);
                    let pois = self.s.pois.clone();
                    let found = self.level(level + 1, body, &mut Sink::Exists);
                    self.s.overlay.truncate(overlay);
                    self.s.pois.clear();
                    self.s.pois.extend_from_slice(&pois);
                    (self.delta, self.trace) = (delta, trace);
                    if found != holds {
                        return false;
                    }
                    pc = next;
                }
                Inst::Match => return self.record(level, sink),
                Inst::Ordered { .. } | Inst::Attacked { .. } => {
                    unreachable!("the walker declines programs with these")
                }
            }
        }
    }

    /// Binds each square holding one of bind `id`'s codes in turn.
    fn bind(&mut self, level: usize, id: usize, next: Pc, sink: &mut Sink<'_, '_>) -> bool {
        let codes = &self.w.prog.binds[id];
        let set = &self.w.binds[id];
        let mut squares: Squares = 0;
        for &c in codes.iter() {
            squares |= self.occupied.get(c as usize).copied().unwrap_or(0);
        }
        for &(at, c) in &self.s.overlay {
            if set.contains(c) {
                squares |= 1 << at;
            } else {
                squares &= !(1 << at);
            }
        }
        while squares != 0 {
            let at = squares.trailing_zeros();
            squares &= squares - 1;
            let (x, y) = self.xy(at);
            let code = self.read(x, y);
            let trace = self.trace;
            if self.s.pois.is_empty() && self.trace.from.is_none() {
                self.trace.from = Some(at);
            }
            self.s.pois.push(Poi { at, code });
            let stop = self.go(level, next, sink);
            self.s.pois.pop();
            self.trace = trace;
            if stop {
                return true;
            }
        }
        false
    }

    /// Whether alternative `alt` of rewrite `id` matches at the piece of
    /// interest; the translation if so.
    #[inline]
    fn match_at(&self, id: RewriteId, alt: usize) -> Option<(i32, i32)> {
        let a = &self.w.prog.rewrites[id.index()].alternatives[alt];
        let top = *self.s.pois.last()?;
        let anchor = &a.checks[self.w.anchors[id.index()][alt]];
        let (px, py) = self.xy(top.at);
        let (tx, ty) = (px - anchor.dx, py - anchor.dy);
        let ok = a.checks.iter().all(|c| {
            let (x, y) = (tx + c.dx, ty + c.dy);
            let here = self.read(x, y);
            c.accepts.contains(here)
                || (c.poi
                    && (x, y) == (px, py)
                    && here == top.code
                    && (c.poi_marks.is_empty() || code::has_marks(here, c.poi_marks)))
        });
        ok.then_some((tx, ty))
    }

    fn matches_somewhere(&self, id: RewriteId) -> bool {
        (0..self.w.prog.rewrites[id.index()].alternatives.len()).any(|alt| self.match_at(id, alt).is_some())
    }

    /// Makes each (match, choice) of rewrite `id` and continues at `next`.
    fn rewrite(&mut self, level: usize, id: RewriteId, next: Pc, sink: &mut Sink<'_, '_>) -> bool {
        let w = self.w;
        for (alt, a) in w.prog.rewrites[id.index()].alternatives.iter().enumerate() {
            let Some((tx, ty)) = self.match_at(id, alt) else {
                continue;
            };
            for choice in a.choices.iter() {
                // Counted as the backtracker counts: a state reached without
                // a visited-set check counts too.
                if !w.visit[next as usize] && self.spent() {
                    return true;
                }
                let (overlay, delta, trace) = (self.s.overlay.len(), self.delta, self.trace);
                let top = *self.s.pois.last().expect("anchored at a piece of interest");
                for sw in choice.iter() {
                    let (x, y) = (tx + sw.dx, ty + sw.dy);
                    let at = (y * w.width + x) as u32;
                    let code = match sw.write {
                        Write::Code(c) => c,
                        Write::Poi(marks) => {
                            let p = self.s.pois.last_mut().expect("anchored at a piece of interest");
                            p.code = code::with_marks(p.code, marks);
                            p.at = at;
                            p.code
                        }
                    };
                    self.write(at, code);
                }
                // Another piece left where the piece of interest stands: it is that piece now.
                let depth = self.s.pois.len();
                if let Some(p) = self.s.pois.last() {
                    let (x, y) = self.xy(p.at);
                    let here = self.read(x, y);
                    if here != p.code && code::as_piece(here).is_some() {
                        self.s.pois.last_mut().expect("a piece of interest").code = here;
                        if depth == 1 {
                            self.trace.became = Some(here);
                        }
                    }
                }
                let stop = self.go(level, next, sink);
                self.s.overlay.truncate(overlay);
                (self.delta, self.trace) = (delta, trace);
                *self.s.pois.last_mut().expect("a piece of interest") = top;
                if stop {
                    return true;
                }
            }
        }
        false
    }

    /// A result: at nesting 0 given to the caller (once), deeper it ends the
    /// sub-search; `true` when the search is to stop.
    fn record(&mut self, level: usize, sink: &mut Sink<'_, '_>) -> bool {
        let found = match sink {
            Sink::Exists => return true,
            Sink::Collect(found) => found,
        };
        if level > 0 {
            return true;
        }
        // The last write to each square, where it differs from the position.
        let mut changes = std::mem::take(&mut self.s.changes);
        changes.clear();
        let w = self.w.width;
        for (i, &(at, c)) in self.s.overlay.iter().enumerate() {
            if self.s.overlay[i + 1..].iter().any(|&(a, _)| a == at) || self.base[at as usize] == c {
                continue;
            }
            changes.push(Change {
                at: Coord::new(at as i32 % w, at as i32 / w),
                content: Content::from_code(c),
            });
        }
        changes.sort_unstable_by_key(|c| (-c.at.y, c.at.x));
        let key = self.delta ^ self.trace.key();
        let fresh = if self.s.seen.insert(key) {
            true
        } else {
            let (kept, trace) = (&self.s.kept_changes, self.trace);
            !self.s.kept.iter().any(|k| {
                k.key == key && k.trace == trace && kept[k.start as usize..k.end as usize] == changes[..]
            })
        };
        let mut stop = false;
        if fresh {
            let start = self.s.kept_changes.len() as u32;
            self.s.kept_changes.extend_from_slice(&changes);
            self.s.kept.push(Kept {
                key,
                start,
                end: self.s.kept_changes.len() as u32,
                trace: self.trace,
            });
            let coord = |at: u32| Coord::new(at as i32 % w, at as i32 / w);
            let s = Successor {
                changes: &changes,
                poi_from: self.trace.from.map(coord),
                poi_to: self.trace.to.map(coord),
                became: self.trace.became.and_then(code::as_piece).map(|(p, _)| p),
                path: &[],
                hash: self.base_hash ^ self.delta,
            };
            stop = found(&s).is_break();
        }
        self.s.changes = changes;
        stop
    }
}
