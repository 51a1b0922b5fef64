//! One walk of a program: an explicit stack of frames, not native
//! recursion, so that no rule file or position deepens the program's own
//! stack (the model is the `regex` crate's bounded backtracker).
//!
//! [`Run::drive`] runs straight-line instructions from an instruction until
//! the path ends (a dead end, or a result given to the sink); at every
//! choice it pushes a [`Frame`] that knows how to take back what the path
//! did from there and make the next alternative. Backing up pops the top
//! frame and resumes it. Each frame, when popped, leaves the walk's state
//! (the changes, the pieces of interest, the trace) as it was when it was
//! pushed, so the next alternative starts from the same state the first
//! did. Guards and ordered choices whose results are stashed run their
//! sub-programs as nested walks, one level per nesting of the program
//! itself, so the native recursion is bounded by the program's shape.

mod backup;
mod state;

use std::cell::Cell;
use std::ops::ControlFlow;

use rustc_hash::FxHashSet;

use super::shapes::{Fan, Placement, Slide, SlideTail, Stamp};
use super::{
    Anchor, AttackTest, Chain, FirstSub, Keep, Kept, Resume, Stash, StashEnd, Target, TooLong, Trace,
    WalkScratch, WalkedPiece, Walker, changes_in_reading_order,
};
use crate::core::{self as code, Code, CodeSet, Coord, EMPTY, OFF};
use crate::engine::hash;
use crate::engine::meter::Meter;
use crate::engine::squares::{Squares, TALLY_BASE};
use crate::engine::successor::Successor;
use crate::program::{EntryCheck, Inst, Pc, RewriteId, SplitEntry, Write};

/// What a search does with a result.
pub(super) enum Sink<'f, 'g> {
    /// Stops at the first.
    Exists,
    /// Gives each to the caller, once.
    Collect(&'f mut (dyn FnMut(&Successor<'_>) -> ControlFlow<()> + 'g)),
    /// Keeps each, with the writes made since the change list was `base`
    /// long (and the traced squares since the path was `path_base` long).
    Stash {
        base: usize,
        path_base: usize,
        into: &'f mut Stash,
    },
    /// Stops at the first that changes the walk's target square.
    Changes,
    /// Counts each, once, that `keep` (if any) keeps, given its changes as
    /// (square, content) in square order.
    Count(&'f mut u64, Option<&'f mut Keep<'g>>),
}

/// One search in progress.
pub(super) struct Run<'a> {
    w: &'a Walker,
    base: &'a [Code],
    base_hash: u64,
    occupied: &'a [Squares],
    s: &'a mut WalkScratch,
    trace: Trace,
    /// The work the question may still do.
    meter: &'a Meter,
    /// Whether it ran out of them (and stopped).
    too_long: bool,
    /// The square a targeted walk asks about ([`Walker::changes_at`]).
    pub(super) find: Option<Target>,
    /// In a targeted walk, the squares read so far (every square: reads not
    /// tracked one by one); other walks do not track them.
    pub(super) reads: Cell<Squares>,
    /// The answer to `attacked` (none: it is false).
    pub(super) attacks: Option<&'a dyn AttackTest>,
    /// The hash of the changes made so far: the XOR of the old and the new
    /// square keys of each write, so over the squares that differ from
    /// the position.
    delta: u64,
    /// Whether a count keeps each result's changes to tell results with
    /// equal keys apart (else it stops at the first key seen twice).
    pub(super) exact: bool,
    /// Whether an optimistic count stopped at a key seen twice.
    pub(super) duplicate: bool,
    /// The squares where a bound piece can make a first rewrite
    /// ([`Walker::entry`]), once asked.
    entry_squares: Option<Squares>,
}

/// Where a walk goes next.
enum Flow {
    /// On from this instruction.
    Go(Pc),
    /// Back up: this path ends here.
    Dead,
    /// Stop the whole walk (the sink is satisfied, or the states ran out).
    Stop,
}

/// A choice point of a walk, on its explicit stack: what to take back when
/// the walk backs up to it, and the alternatives still to try.
#[derive(Clone, Debug)]
pub(super) enum Frame {
    /// The second branch of a split, once the first is done.
    Then(Pc),
    /// A step or a stamp made: the change log back to `len`, the trace and
    /// the top piece of interest as they were.
    Undo {
        len: u32,
        trace: Trace,
        top: WalkedPiece,
    },
    /// An unbind made: the trace as it was and the piece it took away.
    Rebind {
        saved: Option<WalkedPiece>,
        trace: Trace,
    },
    /// A bind: the squares still to bind, and whether one is bound now.
    Bind {
        squares: Squares,
        next: Pc,
        trace: Trace,
        bound: bool,
    },
    /// A slide: the stop to set the piece down at next, farthest first
    /// (none left below zero).
    Slide {
        k: i32,
        dx: i32,
        dy: i32,
        exit: Pc,
        len: u32,
        trace: Trace,
        top: WalkedPiece,
        moved: Code,
        over: Code,
    },
    /// A fan (the split at `pc`): the next of its shoots, and whether the
    /// last one's stamped piece is bound now.
    Fan {
        pc: Pc,
        shoot: u32,
        len: u32,
        trace: Trace,
        top: WalkedPiece,
        pushed: bool,
    },
    /// A rewrite of a chain made from the state the loop head `head` was
    /// at (the change log `len` long, the trace and the top piece of
    /// interest as they were): the chain's rewrites from `next` on are
    /// still to try there.
    Chain {
        head: Pc,
        next: u32,
        len: u32,
        trace: Trace,
        top: WalkedPiece,
    },
    /// A rewrite: the next alternative, match and choice to make, as the
    /// top of the scratch's cursors says.
    Rewrite,
    /// An ordered choice run in line: the next alternative to try, and
    /// whether one is under way (its [`Resume`] on the scratch's stack).
    InLine {
        id: u32,
        alt: u32,
        next: Pc,
        active: bool,
    },
    /// A result of the innermost in-line ordered choice went on: its
    /// [`Resume`] to put back on the stack.
    Resumed(Resume),
    /// An ordered choice whose results are stashed (the top of the
    /// scratch's open stashes): the next of them to go on from.
    Stashed {
        end: u32,
        from: u32,
        paths_from: u32,
        next: Pc,
        base: u32,
        path_base: u32,
        trace: Trace,
        top: Option<WalkedPiece>,
    },
}

/// Where a rewrite's matches and choices stand. The matches of the
/// alternative being tried are in the scratch's `places` from `first` to
/// `end`.
#[derive(Clone, Debug)]
pub(super) struct RewriteCursor {
    id: RewriteId,
    next: Pc,
    /// Of a placement: only the matches that write in these squares.
    only: Option<(Squares, Placement)>,
    /// In a walk that asks whether the target square changes, of a last
    /// write made while the target is as it was: only the matches that
    /// write the target (no other can change it), found by the target's
    /// offsets from each write instead of every square the anchor accepts.
    aim: Option<(i32, i32)>,
    /// The alternative being tried; its matches are found yet or not.
    alt: u32,
    found: bool,
    /// Its matches, in the scratch's `places`, and the one being tried.
    first: u32,
    place: u32,
    end: u32,
    /// The next choice of that match.
    choice: u32,
    /// Whether a choice is made now (and what to put back).
    made: bool,
    len: u32,
    trace: Trace,
    top: Option<WalkedPiece>,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        w: &'a Walker,
        base: &'a [Code],
        base_hash: u64,
        occupied: &'a [Squares],
        s: &'a mut WalkScratch,
        meter: &'a Meter,
        overlay: &[(u32, Code)],
    ) -> Run<'a> {
        s.overlay.clear();
        s.olds.clear();
        s.cur.clear();
        s.cur.extend_from_slice(base);
        if w.tally_slots > 0 {
            let len = (TALLY_BASE + w.tally_slots) as usize;
            if s.cur.len() < TALLY_BASE as usize {
                s.cur.resize(TALLY_BASE as usize, OFF);
            }
            if s.cur.len() < len {
                s.cur.resize(len, 0);
            }
        }
        s.pois.clear();
        s.path.clear();
        s.seen.clear();
        s.kept.clear();
        s.kept_changes.clear();
        s.resumes.clear();
        s.poi_places.clear();
        s.frames.clear();
        s.places.clear();
        s.stashes.append(&mut s.open_stashes);
        let mut run = Run {
            w,
            base,
            base_hash,
            occupied,
            s,
            trace: Trace::default(),
            meter,
            too_long: false,
            find: None,
            reads: Cell::new(0),
            attacks: None,
            delta: 0,
            exact: true,
            duplicate: false,
            entry_squares: None,
        };
        for &(at, code) in overlay {
            if at >= TALLY_BASE && at >= TALLY_BASE + w.tally_slots {
                // A box this program does not read.
                continue;
            }
            run.write(at, code);
        }
        run
    }

    /// Runs the program from its start; whether the sink stopped it.
    pub(super) fn finish(&mut self, sink: &mut Sink<'_, '_>) -> Result<bool, TooLong> {
        let found = self.level(0, self.w.prog.start, sink);
        if self.too_long { Err(TooLong) } else { Ok(found) }
    }

    /// Runs the (sub-)program from `start` as a search of its own at nesting `level`.
    fn level(&mut self, level: usize, start: Pc, sink: &mut Sink<'_, '_>) -> bool {
        if self.s.visited.len() <= level {
            self.s.visited.resize_with(level + 1, FxHashSet::default);
        }
        if !self.s.visited[level].is_empty() {
            self.s.visited[level].clear();
        }
        self.drive(level, start, sink)
    }

    /// Walks from `start` until every path is done (`false`) or the sink
    /// or the limit stops the walk (`true`); either way the walk's state is
    /// as it found it, and so is the stack of frames.
    fn drive(&mut self, level: usize, start: Pc, sink: &mut Sink<'_, '_>) -> bool {
        let base = self.s.frames.len();
        let mut flow = Flow::Go(start);
        loop {
            flow = match flow {
                Flow::Go(pc) => self.run_from(level, pc, sink),
                Flow::Dead => {
                    let top = self.s.frames.len();
                    if top == base {
                        return false;
                    }
                    // The commonest frames are resumed where they lie.
                    match self.s.frames[top - 1] {
                        Frame::Then(pc) => {
                            self.s.frames.pop();
                            Flow::Go(pc)
                        }
                        Frame::Undo { len, trace, top } => {
                            self.s.frames.pop();
                            self.undo_to(len as usize);
                            self.set_trace(trace);
                            self.set_top(top);
                            Flow::Dead
                        }
                        Frame::Slide {
                            ref mut k,
                            dx,
                            dy,
                            exit,
                            len,
                            trace,
                            top,
                            moved,
                            over,
                        } => {
                            let stop = *k;
                            *k -= 1;
                            self.undo_to(len as usize);
                            self.set_trace(trace);
                            self.set_top(top);
                            if stop < 0 {
                                self.s.frames.pop();
                                Flow::Dead
                            } else {
                                if stop > 0 {
                                    self.set_down(top, over, top.x + stop * dx, top.y + stop * dy, moved);
                                    for j in 1..=stop {
                                        let (x, y) = (top.x + j * dx, top.y + j * dy);
                                        self.moved_to((y * self.w.width + x) as u32);
                                    }
                                }
                                Flow::Go(exit)
                            }
                        }
                        Frame::Chain {
                            head,
                            next,
                            len,
                            trace,
                            top,
                        } => {
                            self.s.frames.pop();
                            self.resume_chain(head, next, len, trace, top)
                        }
                        Frame::Bind {
                            ref mut squares,
                            next,
                            trace,
                            ref mut bound,
                        } => {
                            let (left, was) = (*squares, *bound);
                            *squares = left & left.wrapping_sub(1);
                            *bound = true;
                            if was {
                                self.s.pois.pop();
                                self.set_trace(trace);
                            }
                            if left == 0 {
                                self.s.frames.pop();
                                Flow::Dead
                            } else {
                                let at = left.trailing_zeros();
                                self.bind_at(at);
                                Flow::Go(next)
                            }
                        }
                        _ => {
                            let frame = self.s.frames.pop().expect("a frame above the base");
                            self.resume(level, frame, sink)
                        }
                    }
                }
                Flow::Stop => {
                    while self.s.frames.len() > base {
                        let frame = self.s.frames.pop().expect("a frame above the base");
                        self.take_back(frame);
                    }
                    return true;
                }
            };
        }
    }

    /// Runs straight-line instructions from `pc` until the path ends or a
    /// frame takes over (pushed, then resumed by [`Run::drive`]): each
    /// instruction by the handler of its kind, which says where the path
    /// goes on ([`Flow::Go`]) or that it ends.
    fn run_from(&mut self, level: usize, mut pc: Pc, sink: &mut Sink<'_, '_>) -> Flow {
        loop {
            if let Some(flow) = self.arrive(level, pc) {
                return flow;
            }
            let flow = match self.w.prog.insts[pc as usize] {
                Inst::Jump { to } => Flow::Go(to),
                Inst::Split { first, second } => self.on_split(level, pc, first, second, sink),
                Inst::Bind { id, next } => self.on_bind(level, id, next),
                Inst::Unbind { next } => self.on_unbind(next),
                Inst::Rewrite { id, next } => self.on_rewrite(level, pc, id, next),
                Inst::Test { holds, id, next } => self.on_test(holds, id, next),
                Inst::Guard { holds, sub, next } => self.on_guard(level, holds, sub, next),
                Inst::Match => self.on_match(level, pc, sink),
                Inst::Ordered { id, next } => self.on_ordered(level, id, next),
                Inst::NoReply { next } => self.on_no_reply(next),
                Inst::Origin { next } => self.on_origin(next),
                Inst::Attacked { next } => self.on_attacked(next),
            };
            match flow {
                Flow::Go(next) => pc = next,
                flow => return flow,
            }
        }
    }

    /// What arriving at `pc` costs: the state charged to the question
    /// (`Some(Flow::Stop)` when the states ran out), and, where a visited
    /// set is kept, `Some(Flow::Dead)` when the state was met before.
    #[inline]
    fn arrive(&mut self, level: usize, pc: Pc) -> Option<Flow> {
        if self.w.visits.charge[pc as usize] && self.spent() {
            return Some(Flow::Stop);
        }
        if self.w.visits.visit[pc as usize] {
            // At nesting 0, a state with only the match ahead is one
            // result, which the results' own deduplication tells apart.
            if level > 0 || !self.w.visits.terminal[pc as usize] {
                let mut pois = self.trace.key();
                for (d, p) in self.s.pois.iter().enumerate() {
                    pois ^= hash::poi(d, p.x, p.y, p.code);
                }
                let key = (self.delta ^ hash::pc(pc), pois);
                if !self.s.visited[level].insert(key) {
                    return Some(Flow::Dead);
                }
            }
        }
        None
    }

    /// Whether a split is a chain, a slide or a fan the walk runs as one operation; else its branches, the second kept on a frame.
    #[inline]
    fn on_split(&mut self, level: usize, pc: Pc, first: Pc, second: Pc, sink: &mut Sink<'_, '_>) -> Flow {
        let w = self.w;
        if let Some(chain) = &w.shapes.chains[pc as usize]
            && let Some(&top) = self.s.pois.last()
        {
            // Each rewrite that matches, back here after it;
            // where none does, on past the guard.
            match self.chain_from(chain, pc, 0, top) {
                Flow::Go(next) => {
                    return Flow::Go(next);
                }
                flow => return flow,
            }
        }
        if let Some(slide) = &w.shapes.slides[pc as usize]
            && !self.s.pois.is_empty()
        {
            match self.start_slide(level, pc, slide, second, sink) {
                Flow::Go(next) => {
                    return Flow::Go(next);
                }
                flow => return flow,
            }
        }
        if let Some(fan) = &w.shapes.fans[pc as usize]
            && let Sink::Count(_, None) = sink
            && !self.exact
            && level == 0
            && self.find.is_none()
            && !self.s.pois.is_empty()
        {
            let alone = fan
                .codes
                .iter()
                .all(|&c| self.occupied.get(c as usize).is_some_and(|&s| s == 0))
                && (self.s.overlay.iter()).all(|&(at, c)| at >= TALLY_BASE || !fan.codes.contains(&c));
            if alone {
                if fan.keyless
                    && let Sink::Count(count, None) = sink
                {
                    return if self.fan_without_keys(fan, count) {
                        Flow::Stop
                    } else {
                        Flow::Dead
                    };
                }
                let top = *self.s.pois.last().expect("a piece of interest");
                self.s.frames.push(Frame::Fan {
                    pc,
                    shoot: 0,
                    len: self.s.overlay.len() as u32,
                    trace: self.trace,
                    top,
                    pushed: false,
                });
                return Flow::Dead;
            }
            if fan.keyless {
                // Counted fans and keyed results must not mix:
                // the count is made again, keeping changes.
                self.duplicate = true;
                return Flow::Stop;
            }
        }
        // Looking for a change of one square: leave paths that
        // cannot write it from where the piece of interest is.
        if let Some(t) = self.find
            && self.may_prune(level)
            && let [p] = self.s.pois.as_slice()
            && self.s.cur[t.at as usize] == t.before
            && !self.w.reach.split_reach[pc as usize].contains(t.x - p.x, t.y - p.y)
        {
            return Flow::Dead;
        }
        match self
            .w
            .prog
            .split_entry(pc, |checks| self.holds_around_poi(checks))
        {
            SplitEntry::Enter => {}
            SplitEntry::Past(past) => {
                return Flow::Go(past);
            }
            SplitEntry::Dead => return Flow::Dead,
        }
        // Asking only whether there is a result: a loop's exit
        // first, as the backtracker does.
        let (first, second) = if self.w.prog.loop_heads[pc as usize] && matches!(sink, Sink::Exists) {
            (second, first)
        } else {
            (first, second)
        };
        // The state is the same when the first branch is done.
        let then = self.holds_around_poi(&self.w.prog.entry[second as usize]);
        if !self.holds_around_poi(&self.w.prog.entry[first as usize]) {
            if !then {
                return Flow::Dead;
            }
            return Flow::Go(second);
        }
        if then {
            self.s.frames.push(Frame::Then(second));
        }
        Flow::Go(first)
    }

    /// Binds the first square a bind may take; a frame keeps the rest.
    #[inline]
    fn on_bind(&mut self, level: usize, id: crate::program::BindId, next: Pc) -> Flow {
        // The first square at once; the frame keeps the rest.
        let squares = self.bind_squares(level, id.index());
        if squares == 0 {
            return Flow::Dead;
        }
        let at = squares.trailing_zeros();
        self.s.frames.push(Frame::Bind {
            squares: squares & (squares - 1),
            next,
            trace: self.trace,
            bound: true,
        });
        self.bind_at(at);
        Flow::Go(next)
    }

    /// Unbinds the innermost piece of interest (where the outermost ended is the move's end); a frame binds it again on the way back.
    #[inline]
    fn on_unbind(&mut self, next: Pc) -> Flow {
        let (saved, trace) = (self.s.pois.pop(), self.trace);
        if let Some(p) = saved
            && self.s.pois.is_empty()
            && self.trace.id.to.is_none()
        {
            self.trace.id.to = Some(p.at);
        }
        self.s.frames.push(Frame::Rebind { saved, trace });
        Flow::Go(next)
    }

    /// Makes a rewrite: a stamp, a step, or one alternative at the piece at once; else its first choice, a frame making the others.
    #[inline]
    fn on_rewrite(&mut self, level: usize, pc: Pc, id: RewriteId, next: Pc) -> Flow {
        let w = self.w;
        if let Some(stamp) = &w.shapes.stamps[id.index()] {
            let Some((top, x, y)) = self.at_piece_and(&stamp.here, stamp.dx, stamp.dy, &stamp.onto) else {
                return Flow::Dead;
            };
            // Counted as the general rewrite counts.
            if !w.visits.charge[next as usize] && self.spent() {
                return Flow::Stop;
            }
            self.push_undo(top);
            self.put_stamp(stamp, top, x, y);
            // Another piece left where the piece of interest stands: it is that piece now.
            let poi = *self.s.pois.last().expect("a piece of interest");
            let now = self.s.cur[poi.at as usize];
            if now != poi.code && code::as_piece(now).is_some() {
                self.s.pois.last_mut().expect("a piece of interest").code = now;
                if self.s.pois.len() == 1 {
                    self.trace.id.became = Some(now);
                }
            }
            return Flow::Go(next);
        }
        if let Some(step) = &w.shapes.steps[id.index()] {
            let Some((top, x, y)) = self.at_piece_and(&step.from, step.dx, step.dy, &step.onto) else {
                return Flow::Dead;
            };
            // Counted as the general rewrite counts.
            if !w.visits.charge[next as usize] && self.spent() {
                return Flow::Stop;
            }
            self.push_undo(top);
            let to = self.set_down(top, step.behind, x, y, code::with_marks(top.code, step.marks));
            self.moved_to(to);
            return Flow::Go(next);
        }
        // One alternative at the piece of interest with one
        // choice: made at once, taken back by an undo frame.
        if let ([a], Anchor::Poi(check)) = (
            &w.prog.rewrites[id.index()].alternatives[..],
            &w.anchors[id.index()][0],
        ) && let [choice] = &a.choices[..]
            && let Some(&top) = self.s.pois.last()
        {
            let ch = &a.checks[*check];
            let (tx, ty) = (top.x - ch.dx, top.y - ch.dy);
            if !self.matches(id, 0, tx, ty) {
                return Flow::Dead;
            }
            if !w.visits.charge[next as usize] && self.spent() {
                return Flow::Stop;
            }
            self.push_undo(top);
            let boxes = a.tally_writes.first().map_or(&[][..], |t| &t[..]);
            self.make_choice(choice, boxes, tx, ty);
            return Flow::Go(next);
        }
        let only = self.placement_squares(pc);
        let aim = self
            .find
            .filter(|t| {
                w.last_write[id.index()] && self.may_prune(level) && self.s.cur[t.at as usize] == t.before
            })
            .map(|t| (t.x, t.y));
        let mut cursor = RewriteCursor {
            id,
            next,
            only,
            aim,
            alt: 0,
            found: false,
            first: self.s.places.len() as u32,
            place: 0,
            end: 0,
            choice: 0,
            made: false,
            len: self.s.overlay.len() as u32,
            trace: self.trace,
            top: self.s.pois.last().copied(),
        };
        // The first choice at once; the frame makes the others.
        match self.next_choice(&mut cursor) {
            Ok(true) => {
                self.s.cursors.push(cursor);
                self.s.frames.push(Frame::Rewrite);
                Flow::Go(next)
            }
            Ok(false) => {
                self.s.places.truncate(cursor.first as usize);
                Flow::Dead
            }
            Err(()) => {
                self.s.places.truncate(cursor.first as usize);
                Flow::Stop
            }
        }
    }

    /// A test of whether a rewrite matches somewhere (or where the piece stands on the board's shape).
    #[inline]
    fn on_test(&mut self, holds: bool, id: RewriteId, next: Pc) -> Flow {
        let found = match self.w.shapes.shape_tests.tests[id.index()] {
            Some(shape) => self.shape_test(shape, false),
            None => self.matches_somewhere(id),
        };
        if found != holds {
            return Flow::Dead;
        }
        Flow::Go(next)
    }

    /// A guard: by the board's shape, by square sets where they answer, else by a search of its sub-program.
    #[inline]
    fn on_guard(&mut self, level: usize, holds: bool, sub: crate::program::SubId, next: Pc) -> Flow {
        if let Some((shape, at_origin)) = self.w.shapes.shape_tests.guards[sub.index()] {
            if self.shape_test(shape, at_origin) != holds {
                return Flow::Dead;
            }
            return Flow::Go(next);
        }
        if let Some(plan) = &self.w.plans.test_plans[sub.index()]
            && self.s.overlay.is_empty()
        {
            // Nothing changed yet: the position's square sets answer.
            if self.find.is_some() {
                self.reads.set(Squares::MAX);
            }
            if plan.holds_on(self.occupied) != holds {
                return Flow::Dead;
            }
            return Flow::Go(next);
        }
        if let Some(found) = self.poi_plan_answer(sub.index()) {
            if found != holds {
                return Flow::Dead;
            }
            return Flow::Go(next);
        }
        let body = self.w.prog.subs[sub.index()];
        let (overlay, trace) = (self.s.overlay.len(), self.trace);
        // Every step of the sub-search puts the pieces of
        // interest back as it found them; the top is kept in case.
        let (depth, top) = (self.s.pois.len(), self.s.pois.last().copied());
        let found = self.level(level + 1, body, &mut Sink::Exists);
        self.undo_to(overlay);
        self.s.pois.truncate(depth);
        if let (Some(p), Some(t)) = (top, self.s.pois.last_mut()) {
            *t = p;
        }
        self.set_trace(trace);
        if self.too_long {
            return Flow::Stop;
        }
        if found != holds {
            return Flow::Dead;
        }
        Flow::Go(next)
    }

    /// The end of a path: a result, or the end of an ordered choice's alternative running in line.
    #[inline]
    fn on_match(&mut self, level: usize, pc: Pc, sink: &mut Sink<'_, '_>) -> Flow {
        if let Some(r) = self.s.resumes.last()
            && r.end == pc
            && r.level == level
        {
            // A result of the alternative of the innermost
            // ordered choice running in line: on after the choice.
            let mut r = self.s.resumes.pop().expect("an ordered choice in line");
            r.taken += 1;
            let next = r.next;
            self.s.frames.push(Frame::Resumed(r));
            return Flow::Go(next);
        }
        if self.record(level, sink) {
            Flow::Stop
        } else {
            Flow::Dead
        }
    }

    /// An ordered choice: shape tests, a first match, in line, or its alternatives in turn.
    #[inline]
    fn on_ordered(&mut self, level: usize, id: crate::program::ListId, next: Pc) -> Flow {
        if let Some(tests) = &self.w.shapes.shape_tests.ordered[id.index()] {
            // Tests only: the state as it is, once, if one holds.
            if !tests
                .iter()
                .any(|&(shape, at_origin)| self.shape_test(shape, at_origin))
            {
                return Flow::Dead;
            }
            return Flow::Go(next);
        }
        if let Some(subs) = &self.w.shapes.first_match[id.index()]
            && let Some(&top) = self.s.pois.last()
        {
            // At most one result: the first rewrite that matches,
            // made at once, or on past `nil`.
            return match self.first_match(subs, top) {
                Some(true) if self.spent() => Flow::Stop,
                Some(_) => Flow::Go(next),
                None => Flow::Dead,
            };
        }
        if self.w.shapes.in_line[id.index()].is_some() {
            self.s.frames.push(Frame::InLine {
                id: id.index() as u32,
                alt: 0,
                next,
                active: false,
            });
            return Flow::Dead;
        }
        self.ordered(level, id.index(), next)
    }

    /// `no_reply`: whether the next side has no legal move after the changes made.
    #[inline]
    fn on_no_reply(&mut self, next: Pc) -> Flow {
        // Without the other sides (inside an attack test or a
        // reply), the next side is taken to have a reply.
        let Some(attacks) = self.attacks else {
            return Flow::Dead;
        };
        match attacks.no_reply(self.base, &self.changes_made()) {
            Ok(true) => Flow::Go(next),
            Ok(false) => Flow::Dead,
            Err(_) => {
                self.too_long = true;
                Flow::Stop
            }
        }
    }

    /// `%from:`: the square the piece of interest was bound on becomes the piece of interest, if the piece left it empty.
    #[inline]
    fn on_origin(&mut self, next: Pc) -> Flow {
        // The square the piece of interest was bound on becomes
        // the piece of interest (a bind of that square alone),
        // if the piece left it empty.
        let from = (self.s.pois.last())
            .expect("the compiler checked a piece of interest is bound")
            .from;
        let (x, y) = self.xy(from as u32);
        let code = self.read(x, y);
        if code != EMPTY {
            return Flow::Dead;
        }
        self.s.frames.push(Frame::Bind {
            squares: 0,
            next,
            trace: self.trace,
            bound: true,
        });
        self.s.pois.push(WalkedPiece {
            at: from as u32,
            x,
            y,
            code,
            from,
        });
        Flow::Go(next)
    }

    /// `attacked`: whether another side can change the piece of interest's square after the changes made.
    #[inline]
    fn on_attacked(&mut self, next: Pc) -> Flow {
        let Some(attacks) = self.attacks else {
            return Flow::Dead;
        };
        let p = *self
            .s
            .pois
            .last()
            .expect("the compiler checked a piece of interest is bound");
        match attacks.attacked(self.base, self.occupied, &self.changes_made(), p.at, p.code) {
            Ok(true) => Flow::Go(next),
            Ok(false) => Flow::Dead,
            Err(_) => {
                self.too_long = true;
                Flow::Stop
            }
        }
    }
}
