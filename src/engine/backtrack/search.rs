//! The backtracking search: a program run against a board edited in place.
//!
//! Like the `regex` crate's bounded backtracker, the search keeps an explicit
//! stack of frames instead of recursing: a `Step` frame says "continue at this
//! instruction", the other frames are iterators (over the matches of a
//! rewrite, the squares a `%p:` can bind, the results of an ordered choice)
//! that undo their change when resumed and then make the next one. A visited
//! set over (instruction, pieces of interest, position hash) at the marked
//! instructions makes closures stop at a fixpoint and stops the search from
//! exploring one state twice. Guards and ordered choices run their
//! sub-programs as nested searches, one level per nesting of the program, so
//! the native recursion is bounded by the program's shape, never by the data.

use rustc_hash::FxHashSet;

use super::Compiled;
use super::board::{Board, TooLarge};
use super::frame::{BindFrame, Cursor, Frame, NONE, OrderedFrame, Poi, RewriteFrame, Trace};
pub use super::results::Successors;
use super::results::{Entry, Results};
use crate::core::{self as code, Change, Code, Coord, EMPTY};
use crate::engine::hash;
use crate::engine::meter::{EngineError, Meter};
use crate::engine::position::Position;
use crate::engine::reach::Reach;
use crate::program::{
    Alternative, BindId, EntryCheck, Inst, ListId, Pc, Program, RewriteId, SplitEntry, SquareWrite, Write,
};

/// The scratch of one nesting level of the search.
#[derive(Clone, Debug, Default)]
struct Level {
    stack: Vec<Frame>,
    visited: FxHashSet<(u64, u64)>,
    results: Results,
    /// Results of ordered choices whose frames are on this level's stack.
    stash: Results,
    /// The undo-log mark where this level's search started.
    base: usize,
    saved_pois: Vec<Poi>,
}

/// Scratch space for searches, reusable across programs and positions:
/// keeping one avoids allocating on every search.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    pub(super) board: Board,
    pois: Vec<Poi>,
    poi_hash: u64,
    trace: Trace,
    /// Whether searches trace the outermost piece of interest's path.
    tracing: bool,
    /// The squares it moved to so far, when tracing.
    path: Vec<Coord>,
    levels: Vec<Level>,
    states: u64,
    diff: Vec<Change>,
    /// A second cache, for searches made while this one's results are in use.
    aux: Option<Box<Scratch>>,
    /// A third, for the `attacked` tests made in the middle of a search.
    spare: Option<Box<Scratch>>,
}

impl Scratch {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes the searches run with this cache trace (or not) the squares the
    /// outermost piece of interest moves to ([`crate::engine::Successor::path`]):
    /// what a notation that writes every landing square needs.
    pub fn trace_paths(&mut self, on: bool) {
        self.tracing = on;
    }

    /// Takes out the second cache this one keeps, for searches made while
    /// this one's results are in use; give it back with [`Scratch::put_aux`].
    pub(crate) fn take_aux(&mut self) -> Box<Scratch> {
        self.aux.take().unwrap_or_default()
    }

    /// Gives back the cache [`Scratch::take_aux`] took out.
    pub(crate) fn put_aux(&mut self, aux: Box<Scratch>) {
        self.aux = Some(aux);
    }

    /// Takes out the cache for the `attacked` tests of a search this one
    /// runs; give it back with [`Scratch::put_spare`].
    pub(crate) fn take_spare(&mut self) -> Box<Scratch> {
        self.spare.take().unwrap_or_default()
    }

    /// Gives back the cache [`Scratch::take_spare`] took out.
    pub(crate) fn put_spare(&mut self, spare: Box<Scratch>) {
        self.spare = Some(spare);
    }

    /// Loads `position` as the board that [`search_changes_loaded`] searches,
    /// ready for programs mentioning codes below those of `program`.
    pub(crate) fn load(&mut self, position: &Position, program: &Program) {
        self.board.load(position, program.codes);
    }

    /// Loads the position another search is at, for `program`, copying
    /// that search's board rather than building a position from it.
    pub(crate) fn load_view(&mut self, view: BoardView<'_>, program: &Program) {
        self.board.copy_from(view.0, program.codes);
    }

    /// Makes `changes` on the loaded board; [`Scratch::undo`] with the mark
    /// returned takes them back.
    pub(crate) fn apply(&mut self, changes: &[Change], limits: &Meter) -> Result<usize, EngineError> {
        let mark = self.board.mark();
        for c in changes {
            self.board
                .write(c, limits.max_cells)
                .map_err(|TooLarge| EngineError::BoardLimit {
                    limit: limits.max_cells,
                })?;
        }
        Ok(mark)
    }

    /// The loaded board's grid size (it grows when a change makes a square outside it).
    pub(crate) fn size(&self) -> (u32, u32) {
        self.board.size()
    }

    /// Takes back the changes made since `mark`.
    pub(crate) fn undo(&mut self, mark: usize) {
        self.board.undo_to(mark);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Collect every result.
    Collect,
    /// Stop at the first result.
    Exists,
}

/// Answers `attacked` for a search: whether an opponent has a move that
/// changes square `at` of the position searched. The walker asks the same
/// question of its own board (its `AttackTest`);
/// [`OpponentPrograms`](super::OpponentPrograms) answers it from the other
/// sides' moves.
pub(crate) trait AttackOracle {
    /// Whether `at`, holding `code`, is attacked on `board`, the position being searched.
    fn attacked(
        &self,
        board: BoardView<'_>,
        at: Coord,
        code: Code,
        limits: &Meter,
    ) -> Result<bool, EngineError>;

    /// Whether the side after the one searching would have no legal move on
    /// `board` (`no_reply`); an oracle that cannot tell says it has one.
    fn no_reply(&self, _board: BoardView<'_>, _limits: &Meter) -> Result<bool, EngineError> {
        Ok(false)
    }
}

/// The position a search is at, as the engine holds it: an oracle reads it
/// or loads it into a cache of its own ([`Scratch::load_view`]).
#[derive(Clone, Copy)]
pub(crate) struct BoardView<'b>(pub(crate) &'b Board);

/// The oracle of a search without opponents: nothing is ever attacked.
pub(crate) struct NoAttacks;

impl AttackOracle for NoAttacks {
    fn attacked(&self, _: BoardView<'_>, _: Coord, _: Code, _: &Meter) -> Result<bool, EngineError> {
        Ok(false)
    }
}

/// Runs `program` on `position`, asking `oracle` whenever the program tests
/// `attacked`; the results live in `cache` until its next use.
pub(crate) fn search_with<'c>(
    program: Compiled<'_>,
    position: &Position,
    cache: &'c mut Scratch,
    limits: &Meter,
    oracle: &dyn AttackOracle,
) -> Result<Successors<'c>, EngineError> {
    start(program, position, cache, limits, oracle, None)?;
    Ok(Successors {
        results: &cache.levels[0].results,
        states: cache.states,
    })
}

/// Whether some result of `program` changes square `at` of the board
/// loaded with [`Scratch::load`] (and changed with [`Scratch::apply`]), which it
/// leaves as it found it; stops at the first. Each outermost `%p:` binds
/// only the squares `only` names for it (the suspects: those that still hold
/// one of its pieces), and `Split`s whose rest cannot write `at` are not
/// followed.
#[inline]
pub(crate) fn search_changes_loaded(
    program: Compiled<'_>,
    cache: &mut Scratch,
    limits: &Meter,
    oracle: &dyn AttackOracle,
    at: Coord,
    only: &[(BindId, Coord)],
) -> Result<bool, EngineError> {
    // Every write comes from a piece of interest and none can reach `at`.
    if only.is_empty() && !program.prog.unbound_writes {
        return Ok(false);
    }
    run(program, cache, limits, oracle, Some(at), Some(only))
}

#[inline]
fn start(
    program: Compiled<'_>,
    position: &Position,
    cache: &mut Scratch,
    limits: &Meter,
    oracle: &dyn AttackOracle,
    find: Option<Coord>,
) -> Result<bool, EngineError> {
    cache.board.load(position, program.prog.codes);
    run(program, cache, limits, oracle, find, None)
}

#[inline]
fn run(
    program: Compiled<'_>,
    cache: &mut Scratch,
    limits: &Meter,
    oracle: &dyn AttackOracle,
    find: Option<Coord>,
    only: Option<&[(BindId, Coord)]>,
) -> Result<bool, EngineError> {
    cache.pois.clear();
    cache.poi_hash = 0;
    cache.trace = Trace::default();
    cache.path.clear();
    cache.states = 0;
    let before = find.map_or(0, |t| cache.board.get(t.x, t.y));
    let start_mark = cache.board.mark();
    let mut s = Search {
        prog: program.prog,
        visit: program.visit,
        reach: program.reach,
        split_reach: program.split_reach,
        cache,
        limits,
        oracle,
        find,
        only,
        before,
        start_mark,
    };
    s.run_level(0, program.prog.start, Mode::Collect)
}

struct Search<'a> {
    prog: &'a Program,
    /// Per instruction: whether arriving there consults the visited set.
    visit: &'a [bool],
    /// Per bind: where its body may write (empty: anywhere).
    reach: &'a [Reach],
    /// Per `Split`: where the rest may write (empty: anywhere).
    split_reach: &'a [Reach],
    cache: &'a mut Scratch,
    limits: &'a Meter,
    oracle: &'a dyn AttackOracle,
    /// Looking for a result that changes this square (and stopping there).
    find: Option<Coord>,
    /// The only squares the outermost `%p:`s may bind, by bind id, while
    /// the board is as the search found it (a later `%p:`, after a move of
    /// an earlier one, may bind a piece that moved within reach).
    only: Option<&'a [(BindId, Coord)]>,
    /// The board's undo-log mark when the search started.
    start_mark: usize,
    /// What `find` held when the search started: once a path has changed
    /// it, the path may end in a result without writing it again, so the
    /// reach analysis no longer prunes that path.
    before: Code,
}

impl Search<'_> {
    /// Runs the (sub-)program starting at `start` as a search of its own at
    /// nesting `level`; everything it changes is undone before it returns.
    fn run_level(&mut self, level: usize, start: Pc, mode: Mode) -> Result<bool, EngineError> {
        if self.cache.levels.len() <= level {
            self.cache.levels.resize_with(level + 1, Level::default);
        }
        let mark = self.cache.board.mark();
        let (saved_hash, saved_trace) = (self.cache.poi_hash, self.cache.trace);
        {
            let lv = &mut self.cache.levels[level];
            lv.stack.clear();
            if !lv.visited.is_empty() {
                lv.visited.clear();
            }
            lv.results.clear();
            lv.stash.clear();
            lv.base = mark;
            lv.saved_pois.clear();
            lv.saved_pois.extend_from_slice(&self.cache.pois);
            lv.stack.push(Frame::Step(start));
        }
        let found = self.drive(level, mode);
        let c = &mut *self.cache;
        let lv = &mut c.levels[level];
        lv.stack.clear();
        c.board.undo_to(mark);
        c.pois.clear();
        c.pois.extend_from_slice(&lv.saved_pois);
        c.poi_hash = saved_hash;
        c.trace = saved_trace;
        if c.tracing {
            c.path.truncate(saved_trace.path as usize);
        }
        found
    }

    fn drive(&mut self, level: usize, mode: Mode) -> Result<bool, EngineError> {
        while let Some(frame) = self.cache.levels[level].stack.pop() {
            match frame {
                Frame::Step(pc) => {
                    if self.step(level, pc, mode)? {
                        return Ok(true);
                    }
                }
                Frame::Rewrite(f) => {
                    self.cache.board.undo_to(f.mark as usize);
                    self.restore_top(f.poi, f.poi_hash);
                    self.set_trace(f.trace);
                    self.next_rewrite(level, f)?;
                }
                Frame::Bind(f) => {
                    self.cache.pois.pop();
                    self.cache.poi_hash = f.poi_hash;
                    self.set_trace(f.trace);
                    self.next_bind(level, f);
                }
                Frame::Rebind { poi, trace, poi_hash } => {
                    self.cache.pois.push(poi);
                    self.cache.poi_hash = poi_hash;
                    self.set_trace(trace);
                }
                Frame::Unorigin { poi_hash } => {
                    self.cache.pois.pop();
                    self.cache.poi_hash = poi_hash;
                }
                Frame::Ordered(f) => {
                    self.cache.board.undo_to(f.mark as usize);
                    self.restore_top(f.poi, f.poi_hash);
                    self.set_trace(f.trace);
                    self.next_ordered(level, f)?;
                }
            }
        }
        Ok(false)
    }

    /// Whether the squares around the piece of interest hold what every
    /// path from `pc` checks first (see `program::entry`); `false` means
    /// no path from there gets anywhere.
    #[inline]
    fn can_enter(&self, pc: Pc) -> bool {
        self.holds_around_poi(&self.prog.entry[pc as usize])
    }

    /// Whether the squares around the piece of interest hold what `checks` say.
    #[inline]
    fn holds_around_poi(&self, checks: &[EntryCheck]) -> bool {
        if checks.is_empty() {
            return true;
        }
        let Some(p) = self.cache.pois.last() else {
            return true;
        };
        let board = &self.cache.board;
        checks.iter().all(|c| {
            c.accepts
                .contains(board.get(p.x.wrapping_add(c.dx), p.y.wrapping_add(c.dy)))
        })
    }

    /// Restores the trace, and the traced path to its length.
    fn set_trace(&mut self, trace: Trace) {
        self.cache.trace = trace;
        if self.cache.tracing {
            self.cache.path.truncate(trace.path as usize);
        }
    }

    fn restore_top(&mut self, poi: Option<Poi>, poi_hash: u64) {
        if let (Some(p), Some(top)) = (poi, self.cache.pois.last_mut()) {
            *top = p;
        }
        self.cache.poi_hash = poi_hash;
    }

    fn push(&mut self, level: usize, frame: Frame) {
        self.cache.levels[level].stack.push(frame);
    }

    /// Runs straight-line instructions from `pc` until the path ends or an
    /// iterator frame takes over; `true` when a result ends an `Exists` search.
    fn step(&mut self, level: usize, mut pc: Pc, mode: Mode) -> Result<bool, EngineError> {
        let prog = self.prog;
        loop {
            if self.visit[pc as usize] {
                self.cache.states += 1;
                self.limits.charge()?;
                let key = (
                    self.cache.board.hash,
                    hash::pc(pc) ^ self.cache.poi_hash ^ self.cache.trace.key,
                );
                if !self.cache.levels[level].visited.insert(key) {
                    return Ok(false);
                }
            }
            match prog.insts[pc as usize] {
                Inst::Split { first, second } => match self.enter_split(level, pc, (first, second), mode) {
                    Some(next) => pc = next,
                    None => return Ok(false),
                },
                Inst::Jump { to } => pc = to,
                Inst::Rewrite { id, next } => {
                    let f = RewriteFrame {
                        id,
                        next,
                        alt: 0,
                        anchor: NONE,
                        cursor: Cursor::default(),
                        matched: false,
                        next_choice: 0,
                        tx: 0,
                        ty: 0,
                        mark: self.cache.board.mark() as u32,
                        poi: self.cache.pois.last().copied(),
                        poi_hash: self.cache.poi_hash,
                        trace: self.cache.trace,
                    };
                    self.next_rewrite(level, f)?;
                    return Ok(false);
                }
                Inst::Bind { id, next } => {
                    let f = BindFrame {
                        id,
                        next,
                        cursor: Cursor::default(),
                        trace: self.cache.trace,
                        poi_hash: self.cache.poi_hash,
                    };
                    self.next_bind(level, f);
                    return Ok(false);
                }
                Inst::Unbind { next } => {
                    self.unbind(level);
                    pc = next;
                }
                Inst::Attacked { next } => {
                    let p = *self
                        .cache
                        .pois
                        .last()
                        .expect("the compiler checked a piece of interest is bound");
                    if !self.oracle.attacked(
                        BoardView(&self.cache.board),
                        Coord::new(p.x, p.y),
                        p.code,
                        self.limits,
                    )? {
                        return Ok(false);
                    }
                    pc = next;
                }
                Inst::Origin { next } => {
                    if !self.bind_origin(level) {
                        return Ok(false);
                    }
                    pc = next;
                }
                Inst::NoReply { next } => {
                    if !self.oracle.no_reply(BoardView(&self.cache.board), self.limits)? {
                        return Ok(false);
                    }
                    pc = next;
                }
                Inst::Test { holds, id, next } => {
                    if self.matches_somewhere(id) != holds {
                        return Ok(false);
                    }
                    pc = next;
                }
                Inst::Guard { holds, sub, next } => {
                    let body = prog.subs[sub.index()];
                    let found = self.can_enter(body) && self.run_level(level + 1, body, Mode::Exists)?;
                    if found != holds {
                        return Ok(false);
                    }
                    pc = next;
                }
                Inst::Ordered { id, next } => {
                    self.start_ordered(level, id, next)?;
                    return Ok(false);
                }
                Inst::Match => {
                    if mode == Mode::Exists {
                        return Ok(true);
                    }
                    if level == 0
                        && let Some(at) = self.find
                    {
                        // A change of marks alone is no change of the piece.
                        let now = self.cache.board.get(at.x, at.y);
                        return Ok(!code::same_but_marks(now, self.before));
                    }
                    self.record(level);
                    return Ok(false);
                }
            }
        }
    }

    /// Enters split `pc` (branches `first` and `second`): the branch to go
    /// on with, the other kept on a frame where it can be entered; `None`
    /// when the path ends here.
    #[inline]
    fn enter_split(&mut self, level: usize, pc: Pc, (first, second): (Pc, Pc), mode: Mode) -> Option<Pc> {
        let prog = self.prog;
        // Looking for a change of one square: give up on paths that cannot
        // write it from where the piece of interest is.
        if let Some(t) = self.find
            && level == 0
            && let [p] = self.cache.pois.as_slice()
            && self.untouched()
            && let Some(r) = self.split_reach.get(pc as usize)
            && !r.contains(t.x - p.x, t.y - p.y)
        {
            return None;
        }
        match prog.split_entry(pc, |checks| self.holds_around_poi(checks)) {
            SplitEntry::Enter => {}
            SplitEntry::Past(past) => return Some(past),
            SplitEntry::Dead => return None,
        }
        // Asking only whether there is a result: a loop's exit before
        // another pass, so that a result a few steps away is found before
        // an endless loop spends the states.
        let (first, second) = if mode == Mode::Exists && prog.loop_heads[pc as usize] {
            (second, first)
        } else {
            (first, second)
        };
        if self.can_enter(second) {
            self.push(level, Frame::Step(second));
        }
        self.can_enter(first).then_some(first)
    }

    /// Unbinds the innermost piece of interest (where the outermost ended is
    /// the move's end); a frame binds it again on the way back.
    #[inline]
    fn unbind(&mut self, level: usize) {
        let c = &mut *self.cache;
        let (trace, poi_hash) = (c.trace, c.poi_hash);
        let poi = c.pois.pop().expect("unbind follows a bind");
        c.poi_hash ^= hash::poi(c.pois.len(), poi.x, poi.y, poi.code);
        if c.pois.is_empty() && c.trace.id.to.is_none() {
            c.trace.id.to = Some(Coord::new(poi.x, poi.y));
            c.trace.rekey();
        }
        self.push(level, Frame::Rebind { poi, trace, poi_hash });
    }

    /// `%from:`: binds the square the piece of interest was bound on, if
    /// the piece left it empty (in Chess960 castling the rook may stand
    /// where the king started); whether it did.
    #[inline]
    fn bind_origin(&mut self, level: usize) -> bool {
        let c = &mut *self.cache;
        let (x, y) = c
            .pois
            .last()
            .expect("the compiler checked a piece of interest is bound")
            .from;
        let code = c.board.get(x, y);
        if code != EMPTY {
            return false;
        }
        let before = c.poi_hash;
        c.poi_hash ^= hash::poi(c.pois.len(), x, y, code);
        c.pois.push(Poi {
            x,
            y,
            code,
            from: (x, y),
        });
        self.push(level, Frame::Unorigin { poi_hash: before });
        true
    }

    /// The anchor of `alt` with the fewest candidate squares here.
    fn pick_anchor(&self, alt: &Alternative) -> u32 {
        if alt.anchors.len() == 1 {
            return 0;
        }
        let board = &self.cache.board;
        let mut best = (u64::MAX, 0);
        for (i, a) in alt.anchors.iter().enumerate() {
            let cost = a.poi as u64 + a.codes.iter().map(|&c| board.count(c) as u64).sum::<u64>();
            if cost < best.0 {
                best = (cost, i as u32);
            }
        }
        best.1
    }

    /// The next candidate square after `cursor`: the piece of interest's square
    /// (when `poi`), then every square holding each of `codes` in turn.
    #[inline]
    fn next_square(&self, poi: bool, codes: &[Code], cursor: &mut Cursor) -> Option<(i32, i32)> {
        let board = &self.cache.board;
        loop {
            let mut s = cursor.source as usize;
            if poi {
                if s == 0 {
                    if !cursor.started
                        && let Some(p) = self.cache.pois.last()
                    {
                        cursor.started = true;
                        return Some((p.x, p.y));
                    }
                    cursor.source += 1;
                    cursor.started = false;
                    continue;
                }
                s -= 1;
            }
            let &code = codes.get(s)?;
            let after = if cursor.started {
                board.cell(cursor.x, cursor.y)
            } else {
                None
            };
            match board.next_with(code, after) {
                Some(cell) => {
                    let (x, y) = board.coords(cell);
                    *cursor = Cursor {
                        source: cursor.source,
                        started: true,
                        x,
                        y,
                    };
                    return Some((x, y));
                }
                None => {
                    cursor.source += 1;
                    cursor.started = false;
                }
            }
        }
    }

    /// Whether `alt` matches under the translation `(tx, ty)`.
    #[inline]
    fn matches(&self, alt: &Alternative, tx: i32, ty: i32) -> bool {
        let board = &self.cache.board;
        let top = self.cache.pois.last();
        alt.checks.iter().all(|c| {
            let (x, y) = (tx.wrapping_add(c.dx), ty.wrapping_add(c.dy));
            let code = board.get(x, y);
            c.accepts.contains(code)
                || (c.poi
                    && top.is_some_and(|p| p.x == x && p.y == y && p.code == code)
                    && (c.poi_marks.is_empty() || code::has_marks(code, c.poi_marks)))
        }) && alt.tally_checks.iter().all(|t| board.tally(t.slot) >= t.at_least)
    }

    /// Makes the changes of one replacement choice under `(tx, ty)`.
    fn apply(&mut self, changes: &[SquareWrite], tx: i32, ty: i32) -> Result<(), EngineError> {
        let c = &mut *self.cache;
        for ch in changes {
            let (x, y) = (tx.wrapping_add(ch.dx), ty.wrapping_add(ch.dy));
            let code = match ch.write {
                Write::Code(code) => code,
                Write::Poi(marks) => {
                    let depth = c.pois.len() - 1;
                    let top = c.pois.last_mut().expect("the compiler checked `%` is bound");
                    let code = code::with_marks(top.code, marks);
                    if c.tracing && depth == 0 && (top.x, top.y) != (x, y) {
                        c.path.push(Coord::new(x, y));
                        c.trace.path = c.path.len() as u32;
                    }
                    c.poi_hash ^= hash::poi(depth, top.x, top.y, top.code) ^ hash::poi(depth, x, y, code);
                    top.x = x;
                    top.y = y;
                    top.code = code;
                    code
                }
            };
            c.board
                .set(x, y, code, self.limits.max_cells)
                .map_err(|TooLarge| EngineError::BoardLimit {
                    limit: self.limits.max_cells,
                })?;
        }
        // Another piece left where the piece of interest stands (`% -> ♕`):
        // it is that piece now (`%` matches it), and the outermost one is
        // known to have become it, whatever happens to it later.
        let depth = c.pois.len().wrapping_sub(1);
        if let Some(top) = c.pois.last_mut() {
            let here = c.board.get(top.x, top.y);
            if here != top.code && code::as_piece(here).is_some() {
                c.poi_hash ^= hash::poi(depth, top.x, top.y, top.code) ^ hash::poi(depth, top.x, top.y, here);
                top.code = here;
                if depth == 0 {
                    c.trace.id.became = Some(here);
                    c.trace.rekey();
                }
            }
        }
        Ok(())
    }

    /// Makes the next (match, choice) of a rewrite and continues after it;
    /// expects the state the frame was made in.
    fn next_rewrite(&mut self, level: usize, mut f: RewriteFrame) -> Result<(), EngineError> {
        let rw = &self.prog.rewrites[f.id.index()];
        loop {
            let Some(alt) = rw.alternatives.get(f.alt as usize) else {
                return Ok(());
            };
            if f.matched {
                if let Some(choice) = alt.choices.get(f.next_choice as usize) {
                    f.next_choice += 1;
                    // A state reached without a visited-set check (a rewrite
                    // followed by more straight-line steps, as in `M{n}`)
                    // still counts against the limit, so that no search runs
                    // unbounded between checks.
                    if !self.visit[f.next as usize] {
                        self.cache.states += 1;
                        self.limits.charge()?;
                    }
                    self.apply(choice, f.tx, f.ty)?;
                    if let Some(writes) = alt.tally_writes.get(f.next_choice as usize - 1) {
                        for w in writes.iter() {
                            self.cache.board.add_tally(w.slot, w.delta);
                        }
                    }
                    self.push(level, Frame::Rewrite(f));
                    self.push(level, Frame::Step(f.next));
                    return Ok(());
                }
                f.matched = false;
            }
            if alt.anchors.is_empty() {
                // Only boxes: one place to try.
                if !f.cursor.started && self.matches(alt, 0, 0) {
                    f.cursor.started = true;
                    f.matched = true;
                    f.next_choice = 0;
                    f.tx = 0;
                    f.ty = 0;
                } else {
                    f.alt += 1;
                    f.anchor = NONE;
                    f.cursor = Cursor::default();
                }
                continue;
            }
            if f.anchor == NONE {
                f.anchor = self.pick_anchor(alt);
                f.cursor = Cursor::default();
            }
            let anchor = &alt.anchors[f.anchor as usize];
            match self.next_square(anchor.poi, &anchor.codes, &mut f.cursor) {
                Some((x, y)) => {
                    let check = &alt.checks[anchor.check as usize];
                    let (tx, ty) = (x.wrapping_sub(check.dx), y.wrapping_sub(check.dy));
                    if self.matches(alt, tx, ty) {
                        f.matched = true;
                        f.next_choice = 0;
                        f.tx = tx;
                        f.ty = ty;
                    }
                }
                None => {
                    f.alt += 1;
                    f.anchor = NONE;
                    f.cursor = Cursor::default();
                }
            }
        }
    }

    /// Whether some alternative of rewrite `id` matches under some translation.
    fn matches_somewhere(&self, id: RewriteId) -> bool {
        for alt in self.prog.rewrites[id.index()].alternatives.iter() {
            if alt.anchors.is_empty() {
                if self.matches(alt, 0, 0) {
                    return true;
                }
                continue;
            }
            let anchor = &alt.anchors[self.pick_anchor(alt) as usize];
            let check = &alt.checks[anchor.check as usize];
            let mut cursor = Cursor::default();
            while let Some((x, y)) = self.next_square(anchor.poi, &anchor.codes, &mut cursor) {
                if self.matches(alt, x.wrapping_sub(check.dx), y.wrapping_sub(check.dy)) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the square looked for holds what it held when the search
    /// started (only then can the reach analysis prune a path).
    #[inline]
    fn untouched(&self) -> bool {
        self.find
            .is_some_and(|t| self.cache.board.get(t.x, t.y) == self.before)
    }

    /// Binds the next square of a `%p:` and continues inside it.
    fn next_bind(&mut self, level: usize, mut f: BindFrame) {
        let codes = &self.prog.binds[f.id.index()];
        if let Some(only) = self.only
            && level == 0
            && self.cache.pois.is_empty()
            && self.cache.board.mark() == self.start_mark
        {
            // The cursor's `source` walks the list of allowed squares.
            let board = &self.cache.board;
            let mut found = None;
            while let Some(&(id, at)) = only.get(f.cursor.source as usize) {
                f.cursor.source += 1;
                if id == f.id && codes.contains(&board.get(at.x, at.y)) {
                    found = Some((at.x, at.y));
                    break;
                }
            }
            if let Some((x, y)) = found {
                self.bind_at(level, f, x, y);
            }
            return;
        }
        let reach = match self.find {
            Some(target) if level == 0 && self.cache.pois.is_empty() && self.untouched() => {
                self.reach.get(f.id.index()).map(|r| (r, target))
            }
            _ => None,
        };
        let mut found = self.next_square(false, codes, &mut f.cursor);
        if let Some((r, t)) = reach {
            while let Some((x, y)) = found {
                if r.contains(t.x - x, t.y - y) {
                    break;
                }
                found = self.next_square(false, codes, &mut f.cursor);
            }
        }
        if let Some((x, y)) = found {
            self.bind_at(level, f, x, y);
        }
    }

    /// Makes the square `(x, y)` the piece of interest and continues inside the bind.
    fn bind_at(&mut self, level: usize, f: BindFrame, x: i32, y: i32) {
        let c = &mut *self.cache;
        let code = c.board.get(x, y);
        c.poi_hash ^= hash::poi(c.pois.len(), x, y, code);
        c.pois.push(Poi {
            x,
            y,
            code,
            from: (x, y),
        });
        if c.pois.len() == 1 && c.trace.id.from.is_none() {
            c.trace.id.from = Some(Coord::new(x, y));
            c.trace.rekey();
        }
        self.push(level, Frame::Bind(f));
        self.push(level, Frame::Step(f.next));
    }

    /// Runs an ordered choice's alternatives until one has results, keeps
    /// them on this level's stash, and continues from the first.
    fn start_ordered(&mut self, level: usize, id: ListId, next: Pc) -> Result<(), EngineError> {
        let prog = self.prog;
        if self.cache.levels.len() <= level + 1 {
            self.cache.levels.resize_with(level + 2, Level::default);
        }
        self.cache.levels[level + 1].results.clear();
        for &sub in prog.ordered[id.index()].iter() {
            let start = prog.subs[sub.index()];
            if !self.can_enter(start) {
                continue;
            }
            if prog.insts[start as usize] == Inst::Match {
                // `nil`: one result, the position as it is.
                self.record_here(level + 1);
                break;
            }
            self.run_level(level + 1, start, Mode::Collect)?;
            if !self.cache.levels[level + 1].results.entries.is_empty() {
                break;
            }
        }
        let (lower, upper) = self.cache.levels.split_at_mut(level + 1);
        let stash = &mut lower[level].stash;
        let found = &upper[0].results;
        let (stash_entries, stash_changes) = (stash.entries.len() as u32, stash.changes.len() as u32);
        for e in &found.entries {
            let start = stash.changes.len() as u32;
            stash.changes.extend_from_slice(found.changes(e));
            let path = stash.paths.len() as u32;
            stash.paths.extend_from_slice(found.path(e));
            stash.entries.push(Entry {
                start,
                end: stash.changes.len() as u32,
                path,
                ..*e
            });
        }
        let f = OrderedFrame {
            next,
            entry: stash_entries,
            end: stash.entries.len() as u32,
            stash_entries,
            stash_changes,
            mark: self.cache.board.mark() as u32,
            poi: self.cache.pois.last().copied(),
            poi_hash: self.cache.poi_hash,
            trace: self.cache.trace,
        };
        self.next_ordered(level, f)
    }

    /// Makes the next stashed result of an ordered choice and continues.
    fn next_ordered(&mut self, level: usize, mut f: OrderedFrame) -> Result<(), EngineError> {
        let c = &mut *self.cache;
        let lv = &mut c.levels[level];
        if f.entry >= f.end {
            if let Some(first) = lv.stash.entries.get(f.stash_entries as usize) {
                lv.stash.paths.truncate(first.path as usize);
            }
            lv.stash.entries.truncate(f.stash_entries as usize);
            lv.stash.changes.truncate(f.stash_changes as usize);
            return Ok(());
        }
        let e = lv.stash.entries[f.entry as usize];
        for ch in &lv.stash.changes[e.start as usize..e.end as usize] {
            c.board
                .write(ch, self.limits.max_cells)
                .map_err(|TooLarge| EngineError::BoardLimit {
                    limit: self.limits.max_cells,
                })?;
        }
        let depth = c.pois.len().wrapping_sub(1);
        if let (Some(p), Some(top)) = (e.poi, c.pois.last_mut()) {
            c.poi_hash ^= hash::poi(depth, top.x, top.y, top.code) ^ hash::poi(depth, p.x, p.y, p.code);
            *top = p;
        }
        c.trace = e.trace;
        if c.tracing {
            c.path.clear();
            c.path.extend_from_slice(lv.stash.path(&e));
        }
        f.entry += 1;
        self.push(level, Frame::Ordered(f));
        self.push(level, Frame::Step(f.next));
        Ok(())
    }

    /// Makes the current position, unchanged, the one result of nesting
    /// `level` (a sub-program that is `nil`), as running it would.
    fn record_here(&mut self, level: usize) {
        let lv = &mut self.cache.levels[level];
        lv.results.clear();
        // Nothing changed since this mark: the result is the position as it is.
        lv.base = self.cache.board.mark();
        self.record(level);
    }

    /// Records the current position (with the piece of interest, below the
    /// top level) as a result of this level.
    fn record(&mut self, level: usize) {
        let c = &mut *self.cache;
        let lv = &mut c.levels[level];
        c.board.diff(lv.base, &mut c.diff);
        let poi = if level == 0 { None } else { c.pois.last().copied() };
        let key = c.board.hash ^ poi.map_or(0, |p| hash::poi(0, p.x, p.y, p.code)) ^ c.trace.key;
        let path = if c.tracing { &c.path[..] } else { &[] };
        lv.results.insert(key, &c.diff, poi, c.trace, path);
    }
}
