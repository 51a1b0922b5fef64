//! The backtracking engine: the reference every other strategy of
//! [`Engine`] is tested against, and the one that runs every program.
//!
//! [`search`] runs one program against a board edited in place (see its
//! module docs); the engine's reach analysis (`engine::reach`, shared with
//! the walker) works out, when the sides are prepared, where each
//! `%p:` can write on a board of the game's size, so that "can any move of
//! the other sides change this square?" binds only the pieces that could
//! (`Suspects`). [`Backtracker`] puts them together: the moves of a side,
//! the moves that leave its protected pieces safe, and the `attacked` test.

mod board;
mod frame;
mod prune;
mod results;
mod search;

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::ControlFlow;

pub(crate) use search::Scratch;
pub use search::Successors;
pub(crate) use search::{NoAttacks, search_with};

use crate::core::{Code, CodeSet, Coord, EMPTY};
use crate::program::Program;

use super::position::Position;
use super::reach::{Reach, monotone_loops, reaches};
use crate::engine::meter::{EngineError, Meter};
use crate::engine::side::{Roles, Side};
use crate::engine::successor::Successor;
use prune::{Suspects, suspects};
use search::{AttackOracle, BoardView, search_changes_loaded};

/// A program with what the backtracker worked out for it on boards of one size.
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    pub(crate) program: Program,
    /// The visited-set flags, less the loops that cannot repeat a state.
    pub(crate) visit: Vec<bool>,
    /// Per bind: where its body may write.
    reach: Vec<Reach>,
    /// Per instruction: where the program may write from a `Split` on.
    split_reach: Vec<Reach>,
    /// The board size the analysis holds for.
    width: u32,
    height: u32,
}

/// A program as one search runs it: the instructions and the tables that
/// prune its work (empty tables prune nothing).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Compiled<'a> {
    pub(crate) prog: &'a Program,
    pub(crate) visit: &'a [bool],
    pub(crate) reach: &'a [Reach],
    pub(crate) split_reach: &'a [Reach],
}

impl<'a> Compiled<'a> {
    /// `program` with no pruning: right on any board.
    pub(crate) fn plain(program: &'a Program) -> Self {
        Compiled {
            prog: program,
            visit: &program.visit,
            reach: &[],
            split_reach: &[],
        }
    }
}

impl Prepared {
    /// Prepares `program` for boards at most `width` by `height`.
    pub(crate) fn new(program: Program, width: u32, height: u32) -> Prepared {
        let (reach, split_reach) = reaches(&program, width, height);
        let mut visit = program.visit.clone();
        // Loops that move the piece of interest one fixed step per pass (a
        // slide) cannot repeat a state: they need no visited set.
        for pc in monotone_loops(&program, width, height) {
            visit[pc as usize] = false;
        }
        Prepared {
            program,
            visit,
            reach,
            split_reach,
            width,
            height,
        }
    }

    /// The program for a board whose bounding box is `width` by `height`:
    /// pruned if the analysis holds for it, plain if the board outgrew it.
    fn on(&self, width: u32, height: u32) -> Compiled<'_> {
        if width <= self.width && height <= self.height {
            Compiled {
                prog: &self.program,
                visit: &self.visit,
                reach: &self.reach,
                split_reach: &self.split_reach,
            }
        } else {
            Compiled::plain(&self.program)
        }
    }

    /// The program for `position` (see [`Prepared::on`]).
    fn for_position(&self, position: &Position) -> Compiled<'_> {
        self.on(position.width, position.height)
    }
}

/// The backtracking engine, prepared for the moves of every side of a game.
#[derive(Clone, Debug)]
pub struct Backtracker {
    sides: Vec<Prepared>,
    /// Per side: the codes some other side's `%p:` binds (a move that
    /// writes one may have made a new attacker).
    bound_by_others: Vec<CodeSet>,
    /// Who owns what, and what each side protects.
    roles: Roles,
}

impl Backtracker {
    /// Prepares each side's moves for boards at most `width` by `height`.
    pub fn new(sides: Vec<Side>, width: u32, height: u32) -> Backtracker {
        let roles = Roles::of(&sides);
        let sides: Vec<Prepared> = sides
            .into_iter()
            .map(|s| Prepared::new(s.moves, width, height))
            .collect();
        let bound_by_others = (0..sides.len())
            .map(|s| {
                CodeSet::of(
                    sides
                        .iter()
                        .enumerate()
                        .filter(|&(q, _)| q != s)
                        .flat_map(|(_, p)| p.program.binds.iter().flat_map(|b| b.iter().copied())),
                )
            })
            .collect();
        Backtracker {
            sides,
            bound_by_others,
            roles,
        }
    }

    /// Whether a side other than `side` has a move that changes `at`, on the
    /// position `load` puts in the cache for each of their programs.
    fn others_change(
        &self,
        load: impl Fn(&mut Scratch, &Program),
        fits: impl Fn(&Prepared) -> Compiled<'_>,
        at: Coord,
        side: usize,
        cache: &mut Scratch,
        limits: &Meter,
    ) -> Result<bool, EngineError> {
        for (q, prepared) in self.sides.iter().enumerate() {
            if q == side {
                continue;
            }
            let program = fits(prepared);
            load(cache, program.prog);
            let who = suspects(program, cache, at);
            if search_changes_loaded(program, cache, limits, &NoAttacks, at, &who.binds)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Calls `found` with each move of `side` after which no square that
    /// holds one of its protected pieces can be changed by another side.
    ///
    /// Each move is made on a second board, the protected squares tested
    /// there, and taken back: no position is built for the test. Which
    /// pieces of the other sides could reach a protected square that does
    /// not move is worked out once per position, not per move.
    ///
    /// `replies` says whether `no_reply` may be asked inside these moves:
    /// not when they are themselves the replies a `no_reply` lists.
    fn safe_moves(
        &self,
        side: usize,
        position: &Position,
        cache: &mut Scratch,
        limits: &Meter,
        replies: bool,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), EngineError> {
        let oracle = self.oracle(side, replies, cache);
        let protected = &self.roles.protected[side];
        let mut aux = cache.take_aux();
        let result = (|| {
            let mover = self.sides[side].for_position(position);
            let w = position.width.max(1) as usize;
            let guarded: Vec<Coord> = position
                .cells
                .iter()
                .enumerate()
                .filter(|&(_, &c)| protected.contains(c))
                .map(|(i, _)| Coord::new(position.x0 + (i % w) as i32, position.y0 + (i / w) as i32))
                .collect();
            aux.load(position, mover.prog);
            let others = || {
                self.sides
                    .iter()
                    .enumerate()
                    .filter(move |&(q, _)| q != side)
                    .map(|(_, p)| p.for_position(position))
            };
            let fixed: Vec<Vec<Suspects>> = guarded
                .iter()
                .map(|&r| others().map(|p| suspects(p, &aux, r)).collect())
                .collect();
            let outcomes = search_with(mover, position, cache, limits, &oracle)?;
            let bound = &self.bound_by_others[side];
            let size = aux.size();
            let mut tests: Vec<(Coord, Option<usize>)> = Vec::new();
            let mut written: Vec<Coord> = Vec::new();
            for o in outcomes.iter() {
                tests.clear();
                for (i, &r) in guarded.iter().enumerate() {
                    if !o.changes.iter().any(|c| c.at == r) {
                        tests.push((r, Some(i)));
                    }
                }
                for c in o.changes {
                    if protected.contains(c.content.code()) {
                        tests.push((c.at, None));
                    }
                }
                if tests.is_empty() {
                    if found(&o).is_break() {
                        return Ok(());
                    }
                    continue;
                }
                // Pieces this move writes that another side binds could be new attackers.
                written.clear();
                written.extend(
                    o.changes
                        .iter()
                        .filter(|c| is_piece(c.content.code()) && bound.contains(c.content.code()))
                        .map(|c| c.at),
                );
                let mark = aux.apply(o.changes, limits)?;
                // A move that creates squares outside the board leaves the
                // reach analysis behind: test it without pruning.
                let grows = aux.size() != size;
                let mut safe = true;
                'test: for &(r, known) in &tests {
                    for (k, program) in others().enumerate() {
                        // A move that grew the board is tested without the size's pruning.
                        let program = if grows {
                            Compiled::plain(program.prog)
                        } else {
                            program
                        };
                        let mut who = match known {
                            Some(i) if !grows && written.is_empty() => Cow::Borrowed(&fixed[i][k]),
                            Some(i) if !grows => Cow::Owned(fixed[i][k].clone()),
                            _ => Cow::Owned(suspects(program, &aux, r)),
                        };
                        for &w in &written {
                            who.to_mut().add_square(program, &aux, w, r);
                        }
                        if search_changes_loaded(program, &mut aux, limits, &NoAttacks, r, &who.binds)? {
                            safe = false;
                            break 'test;
                        }
                    }
                }
                aux.undo(mark);
                if safe && found(&o).is_break() {
                    return Ok(());
                }
            }
            Ok(())
        })();
        cache.put_aux(aux);
        cache.put_spare(oracle.scratch.into_inner());
        result
    }

    /// The `attacked` test of `side`'s search, with a cache taken from
    /// `cache` (give it back with [`Scratch::put_spare`]).
    fn oracle(&self, side: usize, replies: bool, cache: &mut Scratch) -> OpponentPrograms<'_> {
        OpponentPrograms {
            engine: self,
            side,
            replies,
            scratch: RefCell::new(cache.take_spare()),
        }
    }
}

/// The searches [`crate::engine::Engine`] asks for, run by the backtracker.
impl Backtracker {
    /// The moves of `side`, as compiled.
    pub(crate) fn program(&self, side: usize) -> &Program {
        &self.sides[side].program
    }

    /// See [`crate::engine::Engine::each_move`].
    pub(crate) fn each_move(
        &self,
        side: usize,
        position: &Position,
        safe: bool,
        cache: &mut Scratch,
        limits: &Meter,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), EngineError> {
        if safe {
            return self.safe_moves(side, position, cache, limits, true, found);
        }
        self.each_outcome(
            self.sides[side].for_position(position),
            side,
            position,
            cache,
            limits,
            found,
        )
    }

    /// Calls `found` with each result of `program` run for `side` (with its
    /// `attacked` test) until it says to stop.
    fn each_outcome(
        &self,
        program: Compiled<'_>,
        side: usize,
        position: &Position,
        cache: &mut Scratch,
        limits: &Meter,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), EngineError> {
        let oracle = self.oracle(side, true, cache);
        let result = match search_with(program, position, cache, limits, &oracle) {
            Ok(outcomes) => {
                for o in outcomes.iter() {
                    if found(&o).is_break() {
                        break;
                    }
                }
                Ok(())
            }
            Err(e) => Err(e),
        };
        cache.put_spare(oracle.scratch.into_inner());
        result
    }

    /// See [`crate::engine::Engine::has_result`].
    pub(crate) fn has_result(
        &self,
        program: &Program,
        side: usize,
        position: &Position,
        cache: &mut Scratch,
        limits: &Meter,
    ) -> Result<bool, EngineError> {
        let oracle = self.oracle(side, true, cache);
        let result =
            search_with(Compiled::plain(program), position, cache, limits, &oracle).map(|o| !o.is_empty());
        cache.put_spare(oracle.scratch.into_inner());
        result
    }

    /// See [`crate::engine::Engine::each_result`].
    pub(crate) fn each_result(
        &self,
        program: &Program,
        side: usize,
        position: &Position,
        cache: &mut Scratch,
        limits: &Meter,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), EngineError> {
        self.each_outcome(Compiled::plain(program), side, position, cache, limits, found)
    }

    /// See [`crate::engine::Engine::can_change`].
    pub(crate) fn can_change(
        &self,
        side: usize,
        position: &Position,
        at: Coord,
        cache: &mut Scratch,
        limits: &Meter,
    ) -> Result<bool, EngineError> {
        self.others_change(
            |cache, program| cache.load(position, program),
            |p| p.for_position(position),
            at,
            side,
            cache,
            limits,
        )
    }
}

/// The `attacked` test of a side's search: a side other than the owner of
/// the piece of interest (else than the side searching) has a move that
/// changes its square. Attack tests do not nest: the other sides' moves
/// run with `attacked` false (and `no_reply` false) inside them.
struct OpponentPrograms<'e> {
    engine: &'e Backtracker,
    side: usize,
    /// Whether `no_reply` is asked (false inside the replies another
    /// `no_reply` lists: replies do not nest, as attacks do not).
    replies: bool,
    /// The cache its tests search with (taken from the search's own).
    scratch: RefCell<Box<Scratch>>,
}

impl AttackOracle for OpponentPrograms<'_> {
    /// Whether the next side has no legal move. Inside the replies it lists,
    /// `no_reply` is false (a reply is taken to exist), so the question
    /// never recurses.
    fn no_reply(&self, view: BoardView<'_>, limits: &Meter) -> Result<bool, EngineError> {
        let sides = self.engine.sides.len();
        if sides == 0 || !self.replies {
            return Ok(false);
        }
        let next = (self.side + 1) % sides;
        let position = view.0.position();
        let mut any = false;
        self.engine
            .safe_moves(next, &position, &mut Scratch::new(), limits, false, &mut |_| {
                any = true;
                ControlFlow::Break(())
            })?;
        Ok(!any)
    }

    fn attacked(
        &self,
        view: BoardView<'_>,
        at: Coord,
        code: Code,
        limits: &Meter,
    ) -> Result<bool, EngineError> {
        let (w, h) = view.0.size();
        let side = self.engine.roles.defender(code, self.side);
        let test = |cache: &mut Scratch| {
            self.engine.others_change(
                |cache, program| cache.load_view(view, program),
                |p| p.on(w, h),
                at,
                side,
                cache,
                limits,
            )
        };
        // Attack tests never nest (inside one, `attacked` is false), so the
        // cache is free; a fresh one serves if it ever is not.
        match self.scratch.try_borrow_mut() {
            Ok(mut c) => test(&mut c),
            Err(_) => test(&mut Scratch::new()),
        }
    }
}

/// A code that stands for a piece (not an empty square or no square).
fn is_piece(code: Code) -> bool {
    code > EMPTY
}
