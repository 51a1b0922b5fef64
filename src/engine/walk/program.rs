//! What the walker reads off a program when it is prepared: which binds
//! are live, where a choice's alternatives end, which ordered choices have
//! at most one result, and which instructions lead to the match by jumps
//! alone.

use super::Anchor;
use crate::core::CodeSet;
use crate::program::{BindId, Inst, Pc, Program, RewriteId, SubId};

/// Per bind of `program`: whether an instruction the program can reach
/// (from its start, through guards and ordered choices) is that bind.
pub(super) fn live_binds(program: &Program) -> Vec<bool> {
    let mut live = vec![false; program.binds.len()];
    let mut seen = vec![false; program.insts.len()];
    let mut todo = vec![program.start];
    while let Some(pc) = todo.pop() {
        if std::mem::replace(&mut seen[pc as usize], true) {
            continue;
        }
        let inst = &program.insts[pc as usize];
        match *inst {
            Inst::Bind { id, .. } => live[id.index()] = true,
            Inst::Guard { sub, .. } => todo.push(program.subs[sub.index()]),
            Inst::Ordered { id, .. } => todo.extend(
                program.ordered[id.index()]
                    .iter()
                    .map(|s| program.subs[s.index()]),
            ),
            _ => {}
        }
        todo.extend(inst.successors());
    }
    live
}

/// The match a choice of rewrites starting at `start` ends at (each rewrite,
/// or `nil`, followed by it), if it is one (splits, jumps and rewrites only,
/// no loop), with the instructions it runs.
pub(super) fn choice_end(prog: &Program, start: Pc) -> Option<(Pc, Vec<Pc>)> {
    let mut end = None;
    let mut seen = vec![false; prog.insts.len()];
    let mut runs = Vec::new();
    let mut todo = vec![start];
    let mut meet = |pc: Pc| end.replace(pc).is_none_or(|e| e == pc);
    while let Some(pc) = todo.pop() {
        if std::mem::replace(&mut seen[pc as usize], true) {
            return None;
        }
        runs.push(pc);
        match prog.insts[pc as usize] {
            Inst::Split { first, second } => todo.extend([second, first]),
            Inst::Jump { to } => todo.push(to),
            Inst::Match => {
                if !meet(pc) {
                    return None;
                }
            }
            Inst::Rewrite { next, .. } => {
                let mut at = next;
                for _ in 0..prog.insts.len() {
                    runs.push(at);
                    match prog.insts[at as usize] {
                        Inst::Jump { to } => at = to,
                        _ => break,
                    }
                }
                if prog.insts[at as usize] != Inst::Match || !meet(at) {
                    return None;
                }
            }
            _ => return None,
        }
    }
    end.map(|end| (end, runs))
}

/// Whether only jumps and unbinds lead from `pc` to the match.
pub(crate) fn leads_to_match(prog: &Program, mut pc: Pc) -> bool {
    for _ in 0..prog.insts.len() {
        match prog.insts[pc as usize] {
            Inst::Jump { to } => pc = to,
            Inst::Unbind { next } => pc = next,
            Inst::Match => return true,
            _ => return false,
        }
    }
    false
}

/// Per rewrite: whether it is a last write of the program's own path (not
/// of a guard or an ordered choice's alternative): from the instruction
/// after it the path reaches no other rewrite and no ordered choice
/// (guards and tests only read). A walk that asks whether a square changes
/// need only try such a rewrite where one of its writes is that square
/// ([`super::run`]'s aimed matches).
pub(super) fn last_writes(program: &Program) -> Vec<bool> {
    let n = program.insts.len();
    let is_write = |inst: &Inst| matches!(inst, Inst::Rewrite { .. } | Inst::Ordered { .. });
    // Which instructions lead to a write (themselves included): back from
    // every write along the program's own edges, once.
    let mut before: Vec<Vec<Pc>> = vec![Vec::new(); n];
    for (pc, inst) in program.insts.iter().enumerate() {
        for next in inst.successors() {
            before[next as usize].push(pc as Pc);
        }
    }
    let mut todo: Vec<Pc> = (0..n as Pc)
        .filter(|&pc| is_write(&program.insts[pc as usize]))
        .collect();
    let mut writes_ahead = vec![false; n];
    todo.iter().for_each(|&pc| writes_ahead[pc as usize] = true);
    while let Some(pc) = todo.pop() {
        for &p in &before[pc as usize] {
            if !std::mem::replace(&mut writes_ahead[p as usize], true) {
                todo.push(p);
            }
        }
    }
    // The program's own path: from its start, not into sub-programs.
    let mut main = vec![false; n];
    let mut todo = vec![program.start];
    while let Some(pc) = todo.pop() {
        if !std::mem::replace(&mut main[pc as usize], true) {
            todo.extend(program.insts[pc as usize].successors());
        }
    }
    let mut last = vec![false; program.rewrites.len()];
    let mut written_after = vec![false; program.rewrites.len()];
    for (pc, inst) in program.insts.iter().enumerate() {
        if let Inst::Rewrite { id, next } = *inst {
            if main[pc] && !writes_ahead[next as usize] {
                last[id.index()] = true;
            } else {
                written_after[id.index()] = true;
            }
        }
    }
    for (l, w) in last.iter_mut().zip(written_after) {
        *l &= !w;
    }
    last
}

/// The instruction `pc` leads to past jumps.
fn past_jumps(program: &Program, mut pc: Pc) -> Pc {
    for _ in 0..program.insts.len() {
        match program.insts[pc as usize] {
            Inst::Jump { to } => pc = to,
            _ => break,
        }
    }
    pc
}

/// The rewrites a choice starting at `start` makes (splits and jumps down
/// to rewrites, no `nil`, no loop), each with the instruction it goes on
/// to past jumps, in the order a search tries them.
fn rewrites_with_next(program: &Program, start: Pc) -> Option<Vec<(RewriteId, Pc)>> {
    let mut found = Vec::new();
    let mut todo = vec![start];
    let mut seen = vec![false; program.insts.len()];
    while let Some(pc) = todo.pop() {
        if std::mem::replace(&mut seen[pc as usize], true) {
            return None;
        }
        match program.insts[pc as usize] {
            Inst::Split { first, second } => todo.extend([second, first]),
            Inst::Jump { to } => todo.push(to),
            Inst::Rewrite { id, next } => found.push((id, past_jumps(program, next))),
            _ => return None,
        }
    }
    Some(found)
}

/// The rewrites a sub-program starting at `body` tries, if that is all it
/// does: a choice among rewrites (splits and jumps), each followed by the
/// match, so that it has a result where one of them matches.
pub(super) fn choice_of_tests(program: &Program, body: Pc) -> Option<Vec<RewriteId>> {
    let found = rewrites_with_next(program, body)?;
    (found
        .iter()
        .all(|&(_, next)| program.insts[next as usize] == Inst::Match))
    .then(|| found.into_iter().map(|(id, _)| id).collect())
}

/// The sub-program a sub-program starting at `body` runs at the square
/// the piece of interest left, if that is all it does: `%from:` around one
/// guard that must hold (`?{%from: ?{f}}`'s body).
pub(super) fn origin_guard(program: &Program, body: Pc) -> Option<SubId> {
    let at = |pc: Pc| &program.insts[past_jumps(program, pc) as usize];
    let Inst::Origin { next } = *at(body) else {
        return None;
    };
    let Inst::Guard {
        holds: true,
        sub,
        next,
    } = *at(next)
    else {
        return None;
    };
    let Inst::Unbind { next } = *at(next) else {
        return None;
    };
    matches!(at(next), Inst::Match).then_some(sub)
}

/// The one test a sub-program starting at `body` makes, if that is all it
/// does (`?{f}`, which must hold, and the match): a guard's sub-program,
/// or a test of one rewrite.
pub(super) fn only_test(program: &Program, body: Pc) -> Option<Result<SubId, RewriteId>> {
    let (test, next) = match program.insts[past_jumps(program, body) as usize] {
        Inst::Guard {
            holds: true,
            sub,
            next,
        } => (Ok(sub), next),
        Inst::Test {
            holds: true,
            id,
            next,
        } => (Err(id), next),
        _ => return None,
    };
    matches!(program.insts[past_jumps(program, next) as usize], Inst::Match).then_some(test)
}

/// An alternative of an ordered choice kept by [`super::Walker::first_match`]: the
/// rewrites it is a choice of (`nil`: none), and a square, at an offset
/// from the piece of interest, that every one of them checks, with the
/// contents any of them accepts there: where it holds none, none matches.
#[derive(Clone, Debug)]
pub(super) struct FirstSub {
    pub(super) rewrites: Box<[RewriteId]>,
    pub(super) gate: Option<(i32, i32, CodeSet)>,
}

/// The alternatives of an ordered choice whose sub-programs start at
/// `starts`, as [`super::Walker::first_match`] keeps them, if it has that shape.
pub(super) fn first_match(
    program: &Program,
    anchors: &[Vec<Anchor>],
    starts: impl Iterator<Item = Pc>,
) -> Option<Box<[FirstSub]>> {
    let mut subs = Vec::new();
    for start in starts {
        let (rewrites, nil) = crate::engine::choice::compile::choice_of_rewrites(program, start, 0).ok()?;
        if nil && !rewrites.is_empty() {
            // `nil` and a rewrite: two results.
            return None;
        }
        let mut alts = Vec::new();
        for &id in &rewrites {
            let ([a], [Anchor::Poi(poi)]) = (
                &program.rewrites[id.index()].alternatives[..],
                &anchors[id.index()][..],
            ) else {
                return None;
            };
            if a.choices.len() != 1 {
                return None;
            }
            alts.push((a, &a.checks[*poi]));
        }
        for (i, (a, _)) in alts.iter().enumerate() {
            if !alts[i + 1..]
                .iter()
                .all(|(b, _)| crate::engine::placed::exclusive(a, b))
            {
                return None;
            }
        }
        // The first square (from the first rewrite's checks) that all check.
        let gate = alts.first().and_then(|&(a, poi)| {
            a.checks.iter().filter(|c| !c.poi).find_map(|c| {
                let (dx, dy) = (c.dx - poi.dx, c.dy - poi.dy);
                let mut accepts = CodeSet::default();
                for (b, bpoi) in &alts {
                    let same = b
                        .checks
                        .iter()
                        .find(|d| !d.poi && (d.dx - bpoi.dx, d.dy - bpoi.dy) == (dx, dy))?;
                    accepts = accepts.union(&same.accepts);
                }
                Some((dx, dy, accepts))
            })
        });
        subs.push(FirstSub {
            rewrites: rewrites.into_boxed_slice(),
            gate,
        });
    }
    Some(subs.into_boxed_slice())
}

/// A loop that jumps, captures or otherwise moves the piece of interest
/// for as long as it can (`(j1 | j2)+ !{j1 | j2}`, checkers' chain of
/// captures), read off its loop head by [`chain`]: a search arriving there
/// makes each body rewrite that matches at the piece and comes back, and
/// where none matches goes on past the guard, which holds there.
#[derive(Clone, Debug)]
pub(super) struct Chain {
    /// The loop's rewrites, in the order the loop tries them, each with
    /// the offset of its check at the piece of interest.
    pub(super) rewrites: Box<[(RewriteId, i32, i32)]>,
    /// Where a state none of them matches on goes on: past the guard.
    pub(super) exit: Pc,
}

/// The chain loop head `head` starts, if it is one: a split whose first
/// branch is a choice of rewrites (no `nil`) each back to `head`, whose
/// second is a guard `!{...}` on a choice of the same rewrites; each
/// rewrite made at the piece of interest (one alternative, one choice, no
/// box), and each leaving fewer occupied squares than it found, so that no
/// path can come back to a state it was in and the loop needs no visited
/// set. The program's binds must name pieces only and it has no `%from:`
/// (so the piece of interest, written by a rewrite, fills its square).
pub(super) fn chain(program: &Program, anchors: &[Vec<Anchor>], head: Pc) -> Option<Chain> {
    use crate::core::EMPTY;
    use crate::program::Write;
    if !program.loop_heads[head as usize] {
        return None;
    }
    let Inst::Split { first, second } = program.insts[head as usize] else {
        return None;
    };
    if !(program.binds.iter().flatten()).all(|&c| crate::core::as_piece(c).is_some())
        || (program.insts.iter()).any(|i| matches!(i, Inst::Origin { .. }))
    {
        return None;
    }
    // The body: rewrites that all come back.
    let (body, back) = rewrites_to_one(program, first)?;
    if back != head {
        return None;
    }
    let Inst::Guard {
        holds: false,
        sub,
        next: exit,
    } = program.insts[past_jumps(program, second) as usize]
    else {
        return None;
    };
    let tested = choice_of_tests(program, program.subs[sub.index()])?;
    // (Equal rewrites have equal anchors: the walker reads them off the rewrite.)
    let same = |a: RewriteId, b: RewriteId| program.rewrites[a.index()] == program.rewrites[b.index()];
    let covers = |xs: &[RewriteId], ys: &[RewriteId]| xs.iter().all(|&x| ys.iter().any(|&y| same(x, y)));
    if !covers(&body, &tested) || !covers(&tested, &body) {
        return None;
    }
    let mut rewrites = Vec::new();
    for &id in &body {
        let ([a], [Anchor::Poi(poi)]) = (
            &program.rewrites[id.index()].alternatives[..],
            &anchors[id.index()][..],
        ) else {
            return None;
        };
        let [choice] = &a.choices[..] else {
            return None;
        };
        if a.uses_boxes() {
            return None;
        }
        // Occupied squares after less before: fewer, whatever the squares hold.
        let mut gained = 0i32;
        for (i, w) in choice.iter().enumerate() {
            if choice[..i].iter().any(|v| (v.dx, v.dy) == (w.dx, w.dy)) {
                return None;
            }
            let check = a.checks.iter().find(|c| (c.dx, c.dy) == (w.dx, w.dy))?;
            let filled = match w.write {
                Write::Code(c) => c != EMPTY,
                Write::Poi(_) => true,
            };
            // Holding the piece of interest (a piece) or what it accepts.
            let was_filled = !check.accepts.contains(EMPTY);
            gained += filled as i32 - was_filled as i32;
        }
        if gained >= 0 {
            return None;
        }
        let check = &a.checks[*poi];
        rewrites.push((id, check.dx, check.dy));
    }
    Some(Chain {
        rewrites: rewrites.into_boxed_slice(),
        exit,
    })
}

/// A program that is a choice among pieces each making a chain, as
/// [`chained_moves`] reads it: `%p: (j1 | j2)+ !{j1 | j2} (t1 / t2 / nil)`
/// per alternative (checkers' captures), for a strategy that runs such
/// chains without walking them ([`crate::engine::chain`]).
#[derive(Clone, Debug)]
pub(crate) struct ChainedMoves {
    /// The alternatives, in the order the program tries them.
    pub(crate) alternatives: Vec<ChainedPiece>,
}

/// One alternative of [`ChainedMoves`].
#[derive(Clone, Debug)]
pub(crate) struct ChainedPiece {
    /// The pieces it binds.
    pub(crate) bind: BindId,
    /// The rewrites the piece makes first: one of each list in turn.
    pub(crate) first: Vec<Vec<RewriteId>>,
    /// The chain's rewrites, made then as long as one matches.
    pub(crate) chain: Vec<RewriteId>,
    /// What follows the chain: an ordered choice with at most one result
    /// (per alternative, the rewrites it is a choice of; none: `nil`), or
    /// nothing (`None`).
    pub(crate) tail: Option<Vec<Vec<RewriteId>>>,
}

/// The rewrites a choice starting at `start` makes, each then going on to
/// the same instruction, and that instruction (no `nil`, no loop).
fn rewrites_to_one(program: &Program, start: Pc) -> Option<(Vec<RewriteId>, Pc)> {
    let found = rewrites_with_next(program, start)?;
    let &(_, to) = found.first()?;
    (found.iter().all(|&(_, next)| next == to)).then(|| (found.into_iter().map(|(id, _)| id).collect(), to))
}

/// The program from its start as [`ChainedMoves`], if it is that: a choice
/// (splits) of binds, each followed by choices of rewrites in turn, a chain
/// ([`chain`]), maybe an ordered choice [`first_match`] keeps, the unbind
/// and the match; every rewrite made at the piece of interest (one
/// alternative, one choice, no box). `chains` and `first_matches` are the
/// walker's, per instruction and per ordered choice.
pub(super) fn chained_moves(
    program: &Program,
    anchors: &[Vec<Anchor>],
    chains: &[Option<Chain>],
    first_matches: &[Option<Box<[FirstSub]>>],
) -> Option<ChainedMoves> {
    let at_poi = |id: RewriteId| {
        let rw = &program.rewrites[id.index()];
        matches!(
            (&rw.alternatives[..], &anchors[id.index()][..]),
            ([a], [Anchor::Poi(_)]) if a.choices.len() == 1 && !a.uses_boxes()
        )
    };
    let mut alternatives = Vec::new();
    let mut todo = vec![program.start];
    let mut seen = vec![false; program.insts.len()];
    while let Some(pc) = todo.pop() {
        if std::mem::replace(&mut seen[pc as usize], true) {
            return None;
        }
        let (bind, next) = match program.insts[pc as usize] {
            Inst::Split { first, second } => {
                todo.extend([second, first]);
                continue;
            }
            Inst::Jump { to } => {
                todo.push(to);
                continue;
            }
            Inst::Bind { id, next } => (id, next),
            _ => return None,
        };
        // Choices of rewrites one after another, up to the chain's head.
        let mut first = Vec::new();
        let mut head = next;
        while chains[head as usize].is_none() {
            let (ids, to) = rewrites_to_one(program, head)?;
            if first.len() >= program.insts.len() {
                return None;
            }
            first.push(ids);
            head = to;
        }
        if first.is_empty() {
            return None;
        }
        let chain = chains[head as usize].as_ref()?;
        let mut at = past_jumps(program, chain.exit);
        let mut tail = None;
        if let Inst::Ordered { id, next } = program.insts[at as usize] {
            let subs = first_matches[id.index()].as_ref()?;
            tail = Some(subs.iter().map(|s| s.rewrites.to_vec()).collect::<Vec<_>>());
            at = past_jumps(program, next);
        }
        let Inst::Unbind { next } = program.insts[at as usize] else {
            return None;
        };
        if program.insts[past_jumps(program, next) as usize] != Inst::Match {
            return None;
        }
        let chain: Vec<RewriteId> = chain.rewrites.iter().map(|&(id, _, _)| id).collect();
        let tails = tail.iter().flatten().flatten();
        if !(first.iter().flatten().chain(&chain).chain(tails)).all(|&id| at_poi(id)) {
            return None;
        }
        alternatives.push(ChainedPiece {
            bind,
            first,
            chain,
            tail,
        });
    }
    Some(ChainedMoves { alternatives })
}
