//! The shapes of program the walker runs on square sets or by scanning
//! instead of walking them instruction by instruction: a step, a slide, a
//! stamp, a slide's tail, a placement, a fan (Amazons' arrows), each found
//! in a program when the walker is prepared.

use super::program::{choice_of_tests, only_test, origin_guard};
use crate::core::{Code, CodeSet, OFF};
use crate::engine::squares::Squares;
use crate::program::{Alternative, Check, Inst, Pc, Program, RewriteId, SquareWrite, Write};

/// Rewrite `id` as one alternative with one choice that checks the piece
/// of interest's square (no marks asked) and one other square, neither off
/// the board: the choice, the piece's check and the other.
pub(super) fn at_piece_and_one_square(
    prog: &Program,
    id: RewriteId,
) -> Option<(&[SquareWrite], &Check, &Check)> {
    let [alt] = &prog.rewrites[id.index()].alternatives[..] else {
        return None;
    };
    let [choice] = &alt.choices[..] else {
        return None;
    };
    if !alt.tally_checks.is_empty() || alt.tally_writes.iter().any(|w| !w.is_empty()) {
        return None;
    }
    let [a, b] = &alt.checks[..] else {
        return None;
    };
    let (poi, onto) = if a.poi { (a, b) } else { (b, a) };
    if !poi.poi || onto.poi || !poi.poi_marks.is_empty() || (poi.dx, poi.dy) == (onto.dx, onto.dy) {
        return None;
    }
    if onto.accepts.contains(OFF) || poi.accepts.contains(OFF) {
        return None;
    }
    Some((choice, poi, onto))
}

/// A rewrite that moves the piece of interest one fixed step onto a square
/// holding one of some contents and leaves one content behind
/// (`% + m target -> . + m%`): run without the general matcher.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub(crate) dx: i32,
    pub(crate) dy: i32,
    /// What the square one step on may hold.
    pub(crate) onto: CodeSet,
    /// What the piece's own square may hold besides the piece.
    pub(super) from: CodeSet,
    /// What the piece leaves behind.
    pub(crate) behind: Code,
    /// The marks the piece carries once it has moved.
    pub(crate) marks: crate::core::Marks,
}

impl Step {
    /// The step rewrite `id` is: one alternative and one choice that checks
    /// the piece of interest and one square `d` away (never off the board),
    /// writes a content where the piece was and the piece at `d`.
    pub(super) fn of(prog: &Program, id: RewriteId) -> Option<Step> {
        let (choice, poi, onto) = at_piece_and_one_square(prog, id)?;
        let [w1, w2] = choice else {
            return None;
        };
        let (behind, ahead) = match (w1.write, w2.write) {
            (Write::Code(_), Write::Poi(_)) => (w1, w2),
            (Write::Poi(_), Write::Code(_)) => (w2, w1),
            _ => return None,
        };
        let (Write::Code(left), Write::Poi(marks)) = (behind.write, ahead.write) else {
            return None;
        };
        let ok = (behind.dx, behind.dy) == (poi.dx, poi.dy) && (ahead.dx, ahead.dy) == (onto.dx, onto.dy);
        ok.then_some(Step {
            dx: onto.dx - poi.dx,
            dy: onto.dy - poi.dy,
            onto: onto.accepts.clone(),
            from: poi.accepts.clone(),
            behind: left,
            marks,
        })
    }
}

/// A rewrite that leaves the piece of interest where it is and writes one
/// content on one square a fixed step from it that holds one of some
/// contents (`% + m. -> % + m✦`): run without the general matcher.
#[derive(Clone, Debug)]
pub(super) struct Stamp {
    pub(super) dx: i32,
    pub(super) dy: i32,
    /// What the piece's own square may hold besides the piece.
    pub(super) here: CodeSet,
    /// What the square a step away may hold.
    pub(super) onto: CodeSet,
    /// What is written there.
    pub(super) code: Code,
    /// The marks the piece is rewritten with, if the rewrite writes it.
    pub(super) marks: Option<crate::core::Marks>,
}

impl Stamp {
    /// The stamp rewrite `id` is: one alternative and one choice that checks
    /// the piece of interest and one square `d` away (never off the board),
    /// writes a content at `d` and at most the piece on its own square.
    pub(super) fn of(prog: &Program, id: RewriteId) -> Option<Stamp> {
        let (choice, poi, onto) = at_piece_and_one_square(prog, id)?;
        let (mut code, mut marks) = (None, None);
        for w in choice.iter() {
            match w.write {
                Write::Code(c) if (w.dx, w.dy) == (onto.dx, onto.dy) && c != OFF => code = Some(c),
                Write::Poi(m) if (w.dx, w.dy) == (poi.dx, poi.dy) => marks = Some(m),
                _ => return None,
            }
        }
        Some(Stamp {
            dx: onto.dx - poi.dx,
            dy: onto.dy - poi.dy,
            here: poi.accepts.clone(),
            onto: onto.accepts.clone(),
            code: code?,
            marks,
        })
    }
}

/// A loop that moves the piece of interest one fixed step at a time over
/// squares holding one content, leaving that content behind
/// (`(% + m. -> . + m%)*`): run as a scan along the ray, the piece set
/// down at each square it reaches, without the steps in between.
#[derive(Clone, Debug)]
pub(crate) struct Slide {
    /// The loop's step: onto `over`, leaving `over`.
    pub(crate) step: Step,
    pub(crate) over: Code,
}

impl Slide {
    /// The slide loop head `head` runs: its first branch a [`Step`] over
    /// one content that leaves that content behind, back to `head`.
    pub(super) fn of(prog: &Program, head: Pc, visit: &[bool]) -> Option<Slide> {
        let Inst::Split { first, .. } = prog.insts[head as usize] else {
            return None;
        };
        let Inst::Rewrite { id, next } = prog.insts[first as usize] else {
            return None;
        };
        if next != head || visit[head as usize] {
            return None;
        }
        let step = Step::of(prog, id)?;
        let over = step.behind;
        (step.onto.is_only(over) && !step.from.contains(over)).then_some(Slide { step, over })
    }
}

/// A rewrite that writes one content `code` on one square (at `dx, dy`
/// from where it matches), followed by a bind of that content alone and a
/// guard on sub-program `sub`: where the position holds no `code`, the
/// piece bound is the one placed, so only the squares where the guard's
/// square sets say it may hold are worth a placement.
#[derive(Clone, Copy, Debug)]
pub(super) struct Placement {
    pub(super) code: Code,
    pub(super) dx: i32,
    pub(super) dy: i32,
    pub(super) sub: usize,
}

impl Placement {
    /// The placement instruction `pc` makes, if it is one.
    pub(super) fn of(
        prog: &Program,
        pc: usize,
        poi_plans: &[Option<crate::engine::choice::Plan>],
    ) -> Option<Placement> {
        let Inst::Rewrite { id, next } = prog.insts[pc] else {
            return None;
        };
        let [alt] = prog.rewrites[id.index()].boxless()? else {
            return None;
        };
        let [choice] = &alt.choices[..] else {
            return None;
        };
        let [w] = &choice[..] else {
            return None;
        };
        let Write::Code(code) = w.write else {
            return None;
        };
        let follow = |mut pc: Pc| {
            while let Inst::Jump { to } = prog.insts[pc as usize] {
                pc = to;
            }
            pc
        };
        let Inst::Bind { id: bind, next } = prog.insts[follow(next) as usize] else {
            return None;
        };
        if prog.binds[bind.index()][..] != [code] {
            return None;
        }
        let Inst::Guard { holds: true, sub, .. } = prog.insts[follow(next) as usize] else {
            return None;
        };
        poi_plans[sub.index()].as_ref()?;
        Some(Placement {
            code,
            dx: w.dx,
            dy: w.dy,
            sub: sub.index(),
        })
    }
}

/// What a slide's exit leads to when only rewrites of the piece of
/// interest's own square (one each, always made), unbinds and the match
/// follow it: each square the slide stops at gives one result.
#[derive(Clone, Copy, Debug)]
pub(super) struct SlideTail {
    /// What the last of those rewrites leaves on the piece's square.
    pub(super) writes: Option<Code>,
    /// How many rewrites (states) and unbinds there are.
    pub(super) rewrites: u64,
    pub(super) unbinds: u32,
}

impl SlideTail {
    /// The tail from `pc`, if it is one (no visited set on the way).
    pub(super) fn of(prog: &Program, mut pc: Pc, visit: &[bool], terminal: &[bool]) -> Option<SlideTail> {
        let mut tail = SlideTail {
            writes: None,
            rewrites: 0,
            unbinds: 0,
        };
        for _ in 0..prog.insts.len() {
            if visit[pc as usize] && !terminal[pc as usize] {
                return None;
            }
            match prog.insts[pc as usize] {
                Inst::Jump { to } => pc = to,
                Inst::Unbind { next } => {
                    tail.unbinds += 1;
                    pc = next;
                }
                Inst::Match => return Some(tail),
                Inst::Rewrite { id, next } => {
                    let [alt] = &prog.rewrites[id.index()].alternatives[..] else {
                        return None;
                    };
                    let ([choice], [check]) = (&alt.choices[..], &alt.checks[..]) else {
                        return None;
                    };
                    if !check.poi || !check.poi_marks.is_empty() || !alt.tally_checks.is_empty() {
                        return None;
                    }
                    if alt.tally_writes.iter().any(|w| !w.is_empty()) {
                        return None;
                    }
                    for w in choice.iter() {
                        match w.write {
                            // One rewrite that writes at most (what the piece
                            // became is then what that write left).
                            Write::Code(c)
                                if c != OFF
                                    && (w.dx, w.dy) == (check.dx, check.dy)
                                    && tail.writes.is_none_or(|was| was == c) =>
                            {
                                tail.writes = Some(c);
                            }
                            _ => return None,
                        }
                    }
                    tail.rewrites += 1;
                    pc = next;
                }
                _ => return None,
            }
        }
        None
    }
}

/// One alternative of a [`Fan`]: a stamp next to the piece of interest
/// (`% + m. -> % + m✦`), a bind of what it wrote alone, and a slide of
/// that piece along the same step whose every stop ends the move the same
/// way ([`SlideTail`]): Amazons' arrow, `(% + m. -> % + m✦) (%✦: (% + m. ->
/// . + m%)* (% -> ■))`.
#[derive(Clone, Copy, Debug)]
pub(super) struct FanShoot {
    /// The stamp's rewrite.
    pub(super) stamp: RewriteId,
    /// The slide's loop head.
    pub(super) head: Pc,
    /// Where the slide goes on when it stops.
    pub(super) exit: Pc,
}

/// The squares a [`FanShoot`]'s slide may pass, per square it starts from:
/// counted as square sets, without walking the ray.
#[derive(Clone, Debug, Default)]
pub(super) struct FanRays {
    /// Per square `q`: the squares `q + k * step` for `k >= 1` that are on
    /// the board's rectangle.
    pub(super) ray: Box<[Squares]>,
    /// Per square: how many squares its ray has.
    pub(super) len: Box<[u8]>,
    /// Per square: its place along the step's line (its column when the
    /// step moves across, else its row).
    pub(super) along: Box<[u8]>,
    /// Whether the step goes to higher square indices.
    pub(super) up: bool,
}

impl FanRays {
    /// The rays of step `(dx, dy)` on a `width` x `height` board (at most
    /// [`Squares::BITS`] squares, each side under 256).
    pub(super) fn of(dx: i32, dy: i32, width: i32, height: i32) -> FanRays {
        let squares = (width * height) as usize;
        let mut rays = FanRays {
            ray: vec![0; squares].into(),
            len: vec![0; squares].into(),
            along: vec![0; squares].into(),
            up: dy * width + dx > 0,
        };
        for q in 0..squares {
            let (x, y) = ((q as i32) % width, (q as i32) / width);
            rays.along[q] = if dx != 0 { x as u8 } else { y as u8 };
            let (mut cx, mut cy) = (x + dx, y + dy);
            while (0..width).contains(&cx) && (0..height).contains(&cy) {
                rays.ray[q] |= 1 << (cy * width + cx);
                rays.len[q] += 1;
                (cx, cy) = (cx + dx, cy + dy);
            }
        }
        rays
    }

    /// How many squares of `over` (a square set) follow `q` on its ray
    /// before one that is not in it or the edge.
    #[inline(always)]
    pub(super) fn run(&self, q: usize, over: Squares) -> u32 {
        let blocked = self.ray[q] & !over;
        if blocked == 0 {
            return self.len[q] as u32;
        }
        let b = if self.up {
            blocked.trailing_zeros()
        } else {
            Squares::BITS - 1 - blocked.leading_zeros()
        } as usize;
        (self.along[b].abs_diff(self.along[q]) - 1) as u32
    }
}

/// A choice (a tree of splits) of [`FanShoot`]s and nothing else: counted
/// by making each stamp and sliding at once, without the splits, the bind's
/// search for the stamped piece or the instructions between.
#[derive(Clone, Debug)]
pub(super) struct Fan {
    pub(super) shoots: Box<[FanShoot]>,
    /// What the stamps write (each must be absent from the position, so
    /// that the bind finds the stamped square alone).
    pub(super) codes: Box<[Code]>,
    /// Whether a count may take each stop of each slide as a result of its
    /// own without comparing keys (see [`keyless_fans`]); set by the walker.
    pub(super) keyless: bool,
    /// Per shoot, the rays of its step (set by the walker with the keyless
    /// mark, for [`Run::fan_without_keys`](super::run::Run)).
    pub(super) rays: Box<[FanRays]>,
    /// What every shoot shares, when they all stamp what their slide passes
    /// over and end alike: then a shoot's stops are the squares holding
    /// that from the piece on along its ray.
    pub(super) uniform: Option<UniformFan>,
}

/// What the shoots of a [`Fan`] share when each stamps a square holding what
/// its slide passes over (`onto` is `{over}`), all rewrite the piece alike
/// (if at all), and their tails make as many states.
#[derive(Clone, Debug)]
pub(super) struct UniformFan {
    /// What the piece's own square may hold besides the piece.
    pub(super) here: CodeSet,
    /// What the stamps fill and the slides pass over.
    pub(super) over: Code,
    /// The marks the stamps rewrite the piece with, if they rewrite it.
    pub(super) marks: Option<crate::core::Marks>,
    /// The states each stop's tail makes.
    pub(super) rewrites: u64,
}

impl UniformFan {
    /// The shared shape of `fan`'s shoots, if they share one.
    pub(super) fn of(
        fan: &Fan,
        stamps: &[Option<Stamp>],
        slides: &[Option<Slide>],
        tails: &[Option<SlideTail>],
    ) -> Option<UniformFan> {
        let mut uniform: Option<UniformFan> = None;
        for shoot in fan.shoots.iter() {
            let stamp = stamps[shoot.stamp.index()].as_ref()?;
            let slide = slides[shoot.head as usize].as_ref()?;
            let tail = tails[shoot.head as usize].as_ref()?;
            if !stamp.onto.is_only(slide.over) {
                return None;
            }
            match &uniform {
                None => {
                    uniform = Some(UniformFan {
                        here: stamp.here.clone(),
                        over: slide.over,
                        marks: stamp.marks,
                        rewrites: tail.rewrites,
                    })
                }
                Some(u)
                    if u.here == stamp.here
                        && u.over == slide.over
                        && u.marks == stamp.marks
                        && u.rewrites == tail.rewrites => {}
                Some(_) => return None,
            }
        }
        uniform
    }
}

impl Fan {
    /// The fan split `pc` starts, if it is one.
    pub(super) fn of(
        prog: &Program,
        pc: Pc,
        stamps: &[Option<Stamp>],
        slides: &[Option<Slide>],
        tails: &[Option<SlideTail>],
        visit: &[bool],
    ) -> Option<Fan> {
        if !matches!(prog.insts[pc as usize], Inst::Split { .. }) || slides[pc as usize].is_some() {
            return None;
        }
        let mut shoots = Vec::new();
        let mut todo = vec![pc];
        while let Some(at) = todo.pop() {
            // (The split itself may keep a visited set: the walk asks it
            // before it gets to the fan.)
            if shoots.len() + todo.len() > 64 || (visit[at as usize] && at != pc) {
                return None;
            }
            match prog.insts[at as usize] {
                Inst::Jump { to } => todo.push(to),
                Inst::Split { first, second } => todo.extend([second, first]),
                Inst::Rewrite { id, next } => {
                    let stamp = stamps[id.index()].as_ref()?;
                    let Inst::Bind { id: bind, next } = prog.insts[follow(prog, next)? as usize] else {
                        return None;
                    };
                    if prog.binds[bind.index()][..] != [stamp.code] {
                        return None;
                    }
                    let head = follow(prog, next)?;
                    let (slide, Inst::Split { second, .. }) =
                        (slides[head as usize].as_ref()?, &prog.insts[head as usize])
                    else {
                        return None;
                    };
                    tails[head as usize].as_ref()?;
                    if (slide.step.dx, slide.step.dy) != (stamp.dx, stamp.dy) {
                        return None;
                    }
                    shoots.push(FanShoot {
                        stamp: id,
                        head,
                        exit: *second,
                    });
                }
                _ => return None,
            }
        }
        let mut codes: Vec<Code> = shoots
            .iter()
            .filter_map(|s| stamps[s.stamp.index()].as_ref().map(|s| s.code))
            .collect();
        codes.sort_unstable();
        codes.dedup();
        (shoots.len() > 1).then(|| Fan {
            shoots: shoots.into(),
            codes: codes.into(),
            keyless: false,
            rays: Box::default(),
            uniform: None,
        })
    }
}

/// The instruction `pc` leads to through jumps (none in a loop of jumps).
pub(super) fn follow(prog: &Program, pc: Pc) -> Option<Pc> {
    crate::engine::choice::compile::follow(prog, pc).ok()
}

/// Whether every fan of the program may be counted without keys, a stop
/// of a slide one result: then no two results of a count are the same,
/// except where one state reaches a fan twice (which its key tells). It
/// holds when
/// - every result of the program ends a fan's slide (no match is reached
///   from the start but through a fan);
/// - within a fan, the stamps fill squares holding what the slide passes
///   over, the slides stop by writing something else, and no two stamps'
///   steps point the same way: from one state, each stop is one square of
///   one ray, written over with what the tail leaves, and no two rays meet;
/// - no rewrite but the tails writes what a tail leaves, or writes on a
///   square that may hold it (no bound piece is one): a result is the
///   state before the fan with one square, which held what the slide
///   passes over, holding what the tail leaves, and two different states
///   (made from one position by such rewrites) cannot give the same result.
pub(super) fn keyless_fans(
    prog: &Program,
    fans: &[Option<Fan>],
    stamps: &[Option<Stamp>],
    slides: &[Option<Slide>],
    tails: &[Option<SlideTail>],
) -> bool {
    if fans.iter().all(Option::is_none) {
        return false;
    }
    // No match but through a fan.
    let mut seen = vec![false; prog.insts.len()];
    let mut todo = vec![prog.start];
    while let Some(pc) = todo.pop() {
        if std::mem::replace(&mut seen[pc as usize], true) || fans[pc as usize].is_some() {
            continue;
        }
        if prog.insts[pc as usize] == Inst::Match {
            return false;
        }
        todo.extend(prog.insts[pc as usize].successors());
    }
    // What tails leave, and the rewrites they make.
    let mut left = Vec::new();
    let mut in_tail = vec![false; prog.insts.len()];
    for fan in fans.iter().flatten() {
        let mut steps = Vec::new();
        for shoot in fan.shoots.iter() {
            let (Some(stamp), Some(slide), Some(tail)) = (
                stamps[shoot.stamp.index()].as_ref(),
                slides[shoot.head as usize].as_ref(),
                tails[shoot.head as usize].as_ref(),
            ) else {
                return false;
            };
            let Some(last) = tail.writes.filter(|&w| w != slide.over) else {
                return false;
            };
            if !stamp.onto.is_only(slide.over) {
                return false;
            }
            left.push(last);
            steps.push((stamp.dx, stamp.dy));
            let mut pc = shoot.exit;
            while let Some(at) = follow(prog, pc) {
                match prog.insts[at as usize] {
                    Inst::Rewrite { next, .. } => {
                        in_tail[at as usize] = true;
                        pc = next;
                    }
                    Inst::Unbind { next } => pc = next,
                    _ => break,
                }
            }
        }
        // No two steps a positive multiple of each other.
        for (i, &(ax, ay)) in steps.iter().enumerate() {
            for &(bx, by) in &steps[i + 1..] {
                if ax * by == ay * bx && ax * bx + ay * by > 0 {
                    return false;
                }
            }
        }
    }
    let left = CodeSet::of(left);
    if prog.binds.iter().flatten().any(|&c| left.contains(c)) {
        return false;
    }
    prog.insts.iter().enumerate().all(|(pc, inst)| {
        let Inst::Rewrite { id, .. } = inst else {
            return true;
        };
        in_tail[pc]
            || prog.rewrites[id.index()].alternatives.iter().all(|alt| {
                alt.choices.iter().flatten().all(|w| {
                    let writes_left = matches!(w.write, Write::Code(c) if left.contains(c));
                    let onto_left = alt
                        .checks
                        .iter()
                        .any(|c| (c.dx, c.dy) == (w.dx, w.dy) && c.accepts.codes().any(|k| left.contains(k)));
                    !writes_left && !onto_left
                })
            })
    })
}

/// A test (`?{...}` on one rewrite) that asks only where the piece of
/// interest stands on the board's shape: each alternative checks the
/// piece's square (for the piece alone) and otherwise only
/// whether squares at fixed offsets from it are on the board (`_`) or off
/// it (`#`), as a region written with the board's edges does
/// (`% + @zone`). Where the board's shape stays as it is, the squares where
/// it holds are worked out once ([`ShapeTest::squares`]) and the test is
/// one read.
#[derive(Clone, Debug)]
pub(crate) struct ShapeTest {
    /// The marks the piece must carry.
    pub(super) marks: crate::core::Marks,
    /// Per alternative: the other squares, as offsets from the piece and
    /// whether each must be on the board.
    alternatives: Vec<Vec<(i32, i32, bool)>>,
}

impl ShapeTest {
    /// The shape test the left sides `alternatives` make together (the
    /// test holds where one of them matches), if they are one.
    pub(super) fn of<'a>(alternatives: impl IntoIterator<Item = &'a Alternative>) -> Option<ShapeTest> {
        let mut piece: Option<&Check> = None;
        let mut shapes = Vec::new();
        for alt in alternatives {
            if !alt.tally_checks.is_empty() {
                return None;
            }
            let [poi] = &alt.checks.iter().filter(|c| c.poi).collect::<Vec<_>>()[..] else {
                return None;
            };
            // Only the piece (no other content there: the test is
            // anchored on the piece, tried once).
            if !poi.accepts.is_empty() {
                return None;
            }
            match piece {
                Some(p) if p.poi_marks != poi.poi_marks => return None,
                _ => piece = Some(poi),
            }
            let mut squares = Vec::new();
            for c in alt.checks.iter().filter(|c| !c.poi) {
                squares.push((c.dx - poi.dx, c.dy - poi.dy, c.on_board?));
            }
            shapes.push(squares);
        }
        Some(ShapeTest {
            marks: piece?.poi_marks,
            alternatives: shapes,
        })
    }

    /// The squares of a `width` x `height` board, with `off` the squares
    /// inside it that are off the board, where a piece of interest passes
    /// the test's squares other than its own.
    pub(super) fn squares(&self, width: i32, height: i32, off: Squares) -> Squares {
        let on =
            |x: i32, y: i32| x >= 0 && y >= 0 && x < width && y < height && off >> (y * width + x) & 1 == 0;
        (0..width * height)
            .filter(|&i| self.holds_at(width, i as u32, on))
            .fold(0, |set: Squares, i| set | 1 << i)
    }

    /// Whether the squares other than the piece's pass the test for a
    /// piece on square `at`, where `on` says which squares are on the board.
    pub(super) fn holds_at(&self, width: i32, at: u32, on: impl Fn(i32, i32) -> bool) -> bool {
        let (x, y) = (at as i32 % width, at as i32 / width);
        (self.alternatives.iter()).any(|alt| alt.iter().all(|&(dx, dy, want)| on(x + dx, y + dy) == want))
    }
}

/// Whether no rewrite of `prog` can change the board's shape: none writes
/// "off the board" (`#`), and none writes a square its left side lets be
/// off the board (or does not check).
pub(super) fn keeps_shape(prog: &Program) -> bool {
    prog.rewrites
        .iter()
        .flat_map(|r| r.alternatives.iter())
        .all(|alt| {
            alt.choices.iter().flat_map(|c| c.iter()).all(|w| {
                w.write != Write::Code(OFF)
                    && (alt.checks.iter())
                        .find(|c| (c.dx, c.dy) == (w.dx, w.dy))
                        .is_some_and(|c| !c.accepts.contains(OFF))
            })
        })
}

/// A shape test ([`ShapeTests::shapes`]) and whether it is made at the
/// square the piece of interest left.
pub(super) type ShapeAt = (u32, bool);

/// The shape tests of a program ([`ShapeTest`]; none unless it keeps the
/// board's shape) and the instructions that make them.
#[derive(Clone, Debug)]
pub(crate) struct ShapeTests {
    /// The tests.
    pub(super) shapes: Vec<ShapeTest>,
    /// A number no other program's tests built in this process have, under
    /// which a scratch keeps where these tests hold.
    pub(super) key: u32,
    /// Per rewrite: the test it is as a test (`?{f}` on one rewrite).
    pub(super) tests: Vec<Option<u32>>,
    /// Per sub-program: the test it is as a guard's body, and whether at
    /// the square the piece of interest left (`?{%from: ?{f}}`).
    pub(super) guards: Vec<Option<ShapeAt>>,
    /// Per ordered choice: the tests its alternatives are, if each is one
    /// (`in_zone / from_zone`): it leaves the state as it is, once, where
    /// one of them holds.
    pub(super) ordered: Vec<Option<Box<[ShapeAt]>>>,
}

impl ShapeTests {
    /// The shape tests of `program`.
    pub(super) fn of(program: &Program) -> ShapeTests {
        static KEYS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let mut found = ShapeTests {
            shapes: Vec::new(),
            key: KEYS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            tests: vec![None; program.rewrites.len()],
            guards: vec![None; program.subs.len()],
            ordered: vec![None; program.ordered.len()],
        };
        if !keeps_shape(program) {
            return found;
        }
        let shapes = &mut found.shapes;
        let mut add = |shape: Option<ShapeTest>| {
            shape.map(|s| {
                shapes.push(s);
                shapes.len() as u32 - 1
            })
        };
        for inst in &program.insts {
            if let Inst::Test { id, .. } = *inst {
                found.tests[id.index()] =
                    add(ShapeTest::of(program.rewrites[id.index()].alternatives.iter()));
            }
        }
        let of_choice = |body: Pc| {
            let ids = choice_of_tests(program, body)?;
            ShapeTest::of(
                ids.iter()
                    .flat_map(|id| program.rewrites[id.index()].alternatives.iter()),
            )
        };
        for (s, &body) in program.subs.iter().enumerate() {
            found.guards[s] = add(of_choice(body)).map(|shape| (shape, false));
        }
        for (s, &body) in program.subs.iter().enumerate() {
            if let Some(inner) = origin_guard(program, body) {
                found.guards[s] = add(of_choice(program.subs[inner.index()])).map(|shape| (shape, true));
            }
        }
        for (o, list) in program.ordered.iter().enumerate() {
            found.ordered[o] = (list.iter())
                .map(|&sub| match only_test(program, program.subs[sub.index()])? {
                    Ok(guard) => found.guards[guard.index()],
                    Err(test) => found.tests[test.index()].map(|shape| (shape, false)),
                })
                .collect();
        }
        found
    }

    /// Whether the program makes none.
    pub(super) fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }
}
