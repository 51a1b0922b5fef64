//! From a matcher program to a [`Plan`]: the rewrites a program chooses
//! among, as square-set operations on a board of one size, or the reason
//! the choice strategy declines the program.

use super::{Plan, Rule, SetCheck, SetWrite, Tail, TailCheck, TailGate, TailRewrite, TracedMove};
use crate::core::{self as code, Code, CodeSet, OFF};
use crate::engine::squares::{Decline, MAX_SQUARES, Squares};
use crate::program::{
    Alternative, Check as ProgramCheck, Inst, ListId, Pc, Program, RewriteId, SquareWrite,
    Write as ProgramWrite,
};

/// Compiles `program` for boards of exactly `width` by `height` squares.
pub(crate) fn plan(program: &Program, width: u32, height: u32) -> Result<Plan, Decline> {
    plan_at(program, program.start, width, height)
}

/// [`plan`] of the sub-program from `start`.
fn plan_at(program: &Program, start: Pc, width: u32, height: u32) -> Result<Plan, Decline> {
    if width == 0 || height == 0 || width * height > MAX_SQUARES {
        return Err(Decline::BoardTooLarge);
    }
    let (rewrites, nil) = choice_of_rewrites(program, start, 0)?;
    let geometry = Geometry { width, height };
    let mut rules = Vec::new();
    for id in rewrites {
        for alt in program.rewrites[id.index()].alternatives.iter() {
            rules.push(rule(alt, &geometry)?);
        }
    }
    Ok(finish(rules, nil, &geometry))
}

/// Compiles a program that binds a piece and makes one rewrite from it
/// (`%p: (a | b | ...)`, each rewrite matching at the piece) for boards of
/// exactly `width` by `height` squares: one rule per code the piece may
/// have and alternative, the piece's square checked for that code, each
/// result traced from that square to where the piece ends (`nil`, the
/// piece staying without a change, is a rule with no writes). Its results
/// are the program's only where no two can make the same changes
/// ([`Plan::distinct`]; else they would need deduplication, which would
/// have to tell moves apart by their traces); whether there is one holds
/// either way.
pub(crate) fn traced_plan(program: &Program, width: u32, height: u32) -> Result<Plan, Decline> {
    traced_plan_at(program, program.start, width, height)
}

/// [`traced_plan`] of the sub-program from `start`, or else [`plan`]'s: the
/// plan that tells whether that sub-program has a result on a position
/// (its pieces of interest its own), if it has one.
pub(crate) fn test_plan(program: &Program, start: Pc, width: u32, height: u32) -> Option<Plan> {
    traced_plan_at(program, start, width, height)
        .or_else(|_| plan_at(program, start, width, height))
        .ok()
}

/// [`traced_plan`] of the sub-program from `start`.
pub(crate) fn traced_plan_at(program: &Program, start: Pc, width: u32, height: u32) -> Result<Plan, Decline> {
    if width == 0 || height == 0 || width * height > MAX_SQUARES {
        return Err(Decline::BoardTooLarge);
    }
    // A choice of binds (`%p: a | %q: b`), in the backtracker's order.
    let mut binds = Vec::new();
    let mut todo = vec![start];
    let mut seen = vec![false; program.insts.len()];
    while let Some(pc) = todo.pop() {
        let pc = follow(program, pc)?;
        if std::mem::replace(&mut seen[pc as usize], true) {
            return Err(Decline::NotAChoice("a loop"));
        }
        match program.insts[pc as usize] {
            Inst::Split { first, second } => todo.extend([second, first]),
            Inst::Bind { id, next } => binds.push((id, bind_body(program, next)?)),
            _ => return Err(Decline::NotAChoice("no piece of interest")),
        }
    }
    let geometry = Geometry { width, height };
    let mut rules = Vec::new();
    for (bind, (rewrites, nil)) in binds {
        for &code in program.binds[bind.index()].iter() {
            for (id, tails) in &rewrites {
                for alt in program.rewrites[id.index()].alternatives.iter() {
                    if let Some(mut rule) = traced_rule(alt, code, &geometry)? {
                        rule.tails = tails.clone();
                        rules.push(rule);
                    }
                }
            }
            if nil {
                // The piece stays: its square holds it, nothing changes.
                rules.push(Rule {
                    checks: vec![geometry.check(0, 0, &CodeSet::of([code]))],
                    choices: vec![Vec::new()],
                    reference: (0, 0),
                    traces: vec![TracedMove {
                        from: 0,
                        to: 0,
                        from_at: (0, 0),
                        step: (0, 0),
                        became: None,
                        piece: code,
                        poi: code,
                    }],
                    tails: Vec::new(),
                });
            }
        }
    }
    let mut plan = finish(rules, false, &geometry);
    plan.tails = plan.rules.iter().any(|r| !r.tails.is_empty());
    plan.tail_gates = (plan.rules.iter()).map(|r| tail_gates(r, &geometry)).collect();
    // Moves of one piece that go by different steps are different moves,
    // whatever they change; else their changes must tell them apart. A
    // tail whose option is a choice of several rewrites makes several
    // results of one: the plan then only tells whether there is one.
    let branching = (plan.rules.iter())
        .flat_map(|r| &r.tails)
        .any(|t| t.options.iter().any(|o| o.len() > 1));
    plan.distinct = !branching && (distinct_moves(&plan.rules) || (!plan.tails && plan.distinct));
    Ok(plan)
}

/// Whether no two results of traced `rules` are the same move: for each
/// code of the piece, each rule's choices move it by different steps.
fn distinct_moves(rules: &[Rule]) -> bool {
    let mut steps: Vec<(Code, (i32, i32))> = rules
        .iter()
        .flat_map(|r| r.traces.iter().map(|t| (t.piece, t.step)))
        .collect();
    let n = steps.len();
    steps.sort_unstable();
    steps.dedup();
    steps.len() == n
}

/// The move of a bound piece: its rewrites, each with the tail made after
/// it, and whether the piece may also stay (`nil`). The choice of rewrites
/// from `start`, each followed by ordered choices that make at most one
/// rewrite at the piece or nothing ([`Tail`]), then the unbind and the match.
#[allow(clippy::type_complexity)]
fn bind_body(program: &Program, start: Pc) -> Result<(Vec<(RewriteId, Vec<Tail>)>, bool), Decline> {
    choice_with_tails(program, start, 1, true)
}

/// Ordered choice `id` as a tail: each alternative but the last a choice of
/// rewrites at the piece of interest, each with one left side and one
/// right side that writes contents (not the piece), the last `nil`.
fn tail(program: &Program, id: ListId) -> Result<Tail, Decline> {
    let no = || Decline::NotAChoice("an ordered choice that may make more than one move");
    let subs = &program.ordered[id.index()];
    let (last, options) = subs.split_last().ok_or_else(no)?;
    if program.insts[follow(program, program.subs[last.index()])? as usize] != Inst::Match {
        return Err(no());
    }
    let options = options
        .iter()
        .map(|sub| {
            let (rewrites, nil) = choice_of_rewrites(program, program.subs[sub.index()], 0)?;
            if nil || rewrites.is_empty() {
                return Err(no());
            }
            rewrites.into_iter().map(|id| tail_rewrite(program, id)).collect()
        })
        .collect::<Result<_, _>>()?;
    Ok(Tail { options })
}

/// Rewrite `id` as one rewrite of a [`Tail`]'s option.
fn tail_rewrite(program: &Program, id: RewriteId) -> Result<TailRewrite, Decline> {
    let no = || Decline::NotAChoice("an ordered choice that may make more than one move");
    let [alt] = &program.rewrites[id.index()].alternatives[..] else {
        return Err(no());
    };
    let [choice] = &alt.choices[..] else {
        return Err(no());
    };
    let pois: Vec<&ProgramCheck> = alt.checks.iter().filter(|c| c.poi).collect();
    let [poi] = pois[..] else {
        return Err(no());
    };
    if !poi.poi_marks.is_empty()
        || !alt.tally_checks.is_empty()
        || alt.tally_writes.iter().any(|w| !w.is_empty())
    {
        return Err(no());
    }
    let checks = alt
        .checks
        .iter()
        .map(|c| TailCheck {
            dx: c.dx - poi.dx,
            dy: c.dy - poi.dy,
            accepts: c.accepts.clone(),
            poi: c.poi,
        })
        .collect();
    let mut writes = Vec::new();
    for w in choice.iter() {
        let ProgramWrite::Code(c) = w.write else {
            return Err(no());
        };
        let check = alt.checks.iter().find(|k| (k.dx, k.dy) == (w.dx, w.dy));
        match check {
            // Writes back what the square must hold: no change.
            Some(k) if !k.poi && k.accepts == CodeSet::of([c]) => {}
            Some(k) if c != OFF && !k.accepts.contains(OFF) => writes.push((w.dx - poi.dx, w.dy - poi.dy, c)),
            _ => return Err(Decline::ChangesTheBoard),
        }
    }
    Ok(TailRewrite { checks, writes })
}

/// The rewrites of the choice that starts at `start` (each followed by
/// `unbinds` unbinds and the match), in the backtracker's order, and
/// whether the choice may also change nothing (`nil`).
pub(crate) fn choice_of_rewrites(
    program: &Program,
    start: Pc,
    unbinds: usize,
) -> Result<(Vec<RewriteId>, bool), Decline> {
    let (rewrites, nil) = choice_with_tails(program, start, unbinds, false)?;
    Ok((rewrites.into_iter().map(|(id, _)| id).collect(), nil))
}

/// [`choice_of_rewrites`], each rewrite (if `tails`) with the [`Tail`]s
/// made after it, before the unbinds.
#[allow(clippy::type_complexity)]
fn choice_with_tails(
    program: &Program,
    start: Pc,
    unbinds: usize,
    tails: bool,
) -> Result<(Vec<(RewriteId, Vec<Tail>)>, bool), Decline> {
    let mut rewrites = Vec::new();
    let mut nil = false;
    let mut seen = vec![false; program.insts.len()];
    let mut todo = vec![start];
    // Whether `unbinds` unbinds lead from `pc` to the match.
    let ends = |mut pc: Pc| -> Result<bool, Decline> {
        for _ in 0..unbinds {
            match program.insts[follow(program, pc)? as usize] {
                Inst::Unbind { next } => pc = next,
                _ => return Ok(false),
            }
        }
        Ok(program.insts[follow(program, pc)? as usize] == Inst::Match)
    };
    // Depth first, the first branch of a split before the second: the order
    // the backtracker explores the choices in.
    while let Some(pc) = todo.pop() {
        let pc = follow(program, pc)?;
        if std::mem::replace(&mut seen[pc as usize], true) {
            return Err(Decline::NotAChoice("a loop"));
        }
        match program.insts[pc as usize] {
            Inst::Split { first, second } => {
                todo.push(second);
                todo.push(first);
            }
            Inst::Match if unbinds == 0 => nil = true,
            Inst::Unbind { .. } if ends(pc)? => nil = true,
            Inst::Rewrite { id, mut next } => {
                // Then the tails, then the unbinds and the match.
                let mut after = Vec::new();
                while tails && !ends(next)? && after.len() < program.insts.len() {
                    let Inst::Ordered { id, next: past } = program.insts[follow(program, next)? as usize]
                    else {
                        break;
                    };
                    after.push(tail(program, id)?);
                    next = past;
                }
                if !ends(next)? {
                    return Err(Decline::NotAChoice("rewrites in sequence"));
                }
                rewrites.push((id, after));
            }
            Inst::Bind { .. } | Inst::Unbind { .. } | Inst::Match => {
                return Err(Decline::NotAChoice("a piece of interest"));
            }
            Inst::Guard { .. } | Inst::Test { .. } => return Err(Decline::NotAChoice("a guard")),
            Inst::Ordered { .. } => return Err(Decline::NotAChoice("an ordered choice")),
            Inst::Attacked { .. } => return Err(Decline::NotAChoice("`attacked`")),
            Inst::NoReply { .. } => return Err(Decline::NotAChoice("`no_reply`")),
            Inst::Origin { .. } => return Err(Decline::NotAChoice("`%from:`")),
            Inst::Jump { .. } => unreachable!("follow() skips jumps"),
        }
    }
    Ok((rewrites, nil))
}

/// The squares where a choice of rewrites made at the piece of interest
/// (the sub-program from `start`, each rewrite checking the piece's square
/// and others at fixed offsets from it) may match, as a plan whose places
/// are the piece's square: each rule checks the other squares. None when
/// the sub-program is not such a choice, or a rewrite checks marks on the
/// piece or may match where it is not (its check of the piece's square
/// accepts other squares too). With the piece on its square, the choice
/// matches exactly where the plan says.
pub(crate) fn poi_plan(program: &Program, start: Pc, width: u32, height: u32) -> Option<Plan> {
    if width == 0 || height == 0 || width * height > MAX_SQUARES {
        return None;
    }
    let (rewrites, nil) = choice_of_rewrites(program, start, 0).ok()?;
    let geometry = Geometry { width, height };
    let mut rules = Vec::new();
    for id in rewrites {
        for alt in program.rewrites[id.index()].alternatives.iter() {
            let pois: Vec<&ProgramCheck> = alt.checks.iter().filter(|c| c.poi).collect();
            let [poi] = pois[..] else {
                return None;
            };
            if !poi.poi_marks.is_empty() || !poi.accepts.is_empty() || !alt.tally_checks.is_empty() {
                return None;
            }
            let checks = alt
                .checks
                .iter()
                .filter(|c| !c.poi)
                .map(|c| geometry.check(c.dx - poi.dx, c.dy - poi.dy, &c.accepts))
                .collect();
            rules.push(Rule {
                checks,
                choices: Vec::new(),
                reference: (poi.dx, poi.dy),
                traces: Vec::new(),
                tails: Vec::new(),
            });
        }
    }
    Some(finish(rules, nil, &geometry))
}

/// The rewrites a program that binds pieces of interest makes first, as a
/// plan: each bind's piece must make one of them before anything else, so
/// where the plan has no result the program has none. None when some path
/// does something else first (or a first rewrite is not at the piece).
/// With it, per bind: whether it is one of those binds (reached from the
/// start by jumps and splits alone).
pub(crate) fn entry_plan(program: &Program, width: u32, height: u32) -> Option<(Plan, Vec<bool>)> {
    if width == 0 || height == 0 || width * height > MAX_SQUARES {
        return None;
    }
    let geometry = Geometry { width, height };
    let mut rules = Vec::new();
    let mut seen = vec![false; program.insts.len()];
    let mut entry_binds = vec![false; program.binds.len()];
    // Instructions to look at, with the bind they follow (none yet).
    let mut todo = vec![(program.start, None)];
    while let Some((pc, bind)) = todo.pop() {
        if std::mem::replace(&mut seen[pc as usize], true) {
            continue;
        }
        match (&program.insts[pc as usize], bind) {
            (&Inst::Jump { to }, _) => todo.push((to, bind)),
            (&Inst::Split { first, second }, _) => todo.extend([(second, bind), (first, bind)]),
            (&Inst::Bind { id, next }, None) => {
                entry_binds[id.index()] = true;
                todo.push((next, Some(id)));
            }
            (&Inst::Rewrite { id, .. }, Some(bind)) => {
                for &code in program.binds[bind.index()].iter() {
                    for alt in program.rewrites[id.index()].alternatives.iter() {
                        rules.extend(traced_rule(alt, code, &geometry).ok()?);
                    }
                }
            }
            _ => return None,
        }
    }
    Some((finish(rules, false, &geometry), entry_binds))
}

/// Per option of `rule`'s tails, its checks as [`TailGate`]s.
fn tail_gates(rule: &Rule, geometry: &Geometry) -> Vec<Vec<TailGate>> {
    // (A rule that writes "no square" moves the holes: no first look.)
    if rule.choices.iter().flatten().any(|w| w.code == OFF) {
        return Vec::new();
    }
    let options = rule.tails.iter().flat_map(|t| t.options.iter().flatten());
    options
        .map(|o| {
            (o.checks.iter())
                .map(|c| {
                    let inside = geometry.inside(c.dx, c.dy);
                    let off = c.accepts.contains(OFF);
                    TailGate {
                        shift: c.dy * geometry.width as i32 + c.dx,
                        inside,
                        outside: if off { geometry.all() & !inside } else { 0 },
                        holes_only: off && !c.poi && c.accepts == CodeSet::of([OFF]),
                    }
                })
                .collect()
        })
        .collect()
}

/// The plan of `rules` (and `nil`) on a board of `geometry`.
fn finish(rules: Vec<Rule>, nil: bool, geometry: &Geometry) -> Plan {
    let codes = rules
        .iter()
        .flat_map(|r| r.checks.iter().flat_map(|c| c.codes.iter().copied()))
        .max()
        .map_or(1, |c| c as usize + 1);
    let distinct = distinct(&rules);
    let accepted = CodeSet::of(
        rules
            .iter()
            .flat_map(|r| r.checks.iter().flat_map(|c| c.codes.iter().copied())),
    );
    Plan {
        width: geometry.width,
        height: geometry.height,
        all: geometry.all(),
        rules,
        nil,
        distinct,
        codes,
        tails: false,
        tail_gates: Vec::new(),
        accepted,
    }
}

/// Alternative `alt` of a rewrite made right after binding a piece of
/// interest holding `code`, as a rule whose results are traced (none when
/// it cannot match at that piece).
fn traced_rule(alt: &Alternative, code: Code, geometry: &Geometry) -> Result<Option<Rule>, Decline> {
    let pois: Vec<usize> = (0..alt.checks.len()).filter(|&i| alt.checks[i].poi).collect();
    let [poi] = pois[..] else {
        return Err(Decline::NotAChoice("a rewrite not at the piece of interest"));
    };
    let check = &alt.checks[poi];
    if !(check.accepts.contains(code) || check.poi_marks.is_empty() || code::has_marks(code, check.poi_marks))
    {
        return Ok(None);
    }
    // The piece's square holds `code`; the piece moves with its writes.
    let mut checks = alt.checks.to_vec();
    checks[poi] = ProgramCheck {
        accepts: CodeSet::of([code]),
        poi: false,
        poi_marks: Default::default(),
        ..checks[poi].clone()
    };
    let (from, mut traces) = ((check.dx, check.dy), Vec::new());
    let choices = alt
        .choices
        .iter()
        .map(|choice| {
            let (mut to, mut moved) = (from, code);
            let mut last = std::collections::HashMap::new();
            let writes: Box<[SquareWrite]> = choice
                .iter()
                .map(|w| {
                    let written = match w.write {
                        ProgramWrite::Poi(marks) => {
                            (to, moved) = ((w.dx, w.dy), code::with_marks(code, marks));
                            moved
                        }
                        ProgramWrite::Code(c) => c,
                    };
                    last.insert((w.dx, w.dy), written);
                    SquareWrite {
                        write: ProgramWrite::Code(written),
                        ..*w
                    }
                })
                .collect();
            // Another piece left where the piece ends: it is that piece now.
            let here = last.get(&to).copied().unwrap_or(code);
            let became = (here != moved && code::as_piece(here).is_some()).then_some(here);
            traces.push((to, became, became.unwrap_or(moved)));
            writes
        })
        .collect();
    let alt = Alternative {
        checks: checks.into(),
        choices,
        ..alt.clone()
    };
    let mut rule = rule(&alt, geometry)?;
    let (rx, ry) = rule.reference;
    let w = geometry.width as i32;
    let shift = |(x, y): (i32, i32)| (x - rx) + (y - ry) * w;
    rule.traces = traces
        .into_iter()
        .map(|(to, became, poi)| TracedMove {
            from: shift(from),
            to: shift(to),
            from_at: (from.0 - rx, from.1 - ry),
            step: (to.0 - from.0, to.1 - from.1),
            became,
            piece: code,
            poi,
        })
        .collect();
    Ok(Some(rule))
}

/// The instruction `pc` leads to past any jumps.
pub(crate) fn follow(program: &Program, mut pc: Pc) -> Result<Pc, Decline> {
    for _ in 0..program.insts.len() {
        match program.insts[pc as usize] {
            Inst::Jump { to } => pc = to,
            _ => return Ok(pc),
        }
    }
    Err(Decline::NotAChoice("a loop"))
}

/// A board's size, and the square sets that depend on it alone.
pub(crate) struct Geometry {
    pub(crate) width: u32,
    pub(crate) height: u32,
}

impl Geometry {
    /// Every square of the board.
    pub(crate) fn all(&self) -> Squares {
        let n = self.width * self.height;
        if n == Squares::BITS {
            Squares::MAX
        } else {
            (1 << n) - 1
        }
    }

    /// A check at `(dx, dy)` from the place a left side matches at,
    /// accepting `accepts`.
    pub(crate) fn check(&self, dx: i32, dy: i32, accepts: &CodeSet) -> SetCheck {
        let inside = self.inside(dx, dy);
        SetCheck {
            dx,
            dy,
            shift: dx + dy * self.width as i32,
            // Codes a board of this program can hold: those of its pieces, any marks.
            codes: accepts.codes().collect(),
            inside,
            // Where the checked square is off the board, if that is accepted.
            outside: if accepts.contains(OFF) {
                self.all() & !inside
            } else {
                0
            },
            accepts: accepts.clone(),
        }
    }

    /// The squares `t` whose square `t + (dx, dy)` is on the board.
    pub(crate) fn inside(&self, dx: i32, dy: i32) -> Squares {
        let (w, h) = (self.width as i32, self.height as i32);
        // The columns and rows from which the offset stays on the board.
        let (x0, x1) = ((-dx).max(0), (w - dx).min(w));
        let (y0, y1) = ((-dy).max(0), (h - dy).min(h));
        if x0 >= x1 || y0 >= y1 {
            return 0;
        }
        let row = Squares::MAX
            .checked_shr(Squares::BITS - (x1 - x0) as u32)
            .unwrap_or(0)
            << x0;
        (y0..y1).fold(0, |set, y| set | row << (y * w))
    }
}

/// One alternative of a rewrite, its checks measured from a square that
/// must hold a piece or be empty (so that every match starts on the board).
fn rule(alt: &Alternative, geometry: &Geometry) -> Result<Rule, Decline> {
    if !alt.tally_checks.is_empty() || alt.tally_writes.iter().any(|w| !w.is_empty()) {
        return Err(Decline::Boxes);
    }
    if alt.checks.iter().any(|c| c.poi) {
        return Err(Decline::NotAChoice("a piece of interest"));
    }
    let reference = alt
        .checks
        .iter()
        .find(|c| !c.accepts.contains(OFF))
        .ok_or(Decline::NoAnchor)?;
    let (rx, ry) = (reference.dx, reference.dy);
    let w = geometry.width as i32;
    let mut checks: Vec<SetCheck> = alt
        .checks
        .iter()
        .map(|c| geometry.check(c.dx - rx, c.dy - ry, &c.accepts))
        .collect();
    // The reference first: it needs no shift.
    checks.sort_by_key(|c| (c.dx, c.dy) != (0, 0));
    let mut choices = Vec::new();
    for choice in alt.choices.iter() {
        let mut writes = Vec::new();
        for sw in choice.iter() {
            let ProgramWrite::Code(code) = sw.write else {
                return Err(Decline::NotAChoice("a piece of interest"));
            };
            let (dx, dy) = (sw.dx - rx, sw.dy - ry);
            let Some(check) = checks.iter().find(|c| (c.dx, c.dy) == (dx, dy)) else {
                // A square the left side does not look at may be off the board.
                return Err(Decline::ChangesTheBoard);
            };
            if check.accepts == CodeSet::of([code]) {
                // Writes back what the square must hold: no change.
                continue;
            }
            if code == OFF || check.accepts.contains(OFF) {
                return Err(Decline::ChangesTheBoard);
            }
            writes.push(SetWrite {
                dx,
                dy,
                shift: dx + dy * w,
                code,
                always: !check.accepts.contains(code),
            });
        }
        // Changes come in reading order: top row first, then left to right.
        writes.sort_by_key(|w| (-w.dy, w.dx));
        // The same square written twice: the last write stands.
        writes.dedup_by(|later, earlier| {
            if (later.dx, later.dy) == (earlier.dx, earlier.dy) {
                *earlier = *later;
                true
            } else {
                false
            }
        });
        choices.push(writes);
    }
    Ok(Rule {
        checks,
        choices,
        reference: (rx, ry),
        traces: Vec::new(),
        tails: Vec::new(),
    })
}

/// Whether no two matches of `rules` (two rules, or one rule at two places
/// or with two choices) can make the same changes: then the results need
/// no deduplication and can be counted by their number.
fn distinct(rules: &[Rule]) -> bool {
    let mut kinds: Vec<(usize, &[SetWrite])> = Vec::new();
    for (r, rule) in rules.iter().enumerate() {
        for writes in &rule.choices {
            if writes.is_empty() || writes.iter().any(|w| !w.always) {
                // No change, or changes that depend on the board.
                return false;
            }
            kinds.push((r, writes));
        }
    }
    for (i, &(r1, w1)) in kinds.iter().enumerate() {
        for &(r2, w2) in &kinds[i + 1..] {
            if could_coincide(&rules[r1], w1, &rules[r2], w2) {
                return false;
            }
        }
    }
    true
}

/// Whether `w1` made at some match of `r1` and `w2` at some match of `r2`
/// could be the same changes. (One rule at two places never is: its writes
/// always change their squares and move with the place.)
fn could_coincide(r1: &Rule, w1: &[SetWrite], r2: &Rule, w2: &[SetWrite]) -> bool {
    if w1.len() != w2.len() {
        return false;
    }
    // Both lists are in reading order, which a translation keeps: the only
    // translation that could carry one onto the other is the first's.
    let (sx, sy) = (w1[0].dx - w2[0].dx, w1[0].dy - w2[0].dy);
    let same = w1
        .iter()
        .zip(w2)
        .all(|(a, b)| a.code == b.code && (a.dx, a.dy) == (b.dx + sx, b.dy + sy));
    if !same {
        return false;
    }
    // The second matches `(sx, sy)` further on; some square both look at
    // must then hold something both accept.
    !r1.checks.iter().any(|c1| {
        r2.checks.iter().any(|c2| {
            (c1.dx, c1.dy) == (c2.dx + sx, c2.dy + sy) && c1.codes.iter().all(|&c| !c2.accepts.contains(c))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::Geometry;

    #[test]
    fn inside_is_the_squares_from_which_an_offset_stays_on_the_board() {
        for (width, height) in [(1, 1), (3, 2), (8, 8), (10, 10), (128, 1), (1, 128), (16, 8)] {
            let g = Geometry { width, height };
            let (w, h) = (width as i32, height as i32);
            for dx in -w - 1..=w + 1 {
                for dy in -h - 1..=h + 1 {
                    let mut by_square = 0;
                    for at in 0..w * h {
                        let (x, y) = (at % w + dx, at / w + dy);
                        if (0..w).contains(&x) && (0..h).contains(&y) {
                            by_square |= 1 << at;
                        }
                    }
                    assert_eq!(g.inside(dx, dy), by_square, "{width}x{height} ({dx}, {dy})");
                }
            }
        }
    }
}
