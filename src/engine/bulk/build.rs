//! Building a bulk count from a program: the groups of pieces its
//! alternatives bind, and each group's moves as rays or as rules.

use super::*;

/// The instruction `pc` leads to past any jumps.
pub(super) fn follow(program: &Program, pc: Pc) -> Result<Pc, crate::engine::squares::Decline> {
    crate::engine::choice::compile::follow(program, pc)
}

/// Whether no move of `moves` takes its piece by one of the steps `ends`.
pub(super) fn never_ends(moves: &Moves, ends: &[(i32, i32)]) -> bool {
    match moves {
        Moves::Rays(rays) => rays.iter().all(|ray| match ray.slide {
            None => !ends.contains(&ray.step),
            Some(_) => !ends.iter().any(|&e| on_ray(e, ray.step)),
        }),
        Moves::Rules(rules) => rules.iter().all(|r| r.steps.iter().all(|s| !ends.contains(s))),
    }
}

/// Where the piece bound at `pc` may end, as steps from where it was
/// bound, over every path to the unbind: none when that is not known (a
/// loop that moves it, a bind within, a rewrite not at the piece or one
/// that removes it).
pub(super) fn displacements(program: &Program, pc: Pc) -> Option<Vec<(i32, i32)>> {
    let Inst::Bind { next, .. } = program.insts[pc as usize] else {
        return None;
    };
    let mut ends = Vec::new();
    let mut seen = std::collections::HashSet::new();
    walk_ends(program, next, (0, 0), false, &mut ends, &mut seen)?;
    ends.sort_unstable();
    ends.dedup();
    Some(ends)
}

/// The ends of [`displacements`] from `pc` with the piece moved by `at`
/// so far, in a sub-program (`sub`, which ends at its match) or not (which
/// ends at the unbind), into `ends`; `seen` the states met (none: give up).
pub(super) fn walk_ends(
    program: &Program,
    pc: Pc,
    at: (i32, i32),
    sub: bool,
    ends: &mut Vec<(i32, i32)>,
    seen: &mut std::collections::HashSet<(Pc, (i32, i32), bool)>,
) -> Option<()> {
    if !seen.insert((pc, at, sub)) {
        return Some(());
    }
    if seen.len() > 4096 {
        return None;
    }
    match program.insts[pc as usize] {
        Inst::Jump { to } => walk_ends(program, to, at, sub, ends, seen),
        Inst::Split { first, second } => {
            walk_ends(program, first, at, sub, ends, seen)?;
            walk_ends(program, second, at, sub, ends, seen)
        }
        Inst::Guard { next, .. }
        | Inst::Test { next, .. }
        | Inst::Attacked { next }
        | Inst::NoReply { next } => walk_ends(program, next, at, sub, ends, seen),
        Inst::Match if sub => {
            ends.push(at);
            Some(())
        }
        Inst::Unbind { next }
            if !sub && program.insts[follow(program, next).ok()? as usize] == Inst::Match =>
        {
            ends.push(at);
            Some(())
        }
        Inst::Rewrite { id, next } => {
            for alt in program.rewrites[id.index()].alternatives.iter() {
                let poi = alt.checks.iter().find(|c| c.poi)?;
                for choice in alt.choices.iter() {
                    let moved = choice.iter().find_map(|w| match w.write {
                        crate::program::Write::Poi(_) => Some((w.dx - poi.dx, w.dy - poi.dy)),
                        crate::program::Write::Code(_) => None,
                    });
                    let step = match moved {
                        Some(step) => step,
                        None if choice.iter().any(|w| (w.dx, w.dy) == (poi.dx, poi.dy)) => return None,
                        None => (0, 0),
                    };
                    walk_ends(program, next, (at.0 + step.0, at.1 + step.1), sub, ends, seen)?;
                }
            }
            Some(())
        }
        Inst::Ordered { id, next } => {
            for s in program.ordered[id.index()].iter() {
                let mut inner = Vec::new();
                walk_ends(program, program.subs[s.index()], at, true, &mut inner, seen)?;
                for end in inner {
                    walk_ends(program, next, end, sub, ends, seen)?;
                }
            }
            Some(())
        }
        Inst::Bind { .. } | Inst::Origin { .. } | Inst::Unbind { .. } | Inst::Match => None,
    }
}

/// The index of the class holding exactly `codes` in `classes` (added if new).
pub(super) fn intern(classes: &mut Vec<Box<[Code]>>, codes: impl IntoIterator<Item = Code>) -> usize {
    let mut codes: Vec<Code> = codes.into_iter().collect();
    codes.sort_unstable();
    codes.dedup();
    match classes.iter().position(|c| c[..] == codes[..]) {
        Some(i) => i,
        None => {
            classes.push(codes.into());
            classes.len() - 1
        }
    }
}

/// Appends to `program` a choice among the instructions `alternatives`, in
/// that order, and gives where it starts.
pub(super) fn choice_of(program: &mut Program, alternatives: &[Pc]) -> Pc {
    let (&last, others) = alternatives.split_last().expect("an alternative");
    let mut next = last;
    for &pc in others.iter().rev() {
        program.insts.push(Inst::Split {
            first: pc,
            second: next,
        });
        program.visit.push(false);
        program.loop_heads.push(false);
        program.entry.push(Box::default());
        program.skip.push(None);
        next = program.insts.len() as Pc - 1;
    }
    next
}

/// Whether `v` is `d` taken a whole number of times, once or more.
pub(super) fn on_ray(v: (i32, i32), d: (i32, i32)) -> bool {
    let k = if d.0 != 0 {
        if v.0 % d.0 != 0 {
            return false;
        }
        v.0 / d.0
    } else if d.1 != 0 {
        if v.1 % d.1 != 0 || v.0 != 0 {
            return false;
        }
        v.1 / d.1
    } else {
        return false;
    };
    k >= 1 && v == (k * d.0, k * d.1)
}

/// The moves of the body from `start` of a bind of `pieces`, when each is
/// a step or a slide ([`Ray`]), each ending at an unbind and the match, and
/// no two can be the same move.
pub(super) fn rays(
    walker: &Walker,
    program: &Program,
    start: Pc,
    pieces: &[Code],
    geometry: &Geometry,
    classes: &mut Vec<Box<[Code]>>,
) -> Option<Moves> {
    let (w, h) = (geometry.width as i32, geometry.height as i32);
    let ends = |pc: Pc| -> bool {
        matches!(follow(program, pc).map(|pc| &program.insts[pc as usize]),
            Ok(&Inst::Unbind { next }) if follow(program, next).is_ok_and(|m| program.insts[m as usize] == Inst::Match))
    };
    let mut found: Vec<((i32, i32), Ray)> = Vec::new();
    let mut todo = vec![start];
    let mut seen = vec![false; program.insts.len()];
    while let Some(pc) = todo.pop() {
        let pc = follow(program, pc).ok()?;
        if std::mem::replace(&mut seen[pc as usize], true) {
            return None;
        }
        let (step, slide) = match program.insts[pc as usize] {
            Inst::Split { second, .. } if let Some(slide) = walker.slide_at(pc) => {
                let Inst::Rewrite { id, next } = program.insts[follow(program, second).ok()? as usize] else {
                    return None;
                };
                let exit = walker.step_of(id)?;
                let same = (exit.dx, exit.dy) == (slide.step.dx, slide.step.dy) && exit.behind == slide.over;
                if !same || !ends(next) {
                    return None;
                }
                (exit, Some(slide.over))
            }
            Inst::Split { first, second } => {
                todo.extend([second, first]);
                continue;
            }
            Inst::Rewrite { id, next } if ends(next) => (walker.step_of(id)?, None),
            _ => return None,
        };
        let onto = step.onto.codes().collect::<Vec<_>>();
        for &piece in pieces {
            let moved = code::with_marks(piece, step.marks);
            if pieces.contains(&step.behind) || onto.contains(&moved) || slide == Some(moved) {
                return None;
            }
        }
        let (dx, dy) = (step.dx, step.dy);
        let lines = slide.map(|over| {
            let line = |s: i32, (dx, dy): (i32, i32)| {
                let (mut x, mut y, mut set) = (s % w + dx, s / w + dy, 0 as Squares);
                while (0..w).contains(&x) && (0..h).contains(&y) {
                    set |= 1 << (y * w + x);
                    (x, y) = (x + dx, y + dy);
                }
                set
            };
            Lines {
                over: intern(classes, [over]),
                ahead: (0..w * h).map(|s| line(s, (dx, dy))).collect(),
                back: (0..w * h).map(|s| line(s, (-dx, -dy))).collect(),
            }
        });
        let ray = Ray {
            step: (dx, dy),
            shift: dx + dy * w,
            inside: geometry.inside(dx, dy),
            slide: lines,
            onto: intern(classes, onto),
            behind: step.behind,
            marks: step.marks,
        };
        found.push(((dx, dy), ray));
    }
    // No two moves the same: steps apart, no step along a slide's ray, no
    // two slides' rays overlapping.
    for (i, (a, ra)) in found.iter().enumerate() {
        for (b, rb) in &found[i + 1..] {
            let clash = match (ra.slide.is_some(), rb.slide.is_some()) {
                (false, false) => a == b,
                (false, true) => on_ray(*a, *b),
                (true, false) => on_ray(*b, *a),
                (true, true) => a.0 * b.1 == a.1 * b.0 && a.0 * b.0 + a.1 * b.1 > 0,
            };
            if clash {
                return None;
            }
        }
    }
    (!found.is_empty()).then(|| Moves::Rays(found.into_iter().map(|(_, r)| r).collect()))
}

/// The moves of the bind at `pc` as the rules of its traced plan, when no
/// two results can be the same move and its tails are counted exactly.
pub(super) fn rules(
    program: &Program,
    pc: Pc,
    geometry: &Geometry,
    classes: &mut Vec<Box<[Code]>>,
) -> Option<Moves> {
    let plan = traced_plan_at(program, pc, geometry.width, geometry.height).ok()?;
    let rules = &plan.rules;
    // Results that could be one move: the same piece by the same step to
    // the same piece, unless their rules cannot match together.
    let exclusive = |i: usize, fi: (i32, i32), j: usize, fj: (i32, i32)| {
        rules[i].checks.iter().any(|a| {
            rules[j].checks.iter().any(|b| {
                (a.dx - fi.0, a.dy - fi.1) == (b.dx - fj.0, b.dy - fj.1)
                    && a.codes.iter().all(|&c| !b.accepts.contains(c))
            })
        })
    };
    let moves: Vec<(usize, &crate::engine::choice::TracedMove)> = (rules.iter().enumerate())
        .flat_map(|(i, r)| r.traces.iter().map(move |t| (i, t)))
        .collect();
    for (k, &(i, a)) in moves.iter().enumerate() {
        for &(j, b) in &moves[k + 1..] {
            let apart = (a.piece, a.step) != (b.piece, b.step)
                || (a.became != b.became && rules[i].tails.is_empty() && rules[j].tails.is_empty())
                || (i != j && exclusive(i, a.from_at, j, b.from_at));
            if !apart {
                return None;
            }
        }
    }
    let mut out = Vec::new();
    for rule in rules {
        let class_check = |c: &SetCheck, classes: &mut Vec<Box<[Code]>>| ClassCheck {
            shift: c.shift,
            class: intern(classes, c.codes.iter().copied()),
            inside: c.inside,
            outside: c.outside,
        };
        let checks = rule.checks.iter().map(|c| class_check(c, classes)).collect();
        let choices: Vec<(Vec<SetWrite>, bool)> = (rule.choices.iter())
            .map(|w| (w.clone(), w.iter().any(|w| w.always)))
            .collect();
        let first = rule.traces.first()?;
        let tail_places = match (&rule.tails[..], &rule.choices[..]) {
            ([], _) => Some(Vec::new()),
            ([tail], [writes]) => {
                // Branching options must give each result its own piece.
                for option in &tail.options {
                    let mut put: Vec<Code> = Vec::new();
                    for o in option.iter().filter(|_| option.len() > 1) {
                        let here = o.writes.iter().rev().find(|&&(dx, dy, _)| (dx, dy) == (0, 0));
                        match here {
                            Some(&(_, _, c))
                                if code::as_piece(c).is_some() && c != first.poi && !put.contains(&c) =>
                            {
                                put.push(c)
                            }
                            _ => return None,
                        }
                    }
                }
                let to = (first.from_at.0 + first.step.0, first.from_at.1 + first.step.1);
                let mut list = Vec::new();
                for o in tail.options.iter().flatten() {
                    let mut checks = Vec::new();
                    let mut possible = true;
                    for c in &o.checks {
                        let sq = (to.0 + c.dx, to.1 + c.dy);
                        match writes.iter().rev().find(|w| (w.dx, w.dy) == sq) {
                            Some(w) => {
                                possible &=
                                    c.accepts.contains(w.code) || (c.poi && sq == to && w.code == first.poi)
                            }
                            None if c.poi && sq == to => {}
                            None => {
                                checks.push(class_check(&geometry.check(sq.0, sq.1, &c.accepts), classes))
                            }
                        }
                    }
                    if possible {
                        list.push(checks);
                    }
                }
                Some(list)
            }
            // Several tails, or a rule with several choices: one by one.
            _ => {
                if (rule.tails.iter().flat_map(|t| &t.options)).any(|o| o.len() > 1) {
                    return None;
                }
                None
            }
        };
        let same_end = rule.traces.iter().all(|t| (t.to, t.poi) == (first.to, first.poi));
        if !rule.tails.is_empty() && !same_end {
            return None;
        }
        let tail_reads = (rule.tails.iter().flat_map(|t| t.options.iter().flatten()))
            .flat_map(|o| o.checks.iter().map(|c| (c.dx, c.dy)))
            .collect();
        out.push(BulkRule {
            checks,
            choices,
            tails: rule.tails.clone(),
            tail_places,
            to: first.to,
            poi: first.poi,
            from: first.from,
            piece: first.piece,
            steps: rule.traces.iter().map(|t| t.step).collect(),
            tail_reads,
        });
    }
    (!out.is_empty()).then_some(Moves::Rules(out))
}
