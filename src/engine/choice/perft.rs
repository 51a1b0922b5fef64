//! Perft on square sets alone: when every side's moves are a choice of
//! rewrites whose results are distinct ([`Plan`]) and every pattern that
//! ends the game is one too, a position is its square sets and its cells,
//! a move is a few writes to both, and counting the last ply is a
//! population count. No position, hash, move list or turn state is built
//! on the way down (Connect Four, tic-tac-toe and games like them).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::{Plan, Rule, SetCheck, Word, check_places};
use crate::core::Code;
use crate::engine::position::Position;
use crate::engine::squares::Squares;

/// A perft counter on square sets: per side, the plan of its moves and the
/// patterns that end the game when it is that side's turn. The turn
/// passes from each side to the next in order.
///
/// A pattern that did not hold before a move can hold after it only if the
/// move wrote a content one of its checks accepts (as
/// `Plan::may_hold_anew`), so the counter carries down which patterns are
/// known not to hold and tests only the others.
#[derive(Debug)]
pub struct SetPerft<'e> {
    /// Per side: its moves, rules that differ only in what one square may
    /// hold made one ([`merged`]).
    moves: Vec<Plan>,
    /// The patterns (at most 64).
    patterns: Vec<&'e Plan>,
    /// Per side: the patterns (indices) that end the game on its turn.
    ends: Vec<Vec<usize>>,
    /// Per code: the patterns (bits) a square newly holding it may complete.
    completes: Vec<u64>,
    /// The moves and the patterns as the counter tests them, on the
    /// board's classes.
    flat_moves: Vec<Flat>,
    flat_patterns: Vec<Flat>,
    /// Per code: the classes (bits) that hold it.
    classes_of: Vec<u64>,
    /// How many classes the board keeps.
    classes: usize,
}

/// A plan as the counter tests it: each check reads the squares of one
/// class of contents (a set of codes whose squares the board keeps as one
/// set, updated as squares change), so a check is a shift and two masks.
#[derive(Debug)]
struct Flat {
    all: Squares,
    nil: bool,
    /// Per rule of the plan, in its order.
    rules: Box<[FlatRule]>,
}

#[derive(Debug)]
struct FlatRule {
    checks: Box<[FlatCheck]>,
    /// How many choices of writes the rule has.
    choices: u64,
}

/// A [`SetCheck`] on a class.
#[derive(Clone, Copy, Debug)]
struct FlatCheck {
    class: usize,
    shift: i32,
    inside: Squares,
    outside: Squares,
}

/// The most classes a counter keeps (each check's set of codes is one).
const MAX_CLASSES: usize = 64;

impl Flat {
    /// `plan` with its checks reading the classes `classes` lists (a check's
    /// codes added as a class where they are not one yet).
    fn of(plan: &Plan, classes: &mut Vec<Vec<Code>>) -> Flat {
        let mut class = |codes: &[Code]| match classes.iter().position(|c| c[..] == *codes) {
            Some(k) => k,
            None => {
                classes.push(codes.to_vec());
                classes.len() - 1
            }
        };
        let rules = (plan.rules.iter())
            .map(|r| FlatRule {
                checks: (r.checks.iter())
                    .map(|c| FlatCheck {
                        class: class(&c.codes),
                        shift: c.shift,
                        inside: c.inside,
                        outside: c.outside,
                    })
                    .collect(),
                choices: r.choices.len() as u64,
            })
            .collect();
        Flat {
            all: plan.all,
            nil: plan.nil,
            rules,
        }
    }

    /// The places where `rule` matches, given the squares of each class
    /// (in words of type `W`, wide enough for the board).
    #[inline(always)]
    fn places<W: Word>(&self, rule: &FlatRule, classes: &[W]) -> W {
        let mut at = W::of(self.all);
        for c in rule.checks.iter() {
            at = at.and(check_places(classes[c.class], c.shift, c.inside, c.outside));
            if at.is_zero() {
                break;
            }
        }
        at
    }

    /// Whether some rule matches ([`Plan::holds_on`]).
    #[inline]
    fn holds<W: Word>(&self, classes: &[W]) -> bool {
        self.nil || self.rules.iter().any(|r| !self.places(r, classes).is_zero())
    }

    /// How many results the plan has ([`Plan::count_on`]).
    #[inline]
    fn count<W: Word>(&self, classes: &[W]) -> u64 {
        let found: u64 = (self.rules.iter())
            .map(|r| self.places(r, classes).count() as u64 * r.choices)
            .sum();
        found + self.nil as u64
    }
}

/// Where a counter stopped: asked to, by the flag it was given, or past
/// the deadline it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

/// What stops a count early: a flag set, a deadline passed.
#[derive(Clone, Copy)]
struct Halt<'a> {
    stop: Option<&'a AtomicBool>,
    deadline: Option<Instant>,
}

impl Halt<'_> {
    /// Whether the count must stop now.
    fn now(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A position as the counter keeps it, with the writes to take back; its
/// square sets in words of type `W`.
struct CountingBoard<'c, W> {
    cells: Vec<Code>,
    /// Per class: the squares holding one of its codes.
    classes: Vec<W>,
    /// Per code: the classes (bits) that hold it.
    classes_of: &'c [u64],
    /// Square and what it held, in the order the writes were made.
    undo: Vec<(u32, Code)>,
}

impl<W: Word> CountingBoard<'_, W> {
    /// Square `i` holds `code` now (its classes follow).
    #[inline(always)]
    fn set(&mut self, i: usize, code: Code) {
        let old = std::mem::replace(&mut self.cells[i], code);
        let bit = W::bit(i);
        let mut out = self.classes_of.get(old as usize).copied().unwrap_or(0);
        while out != 0 {
            let k = out.trailing_zeros() as usize;
            self.classes[k] = self.classes[k].and(bit.not());
            out &= out - 1;
        }
        self.mark(i, code);
    }

    /// Adds square `i` to the classes of `code`.
    #[inline(always)]
    fn mark(&mut self, i: usize, code: Code) {
        let mut into = self.classes_of.get(code as usize).copied().unwrap_or(0);
        while into != 0 {
            let k = into.trailing_zeros() as usize;
            self.classes[k] = self.classes[k].or(W::bit(i));
            into &= into - 1;
        }
    }
}

impl<'e> SetPerft<'e> {
    /// The counter of `moves` (per side) and `ends` (per side, indices into
    /// `patterns`), when each moves plan has results that are distinct and
    /// each change a square (so that a count is the number of moves made
    /// one by one) and there are at most 64 patterns; else none.
    pub(crate) fn new(
        moves: Vec<&'e Plan>,
        patterns: Vec<&'e Plan>,
        ends: Vec<Vec<usize>>,
    ) -> Option<SetPerft<'e>> {
        let made_one_by_one = |p: &Plan| {
            p.distinct
                && !p.nil
                && !p.tails
                && p.rules
                    .iter()
                    .all(|r| r.choices.iter().all(|c| c.iter().any(|w| w.always)))
        };
        if moves.is_empty()
            || ends.len() != moves.len()
            || patterns.len() > 64
            || ends.iter().flatten().any(|&p| p >= patterns.len())
            || !moves.iter().all(|p| made_one_by_one(p))
        {
            return None;
        }
        let written = moves
            .iter()
            .flat_map(|p| p.rules.iter().flat_map(|r| r.choices.iter().flatten()))
            .map(|w| w.code as usize + 1)
            .max()
            .unwrap_or(0);
        let completes = (0..written)
            .map(|code| {
                (patterns.iter().enumerate())
                    .filter(|(_, p)| p.nil || p.accepted.contains(code as Code))
                    .fold(0, |bits, (i, _)| bits | 1 << i)
            })
            .collect();
        let moves: Vec<Plan> = moves.iter().map(|p| merged(p)).collect();
        let mut classes = Vec::new();
        let flat_moves = moves.iter().map(|p| Flat::of(p, &mut classes)).collect();
        let flat_patterns = patterns.iter().map(|p| Flat::of(p, &mut classes)).collect();
        if classes.len() > MAX_CLASSES {
            return None;
        }
        let codes = classes
            .iter()
            .flatten()
            .map(|&c| c as usize + 1)
            .max()
            .unwrap_or(0);
        let classes_of = (0..codes)
            .map(|code| {
                (classes.iter().enumerate())
                    .filter(|(_, c)| c.contains(&(code as Code)))
                    .fold(0, |bits, (k, _)| bits | 1 << k)
            })
            .collect();
        Some(SetPerft {
            moves,
            patterns,
            ends,
            completes,
            flat_moves,
            flat_patterns,
            classes_of,
            classes: classes.len(),
        })
    }

    /// Whether the plans hold for `position`'s grid.
    pub fn fits(&self, position: &Position) -> bool {
        self.moves
            .iter()
            .chain(self.patterns.iter().copied())
            .all(|p| p.fits(position))
    }

    /// The leaves of the tree of `depth` moves from `position` (which must
    /// fit) with `side` to move, none going on from a position where an
    /// ending pattern holds; [`Stopped`] soon after `stop` is set or
    /// `deadline` passes (the flag and the clock are read at each position
    /// three or more moves from the leaves).
    pub fn count(
        &self,
        position: &Position,
        side: usize,
        depth: u32,
        stop: Option<&AtomicBool>,
        deadline: Option<Instant>,
    ) -> Result<u64, Stopped> {
        let halt = Halt { stop, deadline };
        if position.cells.len() <= 64 {
            self.count_in::<u64>(position, side, depth, halt)
        } else {
            self.count_in::<Squares>(position, side, depth, halt)
        }
    }

    /// [`SetPerft::count`] in words of type `W`.
    fn count_in<W: Word>(
        &self,
        position: &Position,
        side: usize,
        depth: u32,
        halt: Halt<'_>,
    ) -> Result<u64, Stopped> {
        let mut board = CountingBoard {
            cells: position.cells.clone(),
            classes: vec![W::of(0); self.classes],
            classes_of: &self.classes_of,
            undo: Vec::new(),
        };
        for (i, &code) in position.cells.iter().enumerate() {
            board.mark(i, code);
        }
        self.count_from(&mut board, side % self.moves.len(), depth, 0, halt)
    }

    /// [`SetPerft::count`] on `board`, where the patterns `unmet` (bits)
    /// are known not to hold.
    fn count_from<W: Word>(
        &self,
        board: &mut CountingBoard<'_, W>,
        side: usize,
        depth: u32,
        mut unmet: u64,
        halt: Halt<'_>,
    ) -> Result<u64, Stopped> {
        if depth == 0 {
            return Ok(1);
        }
        if depth >= 3 && halt.now() {
            return Err(Stopped);
        }
        for &p in &self.ends[side] {
            if unmet >> p & 1 == 0 {
                if self.flat_patterns[p].holds(&board.classes) {
                    return Ok(0);
                }
                unmet |= 1 << p;
            }
        }
        let flat = &self.flat_moves[side];
        if depth == 1 {
            return Ok(flat.count(&board.classes));
        }
        let next = (side + 1) % self.moves.len();
        let mut total = 0;
        for (rule, flat_rule) in self.moves[side].rules.iter().zip(flat.rules.iter()) {
            let mut places = flat.places(flat_rule, &board.classes);
            while !places.is_zero() {
                let t = places.lowest() as i32;
                places = places.without_lowest();
                for writes in &rule.choices {
                    let mark = board.undo.len();
                    let mut still = unmet;
                    for w in writes {
                        let i = (t + w.shift) as usize;
                        let old = board.cells[i];
                        if old != w.code {
                            board.undo.push((i as u32, old));
                            board.set(i, w.code);
                            still &= !self.completes[w.code as usize];
                        }
                    }
                    let n = self.count_from(board, next, depth - 1, still, halt);
                    while board.undo.len() > mark {
                        let (i, old) = board.undo.pop().expect("a write to take back");
                        board.set(i as usize, old);
                    }
                    total += n?;
                }
            }
        }
        Ok(total)
    }
}

/// `plan` (whose results are distinct) with every two rules that make the
/// same writes from the same place and check the same squares, all alike
/// but one, made one rule that accepts at that square what either accepts
/// (Connect Four's disc resting on the floor, a red or a yellow disc): the
/// same results, in another order, from fewer rules. Distinct results
/// with the same writes mean the two never match at the same place, so
/// the merged rule's places are theirs, none counted twice.
fn merged(plan: &Plan) -> Plan {
    let mut rules: Vec<Rule> = Vec::new();
    for rule in &plan.rules {
        let into = rules
            .iter_mut()
            .find_map(|m| differing_check(m, rule).map(|k| (m, k)));
        match into {
            Some((m, k)) => {
                let (a, b) = (&mut m.checks[k], &rule.checks[k]);
                a.accepts = a.accepts.union(&b.accepts);
                a.codes.extend(b.codes.iter().copied());
                a.codes.sort_unstable();
                a.codes.dedup();
                a.outside |= b.outside;
            }
            None => rules.push(rule.clone()),
        }
    }
    Plan {
        rules,
        ..plan.clone()
    }
}

/// The one check in which rules `a` and `b` differ, if they make the same
/// writes from the same place (neither traced nor with tails) and check
/// the same squares, all alike but that one.
fn differing_check(a: &Rule, b: &Rule) -> Option<usize> {
    let same_writes = a.choices.len() == b.choices.len()
        && a.choices.iter().zip(&b.choices).all(|(x, y)| {
            x.len() == y.len()
                && x.iter().zip(y).all(|(v, w)| {
                    (v.shift, v.dx, v.dy, v.code, v.always) == (w.shift, w.dx, w.dy, w.code, w.always)
                })
        });
    if !same_writes
        || a.reference != b.reference
        || !(a.traces.is_empty() && b.traces.is_empty() && a.tails.is_empty() && b.tails.is_empty())
        || a.checks.len() != b.checks.len()
    {
        return None;
    }
    let alike = |c: &SetCheck, d: &SetCheck| c.accepts == d.accepts && c.outside == d.outside;
    let mut differing = None;
    for (k, (c, d)) in a.checks.iter().zip(&b.checks).enumerate() {
        if (c.dx, c.dy, c.shift, c.inside) != (d.dx, d.dy, d.shift, d.inside) {
            return None;
        }
        if !alike(c, d) && differing.replace(k).is_some() {
            return None;
        }
    }
    differing
}
