//! What the walker reads off a program when it is prepared: which binds
//! are live, where a choice's alternatives end, and which instructions lead
//! to the match by jumps alone.

use crate::program::{Inst, Pc, Program};

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
pub(super) fn leads_to_match(prog: &Program, mut pc: Pc) -> bool {
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
