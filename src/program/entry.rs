//! Entry checks: squares around the piece of interest that must hold
//! certain contents for a path from an instruction to get past its first
//! rewrite. A union of rewrites along one line (`flank(u) = run1(u) | ...
//! | run6(u)`, each starting `% + u○`) shares the check `u○`; the engine
//! tests it once at the first `Split` of the run and, when it fails, skips
//! past the whole run (see [`Skip`]); it also skips an ordered alternative
//! or guard body that cannot start.

use super::inst::{Alternative, CompiledRewrite, EntryCheck, Inst, Pc, Skip};

/// The most alternatives one skip walks over.
const LONGEST: usize = 64;

/// Per instruction: for a `Split` that starts a run of alternatives sharing
/// entry checks, the run's [`Skip`]. Only forward runs count, so a skip can
/// never go round a loop.
pub(crate) fn skips(insts: &[Inst], entry: &[Box<[EntryCheck]>]) -> Vec<Option<Skip>> {
    (0..insts.len())
        .map(|pc| skip_at(insts, entry, pc as Pc))
        .collect()
}

/// The skip of the chain of alternatives starting at `pc`, if it is a
/// `Split` and its first two or more alternatives share entry checks (one
/// alternative alone is tested by its own entry checks).
fn skip_at(insts: &[Inst], entry: &[Box<[EntryCheck]>], pc: Pc) -> Option<Skip> {
    let Inst::Split { .. } = insts[pc as usize] else {
        return None;
    };
    let mut shared: Vec<EntryCheck> = Vec::new();
    let mut run = 0;
    let mut cur = pc;
    let past = loop {
        if run == LONGEST {
            break Some(cur);
        }
        let (alt, rest) = match insts[cur as usize] {
            Inst::Split { first, second } if second > cur => (first, Some(second)),
            Inst::Split { .. } => return None,
            _ => (cur, None),
        };
        let needs = &entry[alt as usize];
        let met = if run == 0 {
            needs.to_vec()
        } else {
            meet(&shared, needs)
        };
        if met.is_empty() {
            break Some(cur);
        }
        shared = met;
        run += 1;
        match rest {
            Some(r) => cur = r,
            None => break None,
        }
    };
    (run >= 2).then(|| Skip {
        checks: shared.into_boxed_slice(),
        past,
    })
}

/// The most checks kept per instruction: the first few prune nearly all.
const MOST: usize = 4;

/// Per instruction: the checks every path from it needs before its first
/// change (empty: none known).
pub(crate) fn entry_checks(insts: &[Inst], rewrites: &[CompiledRewrite]) -> Vec<Box<[EntryCheck]>> {
    let n = insts.len();
    let mut done: Vec<Option<Vec<EntryCheck>>> = vec![None; n];
    let mut open = vec![false; n];
    for root in 0..n {
        // Depth first without recursion: a frame is revisited once its
        // successors are done.
        let mut stack: Vec<Pc> = vec![root as Pc];
        while let Some(&pc) = stack.last() {
            let i = pc as usize;
            if done[i].is_some() {
                stack.pop();
                continue;
            }
            let needs: Vec<Pc> = match insts[i] {
                Inst::Split { first, second } => vec![first, second],
                Inst::Jump { to } => vec![to],
                _ => Vec::new(),
            };
            let pending: Vec<Pc> = needs
                .iter()
                .copied()
                .filter(|&s| done[s as usize].is_none() && !open[s as usize])
                .collect();
            if !open[i] && !pending.is_empty() {
                open[i] = true;
                stack.extend(pending);
                continue;
            }
            // A successor still open is on a loop back here: nothing known.
            let known = |s: Pc| done[s as usize].clone().unwrap_or_default();
            let checks = match insts[i] {
                Inst::Rewrite { id, .. } => of_rewrite(&rewrites[id.index()]),
                Inst::Split { first, second } => meet(&known(first), &known(second)),
                Inst::Jump { to } => known(to),
                _ => Vec::new(),
            };
            done[i] = Some(checks);
            open[i] = false;
            stack.pop();
        }
    }
    done.into_iter()
        .map(|c| c.unwrap_or_default().into_boxed_slice())
        .collect()
}

/// The checks every alternative of a rewrite makes around the piece of interest.
fn of_rewrite(rw: &CompiledRewrite) -> Vec<EntryCheck> {
    let mut alts = rw.alternatives.iter().map(of_alternative);
    let Some(first) = alts.next() else {
        return Vec::new();
    };
    alts.fold(first, |acc, next| meet(&acc, &next))
}

/// The checks of one alternative, relative to its `%` square (none when it
/// has no square that only the piece of interest matches).
fn of_alternative(alt: &Alternative) -> Vec<EntryCheck> {
    let Some(poi) = alt.checks.iter().find(|c| c.poi && c.accepts.is_empty()) else {
        return Vec::new();
    };
    alt.checks
        .iter()
        .filter(|c| !c.poi && (c.dx, c.dy) != (poi.dx, poi.dy))
        .take(MOST)
        .map(|c| EntryCheck {
            dx: c.dx - poi.dx,
            dy: c.dy - poi.dy,
            accepts: c.accepts.clone(),
        })
        .collect()
}

/// What both of two paths need: the squares both check, accepting what either accepts.
fn meet(a: &[EntryCheck], b: &[EntryCheck]) -> Vec<EntryCheck> {
    a.iter()
        .filter_map(|x| {
            b.iter()
                .find(|y| (y.dx, y.dy) == (x.dx, x.dy))
                .map(|y| EntryCheck {
                    dx: x.dx,
                    dy: x.dy,
                    accepts: x.accepts.union(&y.accepts),
                })
        })
        .collect()
}
