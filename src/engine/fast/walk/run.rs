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

use std::cell::Cell;
use std::ops::ControlFlow;

use rustc_hash::FxHashSet;

use super::shapes::{Fan, Placement, Slide, SlideTail, Stamp};
use super::{
    Anchor, AttackTest, Keep, Kept, Poi, Resume, Stash, StashEnd, Target, TooLong, Trace, WalkScratch, Walker,
};
use crate::core::{self as code, Change, Code, CodeSet, Content, Coord, OFF};
use crate::engine::fast::Squares;
use crate::engine::{Meter, Successor, hash};
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
    Undo { len: u32, trace: Trace, top: Poi },
    /// An unbind made: the trace as it was and the piece it took away.
    Rebind { saved: Option<Poi>, trace: Trace },
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
        top: Poi,
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
        top: Poi,
        pushed: bool,
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
        top: Option<Poi>,
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
    top: Option<Poi>,
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
        };
        for &(at, code) in overlay {
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
                                let (x, y) = self.xy(at);
                                let code = self.read(x, y);
                                if self.s.pois.is_empty() && self.trace.from.is_none() {
                                    self.trace.from = Some(at);
                                }
                                self.s.pois.push(Poi { at, x, y, code });
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
    /// frame takes over (pushed, then resumed by [`Run::drive`]).
    fn run_from(&mut self, level: usize, mut pc: Pc, sink: &mut Sink<'_, '_>) -> Flow {
        let prog = &self.w.prog;
        loop {
            if self.w.charge[pc as usize] && self.spent() {
                return Flow::Stop;
            }
            if self.w.visit[pc as usize] {
                // At nesting 0, a state with only the match ahead is one
                // result, which the results' own deduplication tells apart.
                if level > 0 || !self.w.terminal[pc as usize] {
                    let mut pois = self.trace.key();
                    for (d, p) in self.s.pois.iter().enumerate() {
                        pois ^= hash::poi(d, p.x, p.y, p.code);
                    }
                    let key = (self.delta ^ hash::pc(pc), pois);
                    if !self.s.visited[level].insert(key) {
                        return Flow::Dead;
                    }
                }
            }
            match prog.insts[pc as usize] {
                Inst::Jump { to } => pc = to,
                Inst::Split { first, second } => {
                    let w = self.w;
                    if let Some(slide) = &w.slides[pc as usize]
                        && !self.s.pois.is_empty()
                    {
                        match self.start_slide(level, pc, slide, second, sink) {
                            Flow::Go(next) => {
                                pc = next;
                                continue;
                            }
                            flow => return flow,
                        }
                    }
                    if let Some(fan) = &w.fans[pc as usize]
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
                            && self.s.overlay.iter().all(|&(_, c)| !fan.codes.contains(&c));
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
                        && !self.w.split_reach[pc as usize].contains(t.x - p.x, t.y - p.y)
                    {
                        return Flow::Dead;
                    }
                    match prog.split_entry(pc, |checks| self.holds_around_poi(checks)) {
                        SplitEntry::Enter => {}
                        SplitEntry::Past(past) => {
                            pc = past;
                            continue;
                        }
                        SplitEntry::Dead => return Flow::Dead,
                    }
                    // Asking only whether there is a result: a loop's exit
                    // first, as the backtracker does.
                    let (first, second) = if prog.loop_heads[pc as usize] && matches!(sink, Sink::Exists) {
                        (second, first)
                    } else {
                        (first, second)
                    };
                    // The state is the same when the first branch is done.
                    let then = self.holds_around_poi(&prog.entry[second as usize]);
                    if !self.holds_around_poi(&prog.entry[first as usize]) {
                        if !then {
                            return Flow::Dead;
                        }
                        pc = second;
                        continue;
                    }
                    if then {
                        self.s.frames.push(Frame::Then(second));
                    }
                    pc = first;
                }
                Inst::Bind { id, next } => {
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
                    let (x, y) = self.xy(at);
                    let code = self.read(x, y);
                    if self.s.pois.is_empty() && self.trace.from.is_none() {
                        self.trace.from = Some(at);
                    }
                    self.s.pois.push(Poi { at, x, y, code });
                    pc = next;
                }
                Inst::Unbind { next } => {
                    let (saved, trace) = (self.s.pois.pop(), self.trace);
                    if let Some(p) = saved
                        && self.s.pois.is_empty()
                        && self.trace.to.is_none()
                    {
                        self.trace.to = Some(p.at);
                    }
                    self.s.frames.push(Frame::Rebind { saved, trace });
                    pc = next;
                }
                Inst::Rewrite { id, next } => {
                    let w = self.w;
                    if let Some(stamp) = &w.stamps[id.index()] {
                        let Some((top, x, y)) =
                            self.at_piece_and(&stamp.here, stamp.dx, stamp.dy, &stamp.onto)
                        else {
                            return Flow::Dead;
                        };
                        // Counted as the general rewrite counts.
                        if !w.charge[next as usize] && self.spent() {
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
                                self.trace.became = Some(now);
                            }
                        }
                        pc = next;
                        continue;
                    }
                    if let Some(step) = &w.steps[id.index()] {
                        let Some((top, x, y)) = self.at_piece_and(&step.from, step.dx, step.dy, &step.onto)
                        else {
                            return Flow::Dead;
                        };
                        // Counted as the general rewrite counts.
                        if !w.charge[next as usize] && self.spent() {
                            return Flow::Stop;
                        }
                        self.push_undo(top);
                        let to =
                            self.set_down(top, step.behind, x, y, code::with_marks(top.code, step.marks));
                        self.moved_to(to);
                        pc = next;
                        continue;
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
                        if !w.charge[next as usize] && self.spent() {
                            return Flow::Stop;
                        }
                        self.push_undo(top);
                        self.make_choice(choice, tx, ty);
                        pc = next;
                        continue;
                    }
                    let only = self.placement_squares(pc);
                    let mut cursor = RewriteCursor {
                        id,
                        next,
                        only,
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
                            pc = next;
                        }
                        Ok(false) => {
                            self.s.places.truncate(cursor.first as usize);
                            return Flow::Dead;
                        }
                        Err(()) => {
                            self.s.places.truncate(cursor.first as usize);
                            return Flow::Stop;
                        }
                    }
                }
                Inst::Test { holds, id, next } => {
                    if self.matches_somewhere(id) != holds {
                        return Flow::Dead;
                    }
                    pc = next;
                }
                Inst::Guard { holds, sub, next } => {
                    if let Some(plan) = &self.w.test_plans[sub.index()]
                        && self.s.overlay.is_empty()
                    {
                        // Nothing changed yet: the position's square sets answer.
                        if self.find.is_some() {
                            self.reads.set(Squares::MAX);
                        }
                        if plan.holds_on(self.occupied) != holds {
                            return Flow::Dead;
                        }
                        pc = next;
                        continue;
                    }
                    if self.cannot_match_at_poi(sub.index()) {
                        if holds {
                            return Flow::Dead;
                        }
                        pc = next;
                        continue;
                    }
                    let body = prog.subs[sub.index()];
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
                    pc = next;
                }
                Inst::Match => {
                    if let Some(r) = self.s.resumes.last()
                        && r.end == pc
                        && r.level == level
                    {
                        // A result of the alternative of the innermost
                        // ordered choice running in line: on after the choice.
                        let mut r = self.s.resumes.pop().expect("an ordered choice in line");
                        r.taken += 1;
                        pc = r.next;
                        self.s.frames.push(Frame::Resumed(r));
                        continue;
                    }
                    return if self.record(level, sink) {
                        Flow::Stop
                    } else {
                        Flow::Dead
                    };
                }
                Inst::Ordered { id, next } => {
                    if self.w.in_line[id.index()].is_some() {
                        self.s.frames.push(Frame::InLine {
                            id: id.index() as u32,
                            alt: 0,
                            next,
                            active: false,
                        });
                        return Flow::Dead;
                    }
                    match self.ordered(level, id.index(), next) {
                        Flow::Go(at) => pc = at,
                        flow => return flow,
                    }
                }
                Inst::NoReply { .. } => unreachable!("a walker declines `no_reply`"),
                Inst::Origin { .. } => unreachable!("a walker declines `%from:`"),
                Inst::Attacked { next } => {
                    let Some(attacks) = self.attacks else {
                        return Flow::Dead;
                    };
                    let p = *self
                        .s
                        .pois
                        .last()
                        .expect("the compiler checked a piece of interest is bound");
                    // A long walk's log says more than the board: its changes alone.
                    let compact: Vec<(u32, Code)>;
                    let overlay = if self.s.overlay.len() > self.s.cur.len() {
                        let mut changes = Vec::new();
                        self.each_change(|at, new| changes.push((at, new)));
                        compact = changes;
                        &compact[..]
                    } else {
                        &self.s.overlay[..]
                    };
                    match attacks.attacked(self.base, self.occupied, overlay, p.at, p.code) {
                        Ok(true) => pc = next,
                        Ok(false) => return Flow::Dead,
                        Err(_) => {
                            self.too_long = true;
                            return Flow::Stop;
                        }
                    }
                }
            }
        }
    }

    /// Whether a targeted walk ([`Walker::changes_at`]) may leave paths that
    /// cannot change its square: at nesting 0, outside every ordered choice
    /// run in line (whether an alternative has a result decides whether the
    /// next runs, wherever its results write).
    #[inline(always)]
    fn may_prune(&self, level: usize) -> bool {
        level == 0 && self.s.resumes.is_empty()
    }

    /// Pushes the frame that takes back a step or a stamp made now from
    /// the piece of interest `top`.
    #[inline(always)]
    fn push_undo(&mut self, top: Poi) {
        self.s.frames.push(Frame::Undo {
            len: self.s.overlay.len() as u32,
            trace: self.trace,
            top,
        });
    }

    /// Puts the top piece of interest back to `top`.
    #[inline(always)]
    fn set_top(&mut self, top: Poi) {
        *self.s.pois.last_mut().expect("a piece of interest") = top;
    }

    /// Takes back what the path did since `frame` was pushed, as
    /// [`Run::resume`] does, without trying its next alternative.
    fn take_back(&mut self, frame: Frame) {
        match frame {
            Frame::Then(_) => {}
            Frame::Undo { len, trace, top } | Frame::Slide { len, trace, top, .. } => {
                self.undo_to(len as usize);
                self.set_trace(trace);
                self.set_top(top);
            }
            Frame::Rebind { saved, trace } => {
                self.set_trace(trace);
                if let Some(p) = saved {
                    self.s.pois.push(p);
                }
            }
            Frame::Bind { trace, bound, .. } => {
                if bound {
                    self.s.pois.pop();
                    self.set_trace(trace);
                }
            }
            Frame::Fan {
                len,
                trace,
                top,
                pushed,
                ..
            } => {
                if pushed {
                    self.s.pois.pop();
                    self.undo_to(len as usize);
                    self.set_trace(trace);
                    self.set_top(top);
                }
            }
            Frame::Rewrite => {
                let c = self.s.cursors.pop().expect("the cursor of the frame");
                self.take_back_choice(&c);
                self.s.places.truncate(c.first as usize);
            }
            Frame::InLine { active, .. } => {
                if active {
                    self.s.resumes.pop();
                }
            }
            Frame::Resumed(r) => self.s.resumes.push(r),
            Frame::Stashed { base, trace, top, .. } => self.close_stash(base, trace, top),
        }
    }

    /// Takes back the choice of a rewrite made now, if one is.
    #[inline(always)]
    fn take_back_choice(&mut self, c: &RewriteCursor) {
        if c.made {
            self.undo_to(c.len as usize);
            self.set_trace(c.trace);
            if let (Some(p), Some(t)) = (c.top, self.s.pois.last_mut()) {
                *t = p;
            }
        }
    }

    /// Backs up to `frame`: takes back what the path did since it was
    /// pushed and tries its next alternative (pushing the frame again if
    /// more are left).
    fn resume(&mut self, level: usize, frame: Frame, sink: &mut Sink<'_, '_>) -> Flow {
        match frame {
            Frame::Then(pc) => Flow::Go(pc),
            Frame::Undo { .. } | Frame::Rebind { .. } | Frame::Resumed(_) => {
                self.take_back(frame);
                Flow::Dead
            }
            Frame::Bind {
                mut squares,
                next,
                trace,
                bound,
            } => {
                if bound {
                    self.s.pois.pop();
                    self.set_trace(trace);
                }
                if squares == 0 {
                    return Flow::Dead;
                }
                let at = squares.trailing_zeros();
                squares &= squares - 1;
                let (x, y) = self.xy(at);
                let code = self.read(x, y);
                if self.s.pois.is_empty() && self.trace.from.is_none() {
                    self.trace.from = Some(at);
                }
                self.s.pois.push(Poi { at, x, y, code });
                self.s.frames.push(Frame::Bind {
                    squares,
                    next,
                    trace,
                    bound: true,
                });
                Flow::Go(next)
            }
            Frame::Slide {
                k,
                dx,
                dy,
                exit,
                len,
                trace,
                top,
                moved,
                over,
            } => {
                self.undo_to(len as usize);
                self.set_trace(trace);
                self.set_top(top);
                if k < 0 {
                    return Flow::Dead;
                }
                if k > 0 {
                    self.set_down(top, over, top.x + k * dx, top.y + k * dy, moved);
                    for j in 1..=k {
                        let (x, y) = (top.x + j * dx, top.y + j * dy);
                        self.moved_to((y * self.w.width + x) as u32);
                    }
                }
                self.s.frames.push(Frame::Slide {
                    k: k - 1,
                    dx,
                    dy,
                    exit,
                    len,
                    trace,
                    top,
                    moved,
                    over,
                });
                Flow::Go(exit)
            }
            Frame::Fan {
                pc,
                shoot,
                len,
                trace,
                top,
                pushed,
            } => {
                if pushed {
                    self.s.pois.pop();
                    self.undo_to(len as usize);
                    self.set_trace(trace);
                    self.set_top(top);
                }
                let w = self.w;
                let fan = w.fans[pc as usize].as_ref().expect("a fan");
                for (i, shoot) in fan.shoots.iter().enumerate().skip(shoot as usize) {
                    let stamp = w.stamps[shoot.stamp.index()].as_ref().expect("a fan's stamp");
                    let Some((top, x, y)) = self.at_piece_and(&stamp.here, stamp.dx, stamp.dy, &stamp.onto)
                    else {
                        continue;
                    };
                    // The stamp's state, as the general rewrite counts it.
                    if self.spent() {
                        return Flow::Stop;
                    }
                    let at = self.put_stamp(stamp, top, x, y);
                    // The bind finds the stamped square alone.
                    self.s.pois.push(Poi {
                        at,
                        x,
                        y,
                        code: stamp.code,
                    });
                    self.s.frames.push(Frame::Fan {
                        pc,
                        shoot: i as u32 + 1,
                        len,
                        trace,
                        top,
                        pushed: true,
                    });
                    let slide = w.slides[shoot.head as usize].as_ref().expect("a fan's slide");
                    return self.start_slide(level, shoot.head, slide, shoot.exit, sink);
                }
                Flow::Dead
            }
            Frame::Rewrite => {
                let mut c = self.s.cursors.pop().expect("the cursor of the frame");
                self.take_back_choice(&c);
                c.made = false;
                match self.next_choice(&mut c) {
                    Ok(true) => {
                        let next = c.next;
                        self.s.cursors.push(c);
                        self.s.frames.push(Frame::Rewrite);
                        Flow::Go(next)
                    }
                    Ok(false) => {
                        self.s.places.truncate(c.first as usize);
                        Flow::Dead
                    }
                    Err(()) => {
                        self.s.places.truncate(c.first as usize);
                        Flow::Stop
                    }
                }
            }
            Frame::InLine {
                id,
                alt,
                next,
                active,
            } => {
                if active {
                    let r = self.s.resumes.pop().expect("the resume pushed");
                    if r.taken > 0 {
                        // An alternative had results: the choice is made.
                        return Flow::Dead;
                    }
                }
                let (prog, w) = (&self.w.prog, self.w);
                let ends = w.in_line[id as usize]
                    .as_deref()
                    .expect("an ordered choice run in line");
                let subs = &prog.ordered[id as usize];
                for i in alt as usize..subs.len() {
                    let start = prog.subs[subs[i].index()];
                    let end = ends[i];
                    if start == end {
                        // `nil`, and no alternative before it had a result.
                        return Flow::Go(next);
                    }
                    if !self.holds_around_poi(&prog.entry[start as usize]) {
                        continue;
                    }
                    self.s.resumes.push(Resume {
                        end,
                        level,
                        next,
                        taken: 0,
                    });
                    self.s.frames.push(Frame::InLine {
                        id,
                        alt: i as u32 + 1,
                        next,
                        active: true,
                    });
                    return Flow::Go(start);
                }
                Flow::Dead
            }
            Frame::Stashed {
                end,
                from,
                paths_from,
                next,
                base,
                path_base,
                trace,
                top,
            } => {
                self.undo_to(base as usize);
                let stash = self.s.open_stashes.pop().expect("the stash of the frame");
                let Some(e) = stash.ends.get(end as usize).copied() else {
                    self.s.open_stashes.push(stash);
                    self.close_stash(base, trace, top);
                    return Flow::Dead;
                };
                for &(at, code) in &stash.writes[from as usize..e.writes as usize] {
                    self.write(at, code);
                }
                self.s.path.truncate(path_base as usize);
                self.s
                    .path
                    .extend_from_slice(&stash.paths[paths_from as usize..e.paths as usize]);
                self.trace = e.trace;
                if let (Some(p), Some(t)) = (e.poi, self.s.pois.last_mut()) {
                    *t = p;
                }
                self.s.open_stashes.push(stash);
                self.s.frames.push(Frame::Stashed {
                    end: end + 1,
                    from: e.writes,
                    paths_from: e.paths,
                    next,
                    base,
                    path_base,
                    trace,
                    top,
                });
                Flow::Go(next)
            }
        }
    }

    /// Makes the next choice of a rewrite (the cursor `c`, nothing made):
    /// `Ok(true)` when one is made, `Ok(false)` when none is left, `Err`
    /// when the states ran out.
    fn next_choice(&mut self, c: &mut RewriteCursor) -> Result<bool, ()> {
        let w = self.w;
        let rewrite = &w.prog.rewrites[c.id.index()];
        loop {
            let Some(a) = rewrite.alternatives.get(c.alt as usize) else {
                return Ok(false);
            };
            if !c.found {
                // The matches of this alternative, on the state as it is.
                self.s.places.truncate(c.first as usize);
                let (id, alt) = (c.id, c.alt as usize);
                if let Anchor::Poi(check) = w.anchors[id.index()][alt] {
                    // One place to try: where the piece of interest is.
                    if let Some(top) = self.s.pois.last() {
                        let ch = &a.checks[check];
                        let (tx, ty) = (top.x - ch.dx, top.y - ch.dy);
                        if self.matches(id, alt, tx, ty) {
                            self.s.places.push((tx, ty));
                        }
                    }
                } else {
                    let mut found: smallvec::SmallVec<[(i32, i32); 8]> = smallvec::SmallVec::new();
                    self.places(id, alt, |run, tx, ty| {
                        if run.matches(id, alt, tx, ty) {
                            found.push((tx, ty));
                        }
                        false
                    });
                    for (tx, ty) in found {
                        if let Some((squares, p)) = c.only
                            && squares >> ((ty + p.dy) * w.width + tx + p.dx) & 1 == 0
                        {
                            continue;
                        }
                        self.s.places.push((tx, ty));
                    }
                }
                c.found = true;
                c.place = c.first;
                c.end = self.s.places.len() as u32;
                c.choice = 0;
            }
            if c.place >= c.end {
                c.alt += 1;
                c.found = false;
                continue;
            }
            let Some(choice) = a.choices.get(c.choice as usize) else {
                c.place += 1;
                c.choice = 0;
                continue;
            };
            c.choice += 1;
            // Counted as the backtracker counts: a state reached without
            // a visited-set check counts too.
            if !w.charge[c.next as usize] && self.spent() {
                return Err(());
            }
            let (tx, ty) = self.s.places[c.place as usize];
            c.len = self.s.overlay.len() as u32;
            c.trace = self.trace;
            c.top = self.s.pois.last().copied();
            c.made = true;
            self.make_choice(choice, tx, ty);
            return Ok(true);
        }
    }

    /// Makes the writes of `choice` under the translation `(tx, ty)`.
    #[inline(always)]
    fn make_choice(&mut self, choice: &[crate::program::SquareWrite], tx: i32, ty: i32) {
        let w = self.w;
        {
            for sw in choice.iter() {
                let (x, y) = (tx + sw.dx, ty + sw.dy);
                let at = (y * w.width + x) as u32;
                let code = match sw.write {
                    Write::Code(code) => code,
                    Write::Poi(marks) => {
                        let p = self.s.pois.last_mut().expect("anchored at a piece of interest");
                        p.code = code::with_marks(p.code, marks);
                        let moved = p.at != at;
                        (p.at, p.x, p.y) = (at, x, y);
                        let code = p.code;
                        if moved {
                            self.moved_to(at);
                        }
                        code
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
        }
    }

    /// The squares bind `id` binds now, in turn.
    fn bind_squares(&mut self, level: usize, id: usize) -> Squares {
        let reads = self.reads.get();
        let mut squares = self.squares_holding(self.w.prog.binds[id].iter().copied(), &self.w.binds[id]);
        if let Some(t) = self.find
            && self.may_prune(level)
            && self.s.pois.is_empty()
            && self.s.cur[t.at as usize] == t.before
        {
            // Only the pieces that could reach the target; which squares
            // hold them is the caller's to watch (`may_bind_anew`).
            squares &= self.w.suspects[id][t.at as usize];
            self.reads.set(reads);
        }
        squares
    }

    /// Starts slide loop `head`: the piece of interest set down at each
    /// square it can reach along the ray, farthest first (the order of the
    /// loop's own walk), going on at `exit` from each.
    fn start_slide(
        &mut self,
        level: usize,
        head: Pc,
        slide: &Slide,
        exit: Pc,
        sink: &mut Sink<'_, '_>,
    ) -> Flow {
        let top = *self.s.pois.last().expect("a piece of interest");
        let step = &slide.step;
        let at = |k: i32| (top.x + k * step.dx, top.y + k * step.dy);
        // The loop's rewrite finds the piece on its square (or none at all).
        let mut n = 0;
        let here = self.read(top.x, top.y);
        if here != top.code && !step.from.contains(here) {
            return Flow::Go(exit);
        }
        while {
            let (x, y) = at(n + 1);
            self.read(x, y) == slide.over
        } {
            n += 1;
        }
        // A targeted walk gives up where the target is out of the loop's reach.
        if let Some(t) = self.find
            && self.may_prune(level)
            && self.s.pois.len() == 1
            && self.s.cur[t.at as usize] == t.before
        {
            let reach = &self.w.split_reach[head as usize];
            if let Some(k) = (0..=n).find(|&k| {
                let (x, y) = at(k);
                !reach.contains(t.x - x, t.y - y)
            }) {
                if k == 0 {
                    return Flow::Dead;
                }
                n = k - 1;
            }
        }
        // One state per step, as the loop counts them.
        if !self.meter.charge_many(n as u64) {
            self.too_long = true;
            return Flow::Stop;
        }
        let moved = code::with_marks(top.code, step.marks);
        // Counting, where each stop ends the move the same way: each stop's
        // result by its key alone.
        if let Sink::Count(count, None) = sink
            && !self.exact
            && level == 0
            && self.find.is_none()
            && let Some(tail) = &self.w.slide_tails[head as usize]
            && self.meter.charge_many((n as u64 + 1) * tail.rewrites)
        {
            return if self.count_stops(top, here, moved, n, slide, tail, count) {
                Flow::Stop
            } else {
                Flow::Dead
            };
        }
        // The farthest stop at once; the frame makes the others.
        self.s.frames.push(Frame::Slide {
            k: n - 1,
            dx: step.dx,
            dy: step.dy,
            exit,
            len: self.s.overlay.len() as u32,
            trace: self.trace,
            top,
            moved,
            over: slide.over,
        });
        if n > 0 {
            let (x, y) = at(n);
            self.set_down(top, slide.over, x, y, moved);
            for j in 1..=n {
                let (x, y) = at(j);
                self.moved_to((y * self.w.width + x) as u32);
            }
        }
        Flow::Go(exit)
    }

    /// Runs the alternatives of ordered choice `id` as nested walks until
    /// one has results, stashes them, and pushes the frame that goes on at
    /// `next` from each (or goes on at once from a `nil` alternative).
    fn ordered(&mut self, level: usize, id: usize, next: Pc) -> Flow {
        let prog = &self.w.prog;
        let mut stash = self.s.stashes.pop().unwrap_or_default();
        stash.writes.clear();
        stash.paths.clear();
        stash.ends.clear();
        let base = self.s.overlay.len();
        let trace = self.trace;
        let path_base = self.s.path.len();
        let top = self.s.pois.last().copied();
        for sub in prog.ordered[id].iter() {
            let start = prog.subs[sub.index()];
            if matches!(prog.insts[start as usize], Inst::Match) {
                // `nil`, and no alternative before it had a result: the
                // state as it is is the one result.
                self.s.stashes.push(stash);
                return Flow::Go(next);
            }
            if !self.holds_around_poi(&prog.entry[start as usize]) {
                continue;
            }
            self.level(
                level + 1,
                start,
                &mut Sink::Stash {
                    base,
                    path_base,
                    into: &mut stash,
                },
            );
            if self.too_long || !stash.ends.is_empty() {
                break;
            }
        }
        self.undo_to(base);
        self.set_trace(trace);
        if let (Some(p), Some(t)) = (top, self.s.pois.last_mut()) {
            *t = p;
        }
        if self.too_long {
            self.s.stashes.push(stash);
            return Flow::Stop;
        }
        self.s.open_stashes.push(stash);
        self.s.frames.push(Frame::Stashed {
            end: 0,
            from: 0,
            paths_from: 0,
            next,
            base: base as u32,
            path_base: path_base as u32,
            trace,
            top,
        });
        Flow::Dead
    }

    /// Puts the state back as an ordered choice found it, and its stash
    /// (the top open one) back among the spares.
    fn close_stash(&mut self, base: u32, trace: Trace, top: Option<Poi>) {
        self.undo_to(base as usize);
        self.set_trace(trace);
        if let (Some(p), Some(t)) = (top, self.s.pois.last_mut()) {
            *t = p;
        }
        let stash = self.s.open_stashes.pop().expect("the stash of the frame");
        self.s.stashes.push(stash);
    }

    /// Whether the squares around the piece of interest hold what `checks`
    /// say (what every path from some instruction checks first).
    #[inline(always)]
    fn holds_around_poi(&self, checks: &[EntryCheck]) -> bool {
        let Some(p) = self.s.pois.last() else {
            return true;
        };
        checks
            .iter()
            .all(|c| c.accepts.contains(self.read(p.x + c.dx, p.y + c.dy)))
    }

    /// Counts one state; `true` (and the search stops) past the bound.
    #[inline(always)]
    fn spent(&mut self) -> bool {
        if !self.meter.charge_many(1) {
            self.too_long = true;
            return true;
        }
        false
    }

    /// What square `(x, y)` holds now.
    #[inline(always)]
    pub(super) fn read(&self, x: i32, y: i32) -> Code {
        if x < 0 || y < 0 || x >= self.w.width || y >= self.w.height {
            return OFF;
        }
        let i = (y * self.w.width + x) as u32;
        if self.find.is_some() {
            self.reads.set(self.reads.get() | 1 << i);
        }
        self.s.cur[i as usize]
    }

    /// Puts the trace back as it was (the traced path back to its length).
    #[inline(always)]
    fn set_trace(&mut self, trace: Trace) {
        self.trace = trace;
        self.s.path.truncate(trace.path as usize);
    }

    /// Notes that the outermost piece of interest moved to `at`, when tracing.
    #[inline(always)]
    fn moved_to(&mut self, at: u32) {
        if self.s.tracing && self.s.pois.len() == 1 {
            self.s.path.push(at);
            self.trace.path = self.s.path.len() as u32;
        }
    }

    /// Takes back the changes made after the first `len`.
    #[inline(always)]
    fn undo_to(&mut self, len: usize) {
        while self.s.overlay.len() > len {
            let (at, _) = self.s.overlay.pop().expect("a change to take back");
            let (old, delta) = self.s.olds.pop().expect("what it held");
            self.s.cur[at as usize] = old;
            self.delta = delta;
        }
    }

    /// Calls `each` with every square the changes made now leave different
    /// from the position, once, and what it holds (in the order first
    /// written).
    #[inline(always)]
    fn each_change(&self, mut each: impl FnMut(u32, Code)) {
        if self.s.overlay.len() > self.s.cur.len() {
            // A long walk: the board is shorter than the log.
            for (at, (&old, &new)) in self.base.iter().zip(&self.s.cur).enumerate() {
                if old != new {
                    each(at as u32, new);
                }
            }
            return;
        }
        let mut seen: Squares = 0;
        for &(at, _) in &self.s.overlay {
            let bit: Squares = 1 << at;
            if seen & bit != 0 {
                continue;
            }
            seen |= bit;
            let (old, new) = (self.base[at as usize], self.s.cur[at as usize]);
            if old != new {
                each(at, new);
            }
        }
    }

    #[inline(always)]
    pub(super) fn xy(&self, at: u32) -> (i32, i32) {
        (at as i32 % self.w.width, at as i32 / self.w.width)
    }

    /// Writes `code` at square `at`.
    #[inline(always)]
    fn write(&mut self, at: u32, code: Code) {
        let old = self.s.cur[at as usize];
        if old != code {
            self.s.overlay.push((at, code));
            self.s.olds.push((old, self.delta));
            self.s.cur[at as usize] = code;
            let place = self.w.places[at as usize];
            self.delta ^= hash::square_with(place, old) ^ hash::square_with(place, code);
        }
    }

    /// Whether sub-program `sub` is a choice of rewrites at the piece of
    /// interest that the square sets of the position say cannot match
    /// there: so when the walk has changed no square but the piece's own,
    /// which holds the piece.
    #[inline]
    fn cannot_match_at_poi(&mut self, sub: usize) -> bool {
        let Some(plan) = &self.w.poi_plans[sub] else {
            return false;
        };
        let Some(&p) = self.s.pois.last() else {
            return false;
        };
        if self.s.cur[p.at as usize] != p.code || self.s.overlay.iter().any(|&(at, _)| at != p.at) {
            return false;
        }
        if self.s.poi_places.len() <= sub {
            self.s.poi_places.resize(sub + 1, None);
        }
        let places = *self.s.poi_places[sub].get_or_insert_with(|| plan.anywhere(self.occupied));
        if self.find.is_some() {
            // What the sets say depends on every square.
            self.reads.set(Squares::MAX);
        }
        places >> p.at & 1 == 0
    }

    /// Moves the piece of interest `from` (the top one) to `(x, y)` as
    /// `moved`, leaving `behind` where it stood; gives its new square.
    #[inline(always)]
    fn set_down(&mut self, from: Poi, behind: Code, x: i32, y: i32, moved: Code) -> u32 {
        let to = (y * self.w.width + x) as u32;
        self.write(from.at, behind);
        self.write(to, moved);
        *self.s.pois.last_mut().expect("a piece of interest") = Poi {
            at: to,
            x,
            y,
            code: moved,
        };
        to
    }

    /// The piece of interest and the square `(dx, dy)` from it, if the
    /// piece's square holds the piece or one of `here` and that square one
    /// of `onto` (the checks of a step or a stamp).
    #[inline(always)]
    fn at_piece_and(&self, here: &CodeSet, dx: i32, dy: i32, onto: &CodeSet) -> Option<(Poi, i32, i32)> {
        let top = *self.s.pois.last()?;
        let now = self.read(top.x, top.y);
        if now != top.code && !here.contains(now) {
            return None;
        }
        let (x, y) = (top.x + dx, top.y + dy);
        onto.contains(self.read(x, y)).then_some((top, x, y))
    }

    /// Writes stamp `stamp` on `(x, y)` (the piece of interest `top` with
    /// its marks, if it rewrites them); the square written.
    fn put_stamp(&mut self, stamp: &Stamp, top: Poi, x: i32, y: i32) -> u32 {
        if let Some(marks) = stamp.marks {
            let code = code::with_marks(top.code, marks);
            self.write(top.at, code);
            self.s.pois.last_mut().expect("a piece of interest").code = code;
        }
        let at = (y * self.w.width + x) as u32;
        self.write(at, stamp.code);
        at
    }

    /// Counts fan `fan` whose stops are results of their own ([`keyless_fans`]):
    /// per stamp that applies, one result per square its slide can stop on.
    /// A state that reaches a fan a second time makes the count exact.
    fn fan_without_keys(&mut self, fan: &Fan, count: &mut u64) -> bool {
        const FAN: u64 = 0x5A17_F00D_0FA7_C0DE;
        if !self.s.seen.insert(self.delta ^ self.trace.key() ^ FAN) {
            self.duplicate = true;
            return true;
        }
        let w = self.w;
        let mut found = 0;
        let mut states = 0;
        for shoot in fan.shoots.iter() {
            let stamp = w.stamps[shoot.stamp.index()].as_ref().expect("a fan's stamp");
            let Some((top, x, y)) = self.at_piece_and(&stamp.here, stamp.dx, stamp.dy, &stamp.onto) else {
                continue;
            };
            if stamp
                .marks
                .is_some_and(|m| code::with_marks(top.code, m) != top.code)
            {
                // The stamp changes the piece too: the state the slides
                // start from is not the one the fan's key was taken of.
                self.duplicate = true;
                return true;
            }
            let slide = w.slides[shoot.head as usize].as_ref().expect("a fan's slide");
            let tail = w.slide_tails[shoot.head as usize].expect("a fan's tail");
            let mut n = 0;
            while self.read(x + (n + 1) * stamp.dx, y + (n + 1) * stamp.dy) == slide.over {
                n += 1;
            }
            // The stamp, each step, and each stop's tail, as the walk counts states.
            states += 1 + n as u64 + (n as u64 + 1) * tail.rewrites;
            found += n as u64 + 1;
        }
        if !self.meter.charge_many(states) {
            // Too long for the bound on states: the exact count says so.
            self.duplicate = true;
            return true;
        }
        *count += found;
        false
    }

    /// Counts the results of slide `slide` from `top` (whose square holds
    /// `here`) stopping at each of the `n + 1` squares it can, each then
    /// ending by `tail`: per stop, the key of the result it gives (the
    /// change hash and the trace as the walk would leave them), counted if
    /// new; a key seen before stops the count (see [`Walker::count`]).
    #[allow(clippy::too_many_arguments)]
    fn count_stops(
        &mut self,
        top: Poi,
        here: Code,
        moved: Code,
        n: i32,
        slide: &Slide,
        tail: &SlideTail,
        count: &mut u64,
    ) -> bool {
        let w = self.w;
        let key = |at: u32, code: Code| hash::square_with(w.places[at as usize], code);
        let depth = self.s.pois.len();
        let step = (slide.step.dx + slide.step.dy * w.width) as i64;
        for k in 0..=n {
            let at = (top.at as i64 + k as i64 * step) as u32;
            // What the piece's square holds when the tail is made, and after.
            let (code, poi) = if k == 0 { (here, top.code) } else { (moved, moved) };
            let last = tail.writes.unwrap_or(code);
            let mut delta = self.delta;
            if k > 0 {
                delta ^= key(top.at, here) ^ key(top.at, slide.over) ^ key(at, slide.over) ^ key(at, last);
            } else {
                delta ^= key(at, here) ^ key(at, last);
            }
            let mut trace = self.trace;
            // Another piece left where the outermost piece stands: it is that piece now.
            if depth == 1 && tail.writes.is_some() && last != poi && code::as_piece(last).is_some() {
                trace.became = Some(last);
            }
            // The unbind that leaves no piece of interest names where the move ends.
            if tail.unbinds as usize >= depth && trace.to.is_none() {
                trace.to = Some(if depth == 1 { at } else { self.s.pois[0].at });
            }
            if !self.s.seen.insert(delta ^ trace.key()) {
                self.duplicate = true;
                return true;
            }
            *count += 1;
        }
        false
    }

    /// The squares holding one of `set`'s codes now; `codes` lists them.
    fn squares_holding(&self, codes: impl Iterator<Item = Code>, set: &CodeSet) -> Squares {
        self.reads.set(Squares::MAX);
        let mut squares: Squares = 0;
        if self.s.overlay.len() > self.s.cur.len() {
            // A long walk: the board is shorter than the log.
            for (at, &c) in self.s.cur.iter().enumerate() {
                if set.contains(c) {
                    squares |= 1 << at;
                }
            }
            return squares;
        }
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

    /// The squares where placement `pc` (if it is one, see [`Placement`])
    /// may lead to a result, on a position (unchanged yet) without the
    /// content it places; none when it is no such placement.
    fn placement_squares(&mut self, pc: Pc) -> Option<(Squares, Placement)> {
        let p = self.w.placements[pc as usize]?;
        if !self.s.overlay.is_empty()
            || self.find.is_some()
            || self.occupied.get(p.code as usize).is_none_or(|&set| set != 0)
        {
            return None;
        }
        if self.s.poi_places.len() <= p.sub {
            self.s.poi_places.resize(p.sub + 1, None);
        }
        let plan = self.w.poi_plans[p.sub]
            .as_ref()
            .expect("a placement's guard has square sets");
        Some((
            *self.s.poi_places[p.sub].get_or_insert_with(|| plan.anywhere(self.occupied)),
            p,
        ))
    }

    /// A result: at nesting 0 given to the caller (once), deeper it ends the
    /// sub-search; `true` when the search is to stop.
    fn record(&mut self, level: usize, sink: &mut Sink<'_, '_>) -> bool {
        match sink {
            Sink::Exists => return true,
            Sink::Changes => {
                if level > 0 {
                    return true;
                }
                let t = self.find.expect("a targeted walk");
                return self.s.cur[t.at as usize] != t.before;
            }
            Sink::Stash {
                base,
                path_base,
                into,
            } => {
                into.writes.extend_from_slice(&self.s.overlay[*base..]);
                into.paths.extend_from_slice(&self.s.path[*path_base..]);
                into.ends.push(StashEnd {
                    writes: into.writes.len() as u32,
                    paths: into.paths.len() as u32,
                    trace: self.trace,
                    poi: self.s.pois.last().copied(),
                });
                return false;
            }
            Sink::Collect(_) | Sink::Count(..) => {}
        }
        if level > 0 {
            return true;
        }
        let delta = self.delta;
        let key = delta ^ self.trace.key();
        if !self.exact
            && let Sink::Count(n, keep) = sink
        {
            // Optimistic: a key seen before stops the count, which is then
            // made again keeping the changes.
            if !self.s.seen.insert(key) {
                self.duplicate = true;
                return true;
            }
            let kept = match keep {
                None => true,
                Some(keep) if keep.untested(self.base, &self.s.overlay) => true,
                Some(keep) => {
                    let mut diff = std::mem::take(&mut self.s.diff);
                    diff.clear();
                    self.each_change(|at, new| diff.push((at, new)));
                    diff.sort_unstable_by_key(|&(at, _)| at);
                    let kept = (keep.test)(&diff);
                    self.s.diff = diff;
                    kept
                }
            };
            **n += kept as u64;
            return false;
        }
        // The last write to each square, where it differs from the position.
        let mut diff = std::mem::take(&mut self.s.diff);
        diff.clear();
        let w = self.w.width;
        self.each_change(|at, new| diff.push((at, new)));
        diff.sort_unstable_by_key(|&(at, _)| at);
        let fresh = self.s.seen.insert(key) || {
            let (kept, trace) = (&self.s.kept_changes, self.trace);
            !self.s.kept.iter().any(|k| {
                k.key == key
                    && k.trace.same_move(&trace)
                    && kept[k.start as usize..k.end as usize] == diff[..]
            })
        };
        let mut stop = false;
        if fresh {
            let start = self.s.kept_changes.len() as u32;
            self.s.kept_changes.extend_from_slice(&diff);
            self.s.kept.push(Kept {
                key,
                start,
                end: self.s.kept_changes.len() as u32,
                trace: self.trace,
            });
            match sink {
                Sink::Count(n, keep) => {
                    if keep.as_mut().is_none_or(|keep| (keep.test)(&diff)) {
                        **n += 1;
                    }
                }
                Sink::Collect(found) => {
                    let coord = |at: u32| Coord::new(at as i32 % w, at as i32 / w);
                    let mut changes = std::mem::take(&mut self.s.changes);
                    changes.clear();
                    // Reading order: top row first.
                    for row in diff.chunk_by(|a, b| a.0 / w as u32 == b.0 / w as u32).rev() {
                        changes.extend(row.iter().map(|&(at, c)| Change {
                            at: coord(at),
                            content: Content::from_code(c),
                        }));
                    }
                    let mut path = std::mem::take(&mut self.s.path_coords);
                    path.clear();
                    path.extend(self.s.path.iter().map(|&at| coord(at)));
                    let s = Successor {
                        changes: &changes,
                        poi_from: self.trace.from.map(coord),
                        poi_to: self.trace.to.map(coord),
                        became: self.trace.became.and_then(code::as_piece).map(|(p, _)| p),
                        path: &path,
                        hash: self.base_hash ^ delta,
                    };
                    stop = found(&s).is_break();
                    self.s.changes = changes;
                    self.s.path_coords = path;
                }
                _ => unreachable!("the other sinks returned above"),
            }
        }
        self.s.diff = diff;
        stop
    }
}
