//! Counting pieces' moves by square sets, without walking them: the counts
//! of a program that chooses among pieces (`%♘: ... | %♖: ... | ...`), such
//! as perft's last ply.
//!
//! Each alternative that binds pieces no other bind of the program names is
//! a group of its own, counted without the walker when its moves have one
//! of two shapes:
//!
//! - **rays**: fixed steps onto one class of contents, and slides over one
//!   content then a step in the same direction (`step(m)`, `slide(m)`): the
//!   squares a piece reaches are a shift of the pieces' squares, or a ray
//!   cut at its first square that is not slid over (a table of rays per
//!   square);
//! - **rules**: one rewrite at the piece, maybe followed by ordered choices
//!   at the piece (a pawn's push, double step, captures, promotion): the
//!   rules of its traced plan ([`crate::engine::choice::compile::traced_plan`]), whose
//!   places are square-set operations.
//!
//! A count with a legality filter ([`Keep`]) counts by population the moves
//! whose squares are all cold (kept untested), and makes and tests the
//! others one by one. The other alternatives are walked, as one program.
//!
//! Results of different groups, and of a group and the rest, are different
//! moves: they start from different squares (a square holds one content,
//! and the groups' contents are bound nowhere else). Within a group the
//! shapes are checked to give each move once (different steps, rays that do
//! not overlap, rules that cannot match together).

mod build;

use build::{choice_of, displacements, follow, never_ends, rays, rules};

use smallvec::SmallVec;

use super::choice::{SetCheck, SetWrite, Tail};
use super::squares::{Decline, Squares, on_board};
use super::walk::{Keep, Walker};
use crate::core::{self as code, Code, CodeSet, Marks};
use crate::engine::choice::compile::{Geometry, traced_plan_at};
use crate::engine::position::Position;
use crate::program::{Inst, Pc, Program};

/// A choice among pieces, its groups counted by square sets and the rest walked.
#[derive(Clone, Debug)]
pub(super) struct Bulk {
    groups: Vec<Group>,
    /// The contents of each class of squares a group reads (the squares of
    /// each class are gathered once per count).
    classes: Vec<Box<[Code]>>,
    /// The same, as sets.
    class_sets: Vec<CodeSet>,
    width: i32,
    height: i32,
    /// One more than the largest code a class names.
    codes: usize,
    /// Whether the groups can say which squares their moves change
    /// ([`Bulk::changes_at`]): no tail writes beside the piece.
    answers_changes: bool,
}

/// The moves of one alternative's pieces.
#[derive(Clone, Debug)]
struct Group {
    /// The codes its bind names (for rays; rules name theirs).
    pieces: Box<[Code]>,
    /// The same, as a set.
    piece_set: CodeSet,
    moves: Moves,
    /// Per square: the squares from which a piece of the group could
    /// change it (its own included).
    near: Box<[Squares]>,
}

/// How a group's pieces move.
#[derive(Clone, Debug)]
enum Moves {
    Rays(Vec<Ray>),
    Rules(Vec<BulkRule>),
}

/// A fixed step of the piece onto a class of contents, or a slide over
/// one content and then such a step, in one direction.
#[derive(Clone, Debug)]
struct Ray {
    /// The step on the board.
    step: (i32, i32),
    /// The step as a distance in bits.
    shift: i32,
    /// The squares from which the step stays on the board.
    inside: Squares,
    /// For a slide: what it slides over, and its rays.
    slide: Option<Lines>,
    /// The class of contents the piece may end on.
    onto: usize,
    /// What the piece leaves behind.
    behind: Code,
    /// The marks the piece has once moved.
    marks: Marks,
}

/// The class a slide slides over, and per square the squares of its ray
/// from there (the square itself not included), ahead and back.
#[derive(Clone, Debug)]
struct Lines {
    over: usize,
    ahead: Box<[Squares]>,
    back: Box<[Squares]>,
}

/// A rule of a traced plan, its checks reading classes.
#[derive(Clone, Debug)]
struct BulkRule {
    checks: Vec<ClassCheck>,
    /// Per choice: its writes, and whether one of them always changes its square.
    choices: Vec<(Vec<SetWrite>, bool)>,
    tails: Vec<Tail>,
    /// Where the tails may make a rewrite: the places where each of the
    /// first tail's rewrites may match, as checks (none: the tails never
    /// do); places there are made one by one. `None`: every place.
    tail_places: Option<Vec<Vec<ClassCheck>>>,
    /// Where the piece ends, as a distance in bits from the place, and its
    /// code there.
    to: i32,
    poi: Code,
    /// Where the piece starts, as a distance in bits from the place, and its code.
    from: i32,
    piece: Code,
    /// The steps its choices move the piece by.
    steps: Vec<(i32, i32)>,
    /// Where the tails' checks look, as offsets from the piece.
    tail_reads: Vec<(i32, i32)>,
}

/// A check of a rule on the squares of a class.
#[derive(Clone, Copy, Debug)]
struct ClassCheck {
    shift: i32,
    class: usize,
    inside: Squares,
    outside: Squares,
}

/// The places `t` where `t + shift` is in `set` (the caller masks what
/// wraps round the board's edges).
#[inline]
fn back(set: Squares, shift: i32) -> Squares {
    if shift >= 0 {
        set.checked_shr(shift as u32).unwrap_or(0)
    } else {
        set.checked_shl(-shift as u32).unwrap_or(0)
    }
}

/// The squares `t + shift` for `t` in `set`.
#[inline]
fn ahead(set: Squares, shift: i32) -> Squares {
    back(set, -shift)
}

/// The squares of `set`, one by one.
fn squares(mut set: Squares) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let i = set.trailing_zeros();
            set &= set - 1;
            i
        })
    })
}

/// A count's legality filter with the square sets it needs.
struct Filter<'k, 'g> {
    keep: &'k mut Keep<'g>,
    /// The squares holding a content of `keep.wary`.
    wary: Squares,
}

impl Filter<'_, '_> {
    /// The squares where writing `new` keeps a result untested (as far as
    /// that write goes).
    fn quiet(&self, new: Code) -> Squares {
        let k = &self.keep;
        if k.hot.contains(new) {
            0
        } else if k.wary.contains(new) {
            k.cold & k.calm
        } else {
            k.cold & (k.calm | !self.wary)
        }
    }

    /// Whether the result changing `diff` (square order) on `cells` is kept.
    fn kept(&mut self, cells: &[Code], diff: &[(u32, Code)]) -> bool {
        self.keep.untested(cells, diff) || (self.keep.test)(diff)
    }
}

impl Bulk {
    /// One more than the largest code its square sets read.
    pub(crate) fn codes(&self) -> usize {
        self.codes
    }

    /// Whether the groups can say which squares their moves change
    /// ([`Bulk::changes_at`]).
    pub(crate) fn answers_changes(&self) -> bool {
        self.answers_changes
    }

    /// How many results the groups have on `position` (square sets
    /// `occupied`) that `keep` (if any) keeps.
    pub(crate) fn count(
        &self,
        position: &Position,
        occupied: &[Squares],
        keep: Option<&mut Keep<'_>>,
    ) -> u64 {
        let held = |code: Code| occupied.get(code as usize).copied().unwrap_or(0);
        let sets: SmallVec<[Squares; 16]> = (self.classes.iter())
            .map(|c| c.iter().fold(0, |s, &k| s | held(k)))
            .collect();
        let mut filter = keep.map(|keep| {
            let wary = if keep.cold == 0 {
                0
            } else {
                (keep.wary_codes.iter()).fold(0, |s, &c| s | held(c))
            };
            Filter { keep, wary }
        });
        let cells = &position.cells;
        let mut n = 0;
        for group in &self.groups {
            n += match &group.moves {
                Moves::Rays(rays) => self.rays(&group.pieces, rays, cells, occupied, &sets, filter.as_mut()),
                Moves::Rules(rules) => self.rules(rules, cells, occupied, &sets, filter.as_mut()),
            };
        }
        n
    }

    /// Whether some move of the groups on `base` with the changes `overlay`
    /// made changes square `at`, and the squares the answer read (see
    /// [`Walker::changes_at`]): the groups look at the squares their pieces
    /// would come from.
    pub(crate) fn changes_at(
        &self,
        base: &[Code],
        occupied: &[Squares],
        overlay: &[(u32, Code)],
        at: u32,
    ) -> (bool, Squares) {
        let board = Overlaid {
            base,
            overlay,
            width: self.width,
            height: self.height,
        };
        let (mut hit, mut reads) = (false, 1 << at);
        for group in &self.groups {
            if hit {
                break;
            }
            let on = on_board(&group.pieces, |c| group.piece_set.contains(c), occupied, overlay);
            if on & group.near[at as usize] == 0 {
                // (A piece put where one could reach `at` is the caller's
                // to watch: see `Walker::may_bind_anew`.)
                continue;
            }
            hit = match &group.moves {
                Moves::Rays(rays) => self.rays_change(&group.pieces, rays, &board, on, at, &mut reads),
                Moves::Rules(rules) => self.rules_change(rules, &board, at, &mut reads),
            };
        }
        (hit, reads)
    }

    /// The groups of `walker`'s program (a choice of alternatives from its
    /// start) on boards of `width` by `height`, if one alternative is a
    /// group; and the other alternatives, as one program of their own.
    pub(crate) fn of(walker: &Walker, width: u32, height: u32) -> Result<(Bulk, Option<Program>), Decline> {
        let program = walker.program();
        let mut alternatives = Vec::new();
        let mut todo = vec![program.start];
        let mut seen = vec![false; program.insts.len()];
        while let Some(pc) = todo.pop() {
            let pc = follow(program, pc).map_err(|_| Decline::NotAChoiceOfAlternatives)?;
            if std::mem::replace(&mut seen[pc as usize], true) {
                return Err(Decline::NotAChoiceOfAlternatives);
            }
            match program.insts[pc as usize] {
                Inst::Split { first, second } if walker.slide_at(pc).is_none() => {
                    todo.extend([second, first])
                }
                _ => alternatives.push(pc),
            }
        }
        let geometry = Geometry { width, height };
        // The moves of the alternative at `pc`, if it is a group's shape.
        let shape = |pc: Pc, classes: &mut Vec<Box<[Code]>>| {
            let Inst::Bind { id, next } = program.insts[pc as usize] else {
                return None;
            };
            let interned = classes.len();
            rays(
                walker,
                program,
                next,
                &program.binds[id.index()],
                &geometry,
                classes,
            )
            .or_else(|| {
                classes.truncate(interned);
                rules(program, pc, &geometry, classes)
            })
        };
        let shaped: Vec<bool> = (alternatives.iter())
            .map(|&pc| shape(pc, &mut Vec::new()).is_some())
            .collect();
        // Another bind of a group's pieces must be an alternative walked
        // whose piece never ends where the group's moves take it.
        let apart = |pc: Pc, moves: &Moves| {
            let Inst::Bind { id, .. } = program.insts[pc as usize] else {
                return false;
            };
            let codes = &program.binds[id.index()];
            program.insts.iter().enumerate().all(|(at, inst)| match inst {
                Inst::Bind { id, .. }
                    if at != pc as usize && program.binds[id.index()].iter().any(|c| codes.contains(c)) =>
                {
                    let walked = alternatives
                        .iter()
                        .position(|&a| a as usize == at)
                        .is_some_and(|i| !shaped[i]);
                    walked && displacements(program, at as Pc).is_some_and(|ends| never_ends(moves, &ends))
                }
                _ => true,
            })
        };
        let mut classes = Vec::new();
        let (mut groups, mut rest) = (Vec::new(), Vec::new());
        for &pc in &alternatives {
            let interned = classes.len();
            let group = shape(pc, &mut classes)
                .filter(|moves| apart(pc, moves))
                .map(|moves| {
                    let Inst::Bind { id, .. } = program.insts[pc as usize] else {
                        unreachable!("a shape is a bind's")
                    };
                    Group {
                        pieces: program.binds[id.index()].clone(),
                        piece_set: CodeSet::of(program.binds[id.index()].iter().copied()),
                        near: near(&moves, &geometry),
                        moves,
                    }
                });
            match group {
                Some(g) => groups.push(g),
                None => {
                    classes.truncate(interned);
                    rest.push(pc);
                }
            }
        }
        if groups.is_empty() {
            return Err(Decline::NoGroup);
        }
        let rest = match rest[..] {
            [] => None,
            _ => {
                let mut part = program.clone();
                part.start = choice_of(&mut part, &rest);
                Some(part)
            }
        };
        let codes = (classes.iter().flatten())
            .chain(groups.iter().flat_map(|g| g.pieces.iter()))
            .map(|&c| c as usize + 1)
            .max()
            .unwrap_or(1);
        // Tails that write beside the piece: which squares a move changes
        // is left to the walk.
        let answers_changes = groups.iter().all(|g| match &g.moves {
            Moves::Rays(_) => true,
            Moves::Rules(rules) => (rules.iter().flat_map(|r| &r.tails))
                .flat_map(|t| t.options.iter().flatten())
                .all(|o| o.writes.iter().all(|&(dx, dy, _)| (dx, dy) == (0, 0))),
        });
        let bulk = Bulk {
            groups,
            class_sets: classes.iter().map(|c| CodeSet::of(c.iter().copied())).collect(),
            classes,
            width: width as i32,
            height: height as i32,
            codes,
            answers_changes,
        };
        Ok((bulk, rest))
    }

    /// Whether a move of `pieces` by `rays` on `board` (where they stand
    /// on the squares `on`) changes `at`, noting in `reads` the squares the
    /// answer rests on. (Where no piece is, nothing is read: a piece put
    /// there is a bound piece where one could reach `at`, which the caller
    /// watches; see [`Walker::may_bind_anew`].)
    fn rays_change(
        &self,
        pieces: &[Code],
        rays: &[Ray],
        board: &Overlaid<'_>,
        on: Squares,
        at: u32,
        reads: &mut Squares,
    ) -> bool {
        let here = board.read(at);
        let (x, y) = board.xy(at);
        if on >> at & 1 == 1 {
            // The piece there changes it by any move it has.
            *reads = Squares::MAX;
            let moves = rays.iter().any(|ray| {
                if code::same_but_marks(ray.behind, here) {
                    return false;
                }
                let onto = &self.class_sets[ray.onto];
                let over = ray.slide.as_ref().map(|l| &self.class_sets[l.over]);
                let (dx, dy) = ray.step;
                let (mut sx, mut sy) = (x + dx, y + dy);
                while let Some(s) = board.at(sx, sy) {
                    let there = board.read(s);
                    if onto.contains(there) {
                        return true;
                    }
                    if !over.is_some_and(|o| o.contains(there)) {
                        return false;
                    }
                    (sx, sy) = (sx + dx, sy + dy);
                }
                false
            });
            if moves {
                return true;
            }
        }
        rays.iter().any(|ray| {
            if !self.class_sets[ray.onto].contains(here) {
                return false;
            }
            let (dx, dy) = ray.step;
            let Some(lines) = &ray.slide else {
                // A step: a piece one step back.
                return board
                    .at(x - dx, y - dy)
                    .is_some_and(|s| on >> s & 1 == 1 && !code::same_but_marks(board.read(s), here));
            };
            if lines.back[at as usize] & on == 0 {
                return false;
            }
            // Back along the ray: a piece there, the squares between slid over.
            let over = Some(&self.class_sets[lines.over]);
            let (mut sx, mut sy) = (x - dx, y - dy);
            while let Some(s) = board.at(sx, sy) {
                *reads |= 1 << s;
                let there = board.read(s);
                if pieces.contains(&there) {
                    return !code::same_but_marks(there, here);
                }
                if !over.is_some_and(|o| o.contains(there)) {
                    return false;
                }
                (sx, sy) = (sx - dx, sy - dy);
            }
            false
        })
    }

    /// Whether a result of `rules` on `board` changes `at`, noting the
    /// squares looked at in `reads`.
    fn rules_change(&self, rules: &[BulkRule], board: &Overlaid<'_>, at: u32, reads: &mut Squares) -> bool {
        let here = board.read(at);
        let n = board.base.len() as i32;
        for rule in rules {
            for (writes, _) in &rule.choices {
                for wr in writes {
                    let t = at as i32 - wr.shift;
                    // Without its piece the rule cannot match (and a piece
                    // put there is the caller's to watch, as in `rays_change`).
                    let from = t + rule.from;
                    if !(0..n).contains(&t)
                        || !(0..n).contains(&from)
                        || board.read(from as u32) != rule.piece
                    {
                        continue;
                    }
                    // Does the rule match at `t`? (A check that fails decides.)
                    let matches = rule.checks.iter().all(|c| {
                        if c.inside >> t & 1 == 0 {
                            return c.outside >> t & 1 == 1;
                        }
                        let s = (t + c.shift) as u32;
                        *reads |= 1 << s;
                        self.class_sets[c.class].contains(board.read(s))
                    });
                    if !matches {
                        continue;
                    }
                    if rule.tails.is_empty() {
                        if !code::same_but_marks(wr.code, here) {
                            return true;
                        }
                        continue;
                    }
                    // The tails may write the piece's square again: each result's last word.
                    let piece = t + rule.to;
                    let (px, py) = board.xy(piece as u32);
                    for &(dx, dy) in &rule.tail_reads {
                        if let Some(s) = board.at(px + dx, py + dy) {
                            *reads |= 1 << s;
                        }
                    }
                    let mut made: SmallVec<[(i32, Code); 8]> =
                        writes.iter().map(|wr| (t + wr.shift, wr.code)).collect();
                    let mut changed = false;
                    let cells = board.cells();
                    let grid = Grid {
                        cells: &cells,
                        width: board.width,
                        height: board.height,
                    };
                    each_tailed(grid, &rule.tails, (piece, rule.poi), &mut made, &mut |made| {
                        let last = made.iter().rev().find(|m| m.0 == at as i32);
                        changed |= last.is_some_and(|m| !code::same_but_marks(m.1, here));
                    });
                    if changed {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// How many moves of `pieces` by `rays` are kept.
    fn rays(
        &self,
        pieces: &[Code],
        rays: &[Ray],
        cells: &[Code],
        occupied: &[Squares],
        sets: &[Squares],
        mut filter: Option<&mut Filter<'_, '_>>,
    ) -> u64 {
        let mut n = 0;
        for &piece in pieces {
            let at = occupied.get(piece as usize).copied().unwrap_or(0);
            if at == 0 {
                continue;
            }
            for ray in rays {
                let moved = code::with_marks(piece, ray.marks);
                let onto = sets[ray.onto];
                let (from_quiet, to_quiet) = match &filter {
                    Some(f) => (f.quiet(ray.behind), f.quiet(moved)),
                    None => (Squares::MAX, Squares::MAX),
                };
                let tested = |filter: &mut Option<&mut Filter<'_, '_>>, from: u32, to: u32| {
                    let f = filter.as_mut().expect("tested only under a filter");
                    let pair = if from < to {
                        [(from, ray.behind), (to, moved)]
                    } else {
                        [(to, moved), (from, ray.behind)]
                    };
                    f.kept(cells, &pair) as u64
                };
                match &ray.slide {
                    None => {
                        let to = ahead(at & ray.inside, ray.shift) & onto;
                        let quiet = ahead(at & ray.inside & from_quiet, ray.shift) & to & to_quiet;
                        n += quiet.count_ones() as u64;
                        if filter.is_some() {
                            for t in squares(to & !quiet) {
                                n += tested(&mut filter, (t as i32 - ray.shift) as u32, t);
                            }
                        }
                    }
                    Some(Lines {
                        over, ahead: lines, ..
                    }) => {
                        let over = sets[*over];
                        for from in squares(at) {
                            let line = lines[from as usize];
                            let stop = line & !over;
                            let to = if stop == 0 {
                                line & onto
                            } else {
                                let first = if ray.shift > 0 {
                                    stop.trailing_zeros()
                                } else {
                                    Squares::BITS - 1 - stop.leading_zeros()
                                };
                                line & !lines[first as usize] & onto
                            };
                            let quiet = if from_quiet >> from & 1 == 1 {
                                to & to_quiet
                            } else {
                                0
                            };
                            n += quiet.count_ones() as u64;
                            if filter.is_some() {
                                for t in squares(to & !quiet) {
                                    n += tested(&mut filter, from, t);
                                }
                            }
                        }
                    }
                }
            }
        }
        n
    }

    /// How many results of `rules` are kept.
    fn rules(
        &self,
        rules: &[BulkRule],
        cells: &[Code],
        occupied: &[Squares],
        sets: &[Squares],
        mut filter: Option<&mut Filter<'_, '_>>,
    ) -> u64 {
        let w = self.width;
        let height = cells.len() as i32 / w;
        let mut n = 0;
        let mut made: SmallVec<[(i32, Code); 8]> = SmallVec::new();
        let mut diff: SmallVec<[(u32, Code); 8]> = SmallVec::new();
        for rule in rules {
            if occupied.get(rule.piece as usize).is_none_or(|&at| at == 0) {
                continue;
            }
            let places = places_of(&rule.checks, sets);
            if places == 0 {
                continue;
            }
            let one_by_one = match &rule.tail_places {
                None => places,
                Some(list) => places & list.iter().fold(0, |m, checks| m | places_of(checks, sets)),
            };
            let plain = places & !one_by_one;
            for (writes, changes) in &rule.choices {
                let Some(f) = filter.as_mut() else {
                    n += plain.count_ones() as u64;
                    continue;
                };
                let quiet = match changes {
                    true => (writes.iter()).fold(plain, |q, wr| q & back(f.quiet(wr.code), wr.shift)),
                    false => 0,
                };
                n += quiet.count_ones() as u64;
                for t in squares(plain & !quiet) {
                    made.clear();
                    made.extend(writes.iter().map(|wr| (t as i32 + wr.shift, wr.code)));
                    settle(cells, &made, &mut diff);
                    n += f.kept(cells, &diff) as u64;
                }
            }
            for t in squares(one_by_one) {
                for (writes, _) in &rule.choices {
                    made.clear();
                    made.extend(writes.iter().map(|wr| (t as i32 + wr.shift, wr.code)));
                    let at = t as i32 + rule.to;
                    let grid = Grid {
                        cells,
                        width: w,
                        height,
                    };
                    each_tailed(grid, &rule.tails, (at, rule.poi), &mut made, &mut |made| {
                        n += match filter.as_mut() {
                            None => 1,
                            Some(f) => {
                                settle(cells, made, &mut diff);
                                f.kept(cells, &diff) as u64
                            }
                        };
                    });
                }
            }
        }
        n
    }
}

/// Per square `a`: the squares from which a piece moving by `moves` could
/// change `a` (`a` itself included).
fn near(moves: &Moves, geometry: &Geometry) -> Box<[Squares]> {
    let (w, h) = (geometry.width as i32, geometry.height as i32);
    let on = |x: i32, y: i32| (0..w).contains(&x) && (0..h).contains(&y);
    (0..w * h)
        .map(|a| {
            let (x, y) = (a % w, a / w);
            let mut set: Squares = 1 << a;
            match moves {
                Moves::Rays(rays) => {
                    for ray in rays {
                        let (dx, dy) = ray.step;
                        match &ray.slide {
                            None if on(x - dx, y - dy) => set |= 1 << ((y - dy) * w + x - dx),
                            None => {}
                            Some(lines) => set |= lines.back[a as usize],
                        }
                    }
                }
                Moves::Rules(rules) => {
                    for rule in rules {
                        let shifts = (rule.choices.iter().flat_map(|(w, _)| w.iter().map(|w| w.shift)))
                            .chain([rule.to]);
                        for shift in shifts {
                            let t = a - shift;
                            let inside = || {
                                (rule.checks.iter())
                                    .all(|c| c.inside >> t & 1 == 1 || c.outside >> t & 1 == 1)
                            };
                            if (0..w * h).contains(&t) && inside() {
                                set |= 1 << (t + rule.from);
                            }
                        }
                    }
                }
            }
            set
        })
        .collect()
}

/// A position as a base and changes over it, read square by square.
struct Overlaid<'a> {
    base: &'a [Code],
    /// Writes over the base, in order (a square maybe twice).
    overlay: &'a [(u32, Code)],
    width: i32,
    height: i32,
}

impl Overlaid<'_> {
    /// What square `s` holds.
    #[inline]
    fn read(&self, s: u32) -> Code {
        (self.overlay.iter().rev())
            .find(|o| o.0 == s)
            .map_or(self.base[s as usize], |o| o.1)
    }

    /// The square at `(x, y)`, if it is on the board.
    #[inline]
    fn at(&self, x: i32, y: i32) -> Option<u32> {
        ((0..self.width).contains(&x) && (0..self.height).contains(&y)).then(|| (y * self.width + x) as u32)
    }

    fn xy(&self, s: u32) -> (i32, i32) {
        (s as i32 % self.width, s as i32 / self.width)
    }

    /// Every square's content, the overlay made.
    fn cells(&self) -> Vec<Code> {
        let mut cells = self.base.to_vec();
        for &(s, c) in self.overlay {
            if let Some(cell) = cells.get_mut(s as usize) {
                *cell = c;
            }
        }
        cells
    }
}

/// The places where every one of `checks` holds, on a position whose
/// classes hold the squares `sets`; every place when there is no check.
fn places_of(checks: &[ClassCheck], sets: &[Squares]) -> Squares {
    let mut at = Squares::MAX;
    for c in checks {
        at &= back(sets[c.class], c.shift) & c.inside | c.outside;
        if at == 0 {
            break;
        }
    }
    at
}

/// What receives each result's writes (square and content, in order).
type Writes<'a> = dyn FnMut(&[(i32, Code)]) + 'a;

/// The changes the writes `made` (in order, a square maybe twice) make to
/// `cells`: the last write to each square, where it differs, in square order.
fn settle(cells: &[Code], made: &[(i32, Code)], diff: &mut SmallVec<[(u32, Code); 8]>) {
    diff.clear();
    for (k, &(i, c)) in made.iter().enumerate() {
        if made[k + 1..].iter().any(|m| m.0 == i) {
            continue;
        }
        if cells[i as usize] != c {
            diff.push((i as u32, c));
        }
    }
    diff.sort_unstable_by_key(|d| d.0);
}

/// The cells of a board of `width` by `height` squares, row by row.
#[derive(Clone, Copy)]
struct Grid<'c> {
    cells: &'c [Code],
    width: i32,
    height: i32,
}

/// Makes `tails` after the writes `made` on `grid`, the piece `poi` on
/// square `at`: in each, the first option with a rewrite that matches makes
/// each one that matches, a result each (none: nothing). Gives each
/// result's writes to `out`.
fn each_tailed(
    grid: Grid<'_>,
    tails: &[Tail],
    (at, poi): (i32, Code),
    made: &mut SmallVec<[(i32, Code); 8]>,
    out: &mut Writes<'_>,
) {
    let Grid { cells, width, height } = grid;
    let Some((tail, later)) = tails.split_first() else {
        return out(made);
    };
    let (px, py) = (at % width, at / width);
    let read = |made: &[(i32, Code)], x: i32, y: i32| -> Code {
        if !(0..width).contains(&x) || !(0..height).contains(&y) {
            return code::OFF;
        }
        let i = y * width + x;
        made.iter()
            .rev()
            .find(|m| m.0 == i)
            .map_or(cells[i as usize], |m| m.1)
    };
    for option in &tail.options {
        let mut any = false;
        for o in option {
            let holds = o.checks.iter().all(|c| {
                let here = read(made, px + c.dx, py + c.dy);
                c.accepts.contains(here) || (c.poi && here == poi)
            });
            if !holds {
                continue;
            }
            any = true;
            let len = made.len();
            made.extend(
                o.writes
                    .iter()
                    .map(|&(dx, dy, code)| ((py + dy) * width + px + dx, code)),
            );
            // Another piece left where the piece stands: it is that piece now.
            let here = read(made, px, py);
            let poi = if here != poi && code::as_piece(here).is_some() {
                here
            } else {
                poi
            };
            each_tailed(grid, later, (at, poi), made, out);
            made.truncate(len);
        }
        if any {
            return;
        }
    }
    each_tailed(grid, later, (at, poi), made, out)
}

#[cfg(test)]
mod tests;
