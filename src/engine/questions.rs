//! The engine a game runs on: each side's moves and each pattern prepared
//! on its list of strategies ([`super::strategy`]), and the questions the
//! game layer asks (moves, counts, patterns, whether a square can change),
//! each routed to the list where it can answer, the legality tests on the
//! walked lists ([`super::legal`]), and the backtracker for the rest.

use std::ops::ControlFlow;

use smallvec::SmallVec;

use super::backtrack::Backtracker;
use super::choice::Plan;
use super::legal::Walkers;
use super::scratch::FastScratch;
use super::squares::{Decline, Unmet};
use super::strategy::{EngineChoice, Question, Strategies, strategies_of};
use super::walk::{ChangeQuery, Query, TooLong, cells_and_tallies};
use crate::core::Coord;
use crate::engine::cache::Cache;
use crate::engine::choice::perft::SetPerft;
use crate::engine::meter::{EngineError, Limits, Meter};
use crate::engine::position::Position;
use crate::engine::side::{Roles, Side};
use crate::engine::successor::{Successor, count_each};
use crate::program::Program;

/// Which strategies run each program of a game, and why the square-set
/// strategies do not run one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineReport {
    /// Per side: `None` when square-set strategies run its moves, else why not.
    pub sides: Vec<Option<String>>,
    /// Per pattern, the same.
    pub patterns: Vec<Option<String>>,
    /// Per side: the strategies its moves run on, in the order they are
    /// asked (`traced-plan`, `pieces`, `walk`, ...), none when the
    /// backtracker runs them.
    pub strategies: Vec<Vec<String>>,
    /// Per pattern: the strategies it runs on, as for the sides.
    pub pattern_strategies: Vec<Vec<String>>,
    /// Per side: the shapes those strategies run on square sets (`slide`,
    /// `fan`, ...), each once, in alphabetical order.
    pub shapes: Vec<Vec<&'static str>>,
    /// Per side: the strategies that declined its moves although others
    /// run them, each named with its reason (`part 2: chains`), each once.
    pub declines: Vec<Vec<(String, String)>>,
}

impl EngineReport {
    /// How many of the programs square-set strategies run, of how many.
    pub fn fast_share(&self) -> (usize, usize) {
        let all = self.sides.iter().chain(&self.patterns);
        (all.clone().filter(|d| d.is_none()).count(), all.count())
    }
}

/// The moves of every side of a game, prepared for its board, and the
/// searches the game layer runs with them. `attacked` means "a side other
/// than the owner of the piece of interest (or, for a piece no side owns,
/// than the side searching) has a move that changes its square".
/// Each program runs on its list of strategies where one answers (see
/// `engine/strategy/`); the backtracker runs the rest.
#[derive(Debug)]
pub struct Engine {
    backtracker: Backtracker,
    patterns: Vec<Program>,
    /// Per side: its moves' strategies, or why square sets run none.
    side_lists: Vec<Result<Strategies, Decline>>,
    /// Per pattern, the same.
    pattern_lists: Vec<Result<Strategies, Decline>>,
    /// Per side: whether it protects no piece (its safe moves are all its moves).
    unprotected: Vec<bool>,
    /// Who owns what and what each side protects.
    roles: Roles,
    /// Whether every side's moves are walked: then `attacked` and safe
    /// moves can be walked too.
    all_walk: bool,
    /// One more than the largest code the walked lists' square sets cover.
    walk_codes: usize,
    /// Whether the perft on square sets may run.
    set_perft: bool,
}

impl Engine {
    /// Prepares the sides' moves and the patterns for boards at most `width`
    /// by `height`, with the strategies `choice` allows.
    pub fn new(
        sides: Vec<Side>,
        patterns: Vec<Program>,
        width: u32,
        height: u32,
        choice: &EngineChoice,
    ) -> Engine {
        let list = |p: &Program| strategies_of(p, width, height, choice);
        let side_lists: Vec<_> = sides.iter().map(|s| list(&s.moves)).collect();
        let pattern_lists: Vec<_> = patterns.iter().map(list).collect();
        let unprotected = sides.iter().map(|s| s.protected.is_empty()).collect();
        let roles = Roles::of(&sides);
        fn walked(l: &Result<Strategies, Decline>) -> Option<&Strategies> {
            l.as_ref().ok().filter(|l| l.walker().is_some())
        }
        let walk_codes = (side_lists.iter().chain(&pattern_lists))
            .filter_map(walked)
            .map(Strategies::codes)
            .max()
            .unwrap_or(0);
        let all_walk = side_lists.iter().all(|l| walked(l).is_some());
        Engine {
            backtracker: Backtracker::new(sides, width, height),
            patterns,
            side_lists,
            pattern_lists,
            unprotected,
            roles,
            all_walk,
            walk_codes,
            set_perft: choice.allows("set-perft"),
        }
    }

    /// The strategies of `side`'s moves when they can answer a search on
    /// `position`, `safe` or not: they fit it, and legality (for a side
    /// that protects pieces) and `attacked` are asked only where every side
    /// is walked.
    fn moves_for(&self, side: usize, position: &Position, safe: bool) -> Option<(&Strategies, bool)> {
        let list = self.side_lists[side].as_ref().ok()?;
        let guard = safe && !self.unprotected[side];
        let answerable = list.fits(position) && (self.all_walk || !(guard || list.attacks()));
        answerable.then_some((list, guard))
    }

    /// Runs `f` on the strategies of every side (to run legality on).
    fn with_walkers<T>(&self, meter: &Meter, f: impl FnOnce(&Walkers<'_>) -> T) -> T {
        let sides: SmallVec<[Option<&Strategies>; 4]> =
            self.side_lists.iter().map(|l| l.as_ref().ok()).collect();
        f(&Walkers {
            sides: &sides,
            roles: &self.roles,
            codes: self.walk_codes,
            meter,
            replies: true,
        })
    }

    /// How many sides the engine was prepared with.
    pub fn sides(&self) -> usize {
        self.side_lists.len()
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
        if !self.set_perft {
            return None;
        }
        let moves = (0..self.sides())
            .map(|side| {
                let (list, guard) = self.moves_for(side, position, safe)?;
                (!guard).then(|| list.plan_for(Question::Each)).flatten()
            })
            .collect::<Option<Vec<_>>>()?;
        let test = |pattern: usize| -> Option<&Plan> {
            let list = self.pattern_lists.get(pattern)?.as_ref().ok()?;
            (!list.attacks())
                .then(|| list.plan_for(Question::Holds))
                .flatten()
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

    /// Which strategies run each program.
    pub fn report(&self) -> EngineReport {
        let why = |l: &Result<Strategies, Decline>| l.as_ref().err().map(|d| d.to_string());
        let declines = |l: &Strategies| {
            let mut out: Vec<(String, String)> = Vec::new();
            for (name, why) in l.declined() {
                let line = (name, why.to_string());
                if !out.contains(&line) {
                    out.push(line);
                }
            }
            out
        };
        fn each<T>(lists: &[Result<Strategies, Decline>], f: impl Fn(&Strategies) -> Vec<T>) -> Vec<Vec<T>> {
            (lists.iter())
                .map(|l| l.as_ref().map(&f).unwrap_or_default())
                .collect()
        }
        EngineReport {
            sides: self.side_lists.iter().map(why).collect(),
            patterns: self.pattern_lists.iter().map(why).collect(),
            strategies: each(&self.side_lists, Strategies::names),
            pattern_strategies: each(&self.pattern_lists, Strategies::names),
            shapes: each(&self.side_lists, Strategies::shapes),
            declines: each(&self.side_lists, declines),
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
        cache.metered(limits, |cache, limits| {
            if let Some((list, guard)) = self.moves_for(side, position, safe) {
                let answer = if guard || list.attacks() {
                    self.with_walkers(limits, |all| {
                        all.each(side, list, position, guard, &mut cache.fast, found)
                    })
                } else {
                    ask_alone(list, position, &mut cache.fast, limits, |list, query| {
                        list.each(query, found)
                    })
                };
                if let Some(done) = answer {
                    return done.map_err(|_| limits.exceeded());
                }
            }
            self.backtracker
                .each_move(side, position, safe, &mut cache.backtrack, limits, found)
        })
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
        cache.metered(limits, |cache, limits| {
            if let Some((list, guard)) = self.moves_for(side, position, safe) {
                let answer = if guard || list.attacks() {
                    self.with_walkers(limits, |all| {
                        all.count(side, list, position, guard, &mut cache.fast)
                    })
                } else {
                    ask_alone(list, position, &mut cache.fast, limits, |list, query| {
                        list.count(query, None)
                    })
                };
                if let Some(n) = answer {
                    return n.map_err(|_| limits.exceeded());
                }
            }
            count_each(|found| {
                self.backtracker
                    .each_move(side, position, safe, &mut cache.backtrack, limits, found)
            })
        })
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
        if let Ok(list) = &self.pattern_lists[pattern]
            && list.fits(position)
            && !list.attacks()
        {
            if let Some(tests) = list.plan_for(Question::Holds) {
                cache.clock.tick()?;
                return Ok(tests_hold(tests, pattern, position, &mut cache.fast));
            }
            let answer = cache.metered(limits, |cache, limits| {
                let held = ask_alone(list, position, &mut cache.fast, limits, Strategies::holds);
                Ok(held.map(|r| r.map_err(|TooLong| limits.exceeded())))
            })?;
            if let Some(held) = answer {
                return held;
            }
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
            let fit = |side: usize| self.side_lists[side].as_ref().ok().filter(|l| l.fits(position));
            if self.all_walk && (0..self.sides()).all(|q| fit(q).is_some()) {
                return self
                    .with_walkers(limits, |all| all.can_change(side, position, at, &mut cache.fast))
                    .map_err(|_| limits.exceeded());
            }
            let others: Option<Vec<&Strategies>> = (0..self.sides())
                .filter(|&q| q != side)
                .map(|q| fit(q).filter(|l| !l.attacks()))
                .collect();
            if let Some(lists) = others
                && let Some(hit) = changes_square(&lists, position, at, &mut cache.fast, limits)
            {
                return hit;
            }
            self.backtracker
                .can_change(side, position, at, &mut cache.backtrack, limits)
        })
    }
}

/// Whether one of `lists` (each fitting `position`) has a result that
/// changes `at`; `None` when one of them does not answer.
fn changes_square(
    lists: &[&Strategies],
    position: &Position,
    at: Coord,
    scratch: &mut FastScratch,
    meter: &Meter,
) -> Option<Result<bool, EngineError>> {
    if position.code_at(at.x, at.y) == crate::core::OFF {
        return Some(Ok(false));
    }
    let codes = lists.iter().map(|l| l.codes()).max().unwrap_or(1);
    scratch.sets.load(position, codes);
    let i = (at.y * position.width as i32 + at.x) as u32;
    let cells = cells_and_tallies(position, &mut scratch.boxed);
    let aux = scratch.aux.get_or_insert_with(Default::default);
    for list in lists {
        let mut query = ChangeQuery {
            base: cells,
            occupied: &scratch.sets.occupied,
            overlay: &[],
            at: i,
            scratch: aux,
            meter,
        };
        match list.changes_at(&mut query)? {
            Ok((true, _)) => return Some(Ok(true)),
            Ok((false, _)) => continue,
            Err(TooLong) => return Some(Err(meter.exceeded())),
        }
    }
    Some(Ok(false))
}

/// Asks `list` on `position` alone: a program that runs no `attacked` and
/// keeps no piece safe needs no other side's moves, only the square sets of
/// its own codes. `None` when no strategy of the list answers.
#[inline]
fn ask_alone<T>(
    list: &Strategies,
    position: &Position,
    fast: &mut FastScratch,
    meter: &Meter,
    ask: impl FnOnce(&Strategies, &mut Query<'_>) -> Option<Result<T, TooLong>>,
) -> Option<Result<T, TooLong>> {
    fast.sets.load(position, list.codes());
    let mut query = Query {
        position,
        occupied: &fast.sets.occupied,
        scratch: &mut fast.walk,
        meter,
        attacks: None,
    };
    ask(list, &mut query)
}

/// Whether `tests` (the square sets that say whether the game's pattern
/// number `pattern` holds) hold on `position`, remembering where they did
/// not: on a position made by one change in place from such a one, a
/// change that left no square holding what a check of the pattern accepts,
/// they do not hold either, untested.
fn tests_hold(tests: &Plan, pattern: usize, position: &Position, scratch: &mut FastScratch) -> bool {
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

/// The engine for these sides' moves and these patterns (the `when` tests
/// of a game's outcomes) on boards at most `width` by `height` (larger
/// boards are still searched right, by the backtracker), as `choice` says.
pub fn prepare(
    sides: Vec<Side>,
    patterns: Vec<Program>,
    width: u32,
    height: u32,
    choice: &EngineChoice,
) -> Engine {
    Engine::new(sides, patterns, width, height, choice)
}
