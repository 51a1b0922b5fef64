//! Where a `%p:` can write: for each bind of a program, the offsets (from the
//! square it binds) of every square its body may change, on a board of a
//! given size. The engine uses it to ask "can anything change square s?"
//! without running the bodies of pieces too far away, the way a chess engine
//! tests check by looking outward from the king.
//!
//! Also the loop analyses both engines prepare programs with: the loops
//! that cannot repeat a state and the joins few paths reach, which need no
//! visited set. The backtracker and the walker import them from here.

use rustc_hash::FxHashSet;

use crate::core::{Code, EMPTY};
use crate::program::{Inst, Pc, Program, Write};

/// The squares one bind's body may change, relative to the bound square.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Anywhere (the body moves things not tied to its piece of interest).
    Everywhere,
    /// Only these offsets, as a bit map over `[-w, w] x [-h, h]`.
    Within { w: i32, h: i32, bits: Vec<u64> },
}

impl Reach {
    /// Whether the square at `(dx, dy)` from the bound square may change.
    #[inline]
    pub(crate) fn contains(&self, dx: i32, dy: i32) -> bool {
        match self {
            Reach::Everywhere => true,
            Reach::Within { w, h, bits } => {
                if dx.abs() > *w || dy.abs() > *h {
                    return false;
                }
                let i = ((dy + h) * (2 * w + 1) + (dx + w)) as usize;
                bits[i / 64] >> (i % 64) & 1 == 1
            }
        }
    }
}

/// Too many states to follow: give up and say "everywhere".
const MAX_STATES: usize = 1 << 16;

struct Walk<'p> {
    prog: &'p Program,
    w: i32,
    h: i32,
    bits: Vec<u64>,
    /// Where the piece of interest stood at the outermost `Unbind`s met.
    unbound_at: Vec<(i32, i32)>,
}

/// `None` means "everywhere".
type Ends = Option<Vec<(i32, i32)>>;

/// The displacement that stands for "the piece of interest is unbound":
/// after the outermost `Unbind`, a rewrite may write anywhere.
const UNBOUND: (i32, i32) = (i32::MAX, i32::MAX);

impl Walk<'_> {
    fn mark(&mut self, dx: i32, dy: i32) {
        if dx.abs() <= self.w && dy.abs() <= self.h {
            let i = ((dy + self.h) * (2 * self.w + 1) + (dx + self.w)) as usize;
            self.bits[i / 64] |= 1 << (i % 64);
        }
    }

    /// Whether no choice of rewrite `id` writes a square.
    fn writes_no_square(&self, id: crate::program::RewriteId) -> bool {
        self.prog.rewrites[id.index()]
            .alternatives
            .iter()
            .all(|alt| alt.choices.iter().all(|c| c.is_empty()))
    }

    fn in_range(&self, d: (i32, i32)) -> bool {
        d.0.abs() <= self.w && d.1.abs() <= self.h
    }

    /// Follows the program from `start` with the piece of interest displaced
    /// by `d0`, marking every square written, until an `Unbind` (bind bodies)
    /// or a `Match` (sub-programs); returns the displacements there.
    fn walk(&mut self, start: Pc, d0: (i32, i32), depth: usize) -> Ends {
        if depth > 8 {
            return None;
        }
        let mut seen: FxHashSet<(Pc, (i32, i32))> = FxHashSet::default();
        let mut todo = vec![(start, d0)];
        let mut ends = Vec::new();
        while let Some((pc, d)) = todo.pop() {
            if !seen.insert((pc, d)) {
                continue;
            }
            if seen.len() > MAX_STATES {
                return None;
            }
            match self.prog.insts[pc as usize] {
                // A rewrite that writes no square (it only changes boxes)
                // moves nothing and writes nowhere, bound or not.
                Inst::Rewrite { id, next } if self.writes_no_square(id) => todo.push((next, d)),
                Inst::Ordered { id, next } if d == UNBOUND => {
                    for &sub in self.prog.ordered[id.index()].iter() {
                        self.walk(self.prog.subs[sub.index()], d, depth + 1)?;
                    }
                    todo.push((next, d));
                }
                Inst::Rewrite { .. } | Inst::Bind { .. } | Inst::Origin { .. } if d == UNBOUND => {
                    return None;
                }
                Inst::Rewrite { id, next } => {
                    for alt in self.prog.rewrites[id.index()].alternatives.iter() {
                        // Only a check that accepts nothing but the piece of
                        // interest pins the translation.
                        let poi = alt.checks.iter().find(|c| c.poi && c.accepts.is_empty())?;
                        // The translation puts the POI check on the piece of interest.
                        let (tx, ty) = (d.0 - poi.dx, d.1 - poi.dy);
                        for choice in alt.choices.iter() {
                            let mut nd = d;
                            for ch in choice.iter() {
                                let at = (tx + ch.dx, ty + ch.dy);
                                self.mark(at.0, at.1);
                                if let Write::Poi(_) = ch.write {
                                    nd = at;
                                }
                            }
                            if self.in_range(nd) {
                                todo.push((next, nd));
                            }
                        }
                    }
                }
                Inst::Split { first, second } => {
                    todo.push((first, d));
                    todo.push((second, d));
                }
                Inst::Jump { to } => todo.push((to, d)),
                // A piece of interest inside another: not followed.
                Inst::Bind { .. } | Inst::Origin { .. } => return None,
                // What follows the piece of interest's move may write too.
                Inst::Unbind { next } if depth == 0 => {
                    if d != UNBOUND {
                        self.unbound_at.push(d);
                    }
                    todo.push((next, UNBOUND));
                }
                Inst::Unbind { .. } | Inst::Match => ends.push(d),
                Inst::Guard { next, .. }
                | Inst::Attacked { next }
                | Inst::NoReply { next }
                | Inst::Test { next, .. } => todo.push((next, d)),
                Inst::Ordered { id, next } => {
                    for &sub in self.prog.ordered[id.index()].iter() {
                        for e in self.walk(self.prog.subs[sub.index()], d, depth + 1)? {
                            todo.push((next, e));
                        }
                    }
                }
            }
        }
        Some(ends)
    }
}

/// Where the program, from `start` with the piece of interest at offset
/// (0, 0), may write, on boards at most `width` by `height`.
fn reach_from(prog: &Program, start: Pc, width: u32, height: u32) -> Reach {
    let (w, h) = (width as i32, height as i32);
    let size = ((2 * w + 1) * (2 * h + 1)) as usize;
    let mut walk = Walk {
        prog,
        w,
        h,
        bits: vec![0; size.div_ceil(64)],
        unbound_at: Vec::new(),
    };
    match walk.walk(start, (0, 0), 0) {
        Some(_) => Reach::Within {
            w,
            h,
            bits: walk.bits,
        },
        None => Reach::Everywhere,
    }
}

/// The reach of every bind of `prog` (by bind id) and from every `Split`
/// (by instruction), on boards at most `width` by `height`.
pub(crate) fn reaches(prog: &Program, width: u32, height: u32) -> (Vec<Reach>, Vec<Reach>) {
    let mut binds = vec![Reach::Everywhere; prog.binds.len()];
    let mut splits = vec![Reach::Everywhere; prog.insts.len()];
    for (pc, inst) in prog.insts.iter().enumerate() {
        match *inst {
            Inst::Bind { id, next } => binds[id.index()] = reach_from(prog, next, width, height),
            Inst::Split { .. } => splits[pc] = reach_from(prog, pc as Pc, width, height),
            _ => {}
        }
    }
    (binds, splits)
}

/// How far the pieces of interest of `prog`'s moves go, as offsets from
/// where they start, on boards at most `width` by `height`: where each
/// `%p:` may leave its piece (`ends`: the displacement at its `Unbind`), and
/// what one rewrite may move a piece of interest by (`steps`). Each is
/// sorted and without repeats. Not a bound: a move the analysis cannot
/// follow (a `%p:` inside another, say) adds nothing, so a move may go
/// further than these say.
pub(crate) fn move_offsets(prog: &Program, width: u32, height: u32) -> MoveOffsets {
    let (w, h) = (width as i32, height as i32);
    let size = ((2 * w + 1) * (2 * h + 1)) as usize;
    let mut ends = Vec::new();
    for inst in &prog.insts {
        if let Inst::Bind { next, .. } = *inst {
            let mut walk = Walk {
                prog,
                w,
                h,
                bits: vec![0; size.div_ceil(64)],
                unbound_at: Vec::new(),
            };
            // What was found before the walk gave up is still where some
            // moves end.
            let _ = walk.walk(next, (0, 0), 0);
            ends.extend(walk.unbound_at.into_iter().filter(|&d| d != (0, 0)));
        }
    }
    let mut steps = Vec::new();
    for rewrite in &prog.rewrites {
        for alt in rewrite.alternatives.iter() {
            let Some(poi) = alt.checks.iter().find(|c| c.poi && c.accepts.is_empty()) else {
                continue;
            };
            for choice in alt.choices.iter() {
                for ch in choice.iter() {
                    let d = (ch.dx - poi.dx, ch.dy - poi.dy);
                    if matches!(ch.write, Write::Poi(_)) && d != (0, 0) {
                        steps.push(d);
                    }
                }
            }
        }
    }
    for v in [&mut ends, &mut steps] {
        v.sort_unstable();
        v.dedup();
    }
    MoveOffsets { ends, steps }
}

/// The pieces `prog`'s moves put down, when every move it gives puts one
/// piece on one empty square and changes nothing else (Connect Four's
/// drop, tic-tac-toe's mark): its codes, sorted. `None` when some path
/// may do anything else (move a piece of interest, write twice, touch a
/// box, write where the left side does not pin what stands) or the
/// analysis cannot follow it.
pub(crate) fn placements(prog: &Program) -> Option<Vec<Code>> {
    let mut placed: Vec<Code> = Vec::new();
    let mut seen: FxHashSet<(Pc, bool)> = FxHashSet::default();
    // Each instruction reached, and whether the path there has put its piece down.
    let mut todo = vec![(prog.start, false)];
    while let Some((pc, down)) = todo.pop() {
        if !seen.insert((pc, down)) {
            continue;
        }
        if seen.len() > MAX_STATES {
            return None;
        }
        match prog.insts[pc as usize] {
            Inst::Match => {
                if !down {
                    return None;
                }
            }
            Inst::Split { first, second } => {
                todo.push((first, down));
                todo.push((second, down));
            }
            Inst::Jump { to } => todo.push((to, down)),
            // Tests of the position change nothing.
            Inst::Guard { next, .. }
            | Inst::Test { next, .. }
            | Inst::Attacked { next }
            | Inst::NoReply { next } => todo.push((next, down)),
            Inst::Rewrite { id, next } => {
                for alt in prog.rewrites[id.index()].boxless()? {
                    for choice in alt.choices.iter() {
                        let put = placement_of(alt, choice)?;
                        if down && put.is_some() {
                            return None;
                        }
                        placed.extend(put);
                        todo.push((next, down || put.is_some()));
                    }
                }
            }
            Inst::Bind { .. } | Inst::Unbind { .. } | Inst::Origin { .. } | Inst::Ordered { .. } => {
                return None;
            }
        }
    }
    placed.sort_unstable();
    placed.dedup();
    Some(placed)
}

/// What one replacement of `alt` puts down: nothing when it writes every
/// square back with the one content its check accepts, the piece when it
/// also puts one piece on a square the check wants empty; `None` for
/// anything else.
fn placement_of(
    alt: &crate::program::Alternative,
    choice: &[crate::program::SquareWrite],
) -> Option<Option<Code>> {
    let mut put = None;
    for w in choice {
        let Write::Code(code) = w.write else {
            return None;
        };
        let check = alt
            .checks
            .iter()
            .find(|c| (c.dx, c.dy) == (w.dx, w.dy) && !c.poi)?;
        if check.accepts.is_only(code) && check.on_board.is_none() {
            continue;
        }
        if put.is_some() || code <= EMPTY || !check.accepts.is_only(EMPTY) {
            return None;
        }
        put = Some(code);
    }
    Some(put)
}

/// What [`move_offsets`] finds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct MoveOffsets {
    /// Where a `%p:` may leave its piece, from where it was bound.
    pub(crate) ends: Vec<(i32, i32)>,
    /// What one rewrite may move a piece of interest by.
    pub(crate) steps: Vec<(i32, i32)>,
}

/// Whether the loop at `head` (a `Split` whose first branch is the body)
/// moves the piece of interest by the same non-zero step on every pass and
/// does nothing else that could bring a state back: then no state at the
/// head can repeat within the loop, and the visited set need not be asked.
fn monotone_loop(prog: &Program, head: Pc, first: Pc, width: u32, height: u32) -> bool {
    let (w, h) = (width as i32, height as i32);
    let mut seen: FxHashSet<(Pc, (i32, i32))> = FxHashSet::default();
    let mut todo = vec![(first, (0, 0))];
    let mut step: Option<(i32, i32)> = None;
    while let Some((pc, d)) = todo.pop() {
        if pc == head {
            if d == (0, 0) || step.is_some_and(|s| s != d) {
                return false;
            }
            step = Some(d);
            continue;
        }
        if !seen.insert((pc, d)) {
            continue;
        }
        if seen.len() > MAX_STATES {
            return false;
        }
        match prog.insts[pc as usize] {
            Inst::Rewrite { id, next } => {
                for alt in prog.rewrites[id.index()].alternatives.iter() {
                    let Some(poi) = alt.checks.iter().find(|c| c.poi && c.accepts.is_empty()) else {
                        return false;
                    };
                    for choice in alt.choices.iter() {
                        let mut nd = d;
                        for ch in choice.iter() {
                            if let Write::Poi(_) = ch.write {
                                nd = (d.0 - poi.dx + ch.dx, d.1 - poi.dy + ch.dy);
                            }
                        }
                        if nd.0.abs() <= w && nd.1.abs() <= h {
                            todo.push((next, nd));
                        }
                    }
                }
            }
            Inst::Split { first, second } => {
                todo.push((first, d));
                todo.push((second, d));
            }
            Inst::Jump { to } => todo.push((to, d)),
            Inst::Guard { next, .. }
            | Inst::Attacked { next }
            | Inst::NoReply { next }
            | Inst::Test { next, .. } => todo.push((next, d)),
            // Leaving the loop, or anything it does not follow: keep the visited set.
            Inst::Bind { .. }
            | Inst::Origin { .. }
            | Inst::Unbind { .. }
            | Inst::Ordered { .. }
            | Inst::Match => {
                return false;
            }
        }
    }
    step.is_some()
}

/// The loop heads whose visits need no visited set (see [`monotone_loop`]).
pub(crate) fn monotone_loops(prog: &Program, width: u32, height: u32) -> Vec<Pc> {
    prog.insts
        .iter()
        .enumerate()
        .filter_map(|(pc, inst)| match *inst {
            Inst::Split { first, .. }
                if prog.visit[pc] && monotone_loop(prog, pc as Pc, first, width, height) =>
            {
                Some(pc as Pc)
            }
            _ => None,
        })
        .collect()
}

/// The most paths to a join that may skip its visited set.
const FEW_PATHS: u32 = 16;

/// The join points (visited instructions on no loop) that at most
/// [`FEW_PATHS`] paths of the program reach from where a search starts (its
/// start and every sub-program's): two states meeting there can only have
/// come by two of those few paths, so without the visited set a search
/// does at most that many times the work, and the results, deduplicated
/// anyway, are the same. A loop anywhere before such a join makes the
/// paths unbounded: it keeps its set.
pub(crate) fn few_path_joins(prog: &Program) -> Vec<Pc> {
    let n = prog.insts.len();
    let mut preds: Vec<Vec<Pc>> = vec![Vec::new(); n];
    for (pc, inst) in prog.insts.iter().enumerate() {
        for s in inst.successors() {
            preds[s as usize].push(pc as Pc);
        }
    }
    let mut entry = vec![false; n];
    entry[prog.start as usize] = true;
    for &s in &prog.subs {
        entry[s as usize] = true;
    }
    // Paths into each instruction (saturating: `u32::MAX` is unbounded),
    // counted over the predecessors depth first, without recursion.
    let mut count: Vec<Option<u32>> = vec![None; n];
    let mut open = vec![false; n];
    for pc in 0..n {
        if !prog.visit[pc] || count[pc].is_some() {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(pc, 0)];
        open[pc] = true;
        while let Some(&mut (at, ref mut next)) = stack.last_mut() {
            if let Some(&p) = preds[at].get(*next) {
                *next += 1;
                let p = p as usize;
                if count[p].is_none() && !open[p] {
                    open[p] = true;
                    stack.push((p, 0));
                }
                continue;
            }
            let mut k = entry[at] as u32;
            for &p in &preds[at] {
                // A predecessor still open closes a loop through `at`.
                k = k.saturating_add(count[p as usize].unwrap_or(u32::MAX));
            }
            count[at] = Some(k);
            open[at] = false;
            stack.pop();
        }
    }
    (0..n)
        .filter(|&pc| prog.visit[pc] && count[pc].is_some_and(|k| k <= FEW_PATHS))
        .map(|pc| pc as Pc)
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::engine::backtrack::Prepared;
    use crate::ir::{Rules, Value};
    use crate::program::{Inst, compile};
    use crate::source::Source;

    /// How many loop heads still consult the visited set once prepared.
    fn visited_splits(expr: &str) -> usize {
        let rules = Rules::prelude();
        let Value::Move(m) = rules.expand(&Source::new("<test>", expr)).unwrap() else {
            panic!("not a move")
        };
        let p = Prepared::new(compile(&m, rules.pieces()).unwrap(), 8, 8);
        p.program
            .insts
            .iter()
            .enumerate()
            .filter(|(pc, i)| matches!(i, Inst::Split { .. }) && p.visit[*pc])
            .count()
    }

    /// The visited instructions of `expr`'s program, and those of them
    /// [`super::few_path_joins`] frees of their set.
    fn joins(expr: &str) -> (usize, usize) {
        let rules = Rules::prelude();
        let Value::Move(m) = rules.expand(&Source::new("<test>", expr)).unwrap() else {
            panic!("not a move")
        };
        let p = compile(&m, rules.pieces()).unwrap();
        let visited = p.visit.iter().filter(|&&v| v).count();
        (visited, super::few_path_joins(&p).len())
    }

    /// What [`super::placements`] says of `expr`'s program, as piece symbols.
    fn placed(expr: &str) -> Option<String> {
        let rules = Rules::prelude();
        let Value::Move(m) = rules.expand(&Source::new("<test>", expr)).unwrap() else {
            panic!("not a move")
        };
        let codes = super::placements(&compile(&m, rules.pieces()).unwrap())?;
        Some(
            codes
                .into_iter()
                .map(|c| rules.pieces().symbol(crate::core::as_piece(c).unwrap().0))
                .collect(),
        )
    }

    #[test]
    fn a_move_that_puts_one_piece_on_an_empty_square_is_a_placement() {
        assert_eq!(placed(". -> ♙").as_deref(), Some("♙"));
        assert_eq!(placed("(. -> ♙) | (. -> ♟)").as_deref(), Some("♙♟"));
        // Squares written back as they were change nothing.
        assert_eq!(placed("d ♙ + . -> d ♙ + ♟").as_deref(), Some("♟"));
        assert_eq!(placed("?{u ♙ -> u ♙} (. -> ♟)").as_deref(), Some("♟"));
        // Two pieces put down, a piece moved, a square that may hold a
        // piece, a move that may change nothing: not placements.
        assert_eq!(placed("(. -> ♙) (. -> ♙)"), None);
        assert_eq!(placed("%♖: (% + u. -> . + u%)"), None);
        assert_eq!(placed("(. | ♙) -> ♟"), None);
        assert_eq!(placed("(. -> ♙)?"), None);
    }

    #[test]
    fn a_join_after_a_few_alternatives_needs_no_visited_set() {
        let (visited, freed) =
            joins("%♙: ((% + u. -> . + u%) | (% + ur♟ -> . + ur%)) ((% + u# -> ♕ + u#) / nil)");
        assert!(visited >= 1);
        assert_eq!(freed, visited);
    }

    #[test]
    fn a_join_after_a_loop_keeps_it() {
        let (visited, freed) =
            joins("%♖: (% + u. -> . + u%)* ((% + r. -> . + r%) | (% + l. -> . + l%)) (% + u. -> . + u%)");
        assert!(visited > freed, "{visited} visited, {freed} freed");
    }

    #[test]
    fn a_slide_needs_no_visited_set() {
        assert_eq!(visited_splits("%♖: (% + u. -> . + u%)*"), 0);
    }

    #[test]
    fn loops_that_can_come_back_keep_it() {
        assert_eq!(
            visited_splits("%♖: ((% + u. -> . + u%) | (% + d. -> . + d%))*"),
            1
        );
        assert_eq!(visited_splits("(. -> ♙)*"), 1);
        assert_eq!(visited_splits("%♖: (% -> %)*"), 1);
    }
}
