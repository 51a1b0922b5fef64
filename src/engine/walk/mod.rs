//! The walker: programs with pieces of interest (`%p:`), run on the
//! position plus the changes made so far, with an explicit stack of
//! choice points (module `run`).
//!
//! The changes are kept on a board of the walk's own (a read is one lookup)
//! and in a log that takes them back; a result's changes are the squares
//! the log touched that now differ from the position, and its hash is
//! worked out from them only where a result or a visited set needs it.
//! Rewrites are anchored at the piece of interest (one place to try) or at
//! the squares holding what their anchor accepts; loops that cannot repeat
//! a state, and joins few paths reach, need no visited set; a rewrite that
//! moves the piece one step onto one square runs as a step (one read, two
//! writes), and a loop of such steps over one content (a slide) as a scan
//! along its ray. Walks can trace the squares the piece lands on. Results are deduplicated exactly as the backtracker
//! does: the same changes, start, end and change of piece are one move.
//!
//! A walk can also look for a change of one square (`changes_at`): only the
//! pieces whose reach covers it are bound, only paths that can still write
//! it are followed, and the squares it read are noted; the legality module
//! builds `attacked` and safe moves on it. It declines boxes and
//! writes that could create or remove a square.

mod program;
mod query;
mod run;
mod shapes;

use std::ops::ControlFlow;

use rustc_hash::FxHashSet;

use crate::core::{Change, Code, CodeSet, Content, Coord, OFF};
use crate::engine::choice::Plan;
use crate::engine::hash;
use crate::engine::position::Position;
use crate::engine::reach::{Reach, few_path_joins, monotone_loops, reaches};
use crate::engine::squares::Decline;
use crate::engine::squares::{KeySet, PlanOutput};
use crate::engine::squares::{MAX_SQUARES, Squares, TALLY_BASE, on_board};
use crate::engine::successor::{MoveIdentity, Successor};
use crate::program::{Inst, Pc, Program, RewriteId, Write};
pub(crate) use program::ChainedMoves;
pub(crate) use program::leads_to_match;
use program::{Chain, FirstSub, chain, chained_moves, choice_end, first_match, last_writes, live_binds};
pub(crate) use query::{ChangeQuery, Query};
use run::{Run, Sink};
use shapes::{Fan, FanRays, Placement, ShapeTests, Slide, SlideTail, Stamp, Step, UniformFan, keyless_fans};

/// A search that would pass the question's bound on states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooLong;

/// A program with pieces of interest, prepared for the walker on boards of one size.
#[derive(Clone, Debug)]
pub struct Walker {
    prog: Program,
    /// Per rewrite, per alternative: where its matches are looked for.
    anchors: Vec<Vec<Anchor>>,
    /// Per bind: the codes it binds.
    binds: Vec<CodeSet>,
    /// Per rewrite: whether nothing the program's path does after it writes
    /// (see [`last_writes`]).
    last_write: Vec<bool>,
    width: i32,
    height: i32,
    /// One more than the largest code a bind or an anchor names.
    codes: usize,
    /// One more than the largest tally slot a rewrite reads or writes (0:
    /// it uses no box); the walk keeps them at [`TALLY_BASE`] on.
    tally_slots: u32,
    /// Per square: its part of the square keys ([`hash::place`]).
    places: Vec<u64>,
    /// Whether a count found two paths to one result: counts then keep
    /// every result's changes to tell them apart (see [`Walker::count`]).
    exact_counts: ExactCounts,
    /// Where states are charged, visited and results.
    visits: Visits,
    /// Where the bound pieces reach.
    reach: PieceReach,
    /// The shapes the walk runs as one operation each.
    shapes: Shapes,
    /// The square sets it asks.
    plans: SetPlans,
}

/// Per instruction: where the walk charges a state to the question, keeps
/// a visited set, and reaches a result.
#[derive(Clone, Debug)]
struct Visits {
    /// Per instruction: whether arriving there consults the visited set.
    visit: Vec<bool>,
    /// Per instruction: whether arriving there is a state charged to the
    /// question's work (where the backtracker charges one: loop heads and
    /// joins, less the loops that cannot repeat a state), whether or not
    /// the walker needs a visited set there.
    charge: Vec<bool>,
    /// Per instruction: whether only jumps and unbinds lead from it to the
    /// match (a state there is one result, which the results' own
    /// deduplication tells apart: no visited set needed at nesting 0).
    terminal: Vec<bool>,
}

/// Where the program's bound pieces can change squares from (the reach
/// analysis), for "can this square change?".
#[derive(Clone, Debug)]
struct PieceReach {
    /// Per bind, per square: the squares from which its piece could change
    /// that square (the reach analysis), for "can this square change?".
    suspects: Vec<Vec<Squares>>,
    /// Per square: the union of [`Walker::suspects`] over the binds.
    suspect_any: Vec<Squares>,
    /// Every code a bind names.
    bound: CodeSet,
    /// The same, listed.
    bound_codes: Box<[Code]>,
    /// Per instruction: where the program may write from a `Split` on,
    /// relative to the piece of interest.
    split_reach: Vec<Reach>,
}

/// The shapes found in the program that the walk runs as one operation
/// each (per instruction or per rewrite).
#[derive(Clone, Debug)]
struct Shapes {
    /// Per instruction: the slide a loop head runs, if it is one.
    slides: Vec<Option<Slide>>,
    /// Per instruction: the chain a loop head runs, if it is one (its
    /// rewrites made at the piece of interest as long as one matches).
    chains: Vec<Option<Chain>>,
    /// Per rewrite: the step it is, if it is one.
    steps: Vec<Option<Step>>,
    /// Per rewrite: the stamp it is, if it is one.
    stamps: Vec<Option<Stamp>>,
    /// Per slide loop head: the tail its exit leads to, if it is one.
    slide_tails: Vec<Option<SlideTail>>,
    /// Per split: the fan of stamps and slides it starts, if it is one.
    fans: Vec<Option<Fan>>,
    /// Per instruction: the placement it is, when it puts a piece on one
    /// square that the next instructions bind and test by a guard with a
    /// [`Walker::poi_plans`] entry (Othello's `(. -> ◆) (%◆: ?{...} ...)`).
    placements: Vec<Option<Placement>>,
    /// Per ordered choice: per alternative, the match it ends at, when every
    /// alternative is a choice of rewrites (or `nil`): then it runs in line,
    /// going on from each result as it is found (see [`Run::ordered_in_line`]).
    in_line: Vec<Option<Box<[Pc]>>>,
    /// Per ordered choice: its alternatives as the rewrites each is a
    /// choice of (`nil` none), when each is `nil` or a choice of rewrites
    /// made at the piece of interest (one alternative and one choice each)
    /// no two of which can match at once: the choice then has at most one
    /// result, made at once (Othello's `flip(m) = flank(m) / nil`).
    first_match: Vec<Option<Box<[FirstSub]>>>,
    /// The tests of the board's shape around the piece of interest the
    /// program makes, and where it makes them ([`ShapeTests`]).
    shape_tests: ShapeTests,
}

/// The square sets the walk asks instead of walking: where a piece can
/// stand for a sub-program to match, whether a sub-program holds, where a
/// first rewrite can start.
#[derive(Clone, Debug)]
struct SetPlans {
    /// Per sub-program that is a choice of rewrites made at the piece of
    /// interest: where on the position the piece may stand for one to
    /// match, as square sets (see [`crate::engine::choice::compile::poi_plan`]); a guard
    /// on such a sub-program, made where the walk has changed no square
    /// but the piece's own, holds or fails at once as that set says.
    poi_plans: Vec<Option<Plan>>,
    /// Per sub-program that binds its own piece of interest and moves it by
    /// one rewrite (or leaves it), or is a choice of rewrites that names
    /// none: whether it has a result on the position, as square sets (a
    /// guard on it made before the walk changed anything asks them).
    test_plans: Vec<Option<Plan>>,
    /// The rewrites the bound pieces make first ([`crate::engine::choice::compile::entry_plan`]):
    /// where none can be made, a search has no result.
    entry: Option<Plan>,
    /// Per bind: whether it is one whose piece must make a rewrite of
    /// [`Walker::entry`] first (so that, before any change, it binds only
    /// the squares where one can start: [`Plan::poi_places`]).
    ///
    /// [`Plan::poi_places`]: Plan::poi_places
    entry_binds: Vec<bool>,
}

/// Whether a walker's counts must keep each result's changes; shared by
/// the threads that count with it, copied with the walker.
#[derive(Debug, Default)]
struct ExactCounts(std::sync::atomic::AtomicBool);

impl ExactCounts {
    fn get(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn set(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for ExactCounts {
    fn clone(&self) -> ExactCounts {
        ExactCounts(self.get().into())
    }
}

/// The `attacked` test of a walk: whether a side other than the owner of
/// `code` (or than the side walking) can change square `at` of the position
/// `base` with the changes `overlay` made. The walkers of the other sides
/// answer it (`legal::OpponentWalkers`); the backtracker asks the same
/// question of its board through its `AttackOracle`.
pub(crate) trait AttackTest {
    /// See [`AttackTest`]; `occupied` are `base`'s square sets.
    fn attacked(
        &self,
        base: &[Code],
        occupied: &[Squares],
        overlay: &[(u32, Code)],
        at: u32,
        code: Code,
    ) -> Result<bool, TooLong>;

    /// Whether the side after the one searching has no legal move on
    /// `base` with the changes `overlay` made (`no_reply`). Inside the
    /// replies it lists, as inside an attack test, the answer is "it has
    /// one", so the question never recurses.
    fn no_reply(&self, base: &[Code], overlay: &[(u32, Code)]) -> Result<bool, TooLong>;
}

/// The square a targeted walk looks for a change of, and what it holds
/// when the walk starts.
#[derive(Clone, Copy, Debug)]
struct Target {
    at: u32,
    x: i32,
    y: i32,
    before: Code,
}

/// Where a left side's matches are looked for.
#[derive(Clone, Debug)]
enum Anchor {
    /// Check `0` is the piece of interest's square: one place to try.
    Poi(usize),
    /// Check `check` accepts these codes: the squares holding them.
    Squares { check: usize, codes: CodeSet },
}

/// The piece of interest: its square (as an index and as coordinates) and code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WalkedPiece {
    at: u32,
    x: i32,
    y: i32,
    code: Code,
    /// The square it was bound on (`%from:` makes that square the piece
    /// of interest); a board square, below 128 (kept small so that a piece
    /// of interest stays 16 bytes).
    from: u16,
}

/// Where a shape test holds (second) on a board with these squares off
/// it (first).
type ShapeSquares = (Squares, Squares);

/// Scratch for the walker: the change list, the pieces of interest, the
/// visited sets per nesting level and the results kept for deduplication.
#[derive(Clone, Debug, Default)]
pub(crate) struct WalkScratch {
    /// The cells and tallies a walk starts from, when a box holds something
    /// ([`cells_and_tallies`]).
    boxed: Vec<Code>,
    /// The changes made so far, in order: square and what was written.
    overlay: Vec<(u32, Code)>,
    /// Per change: what the square held before it and the hash of the
    /// changes before it (to take it back).
    olds: Vec<(Code, u64)>,
    /// The position with the changes made.
    cur: Vec<Code>,
    pois: Vec<WalkedPiece>,
    visited: Vec<FxHashSet<(u64, u64)>>,
    changes: Vec<Change>,
    /// A result's changes as (square, content), in square order.
    diff: Vec<(u32, Code)>,
    seen: KeySet,
    kept: Vec<Kept>,
    kept_changes: Vec<(u32, Code)>,
    /// Spare stashes for ordered choices.
    stashes: Vec<Stash>,
    /// The ordered choices running in line, innermost last.
    resumes: Vec<Resume>,
    /// Per sub-program with a [`Walker::poi_plans`] entry: its squares on
    /// the position walked, once worked out.
    poi_places: Vec<Option<Squares>>,
    /// Whether walks trace the squares the outermost piece of interest moves to.
    tracing: bool,
    /// Whether searches give moves as cell writes where they can
    /// ([`Successor::cells`]).
    pub(crate) cells: bool,
    /// Those squares so far.
    path: Vec<u32>,
    /// A result's path as coordinates.
    path_coords: Vec<Coord>,
    /// The walk's choice points, innermost last ([`run::Frame`]).
    frames: Vec<run::Frame>,
    /// Where the rewrites on the frames stand, innermost last.
    cursors: Vec<run::RewriteCursor>,
    /// The matches those rewrites try, one run after another.
    places: Vec<(i32, i32)>,
    /// The stashes of the ordered choices on the frames, innermost last.
    open_stashes: Vec<Stash>,
    /// Per walker (its shape tests' `key`), per shape test: the squares off the
    /// board it was worked out for and where it holds ([`ShapeTest::squares`]).
    shape_squares: Vec<(u32, Vec<Option<ShapeSquares>>)>,
    /// The buffers of a strategy that makes moves on a board of its own.
    pub(crate) own_board: OwnBoardScratch,
    /// The results of the choices of rewrites run on square sets.
    pub(crate) plans: PlanOutput,
}

impl WalkScratch {
    /// Makes walks trace (or not) the squares the outermost piece of
    /// interest moves to ([`Successor::path`]).
    pub(crate) fn trace_paths(&mut self, on: bool) {
        self.tracing = on;
        self.plans.tracing = on;
    }

    /// Whether walks trace the squares the outermost piece of interest moves to.
    pub(crate) fn tracing(&self) -> bool {
        self.tracing
    }

    /// Makes searches give moves as cell writes where they can, or not.
    pub(crate) fn give_cells(&mut self, on: bool) {
        self.cells = on;
        self.plans.cells = on;
    }
}

/// The buffers of a strategy that makes moves on a board of its own
/// (the chains), kept between searches in the walker's scratch.
#[derive(Clone, Debug, Default)]
pub(crate) struct OwnBoardScratch {
    /// The board with the changes made.
    pub(crate) cells: Vec<Code>,
    /// The changes made, in order: square, what it held before, and the
    /// hash of the changes before it.
    pub(crate) log: Vec<(u32, Code, u64)>,
    /// The keys of the results found.
    pub(crate) keys: KeySet,
    /// The results kept to tell later ones apart: key, identity, and their
    /// changes in `kept_changes`.
    pub(crate) kept: Vec<(u64, MoveIdentity<u32>, u32, u32)>,
    /// Their changes as (square, content), in square order.
    pub(crate) kept_changes: Vec<(u32, Code)>,
    /// One result's changes, in square order.
    pub(crate) diff: Vec<(u32, Code)>,
    /// One result's changes, as given to the caller.
    pub(crate) changes: Vec<Change>,
    /// The squares the piece of interest moved to, in order.
    pub(crate) path: Vec<u32>,
    /// The same, as coordinates.
    pub(crate) path_coords: Vec<Coord>,
}

/// The results of an ordered choice's sub-program: the writes each made
/// (one after another) and the state each ended in.
#[derive(Clone, Debug, Default)]
struct Stash {
    writes: Vec<(u32, Code)>,
    /// The squares each result's traced path went on to, one after another.
    paths: Vec<u32>,
    ends: Vec<StashEnd>,
}

/// An ordered choice running in line: where its alternative ends (at
/// nesting `level`), where the search goes on from there, and how many
/// results went on.
#[derive(Clone, Copy, Debug)]
struct Resume {
    end: Pc,
    level: usize,
    next: Pc,
    taken: u64,
}

/// Where one stashed result ends, and its state.
#[derive(Clone, Copy, Debug)]
struct StashEnd {
    writes: u32,
    paths: u32,
    trace: Trace,
    poi: Option<WalkedPiece>,
}

/// A result kept to tell later ones apart.
#[derive(Clone, Copy, Debug)]
struct Kept {
    key: u64,
    start: u32,
    end: u32,
    trace: Trace,
}

/// Where the outermost piece of interest started and ended, and what it
/// became; and how long its traced path is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Trace {
    /// Where the piece started and ended (as square indices), and what it became.
    id: MoveIdentity<u32>,
    path: u32,
}

impl Trace {
    /// Whether two results are the same move (their paths aside: the first
    /// path found stands, as in the backtracker).
    fn same_move(&self, other: &Trace) -> bool {
        self.id == other.id
    }

    fn key(&self) -> u64 {
        identity_key(&self.id)
    }
}

/// A result's changes, given as (square, content) in square order (the
/// tallies, from [`TALLY_BASE`] on, last), as [`Successor::changes`] lists
/// them in `changes`: the squares in reading order, top row first, then
/// the tallies by slot, on a board `width` squares wide.
pub(crate) fn changes_in_reading_order(diff: &[(u32, Code)], width: i32, changes: &mut Vec<Change>) {
    let coord = |at: u32| Coord::new(at as i32 % width, at as i32 / width);
    changes.clear();
    let squares = diff.partition_point(|&(at, _)| at < TALLY_BASE);
    let (on_board, boxed) = diff.split_at(squares);
    for row in on_board
        .chunk_by(|a, b| a.0 / width as u32 == b.0 / width as u32)
        .rev()
    {
        changes.extend(row.iter().map(|&(at, c)| Change {
            at: coord(at),
            content: Content::from_code(c),
        }));
    }
    changes.extend(boxed.iter().map(|&(at, n)| Change {
        at: Coord::tally((at - TALLY_BASE) as usize),
        content: Content::Count(n),
    }));
}

/// A key of a result's identity (where its piece started and ended, what it
/// became), mixed into the hash of its changes to tell results apart.
pub(crate) fn identity_key(id: &MoveIdentity<u32>) -> u64 {
    let at = |c: Option<u32>, salt: u64| c.map_or(0, |c| hash::mix(c as u64 ^ salt));
    at(id.from, 0x1F83_D9AB_FB41_BD6B)
        ^ at(id.to, 0x5BE0_CD19_137E_2179).rotate_left(17)
        ^ id.became.map_or(0, |b| hash::mix((b as u64 + 1) << 48))
}

/// The cells a walk starts from: `position`'s, and when a box holds
/// something, its tallies at [`TALLY_BASE`] on (made in `buf`).
pub(crate) fn cells_and_tallies<'a>(position: &'a Position, buf: &'a mut Vec<Code>) -> &'a [Code] {
    if position.tallies.is_empty() {
        return &position.cells;
    }
    buf.clear();
    buf.extend_from_slice(&position.cells);
    buf.resize(TALLY_BASE as usize, OFF);
    buf.extend_from_slice(&position.tallies);
    buf
}

impl Walker {
    /// Prepares `program` for boards of exactly `width` by `height`, or says why not.
    pub(crate) fn new(program: &Program, width: u32, height: u32) -> Result<Walker, Decline> {
        if width == 0 || height == 0 || width * height > MAX_SQUARES {
            return Err(Decline::BoardTooLarge);
        }
        let (anchors, tally_slots) = anchors_of(program)?;
        let (visits, shapes) = visits_and_shapes(program, &anchors, width, height);
        let plans = SetPlans::of(program, width, height);
        let reach = PieceReach::of(program, width, height);
        let binds: Vec<CodeSet> = (program.binds.iter())
            .map(|b| CodeSet::of(b.iter().copied()))
            .collect();
        let anchored = program.rewrites.iter().flat_map(|rw| {
            rw.alternatives
                .iter()
                .flat_map(|a| a.anchors.iter().flat_map(|a| a.codes.iter().copied()))
        });
        let planned = (plans
            .poi_plans
            .iter()
            .chain(&plans.test_plans)
            .flatten()
            .chain(&plans.entry))
        .map(|p| p.codes().saturating_sub(1) as Code);
        let codes = (program.binds.iter().flat_map(|b| b.iter().copied()))
            .chain(anchored)
            .chain(planned)
            .max()
            .map_or(1, |c| c as usize + 1);
        let (w, h) = (width as i32, height as i32);
        Ok(Walker {
            prog: program.clone(),
            anchors,
            binds,
            last_write: last_writes(program),
            width: w,
            height: h,
            codes,
            tally_slots,
            places: (0..w * h).map(|at| hash::place(at % w, at / w)).collect(),
            visits,
            reach,
            shapes,
            plans,
            exact_counts: ExactCounts::default(),
        })
    }

    /// Calls `found` with each result of `query` (whose position must fit),
    /// each once, until it says to stop. `Err(TooLong)` when the search
    /// would pass the query's meter.
    pub(crate) fn each(
        &self,
        query: &mut Query<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), TooLong> {
        let sink = &mut Sink::Collect(found);
        self.walk(query, sink).map(|_| ())
    }

    /// How many results [`Walker::each`] would give that `keep` (if any)
    /// keeps, given each one's changes as (square, content) in square
    /// order, without building them. Results are told apart by their keys
    /// alone; where two paths give one key (the same result, or two whose
    /// keys collide), the count is made again keeping the changes, and so
    /// are the walker's counts from then on.
    pub(crate) fn count(
        &self,
        query: &mut Query<'_>,
        mut keep: Option<&mut Keep<'_>>,
    ) -> Result<u64, TooLong> {
        let mut boxed = std::mem::take(&mut query.scratch.boxed);
        let (cells, hash) = (cells_and_tallies(query.position, &mut boxed), query.position.hash);
        let mut count = |exact: bool, keep: Option<&mut Keep<'_>>| {
            let mut n = 0;
            let mut run = Run::new(self, cells, hash, query.occupied, query.scratch, query.meter, &[]);
            run.attacks = query.attacks;
            run.exact = exact;
            run.finish(&mut Sink::Count(&mut n, keep))?;
            Ok((n, run.duplicate))
        };
        let mut n = None;
        if !self.exact_counts.get() {
            match count(false, keep.as_deref_mut()) {
                Ok((k, false)) => n = Some(Ok(k)),
                Ok((_, true)) => self.exact_counts.set(),
                Err(e) => n = Some(Err(e)),
            }
        }
        let n = n.unwrap_or_else(|| count(true, keep).map(|(k, _)| k));
        query.scratch.boxed = boxed;
        n
    }

    /// Whether the program has a result on the query's position (which must fit).
    pub(crate) fn holds(&self, query: &mut Query<'_>) -> Result<bool, TooLong> {
        self.walk(query, &mut Sink::Exists)
    }

    /// Walks the program on the query's position into `sink`; whether the
    /// sink stopped it.
    fn walk(&self, query: &mut Query<'_>, sink: &mut Sink<'_, '_>) -> Result<bool, TooLong> {
        let mut boxed = std::mem::take(&mut query.scratch.boxed);
        let (cells, hash) = (cells_and_tallies(query.position, &mut boxed), query.position.hash);
        let mut run = Run::new(self, cells, hash, query.occupied, query.scratch, query.meter, &[]);
        run.attacks = query.attacks;
        let found = run.finish(sink);
        query.scratch.boxed = boxed;
        found
    }

    /// Whether some result on the query's base with its changes made
    /// changes its square (inside the walk, `attacked` is false). Only the
    /// pieces whose reach covers the square are bound, and paths that
    /// cannot write it are left. Also gives the squares the walk read: on a
    /// position that differs from this one only elsewhere (and holds no
    /// other bound piece where one could reach the square), the answer is
    /// the same.
    pub(crate) fn changes_at(&self, query: &mut ChangeQuery<'_>) -> Result<(bool, Squares), TooLong> {
        let at = query.at;
        if self.nothing_near(query) {
            return Ok((false, 0));
        }
        let mut run = Run::new(
            self,
            query.base,
            0,
            query.occupied,
            query.scratch,
            query.meter,
            query.overlay,
        );
        let (x, y) = run.xy(at);
        let before = run.read(x, y);
        run.find = Some(Target { at, x, y, before });
        run.reads.set(0);
        let found = run.finish(&mut Sink::Changes)?;
        Ok((found, run.reads.get()))
    }

    /// Whether no result of the query can change its square for want of a
    /// piece: only a bound piece changes squares and none is where one
    /// could reach the square (one put there is the caller's to watch: see
    /// [`Walker::may_bind_anew`]).
    #[inline]
    pub(crate) fn nothing_near(&self, query: &ChangeQuery<'_>) -> bool {
        if self.prog.unbound_writes {
            return false;
        }
        let held = on_board(
            &self.reach.bound_codes,
            |c| self.reach.bound.contains(c),
            query.occupied,
            query.overlay,
        );
        held & self.reach.suspect_any[query.at as usize] == 0
    }

    /// Whether a change from `old` to `new` at square `s` may change what
    /// [`Walker::changes_at`] said for `at` without the walk reading `s`:
    /// it puts or takes a bound piece where one could reach `at`.
    #[inline]
    pub(crate) fn may_bind_anew(&self, s: u32, old: Code, new: Code, at: u32) -> bool {
        self.reach.suspect_any[at as usize] >> s & 1 == 1
            && (self.reach.bound.contains(old) || self.reach.bound.contains(new))
    }

    /// The squares where putting or taking a bound piece may change what
    /// [`Walker::changes_at`] says for `at` (see [`Walker::may_bind_anew`]).
    pub(crate) fn suspects_at(&self, at: u32) -> Squares {
        self.reach.suspect_any[at as usize]
    }

    /// The slide the loop head `pc` runs, if it is one.
    pub(crate) fn slide_at(&self, pc: Pc) -> Option<&Slide> {
        self.shapes.slides[pc as usize].as_ref()
    }

    /// The step rewrite `id` is, if it is one.
    pub(super) fn step_of(&self, id: RewriteId) -> Option<&Step> {
        self.shapes.steps[id.index()].as_ref()
    }

    /// Every content a bind names.
    pub(crate) fn bound(&self) -> &CodeSet {
        &self.reach.bound
    }

    /// The same, listed.
    pub(crate) fn bound_codes(&self) -> &[Code] {
        &self.reach.bound_codes
    }

    /// The names of the shapes the walker found in its program and runs on
    /// square sets (for reports and tests).
    pub(crate) fn shapes(&self) -> Vec<&'static str> {
        fn any<T>(v: &[Option<T>]) -> bool {
            v.iter().any(Option::is_some)
        }
        let found = [
            (any(&self.shapes.slides), "slide"),
            (any(&self.shapes.chains), "chain"),
            (any(&self.shapes.steps), "step"),
            (any(&self.shapes.stamps), "stamp"),
            (any(&self.shapes.slide_tails), "slide tail"),
            (any(&self.shapes.fans), "fan"),
            (any(&self.shapes.placements), "placement"),
            (any(&self.shapes.in_line), "ordered in line"),
            (any(&self.shapes.first_match), "first match"),
            (any(&self.plans.poi_plans), "piece plan"),
            (any(&self.plans.test_plans), "test plan"),
            (!self.shapes.shape_tests.is_empty(), "board-shape test"),
            (self.plans.entry.is_some(), "first-rewrite binds"),
        ];
        found
            .iter()
            .filter(|(yes, _)| *yes)
            .map(|(_, name)| *name)
            .collect()
    }

    /// The program it walks.
    pub(crate) fn program(&self) -> &Program {
        &self.prog
    }

    /// The program as a choice among pieces each making a chain, if it is one.
    pub(crate) fn chained_moves(&self) -> Option<ChainedMoves> {
        chained_moves(
            &self.prog,
            &self.anchors,
            &self.shapes.chains,
            &self.shapes.first_match,
        )
    }

    /// The rewrites the bound pieces make first, as square sets: where
    /// none can be made, the program has no result.
    pub(crate) fn entry(&self) -> Option<&Plan> {
        self.plans.entry.as_ref()
    }

    /// The placement the instruction `pc` is, if it is one: the code it
    /// puts and the sub-program that binds and tests it.
    pub(crate) fn placement_at(&self, pc: Pc) -> Option<(Code, usize)> {
        self.shapes.placements[pc as usize].map(|p| (p.code, p.sub))
    }

    /// Where a piece may stand for sub-program `sub` (a choice of rewrites
    /// made at the piece of interest) to match, as square sets, if it is one.
    pub(crate) fn poi_plan(&self, sub: usize) -> Option<&Plan> {
        self.plans.poi_plans[sub].as_ref()
    }

    /// Whether sub-program `sub` has a result on a position, as square sets,
    /// when it is one that they answer.
    pub(crate) fn test_plan(&self, sub: usize) -> Option<&Plan> {
        self.plans.test_plans[sub].as_ref()
    }

    /// How many codes the bitboards must cover.
    pub(crate) fn codes(&self) -> usize {
        self.codes
    }
}

/// Per rewrite, per alternative: where its matches are looked for; and one
/// more than the largest tally slot a rewrite reads or writes. Declines a
/// left side with nothing to start from, and writes that could create or
/// remove a square.
fn anchors_of(program: &Program) -> Result<(Vec<Vec<Anchor>>, u32), Decline> {
    let mut anchors = Vec::new();
    let mut tally_slots = 0;
    for rw in &program.rewrites {
        let mut per = Vec::new();
        for alt in rw.alternatives.iter() {
            let slots = (alt.tally_checks.iter().map(|t| t.slot))
                .chain(alt.tally_writes.iter().flatten().map(|t| t.slot));
            tally_slots = slots.fold(tally_slots, |n, slot| n.max(slot + 1));
            // Anchored at the piece of interest, or else at the squares
            // holding what the compiler's first anchor check accepts.
            let anchor = match alt.checks.iter().position(|c| c.poi) {
                Some(poi) => Anchor::Poi(poi),
                None => {
                    let Some(a) = alt.anchors.first() else {
                        return Err(Decline::NoAnchor);
                    };
                    Anchor::Squares {
                        check: a.check as usize,
                        codes: CodeSet::of(a.codes.iter().copied()),
                    }
                }
            };
            for choice in alt.choices.iter() {
                for w in choice.iter() {
                    let check = alt.checks.iter().find(|c| (c.dx, c.dy) == (w.dx, w.dy));
                    let Some(check) = check else {
                        return Err(Decline::ChangesTheBoard);
                    };
                    let off = matches!(w.write, Write::Code(OFF));
                    let writes_back = matches!(w.write, Write::Code(c) if check.accepts == CodeSet::of([c]));
                    if !writes_back && (off || check.accepts.contains(OFF)) {
                        return Err(Decline::ChangesTheBoard);
                    }
                }
            }
            per.push(anchor);
        }
        anchors.push(per);
    }
    Ok((anchors, tally_slots))
}

/// Where the walk of `program` charges and visits states, and the shapes
/// it runs as one operation: worked out together, as a loop that is a
/// chain or a slide needs no visited set and a slide's tail is one where
/// none is kept.
fn visits_and_shapes(
    program: &Program,
    anchors: &[Vec<Anchor>],
    width: u32,
    height: u32,
) -> (Visits, Shapes) {
    let (w, h) = (width as i32, height as i32);
    let mut visit = program.visit.clone();
    for pc in monotone_loops(program, width, height) {
        visit[pc as usize] = false;
    }
    // A chain empties squares at every turn of its loop: no state comes back.
    let chains: Vec<Option<Chain>> = (0..program.insts.len() as Pc)
        .map(|pc| chain(program, anchors, pc))
        .collect();
    for (pc, _) in chains.iter().enumerate().filter(|(_, c)| c.is_some()) {
        visit[pc] = false;
    }
    let charge = visit.clone();
    for pc in few_path_joins(program) {
        visit[pc as usize] = false;
    }
    // Ordered choices of choices of rewrites run in line; the states
    // their alternatives reach are results of theirs, deduplicated with
    // the whole search's (and an alternative's results must all go on:
    // see `Run::ordered_in_line`), so they keep no visited set.
    let in_line: Vec<Option<Box<[Pc]>>> = (program.ordered.iter())
        .map(|subs| {
            let ends = subs
                .iter()
                .map(|sub| choice_end(program, program.subs[sub.index()]))
                .collect::<Option<Vec<_>>>()?;
            for (_, runs) in &ends {
                runs.iter().for_each(|&pc| visit[pc as usize] = false);
            }
            Some(ends.into_iter().map(|(end, _)| end).collect())
        })
        .collect();
    let first_match = (program.ordered.iter())
        .map(|subs| first_match(program, anchors, subs.iter().map(|sub| program.subs[sub.index()])))
        .collect();
    let slides: Vec<Option<Slide>> = (0..program.insts.len() as Pc)
        .map(|pc| Slide::of(program, pc, &visit))
        .collect();
    let steps = (0..program.rewrites.len() as u32)
        .map(|id| Step::of(program, RewriteId(id)))
        .collect();
    let stamps: Vec<Option<Stamp>> = (0..program.rewrites.len() as u32)
        .map(|id| Stamp::of(program, RewriteId(id)))
        .collect();
    let terminal: Vec<bool> = (0..program.insts.len() as Pc)
        .map(|pc| leads_to_match(program, pc))
        .collect();
    let poi_plans: Vec<Option<Plan>> = (program.subs.iter())
        .map(|&start| crate::engine::choice::compile::poi_plan(program, start, width, height))
        .collect();
    let placements = (0..program.insts.len())
        .map(|pc| Placement::of(program, pc, &poi_plans))
        .collect();
    let slide_tails: Vec<Option<SlideTail>> = (0..program.insts.len())
        .map(|pc| match (&slides[pc], &program.insts[pc]) {
            (Some(_), &Inst::Split { second, .. }) => SlideTail::of(program, second, &visit, &terminal),
            _ => None,
        })
        .collect();
    let mut fans: Vec<Option<Fan>> = (0..program.insts.len() as Pc)
        .map(|pc| Fan::of(program, pc, &stamps, &slides, &slide_tails, &visit))
        .collect();
    if keyless_fans(program, &fans, &stamps, &slides, &slide_tails) {
        for fan in fans.iter_mut().flatten() {
            fan.keyless = true;
            fan.rays = (fan.shoots.iter())
                .map(|s| {
                    let stamp = stamps[s.stamp.index()].as_ref().expect("a fan's stamp");
                    FanRays::of(stamp.dx, stamp.dy, w, h)
                })
                .collect();
            fan.uniform = UniformFan::of(fan, &stamps, &slides, &slide_tails);
        }
    }
    let visits = Visits {
        visit,
        charge,
        terminal,
    };
    let shapes = Shapes {
        slides,
        chains,
        steps,
        stamps,
        slide_tails,
        fans,
        placements,
        in_line,
        first_match,
        shape_tests: ShapeTests::of(program),
    };
    (visits, shapes)
}

impl SetPlans {
    /// The square sets of `program`'s sub-programs and first rewrites on
    /// boards of `width` by `height`.
    fn of(program: &Program, width: u32, height: u32) -> SetPlans {
        use crate::engine::choice::compile::{entry_plan, poi_plan, test_plan};
        let (entry, entry_binds) = match entry_plan(program, width, height) {
            Some((plan, binds)) => (Some(plan), binds),
            None => (None, Vec::new()),
        };
        SetPlans {
            poi_plans: (program.subs.iter())
                .map(|&start| poi_plan(program, start, width, height))
                .collect(),
            test_plans: (program.subs.iter())
                .map(|&start| test_plan(program, start, width, height))
                .collect(),
            entry,
            entry_binds,
        }
    }
}

impl PieceReach {
    /// Where `program`'s bound pieces reach on boards of `width` by `height`.
    fn of(program: &Program, width: u32, height: u32) -> PieceReach {
        let (reach, split_reach) = reaches(program, width, height);
        let (w, h) = (width as i32, height as i32);
        let suspects: Vec<Vec<Squares>> = (reach.iter())
            .map(|r| {
                (0..w * h)
                    .map(|t| {
                        let (tx, ty) = (t % w, t / w);
                        (0..w * h)
                            .filter(|s| r.contains(tx - s % w, ty - s / w))
                            .fold(0, |set: Squares, s| set | 1 << s)
                    })
                    .collect()
            })
            .collect();
        // Only the binds the program can reach (a part of a program keeps
        // the others' instructions).
        let live = live_binds(program);
        let suspect_any = (0..(w * h) as usize)
            .map(|t| {
                (suspects.iter().zip(&live)).fold(0, |set, (per, &on)| if on { set | per[t] } else { set })
            })
            .collect();
        let bound = CodeSet::of(
            (program.binds.iter().zip(&live))
                .filter(|&(_, &on)| on)
                .flat_map(|(b, _)| b.iter().copied()),
        );
        PieceReach {
            suspects,
            suspect_any,
            bound_codes: bound.codes().collect(),
            bound,
            split_reach,
        }
    }
}

/// Which results a count keeps: those `test` keeps, given each one's
/// changes as (square, content) in square order; a result that writes only
/// `cold` squares and none of the `hot` contents is kept without the test.
pub(crate) struct Keep<'g> {
    /// The squares a result may change and be kept untested.
    pub(crate) cold: Squares,
    /// The contents a result kept untested may not write.
    pub(crate) hot: &'g CodeSet,
    /// Of the cold squares, those where it may also write or take away one
    /// of the `wary` contents (elsewhere it may not).
    pub(crate) calm: Squares,
    pub(crate) wary: &'g CodeSet,
    /// The same, listed.
    pub(crate) wary_codes: &'g [Code],
    /// The test.
    pub(crate) test: &'g mut KeepTest<'g>,
}

/// Whether to keep a result, given its changes as (square, content) in
/// square order.
pub(crate) type KeepTest<'g> = dyn FnMut(&[(u32, Code)]) -> bool + 'g;

impl Keep<'_> {
    /// Whether the result whose writes are `overlay` (each square maybe
    /// more than once) on the position `base` is kept untested.
    #[inline]
    pub(super) fn untested(&self, base: &[Code], overlay: &[(u32, Code)]) -> bool {
        // (A result that writes nothing is tested: with nothing cold, it
        // leaves a protected piece attacked; so is one of a walk whose log
        // is longer than the board, rather than read it all, and one that
        // changes a box.)
        !overlay.is_empty()
            && overlay.len() <= base.len()
            && overlay.iter().all(|&(at, c)| {
                at < TALLY_BASE
                    && self.cold >> at & 1 == 1
                    && !self.hot.contains(c)
                    && (self.calm >> at & 1 == 1
                        || !(self.wary.contains(c) || self.wary.contains(base[at as usize])))
            })
    }
}

#[cfg(test)]
pub(super) mod tests;
