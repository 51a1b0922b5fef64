//! Counting a placement by square sets: a program that puts one content on
//! an empty square, binds it, requires a guard that square sets answer, and
//! then only makes changes that always leave exactly one result (Othello's
//! `(. -> ◆) (%◆: ?{any_flank} flip(u) ... (% -> ●))`). Its results are one
//! per square where the placement and the guard hold, all different, so a
//! count is the population count of those squares: no walk.

use super::choice::compile::{choice_of_rewrites, follow};
use super::squares::{Decline, Squares};
use crate::core::{self as code, Code, CodeSet};
use crate::program::{Alternative, Inst, Pc, Program, Write};

/// A placement whose results square sets count (see the module's doc).
#[derive(Clone, Debug)]
pub(super) struct PlacedCount {
    /// What the placement puts down (and the bind binds).
    code: Code,
    /// The contents the placed square must hold.
    accepts: Box<[Code]>,
}

impl PlacedCount {
    /// The count instruction `pc` starts, if its program has that shape:
    /// `pc` is a placement (one check, one write on it) of `code`, then a
    /// bind of `code` alone, then a guard on `sub`, then a tail that always
    /// leaves one result and never writes a square the placement accepts.
    pub(super) fn of(prog: &Program, pc: Pc, code: Code, sub: usize) -> Result<PlacedCount, Decline> {
        let not = |why: &'static str| Decline::NotACountedPlacement(why);
        let Inst::Rewrite { id, next } = prog.insts[pc as usize] else {
            return Err(not("it does not start with a rewrite"));
        };
        let Some([alt]) = prog.rewrites[id.index()].boxless() else {
            return Err(not("its rewrite has more than one alternative, or uses a box"));
        };
        let ([check], [choice]) = (&alt.checks[..], &alt.choices[..]) else {
            return Err(not("its rewrite checks or chooses more than one thing"));
        };
        let [w] = &choice[..] else {
            return Err(not("its rewrite writes more than one square"));
        };
        if check.poi || (check.dx, check.dy) != (w.dx, w.dy) || check.accepts.contains(code) {
            return Err(not("its rewrite does not put the piece on the square it checks"));
        }
        let after = |next| follow(prog, next).map_err(|_| not("a jump loops"));
        let Inst::Bind { next, .. } = prog.insts[after(next)? as usize] else {
            return Err(not("the placed piece is not bound next"));
        };
        let Inst::Guard {
            holds: true,
            sub: tested,
            next,
        } = prog.insts[after(next)? as usize]
        else {
            return Err(not("no guard follows the bind"));
        };
        if tested.index() != sub {
            return Err(not("the guard tests another sub-program than the placement's"));
        }
        if !one_result(prog, next, code, &check.accepts) {
            return Err(not("what follows the guard may leave other than one result"));
        }
        Ok(PlacedCount {
            code,
            accepts: check.accepts.codes().collect(),
        })
    }

    /// The number of results on a position whose square sets are
    /// `occupied`, given `guard` (the squares where the placed piece passes
    /// the guard); none when the sets cannot tell (the placed content is
    /// already on the board, or an accepted content has no set).
    pub(super) fn count(&self, occupied: &[Squares], guard: impl FnOnce() -> Squares) -> Option<u64> {
        if occupied.get(self.code as usize).is_none_or(|&set| set != 0) {
            return None;
        }
        let mut empty: Squares = 0;
        for &c in self.accepts.iter() {
            empty |= *occupied.get(c as usize)?;
        }
        if empty == 0 {
            return Some(0);
        }
        Some(u64::from((empty & guard()).count_ones()))
    }
}

/// Whether the instructions from `pc` on, with the piece of interest
/// `placed` on its square, leave exactly one result, leave that square
/// holding a content `accepts` does not, and never write elsewhere a content
/// `accepts` accepts or onto a square that may hold one: ordered choices
/// ending in `nil` whose other alternatives are choices of rewrites at the
/// piece, no two of which can match at once, and rewrites at the piece that
/// always match.
fn one_result(prog: &Program, mut pc: Pc, placed: Code, accepts: &CodeSet) -> bool {
    // What the piece's square holds, and whether the piece is still there.
    let (mut last, mut here) = (placed, true);
    for _ in 0..prog.insts.len() {
        let Ok(at) = follow(prog, pc) else {
            return false;
        };
        match prog.insts[at as usize] {
            Inst::Match => return !accepts.contains(last),
            Inst::Unbind { next } => {
                here = false;
                pc = next;
            }
            Inst::Ordered { id, next } => {
                let Some((nil, rest)) = prog.ordered[id.index()].split_last() else {
                    return false;
                };
                let ends =
                    |start: Pc| follow(prog, start).is_ok_and(|s| prog.insts[s as usize] == Inst::Match);
                if !ends(prog.subs[nil.index()]) {
                    return false;
                }
                for sub in rest {
                    let Ok((rewrites, false)) = choice_of_rewrites(prog, prog.subs[sub.index()], 0) else {
                        return false;
                    };
                    let alts: Vec<&Alternative> = rewrites
                        .iter()
                        .flat_map(|id| prog.rewrites[id.index()].alternatives.iter())
                        .collect();
                    if alts.iter().any(|a| a.uses_boxes()) {
                        return false;
                    }
                    if !alts.iter().all(|a| keeps_piece(a, placed, accepts)) {
                        return false;
                    }
                    for (i, a) in alts.iter().enumerate() {
                        if !alts[i + 1..].iter().all(|b| exclusive(a, b)) {
                            return false;
                        }
                    }
                }
                pc = next;
            }
            Inst::Rewrite { id, next } => {
                // Always matches: its one check is the piece's square.
                let Some([alt]) = prog.rewrites[id.index()].boxless() else {
                    return false;
                };
                let ([check], [choice]) = (&alt.checks[..], &alt.choices[..]) else {
                    return false;
                };
                if !here || !check.poi || !check.poi_marks.is_empty() {
                    return false;
                }
                for w in choice.iter() {
                    match w.write {
                        Write::Code(c) => {
                            (last, here) = (c, false);
                        }
                        Write::Poi(m) if code::with_marks(placed, m) == placed => {}
                        Write::Poi(_) => return false,
                    }
                }
                pc = next;
            }
            _ => return false,
        }
    }
    false
}

/// Whether alternative `a` is anchored at the piece of interest with one
/// choice that leaves the piece as it is and writes elsewhere only contents
/// `accepts` rejects, on squares whose checks reject all of `accepts`.
fn keeps_piece(a: &Alternative, placed: Code, accepts: &CodeSet) -> bool {
    let Some(poi) = a.checks.iter().find(|c| c.poi) else {
        return false;
    };
    let [choice] = &a.choices[..] else {
        return false;
    };
    poi.poi_marks.is_empty()
        && a.checks.iter().filter(|c| c.poi).count() == 1
        && choice.iter().all(|w| {
            let Some(check) = a.checks.iter().find(|c| (c.dx, c.dy) == (w.dx, w.dy)) else {
                return false;
            };
            match w.write {
                Write::Poi(m) => check.poi && code::with_marks(placed, m) == placed,
                Write::Code(c) => {
                    !check.poi && !accepts.contains(c) && check.accepts.codes().all(|k| !accepts.contains(k))
                }
            }
        })
}

/// Whether `a` and `b`, both anchored at the piece of interest, cannot both
/// match: some square, at the same place from the piece, must hold
/// contents of `a`'s and of `b`'s that have none in common.
pub(super) fn exclusive(a: &Alternative, b: &Alternative) -> bool {
    let (Some(pa), Some(pb)) = (a.checks.iter().find(|c| c.poi), b.checks.iter().find(|c| c.poi)) else {
        return false;
    };
    a.checks.iter().filter(|c| !c.poi).any(|ca| {
        b.checks.iter().filter(|c| !c.poi).any(|cb| {
            (ca.dx - pa.dx, ca.dy - pa.dy) == (cb.dx - pb.dx, cb.dy - pb.dy)
                && ca.accepts.codes().all(|k| !cb.accepts.contains(k))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::walk::tests::program_of;

    /// The placement count of `expr`'s program, if it has that shape.
    fn placed(expr: &str) -> bool {
        let prog = program_of(expr);
        let mut pc = prog.start;
        while let Inst::Jump { to } = prog.insts[pc as usize] {
            pc = to;
        }
        let Inst::Rewrite { id, .. } = prog.insts[pc as usize] else {
            return false;
        };
        let code = match prog.rewrites[id.index()].alternatives[0].choices[0][0].write {
            Write::Code(c) => c,
            Write::Poi(_) => return false,
        };
        PlacedCount::of(&prog, pc, code, 0).is_ok()
    }

    #[test]
    fn a_placement_with_flips_that_cannot_both_match_is_counted() {
        let flank = "(% + r♟ + rr♙ -> % + r♙ + rr♙) | (% + r♟ + rr♟ + rrr♙ -> % + r♙ + rr♙ + rrr♙)";
        assert!(placed(&format!(
            "(. -> ♘) (%♘: ?{{{flank}}} (({flank}) / nil) (% -> ♙))"
        )));
        // Two runs that can match at once: two results from one square.
        let both = "(% + r♟ + rr♙ -> % + r♙ + rr♙) | (% + r♟ -> % + r♙)";
        assert!(!placed(&format!(
            "(. -> ♘) (%♘: ?{{{both}}} (({both}) / nil) (% -> ♙))"
        )));
        // No `nil` to fall back on: no result where no run matches.
        assert!(!placed(&format!(
            "(. -> ♘) (%♘: ?{{{flank}}} ({flank}) (% -> ♙))"
        )));
        // A flip that writes an empty square: another placement's square.
        let empties = "(% + r♟ -> % + r.)";
        assert!(!placed(&format!(
            "(. -> ♘) (%♘: ?{{{flank}}} ({empties} / nil) (% -> ♙))"
        )));
        // The square ends empty again: the same result from every square.
        assert!(!placed(&format!("(. -> ♘) (%♘: ?{{{flank}}} (% -> .))")));
    }
}
