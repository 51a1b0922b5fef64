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
use crate::program::{EntryCheck, Inst, Pc, Program, RewriteId, SplitEntry, Write};

/// A program with pieces of interest, prepared for the walker on boards of one size.
#[derive(Clone, Debug)]
pub struct Walker {
    prog: Program,
    /// Per instruction: whether arriving there consults the visited set.
    visit: Vec<bool>,
    /// Per rewrite, per alternative: where its matches are looked for.
    anchors: Vec<Vec<Anchor>>,
    /// Per bind: the codes it binds.
    binds: Vec<CodeSet>,
    width: i32,
    height: i32,
    /// One more than the largest code a bind or an anchor names.
    codes: usize,
}

/// Where a left side's matches are looked for.
#[derive(Clone, Debug)]
enum Anchor {
    /// Check `0` is the piece of interest's square: one place to try.
    Poi(usize),
    /// Check `check` accepts these codes: the squares holding them.
    Squares { check: usize, codes: CodeSet },
}

/// The piece of interest: its square (as an index and as coordinates) and code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Poi {
    at: u32,
    x: i32,
    y: i32,
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
    /// Spare stashes for ordered choices.
    stashes: Vec<Stash>,
}

/// The results of an ordered choice's sub-program: the writes each made
/// (one after another) and the state each ended in.
#[derive(Clone, Debug, Default)]
struct Stash {
    writes: Vec<(u32, Code)>,
    ends: Vec<StashEnd>,
}

/// Where one stashed result ends, and its state.
#[derive(Clone, Copy, Debug)]
struct StashEnd {
    writes: u32,
    delta: u64,
    trace: Trace,
    poi: Option<Poi>,
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
                // Anchored at the piece of interest, or else at the squares
                // holding what the compiler's first anchor check accepts.
                let anchor = match alt.checks.iter().position(|c| c.poi) {
                    Some(poi) => Anchor::Poi(poi),
                    None => {
                        let Some(a) = alt.anchors.first() else {
                            return Err(Decline::NoAnchor);
                        };
                        Anchor::Squares {
                            check: a.check as usize,
                            codes: CodeSet::of(a.codes.iter().copied()),
                        }
                    }
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
                per.push(anchor);
            }
            anchors.push(per);
        }
        if program.insts.iter().any(|i| matches!(i, Inst::Attacked { .. })) {
            return Err(Decline::NotAChoice("`attacked`"));
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
        let anchored = program.rewrites.iter().flat_map(|rw| {
            rw.alternatives
                .iter()
                .flat_map(|a| a.anchors.iter().flat_map(|a| a.codes.iter().copied()))
        });
        let codes = program
            .binds
            .iter()
            .flat_map(|b| b.iter().copied())
            .chain(anchored)
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
            depth: 0,
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
    /// Keeps each, with the writes made since the change list was `base` long.
    Stash { base: usize, into: &'f mut Stash },
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
    /// How deep the recursion is, in splits (to grow the stack in time).
    depth: u32,
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
        if !self.s.visited[level].is_empty() {
            self.s.visited[level].clear();
        }
        self.go(level, start, sink)
    }

    /// Whether the squares around the piece of interest hold what `checks`
    /// say (what every path from some instruction checks first).
    #[inline]
    fn holds_around_poi(&self, checks: &[EntryCheck]) -> bool {
        let Some(p) = self.s.pois.last() else {
            return true;
        };
        checks
            .iter()
            .all(|c| c.accepts.contains(self.read(p.x + c.dx, p.y + c.dy)))
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
                    pois ^= hash::poi(d, p.x, p.y, p.code);
                }
                if !self.s.visited[level].insert((self.delta ^ hash::pc(pc), pois)) {
                    return false;
                }
            }
            match prog.insts[pc as usize] {
                Inst::Jump { to } => pc = to,
                Inst::Split { first, second } => {
                    match prog.split_entry(pc, |checks| self.holds_around_poi(checks)) {
                        SplitEntry::Enter => {}
                        SplitEntry::Past(past) => {
                            pc = past;
                            continue;
                        }
                        SplitEntry::Dead => return false,
                    }
                    if self.holds_around_poi(&prog.entry[first as usize]) {
                        self.depth += 1;
                        let stop = if self.depth.is_multiple_of(64) {
                            stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.go(level, first, sink))
                        } else {
                            self.go(level, first, sink)
                        };
                        self.depth -= 1;
                        if stop {
                            return true;
                        }
                    }
                    if !self.holds_around_poi(&prog.entry[second as usize]) {
                        return false;
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
                Inst::Ordered { id, next } => return self.ordered(level, id.index(), next, sink),
                Inst::Attacked { .. } => unreachable!("the walker declines `attacked`"),
            }
        }
    }

    /// Runs the alternatives of ordered choice `id` until one has results,
    /// then continues at `next` from each of them.
    fn ordered(&mut self, level: usize, id: usize, next: Pc, sink: &mut Sink<'_, '_>) -> bool {
        let prog = &self.w.prog;
        let mut stash = self.s.stashes.pop().unwrap_or_default();
        stash.writes.clear();
        stash.ends.clear();
        let base = self.s.overlay.len();
        let (delta, trace) = (self.delta, self.trace);
        let top = self.s.pois.last().copied();
        for sub in prog.ordered[id].iter() {
            let start = prog.subs[sub.index()];
            self.level(
                level + 1,
                start,
                &mut Sink::Stash {
                    base,
                    into: &mut stash,
                },
            );
            if self.too_long {
                break;
            }
            if !stash.ends.is_empty() {
                break;
            }
        }
        let mut stop = self.too_long;
        let mut from = 0;
        for end in &stash.ends {
            if stop {
                break;
            }
            self.s.overlay.truncate(base);
            self.s
                .overlay
                .extend_from_slice(&stash.writes[from..end.writes as usize]);
            from = end.writes as usize;
            (self.delta, self.trace) = (end.delta, end.trace);
            if let (Some(p), Some(t)) = (end.poi, self.s.pois.last_mut()) {
                *t = p;
            }
            stop = self.go(level, next, sink);
        }
        self.s.overlay.truncate(base);
        (self.delta, self.trace) = (delta, trace);
        if let (Some(p), Some(t)) = (top, self.s.pois.last_mut()) {
            *t = p;
        }
        self.s.stashes.push(stash);
        stop
    }

    /// The squares holding one of `set`'s codes now; `codes` lists them.
    fn squares_holding(&self, codes: impl Iterator<Item = Code>, set: &CodeSet) -> Squares {
        let mut squares: Squares = 0;
        for c in codes {
            squares |= self.occupied.get(c as usize).copied().unwrap_or(0);
        }
        for &(at, c) in &self.s.overlay {
            if set.contains(c) {
                squares |= 1 << at;
            } else {
                squares &= !(1 << at);
            }
        }
        squares
    }

    /// Binds each square holding one of bind `id`'s codes in turn.
    fn bind(&mut self, level: usize, id: usize, next: Pc, sink: &mut Sink<'_, '_>) -> bool {
        let mut squares = self.squares_holding(self.w.prog.binds[id].iter().copied(), &self.w.binds[id]);
        while squares != 0 {
            let at = squares.trailing_zeros();
            squares &= squares - 1;
            let (x, y) = self.xy(at);
            let code = self.read(x, y);
            let trace = self.trace;
            if self.s.pois.is_empty() && self.trace.from.is_none() {
                self.trace.from = Some(at);
            }
            self.s.pois.push(Poi { at, x, y, code });
            let stop = self.go(level, next, sink);
            self.s.pois.pop();
            self.trace = trace;
            if stop {
                return true;
            }
        }
        false
    }

    /// Whether alternative `alt` of rewrite `id` matches under the translation `(tx, ty)`.
    #[inline]
    fn matches(&self, id: RewriteId, alt: usize, tx: i32, ty: i32) -> bool {
        let a = &self.w.prog.rewrites[id.index()].alternatives[alt];
        let top = self.s.pois.last();
        a.checks.iter().all(|c| {
            let (x, y) = (tx + c.dx, ty + c.dy);
            let here = self.read(x, y);
            c.accepts.contains(here)
                || (c.poi
                    && top.is_some_and(|p| p.x == x && p.y == y && here == p.code)
                    && (c.poi_marks.is_empty() || code::has_marks(here, c.poi_marks)))
        })
    }

    /// The translations to try for alternative `alt` of rewrite `id`: the
    /// one that puts its anchor on the piece of interest, or one per square
    /// holding what its anchor check accepts. Calls `each` until it says stop.
    #[inline]
    fn places(&self, id: RewriteId, alt: usize, mut each: impl FnMut(&Self, i32, i32) -> bool) -> bool {
        let a = &self.w.prog.rewrites[id.index()].alternatives[alt];
        match &self.w.anchors[id.index()][alt] {
            Anchor::Poi(check) => {
                let Some(top) = self.s.pois.last() else {
                    return false;
                };
                let c = &a.checks[*check];
                each(self, top.x - c.dx, top.y - c.dy)
            }
            Anchor::Squares { check, codes } => {
                let c = &a.checks[*check];
                let list = a.anchors.first().map_or(&[][..], |an| &an.codes[..]);
                let mut squares = self.squares_holding(list.iter().copied(), codes);
                while squares != 0 {
                    let at = squares.trailing_zeros();
                    squares &= squares - 1;
                    let (x, y) = self.xy(at);
                    if each(self, x - c.dx, y - c.dy) {
                        return true;
                    }
                }
                false
            }
        }
    }

    fn matches_somewhere(&self, id: RewriteId) -> bool {
        (0..self.w.prog.rewrites[id.index()].alternatives.len())
            .any(|alt| self.places(id, alt, |run, tx, ty| run.matches(id, alt, tx, ty)))
    }

    /// Makes each (match, choice) of rewrite `id` and continues at `next`.
    fn rewrite(&mut self, level: usize, id: RewriteId, next: Pc, sink: &mut Sink<'_, '_>) -> bool {
        let w = self.w;
        for alt in 0..w.prog.rewrites[id.index()].alternatives.len() {
            if let Anchor::Poi(check) = w.anchors[id.index()][alt] {
                // One place to try: where the piece of interest is.
                let Some(top) = self.s.pois.last() else {
                    continue;
                };
                let c = &w.prog.rewrites[id.index()].alternatives[alt].checks[check];
                let (tx, ty) = (top.x - c.dx, top.y - c.dy);
                if self.matches(id, alt, tx, ty) && self.choices(level, id, alt, tx, ty, next, sink) {
                    return true;
                }
                continue;
            }
            let mut found: smallvec::SmallVec<[(i32, i32); 8]> = smallvec::SmallVec::new();
            self.places(id, alt, |run, tx, ty| {
                if run.matches(id, alt, tx, ty) {
                    found.push((tx, ty));
                }
                false
            });
            for (tx, ty) in found {
                if self.choices(level, id, alt, tx, ty, next, sink) {
                    return true;
                }
            }
        }
        false
    }

    /// Makes each choice of alternative `alt` of rewrite `id` under `(tx, ty)` and continues at `next`.
    #[allow(clippy::too_many_arguments)]
    fn choices(
        &mut self,
        level: usize,
        id: RewriteId,
        alt: usize,
        tx: i32,
        ty: i32,
        next: Pc,
        sink: &mut Sink<'_, '_>,
    ) -> bool {
        let w = self.w;
        let a = &w.prog.rewrites[id.index()].alternatives[alt];
        {
            for choice in a.choices.iter() {
                // Counted as the backtracker counts: a state reached without
                // a visited-set check counts too.
                if !w.visit[next as usize] && self.spent() {
                    return true;
                }
                let (overlay, delta, trace) = (self.s.overlay.len(), self.delta, self.trace);
                let top = self.s.pois.last().copied();
                for sw in choice.iter() {
                    let (x, y) = (tx + sw.dx, ty + sw.dy);
                    let at = (y * w.width + x) as u32;
                    let code = match sw.write {
                        Write::Code(c) => c,
                        Write::Poi(marks) => {
                            let p = self.s.pois.last_mut().expect("anchored at a piece of interest");
                            p.code = code::with_marks(p.code, marks);
                            (p.at, p.x, p.y) = (at, x, y);
                            p.code
                        }
                    };
                    self.write(at, code);
                }
                // Another piece left where the piece of interest stands: it is that piece now.
                let depth = self.s.pois.len();
                if let Some(p) = self.s.pois.last() {
                    let here = self.read(p.x, p.y);
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
                if let (Some(p), Some(t)) = (top, self.s.pois.last_mut()) {
                    *t = p;
                }
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
            Sink::Stash { base, into } => {
                into.writes.extend_from_slice(&self.s.overlay[*base..]);
                into.ends.push(StashEnd {
                    writes: into.writes.len() as u32,
                    delta: self.delta,
                    trace: self.trace,
                    poi: self.s.pois.last().copied(),
                });
                return false;
            }
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
