//! Backing up a walk: taking back what a path did since a frame was
//! pushed, and resuming the frame with its next alternative.

use super::*;

impl Run<'_> {
    /// Whether a targeted walk ([`Walker::changes_at`]) may leave paths that
    /// cannot change its square: at nesting 0, outside every ordered choice
    /// run in line (whether an alternative has a result decides whether the
    /// next runs, wherever its results write).
    #[inline(always)]
    pub(super) fn may_prune(&self, level: usize) -> bool {
        level == 0 && self.s.resumes.is_empty()
    }

    /// Pushes the frame that takes back a step or a stamp made now from
    /// the piece of interest `top`.
    #[inline(always)]
    pub(super) fn push_undo(&mut self, top: WalkedPiece) {
        self.s.frames.push(Frame::Undo {
            len: self.s.overlay.len() as u32,
            trace: self.trace,
            top,
        });
    }

    /// Puts the top piece of interest back to `top`.
    #[inline(always)]
    pub(super) fn set_top(&mut self, top: WalkedPiece) {
        *self.s.pois.last_mut().expect("a piece of interest") = top;
    }

    /// Takes back what the path did since `frame` was pushed, as
    /// [`Run::resume`] does, without trying its next alternative.
    pub(super) fn take_back(&mut self, frame: Frame) {
        match frame {
            Frame::Then(_) => {}
            Frame::Undo { len, trace, top }
            | Frame::Slide { len, trace, top, .. }
            | Frame::Chain { len, trace, top, .. } => {
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

    /// Backs up to a chain's frame (popped): takes back its rewrite and
    /// makes the next of the chain's rewrites from `next` on that matches
    /// on the state it was made from.
    #[inline(always)]
    pub(super) fn resume_chain(
        &mut self,
        head: Pc,
        next: u32,
        len: u32,
        trace: Trace,
        top: WalkedPiece,
    ) -> Flow {
        self.undo_to(len as usize);
        self.set_trace(trace);
        self.set_top(top);
        let chain = self.w.shapes.chains[head as usize]
            .as_ref()
            .expect("a chain at its head");
        self.chain_from(chain, head, next, top)
    }

    /// Takes back the choice of a rewrite made now, if one is.
    #[inline(always)]
    pub(super) fn take_back_choice(&mut self, c: &RewriteCursor) {
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
    pub(super) fn resume(&mut self, level: usize, frame: Frame, sink: &mut Sink<'_, '_>) -> Flow {
        match frame {
            Frame::Then(pc) => Flow::Go(pc),
            Frame::Chain {
                head,
                next,
                len,
                trace,
                top,
            } => self.resume_chain(head, next, len, trace, top),
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
                self.bind_at(at);
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
            frame @ Frame::Fan { .. } => self.resume_fan(level, frame, sink),
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
            } => self.resume_in_line(level, (id, alt), next, active),
            frame @ Frame::Stashed { .. } => self.resume_stashed(frame),
        }
    }

    /// Backs up to a fan's frame: the next of its stamps that can be put down, and the slide from it.
    fn resume_fan(&mut self, level: usize, frame: Frame, sink: &mut Sink<'_, '_>) -> Flow {
        let Frame::Fan {
            pc,
            shoot,
            len,
            trace,
            top,
            pushed,
        } = frame
        else {
            unreachable!("a fan's frame")
        };
        if pushed {
            self.s.pois.pop();
            self.undo_to(len as usize);
            self.set_trace(trace);
            self.set_top(top);
        }
        let w = self.w;
        let fan = w.shapes.fans[pc as usize].as_ref().expect("a fan");
        for (i, shoot) in fan.shoots.iter().enumerate().skip(shoot as usize) {
            let stamp = w.shapes.stamps[shoot.stamp.index()]
                .as_ref()
                .expect("a fan's stamp");
            let Some((top, x, y)) = self.at_piece_and(&stamp.here, stamp.dx, stamp.dy, &stamp.onto) else {
                continue;
            };
            // The stamp's state, as the general rewrite counts it.
            if self.spent() {
                return Flow::Stop;
            }
            let at = self.put_stamp(stamp, top, x, y);
            // The bind finds the stamped square alone.
            self.s.pois.push(WalkedPiece {
                at,
                x,
                y,
                code: stamp.code,
                from: at as u16,
            });
            self.s.frames.push(Frame::Fan {
                pc,
                shoot: i as u32 + 1,
                len,
                trace,
                top,
                pushed: true,
            });
            let slide = w.shapes.slides[shoot.head as usize]
                .as_ref()
                .expect("a fan's slide");
            return self.start_slide(level, shoot.head, slide, shoot.exit, sink);
        }
        Flow::Dead
    }

    /// Backs up to an ordered choice running in line: done if an alternative had results, else the next alternative that can start.
    fn resume_in_line(&mut self, level: usize, (id, alt): (u32, u32), next: Pc, active: bool) -> Flow {
        if active {
            let r = self.s.resumes.pop().expect("the resume pushed");
            if r.taken > 0 {
                // An alternative had results: the choice is made.
                return Flow::Dead;
            }
        }
        let (prog, w) = (&self.w.prog, self.w);
        let ends = w.shapes.in_line[id as usize]
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

    /// Backs up to a stashed ordered choice: the next of its results made again, or the stash closed.
    fn resume_stashed(&mut self, frame: Frame) -> Flow {
        let Frame::Stashed {
            end,
            from,
            paths_from,
            next,
            base,
            path_base,
            trace,
            top,
        } = frame
        else {
            unreachable!("a stash's frame")
        };
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

    /// Makes the next choice of a rewrite (the cursor `c`, nothing made):
    /// `Ok(true)` when one is made, `Ok(false)` when none is left, `Err`
    /// when the states ran out.
    pub(super) fn next_choice(&mut self, c: &mut RewriteCursor) -> Result<bool, ()> {
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
                } else if let Some((x, y)) = c.aim {
                    // Only where a write lands on the target.
                    let mut tried: smallvec::SmallVec<[(i32, i32); 8]> = smallvec::SmallVec::new();
                    for write in a.choices.iter().flat_map(|choice| choice.iter()) {
                        let (tx, ty) = (x - write.dx, y - write.dy);
                        if !tried.contains(&(tx, ty)) {
                            tried.push((tx, ty));
                            if self.matches(id, alt, tx, ty) {
                                self.s.places.push((tx, ty));
                            }
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
            if !w.visits.charge[c.next as usize] && self.spent() {
                return Err(());
            }
            let (tx, ty) = self.s.places[c.place as usize];
            c.len = self.s.overlay.len() as u32;
            c.trace = self.trace;
            c.top = self.s.pois.last().copied();
            c.made = true;
            let boxes = a
                .tally_writes
                .get(c.choice as usize - 1)
                .map_or(&[][..], |t| &t[..]);
            self.make_choice(choice, boxes, tx, ty);
            return Ok(true);
        }
    }

    /// Makes the writes of `choice` under the translation `(tx, ty)`.
    #[inline(always)]
    pub(super) fn make_choice(
        &mut self,
        choice: &[crate::program::SquareWrite],
        boxes: &[crate::program::TallyWrite],
        tx: i32,
        ty: i32,
    ) {
        let w = self.w;
        for t in boxes {
            self.add_tally(t.slot, t.delta);
        }
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
                        self.trace.id.became = Some(here);
                    }
                }
            }
        }
    }
}
