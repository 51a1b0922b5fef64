//! The engine a game runs on: each program on the first strategy that takes
//! it (as `regex-automata`'s meta regex chooses a strategy per regex). The
//! choice is made here, once per program, when the game is built
//! ([`prepare`]); each strategy's constructor takes the program and builds
//! or declines with a typed reason ([`Decline`]). The order:
//!
//! 1. [`choice`](super::choice): a program that chooses one rewrite among
//!    several, as square-set operations ([`Plan`]);
//! 2. [`walk`](super::walk): a program with pieces of interest, walked on
//!    the position plus its changes ([`Walker`]); when the walk is built, the
//!    shortcuts that answer for whole programs are attached to it: the
//!    program as one traced plan, its ordered parts, [`bulk`](super::bulk)
//!    counts by piece, [`placed`](super::placed) counts of placements;
//! 3. [`backtrack`](super::backtrack): every program, the reference.
//!
//! A search of one position then routes to the strategy prepared for its
//! program if it fits the position and the question ([`Route`]).

use std::fmt;
use std::ops::ControlFlow;
use std::str::FromStr;

use smallvec::SmallVec;

use super::backtrack::Backtracker;
use super::bulk;
use super::chain;
use super::choice::{self, Plan};
use super::legal::Walkers;
use super::scratch::FastScratch;
use super::squares::{Decline, Unmet};
use super::walk::{TooLong, Walker, cells_and_tallies};
use super::{Cache, EngineError, Limits, Meter, Position, Roles, SetPerft, Side, Successor, count_each};
use crate::core::Coord;
use crate::program::Program;

/// Which engines a game may run on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineChoice {
    /// The backtracker alone: the reference, for every program.
    Backtrack,
    /// The bit-parallel engine for each program it takes, the backtracker
    /// for the others.
    #[default]
    Fast,
}

impl FromStr for EngineChoice {
    type Err = UnknownEngine;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "backtrack" => Ok(EngineChoice::Backtrack),
            "fast" => Ok(EngineChoice::Fast),
            _ => Err(UnknownEngine(s.to_string())),
        }
    }
}

impl fmt::Display for EngineChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EngineChoice::Backtrack => "backtrack",
            EngineChoice::Fast => "fast",
        })
    }
}

/// An engine name that is neither `backtrack` nor `fast`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is no engine: the engines are `backtrack` and `fast`")]
pub struct UnknownEngine(pub String);

/// Which engine runs each program of a game, and why the fast one does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineReport {
    /// Per side: `None` when the bit-parallel engine runs its moves, else why not.
    pub sides: Vec<Option<String>>,
    /// Per pattern, the same.
    pub patterns: Vec<Option<String>>,
    /// Per side: the shapes of its moves the fast engine runs on square
    /// sets (`walk`, `slide`, `choice among pieces`, ...), none when the
    /// backtracker runs them.
    pub shapes: Vec<Vec<&'static str>>,
    /// Per side: the strategies that declined its moves although the fast
    /// engine runs them (the traced plan, the placement count, the
    /// shortcuts of the walker), each named with its reason, each once.
    pub declines: Vec<Vec<(String, String)>>,
}

impl EngineReport {
    /// How many of the programs the bit-parallel engine runs, of how many.
    pub fn fast_share(&self) -> (usize, usize) {
        let all = self.sides.iter().chain(&self.patterns);
        (all.clone().filter(|d| d.is_none()).count(), all.count())
    }
}

/// The moves of every side of a game, prepared for its board, and the
/// searches the game layer runs with them. `attacked` means "a side other
/// than the owner of the piece of interest (or, for a piece no side owns,
/// than the side searching) has a move that changes its square".
/// Each program runs on the first strategy that takes it (see the module
/// docs); the backtracker runs every program the others do not.
#[derive(Debug)]
pub struct Engine {
    backtracker: Backtracker,
    patterns: Vec<Program>,
    /// Per side: its moves' plan, or why it has none.
    side_plans: Vec<Result<FastProgram, Decline>>,
    /// Per pattern, the same.
    pattern_plans: Vec<Result<FastProgram, Decline>>,
    /// Per side: whether it protects no piece (its safe moves are all its moves).
    unprotected: Vec<bool>,
    /// Who owns what and what each side protects.
    roles: Roles,
    /// Whether every side's moves are walked: then `attacked` and safe
    /// moves can be walked too.
    all_walk: bool,
    /// One more than the largest code the walkers' square sets cover.
    walk_codes: usize,
}

/// Which engine runs one search of a side's moves.
enum Route<'m> {
    /// The square sets.
    Choice(&'m Plan),
    /// The walker, testing the side's protected pieces or not.
    Walk(&'m Walker, bool),
    /// The backtracker.
    Backtrack,
}

impl Engine {
    /// Prepares the sides' moves and the patterns for boards at most `width`
    /// by `height`, with the engines `choice` allows.
    pub fn new(
        sides: Vec<Side>,
        patterns: Vec<Program>,
        width: u32,
        height: u32,
        choice: EngineChoice,
    ) -> Engine {
        let plan = |p: &Program| match choice {
            EngineChoice::Backtrack => Err(Decline::NotChosen),
            EngineChoice::Fast => prepare(p, width, height),
        };
        let side_plans: Vec<_> = sides.iter().map(|s| plan(&s.moves)).collect();
        let pattern_plans: Vec<_> = patterns.iter().map(plan).collect();
        let unprotected = sides.iter().map(|s| s.protected.is_empty()).collect();
        let roles = Roles::of(&sides);
        let walk_codes = side_plans
            .iter()
            .chain(&pattern_plans)
            .filter_map(|p: &Result<FastProgram, Decline>| p.as_ref().ok().and_then(FastProgram::walker))
            .map(Walker::codes)
            .max()
            .unwrap_or(0);
        let all_walk = side_plans
            .iter()
            .all(|p: &Result<FastProgram, Decline>| p.as_ref().ok().and_then(FastProgram::walker).is_some());
        Engine {
            backtracker: Backtracker::new(sides, width, height),
            patterns,
            side_plans,
            pattern_plans,
            unprotected,
            roles,
            all_walk,
            walk_codes,
        }
    }

    /// The engine for a search of `side`'s moves on `position`, `safe` or
    /// not: a fast one if the side's moves have a plan that fits and the
    /// search (safe, `attacked`) is one it can do.
    fn route(&self, side: usize, position: &Position, safe: bool) -> Route<'_> {
        let Ok(plan) = &self.side_plans[side] else {
            return Route::Backtrack;
        };
        if !plan.fits(position) {
            return Route::Backtrack;
        }
        let guard = safe && !self.unprotected[side];
        match plan {
            FastProgram::Choice(p) if !guard => Route::Choice(p),
            FastProgram::Walk(w) if !guard && let Some(p) = w.choice() => Route::Choice(p),
            FastProgram::Walk(w) if self.all_walk || !(guard || w.attacks()) => Route::Walk(w, guard),
            _ => Route::Backtrack,
        }
    }

    /// Runs `f` on the walkers of every side (to run legality on).
    fn with_walkers<T>(&self, meter: &Meter, f: impl FnOnce(&Walkers<'_>) -> T) -> T {
        let sides: SmallVec<[Option<&Walker>; 4]> = self
            .side_plans
            .iter()
            .map(|p| p.as_ref().ok().and_then(FastProgram::walker))
            .collect();
        f(&Walkers {
            sides: &sides,
            roles: &self.roles,
            codes: self.walk_codes,
            meter,
            replies: true,
        })
    }
}

impl Engine {
    /// How many sides the engine was prepared with.
    pub fn sides(&self) -> usize {
        self.side_plans.len()
    }

    /// The moves of `side`, as compiled.
    pub fn program(&self, side: usize) -> &Program {
        self.backtracker.program(side)
    }

    /// Pattern `pattern`, as compiled.
    pub fn pattern(&self, pattern: usize) -> &Program {
        &self.patterns[pattern]
    }

    /// A perft counter on square sets alone ([`SetPerft`]), when on
    /// `position`'s board every side's moves (kept `safe` or not, as
    /// [`Engine::each_move`]) and every pattern of `ends` (per side: the
    /// patterns that end the game when that side is to move) run as
    /// choices of rewrites; else none (the default).
    pub fn set_perft(&self, position: &Position, safe: bool, ends: &[Vec<usize>]) -> Option<SetPerft<'_>> {
        let moves = (0..self.sides())
            .map(|side| match self.route(side, position, safe) {
                Route::Choice(p) => Some(p),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let test = |pattern: usize| match self.pattern_plans.get(pattern)? {
            Ok(FastProgram::Choice(p)) => Some(p),
            Ok(FastProgram::Walk(w)) if !w.attacks() => w.choice_tests(),
            _ => None,
        };
        // Each pattern once, by its index among the game's.
        let mut ids: Vec<usize> = ends.iter().flatten().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        let patterns = ids.iter().map(|&p| test(p)).collect::<Option<Vec<_>>>()?;
        let ends = ends
            .iter()
            .map(|side| {
                side.iter()
                    .map(|p| ids.binary_search(p).expect("listed"))
                    .collect()
            })
            .collect();
        SetPerft::new(moves, patterns, ends).filter(|k| k.fits(position))
    }

    /// Which engine runs each program.
    pub fn report(&self) -> EngineReport {
        let why = |p: &Result<FastProgram, Decline>| p.as_ref().err().map(|d| d.to_string());
        EngineReport {
            sides: self.side_plans.iter().map(why).collect(),
            patterns: self.pattern_plans.iter().map(why).collect(),
            shapes: (self.side_plans.iter())
                .map(|p| p.as_ref().map(FastProgram::shapes).unwrap_or_default())
                .collect(),
            declines: (self.side_plans.iter())
                .map(|p| p.as_ref().map(FastProgram::declines).unwrap_or_default())
                .collect(),
        }
    }

    /// Calls `found` with each move of `side` on `position`, each once (two
    /// results are one move when they have the same changes and the same
    /// [`Successor::poi_from`], [`Successor::poi_to`] and [`Successor::became`]), in a deterministic order, until it says to stop. With
    /// `safe`, only the moves after which no square holding one of the side's
    /// protected pieces (see [`Side`]) can be changed by another side's move.
    pub fn each_move(
        &self,
        side: usize,
        position: &Position,
        safe: bool,
        cache: &mut Cache,
        limits: &Limits,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), EngineError> {
        match self.route(side, position, safe) {
            Route::Choice(p) => {
                cache.clock.tick()?;
                p.each(position, &mut cache.fast.sets, found);
                Ok(())
            }
            Route::Walk(w, guard) => cache.metered(limits, |cache, limits| {
                self.with_walkers(limits, |all| {
                    all.each(side, w, position, guard, &mut cache.fast, found)
                })
                .map_err(|_| limits.exceeded())
            }),
            Route::Backtrack => cache.metered(limits, |cache, limits| {
                self.backtracker
                    .each_move(side, position, safe, &mut cache.backtrack, limits, found)
            }),
        }
    }

    /// How many moves [`Engine::each_move`] would give (the count perft
    /// takes at its last ply), without building them where the engine can.
    pub fn count_moves(
        &self,
        side: usize,
        position: &Position,
        safe: bool,
        cache: &mut Cache,
        limits: &Limits,
    ) -> Result<u64, EngineError> {
        match self.route(side, position, safe) {
            Route::Choice(p) => {
                cache.clock.tick()?;
                Ok(p.count(position, &mut cache.fast.sets))
            }
            Route::Walk(w, guard) => cache.metered(limits, |cache, limits| {
                self.with_walkers(limits, |all| all.count(side, w, position, guard, &mut cache.fast))
                    .map_err(|_| limits.exceeded())
            }),
            Route::Backtrack => cache.metered(limits, |cache, limits| {
                count_each(|found| {
                    self.backtracker
                        .each_move(side, position, safe, &mut cache.backtrack, limits, found)
                })
            }),
        }
    }

    /// Whether pattern `pattern` (one of those the engine was prepared with),
    /// run for `side`, has a result on `position`.
    pub fn pattern_holds(
        &self,
        pattern: usize,
        side: usize,
        position: &Position,
        cache: &mut Cache,
        limits: &Limits,
    ) -> Result<bool, EngineError> {
        if let Ok(plan) = &self.pattern_plans[pattern]
            && plan.fits(position)
            && !plan.attacks()
        {
            if let Some(tests) = plan.tests() {
                cache.clock.tick()?;
                return Ok(FastProgram::tests_hold(tests, pattern, position, &mut cache.fast));
            }
            return cache.metered(limits, |cache, limits| {
                plan.holds(position, &mut cache.fast, limits)
            });
        }
        cache.metered(limits, |cache, limits| {
            self.backtracker.has_result(
                &self.patterns[pattern],
                side,
                position,
                &mut cache.backtrack,
                limits,
            )
        })
    }

    /// Whether `program`, run for `side`, has a result on `position`.
    pub fn has_result(
        &self,
        program: &Program,
        side: usize,
        position: &Position,
        cache: &mut Cache,
        limits: &Limits,
    ) -> Result<bool, EngineError> {
        cache.metered(limits, |cache, limits| {
            self.backtracker
                .has_result(program, side, position, &mut cache.backtrack, limits)
        })
    }

    /// Calls `found` with each result of `program` (a move compiled for
    /// this game's board), run for `side` on `position` with the game's
    /// `attacked` test, until it says to stop: how a part of a side's moves
    /// is tried alone (`chessalg explain`).
    pub fn each_result(
        &self,
        program: &Program,
        side: usize,
        position: &Position,
        cache: &mut Cache,
        limits: &Limits,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), EngineError> {
        cache.metered(limits, |cache, limits| {
            self.backtracker
                .each_result(program, side, position, &mut cache.backtrack, limits, found)
        })
    }

    /// Whether a side other than `side` has a move that changes square `at`.
    pub fn can_change(
        &self,
        side: usize,
        position: &Position,
        at: Coord,
        cache: &mut Cache,
        limits: &Limits,
    ) -> Result<bool, EngineError> {
        cache.metered(limits, |cache, limits| {
            if self.all_walk && self.side_plans.iter().flatten().all(|p| p.fits(position)) {
                return self
                    .with_walkers(limits, |all| all.can_change(side, position, at, &mut cache.fast))
                    .map_err(|_| limits.exceeded());
            }
            let others: Option<Vec<&FastProgram>> = (0..self.sides())
                .filter(|&q| q != side)
                .map(|q| {
                    self.side_plans[q]
                        .as_ref()
                        .ok()
                        .filter(|p| p.fits(position) && !p.attacks())
                })
                .collect();
            if let Some(plans) = others {
                for p in plans {
                    if p.changes_square(position, at, &mut cache.fast, limits)? {
                        return Ok(true);
                    }
                }
                return Ok(false);
            }
            self.backtracker
                .can_change(side, position, at, &mut cache.backtrack, limits)
        })
    }
}

/// A program prepared for one of the fast engines.
#[derive(Clone, Debug)]
pub enum FastProgram {
    /// A choice of rewrites, run on square sets.
    Choice(Plan),
    /// A program with pieces of interest, walked.
    Walk(Box<Walker>),
}

/// Prepares `program` for the fast engine that takes it, or says why the
/// walker (the more general one) declines it.
pub fn prepare(program: &Program, width: u32, height: u32) -> Result<FastProgram, Decline> {
    let alternatives = program.rewrites.iter().flat_map(|rw| rw.alternatives.iter());
    if alternatives
        .flat_map(|a| a.checks.iter())
        .any(|c| c.poi && !c.accepts.is_empty())
    {
        return Err(Decline::PieceOrOther);
    }
    match choice::plan(program, width, height) {
        Ok(p) => Ok(FastProgram::Choice(p)),
        Err(Decline::NotAChoice(_)) => {
            let mut walker = Walker::new(program, width, height)?;
            bulk::attach(&mut walker, width, height);
            chain::attach(&mut walker, width, height);
            Ok(FastProgram::Walk(Box::new(walker)))
        }
        Err(e) => Err(e),
    }
}

impl FastProgram {
    /// Its walker, if it is walked.
    pub(crate) fn walker(&self) -> Option<&Walker> {
        match self {
            FastProgram::Walk(w) => Some(w),
            FastProgram::Choice(_) => None,
        }
    }

    /// The names of the shapes it runs on square sets (see
    /// [`crate::engine::EngineReport::shapes`]).
    pub fn shapes(&self) -> Vec<&'static str> {
        match self {
            FastProgram::Choice(_) => vec!["choice of rewrites"],
            FastProgram::Walk(w) => {
                let mut shapes = vec!["walk"];
                shapes.extend(w.shapes());
                shapes
            }
        }
    }

    /// The strategies that declined it on the way (see
    /// [`crate::engine::EngineReport::declines`]).
    pub fn declines(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        if let FastProgram::Walk(w) = self {
            for (name, why) in w.declined() {
                let line = (name, why.to_string());
                if !out.contains(&line) {
                    out.push(line);
                }
            }
        }
        out
    }

    /// Whether it holds for `position`'s grid.
    pub(crate) fn fits(&self, position: &Position) -> bool {
        match self {
            FastProgram::Choice(p) => p.fits(position),
            FastProgram::Walk(w) => w.fits(position),
        }
    }

    /// Whether it runs `attacked` (and so needs every side walked).
    pub(crate) fn attacks(&self) -> bool {
        matches!(self, FastProgram::Walk(w) if w.attacks())
    }

    /// Whether there is a result on `position`; an error when the search
    /// passes the limit on states, as the backtracker's would.
    pub(crate) fn holds(
        &self,
        position: &Position,
        scratch: &mut FastScratch,
        limits: &Meter,
    ) -> Result<bool, EngineError> {
        match self {
            FastProgram::Choice(p) => Ok(p.holds(position, &mut scratch.sets)),
            FastProgram::Walk(w) if let Some(p) = w.choice_tests() => {
                Ok(p.holds(position, &mut scratch.sets))
            }
            FastProgram::Walk(w) => {
                scratch.sets.load(position, w.codes());
                w.holds(position, &scratch.sets.occupied, &mut scratch.walk, limits, None)
                    .map_err(|TooLong| limits.exceeded())
            }
        }
    }

    /// The choice of rewrites that tells whether it holds, if any: its own,
    /// or its walker's tests.
    pub(crate) fn tests(&self) -> Option<&Plan> {
        match self {
            FastProgram::Choice(p) => Some(p),
            FastProgram::Walk(w) => w.choice_tests(),
        }
    }

    /// Whether `tests` (a program's [`FastProgram::tests`], the game's
    /// pattern number `pattern`) hold on `position`, remembering where they
    /// did not: on a position made by one change in place from such a one,
    /// a change that left no square holding what a check of the pattern
    /// accepts, they do not hold either, untested.
    pub(crate) fn tests_hold(
        tests: &Plan,
        pattern: usize,
        position: &Position,
        scratch: &mut FastScratch,
    ) -> bool {
        if scratch.sets.unmet.len() <= pattern {
            scratch.sets.unmet.resize(pattern + 1, Unmet::default());
        }
        let unmet = &mut scratch.sets.unmet[pattern];
        if unmet.has(position.version) {
            return false;
        }
        if let Some((from, touched)) = position.came_from
            && unmet.has(from)
            && !tests.may_hold_anew(touched, &position.cells)
        {
            unmet.add(position.version);
            return false;
        }
        let holds = tests.holds(position, &mut scratch.sets);
        if !holds {
            scratch.sets.unmet[pattern].add(position.version);
        }
        holds
    }

    /// Whether some result on `position` changes `at`; errors as
    /// [`FastProgram::holds`].
    pub(crate) fn changes_square(
        &self,
        position: &Position,
        at: Coord,
        scratch: &mut FastScratch,
        limits: &Meter,
    ) -> Result<bool, EngineError> {
        match self {
            FastProgram::Choice(p) => Ok(p.changes_square(position, at, &mut scratch.sets)),
            FastProgram::Walk(w) if let Some(p) = w.choice_tests().filter(|p| !p.tails) => {
                Ok(p.changes_square(position, at, &mut scratch.sets))
            }
            FastProgram::Walk(w) => {
                if position.code_at(at.x, at.y) == crate::core::OFF {
                    return Ok(false);
                }
                scratch.sets.load(position, w.codes());
                let i = (at.y * position.width as i32 + at.x) as u32;
                let cells = cells_and_tallies(position, &mut scratch.boxed);
                w.changes_at(
                    cells,
                    &scratch.sets.occupied,
                    &[],
                    i,
                    scratch.aux.get_or_insert_with(Default::default),
                    limits,
                )
                .map(|(hit, _)| hit)
                .map_err(|TooLong| limits.exceeded())
            }
        }
    }
}
