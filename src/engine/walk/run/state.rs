//! The state a walk reads and writes: the board with its changes, the
//! matches of rewrites, the pieces of interest, and the results given to
//! the sink.

use super::*;

impl Run<'_> {
    /// The squares bind `id` binds now, in turn.
    pub(super) fn bind_squares(&mut self, level: usize, id: usize) -> Squares {
        let reads = self.reads.get();
        let mut squares = self.squares_holding(self.w.prog.binds[id].iter().copied(), &self.w.binds[id]);
        if self.find.is_none()
            && level == 0
            && self.s.overlay.is_empty()
            && self.s.pois.is_empty()
            && self.w.plans.entry_binds.get(id) == Some(&true)
            && let Some(entry) = &self.w.plans.entry
        {
            // Before any change, only the pieces that can make a first
            // rewrite (an untargeted walk: no reads to keep).
            squares &= *self
                .entry_squares
                .get_or_insert_with(|| entry.poi_places(self.occupied));
        }
        if let Some(t) = self.find
            && self.may_prune(level)
            && self.s.pois.is_empty()
            && self.s.cur[t.at as usize] == t.before
        {
            // Only the pieces that could reach the target; which squares
            // hold them is the caller's to watch (`may_bind_anew`).
            squares &= self.w.reach.suspects[id][t.at as usize];
            self.reads.set(reads);
        }
        squares
    }

    /// Starts slide loop `head`: the piece of interest set down at each
    /// square it can reach along the ray, farthest first (the order of the
    /// loop's own walk), going on at `exit` from each.
    pub(super) fn start_slide(
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
            let reach = &self.w.reach.split_reach[head as usize];
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
            && let Some(tail) = &self.w.shapes.slide_tails[head as usize]
            && self.meter.charge_many((n as u64 + 1) * tail.rewrites)
        {
            return if self.count_stops(top, (here, moved), n, (slide, tail), count) {
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
    pub(super) fn ordered(&mut self, level: usize, id: usize, next: Pc) -> Flow {
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
    pub(super) fn close_stash(&mut self, base: u32, trace: Trace, top: Option<WalkedPiece>) {
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
    pub(super) fn holds_around_poi(&self, checks: &[EntryCheck]) -> bool {
        let Some(p) = self.s.pois.last() else {
            return true;
        };
        checks
            .iter()
            .all(|c| c.accepts.contains(self.read(p.x + c.dx, p.y + c.dy)))
    }

    /// Makes the first rewrite of the first of `subs` (an ordered choice's
    /// alternatives, [`Walker::first_match`]) that matches at the piece of
    /// interest `top`, pushing the frame that takes it back: `Some(true)`;
    /// `Some(false)` when a `nil` comes first; none when none matches.
    #[inline]
    pub(super) fn first_match(&mut self, subs: &[FirstSub], top: WalkedPiece) -> Option<bool> {
        let w = self.w;
        for sub in subs {
            if sub.rewrites.is_empty() {
                return Some(false);
            }
            if let Some((dx, dy, accepts)) = &sub.gate
                && !accepts.contains(self.read(top.x + dx, top.y + dy))
            {
                continue;
            }
            for &id in sub.rewrites.iter() {
                let a = &w.prog.rewrites[id.index()].alternatives[0];
                let Anchor::Poi(check) = w.anchors[id.index()][0] else {
                    unreachable!("Walker::first_match keeps rewrites at the piece");
                };
                let ch = &a.checks[check];
                let (tx, ty) = (top.x - ch.dx, top.y - ch.dy);
                if self.matches(id, 0, tx, ty) {
                    self.push_undo(top);
                    let boxes = a.tally_writes.first().map_or(&[][..], |t| &t[..]);
                    self.make_choice(&a.choices[0], boxes, tx, ty);
                    return Some(true);
                }
            }
        }
        None
    }

    /// At the head `head` of `chain`, the piece of interest `top`: makes
    /// the first of the chain's rewrites from `from` on that matches,
    /// pushing the frame that makes the others, and goes back to the head;
    /// where none matches, a state just arrived at (`from` 0) ends the
    /// chain (on past its guard) and one backed up to is done.
    #[inline]
    pub(super) fn chain_from(&mut self, chain: &Chain, head: Pc, from: u32, top: WalkedPiece) -> Flow {
        let w = self.w;
        for (i, &(id, dx, dy)) in chain.rewrites.iter().enumerate().skip(from as usize) {
            let (tx, ty) = (top.x - dx, top.y - dy);
            if !self.matches(id, 0, tx, ty) {
                continue;
            }
            if self.spent() {
                return Flow::Stop;
            }
            self.s.frames.push(Frame::Chain {
                head,
                next: i as u32 + 1,
                len: self.s.overlay.len() as u32,
                trace: self.trace,
                top,
            });
            let a = &w.prog.rewrites[id.index()].alternatives[0];
            self.make_choice(&a.choices[0], &[], tx, ty);
            return Flow::Go(head);
        }
        if from == 0 {
            Flow::Go(chain.exit)
        } else {
            Flow::Dead
        }
    }

    /// Counts one state; `true` (and the search stops) past the bound.
    #[inline(always)]
    pub(super) fn spent(&mut self) -> bool {
        if !self.meter.charge_many(1) {
            self.too_long = true;
            return true;
        }
        false
    }

    /// What square `(x, y)` holds now.
    #[inline(always)]
    pub(in crate::engine::walk) fn read(&self, x: i32, y: i32) -> Code {
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
    pub(super) fn set_trace(&mut self, trace: Trace) {
        self.trace = trace;
        self.s.path.truncate(trace.path as usize);
    }

    /// Notes that the outermost piece of interest moved to `at`, when tracing.
    #[inline(always)]
    pub(super) fn moved_to(&mut self, at: u32) {
        if self.s.tracing && self.s.pois.len() == 1 {
            self.s.path.push(at);
            self.trace.path = self.s.path.len() as u32;
        }
    }

    /// Takes back the changes made after the first `len`.
    #[inline(always)]
    pub(super) fn undo_to(&mut self, len: usize) {
        while self.s.overlay.len() > len {
            let (at, _) = self.s.overlay.pop().expect("a change to take back");
            let (old, delta) = self.s.olds.pop().expect("what it held");
            self.s.cur[at as usize] = old;
            self.delta = delta;
        }
    }

    /// Calls `each` with every square the changes made now leave different
    /// from the position, once, and what it holds (in the order first
    /// written); then the same for each tally slot (at [`TALLY_BASE`] on,
    /// with its count).
    #[inline(always)]
    pub(super) fn each_change(&self, mut each: impl FnMut(u32, Code)) {
        let before = |at: u32| self.base.get(at as usize).copied().unwrap_or(0);
        if self.s.overlay.len() > self.s.cur.len() {
            // A long walk: the board is shorter than the log.
            let squares = self.w.places.len();
            for (at, (&old, &new)) in self.base.iter().zip(&self.s.cur).take(squares).enumerate() {
                if old != new {
                    each(at as u32, new);
                }
            }
            for (at, &new) in self.s.cur.iter().enumerate().skip(TALLY_BASE as usize) {
                if before(at as u32) != new {
                    each(at as u32, new);
                }
            }
            return;
        }
        let mut seen: Squares = 0;
        let mut boxed = false;
        for &(at, _) in &self.s.overlay {
            if at >= TALLY_BASE {
                boxed = true;
                continue;
            }
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
        if boxed {
            for (i, &(at, _)) in self.s.overlay.iter().enumerate() {
                let first = at >= TALLY_BASE && !self.s.overlay[..i].iter().any(|&(a, _)| a == at);
                if first && before(at) != self.s.cur[at as usize] {
                    each(at, self.s.cur[at as usize]);
                }
            }
        }
    }

    /// Makes the piece on square `at` the piece of interest (a bind's
    /// choice): where the outermost one is bound, the move starts there.
    #[inline(always)]
    pub(super) fn bind_at(&mut self, at: u32) {
        let (x, y) = self.xy(at);
        let code = self.read(x, y);
        if self.s.pois.is_empty() && self.trace.id.from.is_none() {
            self.trace.id.from = Some(at);
        }
        self.s.pois.push(WalkedPiece {
            at,
            x,
            y,
            code,
            from: at as u16,
        });
    }

    /// The changes made so far, for a test of the other sides: the log
    /// itself, or, when a long walk's log says more than the board, each
    /// changed square (and tally) once.
    pub(super) fn changes_made(&self) -> std::borrow::Cow<'_, [(u32, Code)]> {
        if self.s.overlay.len() > self.s.cur.len() {
            let mut changes = Vec::new();
            self.each_change(|at, new| changes.push((at, new)));
            std::borrow::Cow::Owned(changes)
        } else {
            std::borrow::Cow::Borrowed(&self.s.overlay[..])
        }
    }

    #[inline(always)]
    pub(in crate::engine::walk) fn xy(&self, at: u32) -> (i32, i32) {
        (at as i32 % self.w.width, at as i32 / self.w.width)
    }

    /// Writes `code` at square `at` (at [`TALLY_BASE`] on: the count of a
    /// tally slot).
    #[inline(always)]
    pub(super) fn write(&mut self, at: u32, code: Code) {
        let old = self.s.cur[at as usize];
        if old != code {
            self.s.overlay.push((at, code));
            self.s.olds.push((old, self.delta));
            self.s.cur[at as usize] = code;
            self.delta ^= match self.w.places.get(at as usize) {
                Some(&place) => hash::square_with(place, old) ^ hash::square_with(place, code),
                None => {
                    let slot = (at - TALLY_BASE) as usize;
                    hash::tally(slot, old) ^ hash::tally(slot, code)
                }
            };
        }
    }

    /// How many tally slot `slot` holds now.
    #[inline(always)]
    pub(super) fn tally(&self, slot: u32) -> u16 {
        self.s.cur.get((TALLY_BASE + slot) as usize).copied().unwrap_or(0)
    }

    /// Adds `delta` to tally slot `slot` (never below 0 nor above
    /// `u16::MAX`, as the backtracker does).
    #[inline]
    pub(super) fn add_tally(&mut self, slot: u32, delta: i32) {
        let new = (self.tally(slot) as i32 + delta).clamp(0, u16::MAX as i32) as u16;
        self.write(TALLY_BASE + slot, new);
    }

    /// Whether sub-program `sub`, a choice of rewrites at the piece of
    /// interest, matches there, as the square sets of the position tell
    /// when the walk has changed no square but the piece's own, which holds
    /// the piece; none when they cannot tell (a walk must).
    #[inline]
    pub(super) fn poi_plan_answer(&mut self, sub: usize) -> Option<bool> {
        let plan = self.w.plans.poi_plans[sub].as_ref()?;
        let &p = self.s.pois.last()?;
        if self.s.cur[p.at as usize] != p.code || self.s.overlay.iter().any(|&(at, _)| at != p.at) {
            return None;
        }
        if self.s.poi_places.len() <= sub {
            self.s.poi_places.resize(sub + 1, None);
        }
        let places = *self.s.poi_places[sub].get_or_insert_with(|| plan.anywhere(self.occupied));
        if self.find.is_some() {
            // What the sets say depends on every square.
            self.reads.set(Squares::MAX);
        }
        Some(places >> p.at & 1 == 1)
    }

    /// Moves the piece of interest `from` (the top one) to `(x, y)` as
    /// `moved`, leaving `behind` where it stood; gives its new square.
    #[inline(always)]
    pub(super) fn set_down(&mut self, from: WalkedPiece, behind: Code, x: i32, y: i32, moved: Code) -> u32 {
        let to = (y * self.w.width + x) as u32;
        self.write(from.at, behind);
        self.write(to, moved);
        *self.s.pois.last_mut().expect("a piece of interest") = WalkedPiece {
            at: to,
            x,
            y,
            code: moved,
            from: from.from,
        };
        to
    }

    /// The piece of interest and the square `(dx, dy)` from it, if the
    /// piece's square holds the piece or one of `here` and that square one
    /// of `onto` (the checks of a step or a stamp).
    #[inline(always)]
    pub(super) fn at_piece_and(
        &self,
        here: &CodeSet,
        dx: i32,
        dy: i32,
        onto: &CodeSet,
    ) -> Option<(WalkedPiece, i32, i32)> {
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
    pub(super) fn put_stamp(&mut self, stamp: &Stamp, top: WalkedPiece, x: i32, y: i32) -> u32 {
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
    pub(super) fn fan_without_keys(&mut self, fan: &Fan, count: &mut u64) -> bool {
        const FAN: u64 = 0x5A17_F00D_0FA7_C0DE;
        if !self.s.seen.insert(self.delta ^ self.trace.key() ^ FAN) {
            self.duplicate = true;
            return true;
        }
        debug_assert!(self.find.is_none(), "a fan is counted without noting reads");
        let w = self.w;
        let mut found = 0;
        let mut states = 0;
        let top = *self.s.pois.last().expect("a piece of interest");
        let now = self.s.cur[top.at as usize];
        if let Some(uniform) = &fan.uniform {
            // Each shoot's stops: the squares holding what it passes over,
            // from the piece on along its ray.
            if now == top.code || uniform.here.contains(now) {
                if uniform
                    .marks
                    .is_some_and(|m| code::with_marks(top.code, m) != top.code)
                {
                    // The stamps change the piece too (see below).
                    self.duplicate = true;
                    return true;
                }
                let over = self.squares_now(uniform.over);
                let at = top.at as usize;
                found = fan.rays.iter().map(|rays| rays.run(at, over) as u64).sum();
                states = found * (1 + uniform.rewrites);
            }
            if !self.meter.charge_many(states) {
                self.duplicate = true;
                return true;
            }
            *count += found;
            return false;
        }
        // The squares holding what the slides pass over, now (the last asked).
        let mut over: Option<(Code, Squares)> = None;
        for (shoot, rays) in fan.shoots.iter().zip(&fan.rays) {
            let stamp = w.shapes.stamps[shoot.stamp.index()]
                .as_ref()
                .expect("a fan's stamp");
            if now != top.code && !stamp.here.contains(now) {
                continue;
            }
            let (x, y) = (top.x + stamp.dx, top.y + stamp.dy);
            if !stamp.onto.contains(self.read(x, y)) {
                continue;
            }
            if stamp
                .marks
                .is_some_and(|m| code::with_marks(top.code, m) != top.code)
            {
                // The stamp changes the piece too: the state the slides
                // start from is not the one the fan's key was taken of.
                self.duplicate = true;
                return true;
            }
            let slide = w.shapes.slides[shoot.head as usize]
                .as_ref()
                .expect("a fan's slide");
            let tail = w.shapes.slide_tails[shoot.head as usize].expect("a fan's tail");
            let passed = match over {
                Some((code, set)) if code == slide.over => set,
                _ => {
                    let set = self.squares_now(slide.over);
                    over = Some((slide.over, set));
                    set
                }
            };
            let n = rays.run((y * w.width + x) as usize, passed) as i32;
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
    /// `here`, and which is `moved` once it has slid) stopping at each of
    /// the `n + 1` squares it can, each then ending by `tail`: per stop,
    /// the key of the result it gives (the change hash and the trace as the
    /// walk would leave them), counted if new; a key seen before stops the
    /// count (see [`Walker::count`]).
    pub(super) fn count_stops(
        &mut self,
        top: WalkedPiece,
        (here, moved): (Code, Code),
        n: i32,
        (slide, tail): (&Slide, &SlideTail),
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
                trace.id.became = Some(last);
            }
            // The unbind that leaves no piece of interest names where the move ends.
            if tail.unbinds as usize >= depth && trace.id.to.is_none() {
                trace.id.to = Some(if depth == 1 { at } else { self.s.pois[0].at });
            }
            if !self.s.seen.insert(delta ^ trace.key()) {
                self.duplicate = true;
                return true;
            }
            *count += 1;
        }
        false
    }

    /// The squares of the board holding `code` now (noting no reads).
    #[inline]
    fn squares_now(&self, code: Code) -> Squares {
        if self.s.overlay.len() > self.s.cur.len() {
            // A long walk: the board is shorter than the log.
            let mut squares: Squares = 0;
            for (at, &c) in self.s.cur.iter().enumerate().take(self.w.places.len()) {
                if c == code {
                    squares |= 1 << at;
                }
            }
            return squares;
        }
        let mut squares = self.occupied.get(code as usize).copied().unwrap_or(0);
        for &(at, _) in &self.s.overlay {
            if at < TALLY_BASE {
                let bit: Squares = 1 << at;
                if self.s.cur[at as usize] == code {
                    squares |= bit;
                } else {
                    squares &= !bit;
                }
            }
        }
        squares
    }

    /// The squares holding one of `set`'s codes now; `codes` lists them.
    pub(super) fn squares_holding(&self, codes: impl Iterator<Item = Code>, set: &CodeSet) -> Squares {
        self.reads.set(Squares::MAX);
        let mut squares: Squares = 0;
        if self.s.overlay.len() > self.s.cur.len() {
            // A long walk: the board is shorter than the log.
            for (at, &c) in self.s.cur.iter().enumerate().take(self.w.places.len()) {
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
            if at >= TALLY_BASE {
                continue;
            }
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
    pub(super) fn matches(&self, id: RewriteId, alt: usize, tx: i32, ty: i32) -> bool {
        let a = &self.w.prog.rewrites[id.index()].alternatives[alt];
        let top = self.s.pois.last();
        if !a.tally_checks.iter().all(|t| self.tally(t.slot) >= t.at_least) {
            return false;
        }
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
    pub(super) fn places(
        &self,
        id: RewriteId,
        alt: usize,
        mut each: impl FnMut(&Self, i32, i32) -> bool,
    ) -> bool {
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

    /// Whether shape test `shape` holds for the piece of interest where it
    /// stands, or (`at_origin`) for the square it left as `%from:` binds it
    /// (only if the piece left it empty). The square is read; the rest is
    /// looked up in the squares where the test holds on this board's shape,
    /// worked out on first use and kept while the shape is the same.
    pub(super) fn shape_test(&mut self, shape: u32, at_origin: bool) -> bool {
        let Some(&top) = self.s.pois.last() else {
            return false;
        };
        let test = &self.w.shapes.shape_tests.shapes[shape as usize];
        let at = if at_origin { top.from as u32 } else { top.at };
        let (x, y) = self.xy(at);
        let here = self.read(x, y);
        let bound = if at_origin { EMPTY } else { top.code };
        if here != bound || !(test.marks.is_empty() || code::has_marks(here, test.marks)) {
            return false;
        }
        let Some(&off) = self.occupied.get(OFF as usize) else {
            return test.holds_at(self.w.width, at, |x, y| self.read(x, y) != OFF);
        };
        let key = self.w.shapes.shape_tests.key;
        let mine = match self.s.shape_squares.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.s
                    .shape_squares
                    .push((key, vec![None; self.w.shapes.shape_tests.shapes.len()]));
                self.s.shape_squares.len() - 1
            }
        };
        let kept = &mut self.s.shape_squares[mine].1[shape as usize];
        let squares = match *kept {
            Some((shape, squares)) if shape == off => squares,
            _ => {
                let squares = test.squares(self.w.width, self.w.height, off);
                *kept = Some((off, squares));
                squares
            }
        };
        squares >> at & 1 == 1
    }

    pub(super) fn matches_somewhere(&self, id: RewriteId) -> bool {
        (0..self.w.prog.rewrites[id.index()].alternatives.len())
            .any(|alt| self.places(id, alt, |run, tx, ty| run.matches(id, alt, tx, ty)))
    }

    /// The squares where placement `pc` (if it is one, see [`Placement`])
    /// may lead to a result, on a position (unchanged yet) without the
    /// content it places; none when it is no such placement.
    pub(super) fn placement_squares(&mut self, pc: Pc) -> Option<(Squares, Placement)> {
        let p = self.w.shapes.placements[pc as usize]?;
        if !self.s.overlay.is_empty()
            || self.find.is_some()
            || self.occupied.get(p.code as usize).is_none_or(|&set| set != 0)
        {
            return None;
        }
        if self.s.poi_places.len() <= p.sub {
            self.s.poi_places.resize(p.sub + 1, None);
        }
        let plan = self.w.plans.poi_plans[p.sub]
            .as_ref()
            .expect("a placement's guard has square sets");
        Some((
            *self.s.poi_places[p.sub].get_or_insert_with(|| plan.anywhere(self.occupied)),
            p,
        ))
    }

    /// A result: at nesting 0 given to the caller (once), deeper it ends the
    /// sub-search; `true` when the search is to stop.
    pub(super) fn record(&mut self, level: usize, sink: &mut Sink<'_, '_>) -> bool {
        match sink {
            Sink::Exists => return true,
            Sink::Changes => {
                if level > 0 {
                    return true;
                }
                let t = self.find.expect("a targeted walk");
                return !code::same_but_marks(self.s.cur[t.at as usize], t.before);
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
                    // (As cell writes when asked, and no box changed.)
                    let cells = self.s.cells && diff.iter().all(|&(at, _)| at < TALLY_BASE);
                    changes.clear();
                    if !cells {
                        changes_in_reading_order(&diff, w, &mut changes);
                    }
                    let mut path = std::mem::take(&mut self.s.path_coords);
                    path.clear();
                    path.extend(self.s.path.iter().map(|&at| coord(at)));
                    let s = Successor {
                        changes: &changes,
                        poi_from: self.trace.id.from.map(coord),
                        poi_to: self.trace.id.to.map(coord),
                        became: self.trace.id.became.and_then(code::as_piece).map(|(p, _)| p),
                        path: &path,
                        hash: self.base_hash ^ delta,
                        cells: if cells { &diff } else { &[] },
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
