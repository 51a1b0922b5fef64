//! Prospects: what each piece could still do from each square, worked out
//! once per game from the rule file's moves on an otherwise empty board.
//!
//! A piece's *scope* on a square is how many squares it could ever take on,
//! by any sequence of its own moves (promotions included) from there. In
//! chess every piece keeps its whole scope wherever it stands; in a game
//! whose pieces only move forward, a piece that has advanced has lost part
//! of it, and one that can no longer move has none. The AI values pieces by
//! the share of their scope they keep.

use crate::core::Change;
use crate::core::{Content, Coord};
use crate::core::{Marks, PieceId, PlayerId};
use crate::engine::{Cache, Position};
use std::ops::ControlFlow;

use super::{Game, PlayError};

/// Boards up to this many squares try each capture with its target alone.
pub(super) const EXACT_SQUARES: usize = 100;

/// Where each piece could still go and what it could still take, per square.
#[derive(Clone, Debug)]
pub struct Prospects {
    /// How many squares the board has (numbered in reading order).
    squares: usize,
    /// For each square of the frame (row-major from the frame's corner), its number.
    index: Vec<Option<usize>>,
    /// Scope per (piece, square): squares it could ever take on from there.
    scope: Vec<u32>,
    /// The largest scope of each piece over all squares.
    full: Vec<u32>,
    /// Per piece: the squares some move (of any of its owner's pieces,
    /// alone or taking one piece) leaves it on.
    arrivals: Vec<SquareSet>,
}

/// Calls `found` with the changes of each move `owner`'s rules give on
/// `position`, on the game's engine (the fast one where it runs), legality
/// not tested.
fn each_move_of(
    game: &Game,
    owner: PlayerId,
    position: &Position,
    cache: &mut Cache,
    mut found: impl FnMut(&[Change]),
) -> Result<(), PlayError> {
    game.engine
        .each_move(owner.index(), position, false, cache, &game.limits, &mut |s| {
            found(s.changes);
            ControlFlow::Continue(())
        })?;
    Ok(())
}

/// A set of square indices, as wide as its largest member needs (an empty
/// one takes no room).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct SquareSet(Vec<u64>);

impl SquareSet {
    fn insert(&mut self, i: usize) {
        if self.0.len() <= i / 64 {
            self.0.resize(i / 64 + 1, 0);
        }
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    fn union_with(&mut self, other: &SquareSet) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
}

impl Prospects {
    /// Works out every piece's prospects on `game`'s board: for each piece
    /// with an owner and each square, the moves it has there alone on the
    /// board and the squares it could take an opponent's piece on.
    ///
    /// On boards of up to `EXACT_SQUARES` (100) squares each capture is tried with
    /// the opponent's piece alone on its square (one search per pair of
    /// squares); on larger boards with an opponent's piece on every other
    /// square at once (one search per square), which finds the same scope for
    /// pieces that slide or leap and keeps the work linear in the board.
    pub fn new(game: &Game, cache: &mut Cache) -> Result<Prospects, PlayError> {
        let alone = game.initial.position().len() <= EXACT_SQUARES;
        Prospects::build(game, cache, alone)
    }

    /// [`Prospects::new`], with captures tried one target at a time or all at once.
    pub(super) fn build(game: &Game, cache: &mut Cache, one_target: bool) -> Result<Prospects, PlayError> {
        Progress::new(game, one_target).resume(game, cache)
    }

    /// Prospects that know nothing: every scope 0, so no piece's value changes.
    pub fn unknown() -> Prospects {
        UNKNOWN.clone()
    }

    /// [`Prospects::unknown`], for as long as a caller likes.
    pub(super) fn none() -> &'static Prospects {
        &UNKNOWN
    }

    /// Whether some move could leave `piece` on `at`; none when no move
    /// leaves it anywhere (its moves need more than one other piece, or
    /// it is only ever placed by moves that need context).
    pub fn arrives(&self, game: &Game, piece: PieceId, at: Coord) -> Option<bool> {
        let set = self.arrivals.get(piece.index()).filter(|s| s.len() > 0)?;
        let s = frame_index(game.frame, at).and_then(|k| self.index.get(k).copied().flatten())?;
        Some(set.contains(s))
    }

    /// How many squares `piece` could ever take on from `at` (0 off the board).
    pub fn scope(&self, game: &Game, piece: PieceId, at: Coord) -> u32 {
        match frame_index(game.frame, at).and_then(|k| self.index.get(k).copied().flatten()) {
            Some(s) => self
                .scope
                .get(piece.index() * self.squares + s)
                .copied()
                .unwrap_or(0),
            None => 0,
        }
    }

    /// The largest scope `piece` has on any square.
    pub fn full_scope(&self, piece: PieceId) -> u32 {
        self.full.get(piece.index()).copied().unwrap_or(0)
    }
}

/// Prospects that know nothing (see [`Prospects::unknown`]).
static UNKNOWN: Prospects = Prospects {
    squares: 0,
    index: Vec::new(),
    scope: Vec::new(),
    full: Vec::new(),
    arrivals: Vec::new(),
};

/// Prospects being worked out: the board's squares, and what the searches
/// made so far found, node (piece, square) by node. What a search finds is
/// kept once it is made, so work stopped by a deadline
/// ([`Cache::set_deadline`]) goes on from the search it stopped in when
/// [`Progress::resume`] is called again.
#[derive(Debug)]
pub(super) struct Progress {
    /// The board's squares, in reading order.
    squares: Vec<Coord>,
    /// For each square of the frame (row-major from the frame's corner), its number.
    index: Vec<Option<usize>>,
    /// Per node (piece, square) `piece * squares + square`: the nodes its
    /// moves lead to, each once, sorted.
    next: Vec<Vec<u32>>,
    /// Per node: the squares it could take an opponent's piece on.
    takes: Vec<SquareSet>,
    /// How many nodes' searches are all made.
    done: usize,
    /// How many searches of the next node are made.
    made: usize,
    /// Whether captures are tried one target at a time (else all at once).
    one_target: bool,
}

impl Progress {
    /// Nothing searched yet, on `game`'s board.
    pub(super) fn new(game: &Game, one_target: bool) -> Progress {
        let frame = game.frame;
        let squares: Vec<Coord> = game.initial.position().squares().map(|(at, _)| at).collect();
        let mut index = vec![None; (frame.files * frame.ranks) as usize];
        for (i, &at) in squares.iter().enumerate() {
            if let Some(k) = frame_index(frame, at) {
                index[k] = Some(i);
            }
        }
        let nodes = game.info.len() * squares.len();
        Progress {
            squares,
            index,
            next: vec![Vec::new(); nodes],
            takes: vec![SquareSet::default(); nodes],
            done: 0,
            made: 0,
            one_target,
        }
    }

    /// Makes the searches not made yet, then works the prospects out; an
    /// error where a search fails (with the work done before it kept).
    pub(super) fn resume(&mut self, game: &Game, cache: &mut Cache) -> Result<Prospects, PlayError> {
        let n = self.squares.len().max(1);
        while self.done < self.next.len() {
            let (p, s) = (self.done / n, self.done % n);
            while let Some((next, takes)) = self.search(game, p, s, self.made, cache)? {
                // What a search found is kept once it is made.
                self.next[self.done].extend(next);
                self.takes[self.done].union_with(&takes);
                self.made += 1;
            }
            let edges = &mut self.next[self.done];
            edges.sort_unstable();
            edges.dedup();
            self.done += 1;
            self.made = 0;
        }
        Ok(self.prospects(game))
    }

    /// Search `k` of piece `p` on square `s`: the nodes its moves lead to
    /// and the squares it takes on. The first search has the piece alone on
    /// the board; the next ones put an opponent's piece on each other
    /// square in turn, or (one search) on all of them at once. None past
    /// the last, or for a piece that takes nothing.
    fn search(
        &self,
        game: &Game,
        p: usize,
        s: usize,
        k: usize,
        cache: &mut Cache,
    ) -> Result<Option<(Vec<u32>, SquareSet)>, PlayError> {
        let info = &game.info[p];
        let (Some(owner), Some(target)) = (info.owner, info.owner.and_then(|o| victim(game, o))) else {
            return Ok(None);
        };
        let n = self.squares.len();
        let piece = Content::Piece(PieceId(p as u16), Marks::default());
        let mut board: Vec<(Coord, Content)> = self.squares.iter().map(|&at| (at, Content::Empty)).collect();
        board[s].1 = piece;
        match k {
            0 => {}
            _ if self.one_target => {
                // The (k - 1)th square other than `s`.
                let t = if k - 1 < s { k - 1 } else { k };
                if t >= n {
                    return Ok(None);
                }
                board[t].1 = target;
            }
            1 => {
                for (t, cell) in board.iter_mut().enumerate() {
                    if t != s {
                        cell.1 = target;
                    }
                }
            }
            _ => return Ok(None),
        }
        let position = Position::from_squares(board);
        let node = |q: usize, t: usize| (q * n + t) as u32;
        let find = |at: Coord| frame_index(game.frame, at).and_then(|k| self.index[k]);
        let mut next = Vec::new();
        let mut takes = SquareSet::default();
        each_move_of(game, owner, &position, cache, |changes| {
            for c in changes {
                let Some(t) = find(c.at) else { continue };
                let taken = matches!(position.get(c.at), Content::Piece(..));
                if k == 0 {
                    // Where it can go alone on the board.
                    if let Content::Piece(q, _) = c.content
                        && game.info[q.index()].owner == Some(owner)
                        && node(q.index(), t) != node(p, s)
                    {
                        next.push(node(q.index(), t));
                    }
                } else if t != s && taken {
                    // What it can take.
                    takes.insert(t);
                    if let Content::Piece(q, _) = c.content
                        && game.info[q.index()].owner == Some(owner)
                    {
                        next.push(node(q.index(), t));
                    }
                }
            }
        })?;
        Ok(Some((next, takes)))
    }

    /// The prospects, every search made: each node's scope is what the
    /// nodes reachable from it can take, together, worked out once per
    /// strongly connected component of the graph of moves (in Tarjan's
    /// order, every component after those its edges lead to).
    fn prospects(&self, game: &Game) -> Prospects {
        let n = self.squares.len();
        let pieces = game.info.len();
        let (component, count) = components(&self.next);
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
        for (v, &c) in component.iter().enumerate() {
            members[c as usize].push(v);
        }
        let mut reach: Vec<SquareSet> = Vec::with_capacity(count);
        // The last component whose reach took in each component's.
        let mut joined = vec![usize::MAX; count];
        for (c, nodes) in members.iter().enumerate() {
            let mut all = SquareSet::default();
            for &v in nodes {
                all.union_with(&self.takes[v]);
                for &w in &self.next[v] {
                    let d = component[w as usize] as usize;
                    if d != c && joined[d] != c {
                        joined[d] = c;
                        all.union_with(&reach[d]);
                    }
                }
            }
            reach.push(all);
        }
        let scope: Vec<u32> = component.iter().map(|&c| reach[c as usize].len()).collect();
        let full = (0..pieces)
            .map(|p| (0..n).map(|s| scope[p * n + s]).max().unwrap_or(0))
            .collect();
        let mut arrivals = vec![SquareSet::default(); pieces];
        for edges in &self.next {
            for &m in edges {
                let m = m as usize;
                arrivals[m / n].insert(m % n);
            }
        }
        Prospects {
            squares: n,
            index: self.index.clone(),
            scope,
            full,
            arrivals,
        }
    }
}

/// The strongly connected components of the graph whose edges from node
/// `v` are `next[v]`: each node's component, and how many there are. The
/// components are numbered in Tarjan's order: an edge leads to a component
/// of the same number or a lower one. (Iterative: no recursion however
/// large the graph.)
fn components(next: &[Vec<u32>]) -> (Vec<u32>, usize) {
    const UNSEEN: u32 = u32::MAX;
    let nodes = next.len();
    let mut index = vec![UNSEEN; nodes];
    let mut low = vec![0u32; nodes];
    let mut component = vec![UNSEEN; nodes];
    let mut stacked = vec![false; nodes];
    let mut stack: Vec<u32> = Vec::new();
    // The depth-first path: each node with the number of its edges followed.
    let mut path: Vec<(u32, usize)> = Vec::new();
    let (mut counter, mut count) = (0u32, 0u32);
    for root in 0..nodes {
        if index[root] != UNSEEN {
            continue;
        }
        path.push((root as u32, 0));
        while let Some(&(v, e)) = path.last() {
            let v = v as usize;
            if index[v] == UNSEEN {
                // The first arrival at `v`.
                index[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v as u32);
                stacked[v] = true;
            }
            if let Some(&w) = next[v].get(e) {
                let top = path.len() - 1;
                path[top].1 += 1;
                let w = w as usize;
                if index[w] == UNSEEN {
                    path.push((w as u32, 0));
                } else if stacked[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            path.pop();
            if let Some(&(u, _)) = path.last() {
                low[u as usize] = low[u as usize].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    stacked[w as usize] = false;
                    component[w as usize] = count;
                    if w as usize == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    (component, count as usize)
}

/// The piece a capture test puts in the way of `owner`'s pieces: an
/// opponent's royal piece if there is one (what the AI cares to reach),
/// else any opponent's piece.
fn victim(game: &Game, owner: PlayerId) -> Option<Content> {
    let theirs = |royal: bool| {
        game.info
            .iter()
            .position(|i| i.owner.is_some_and(|o| o != owner) && (i.royal || !royal))
    };
    theirs(true)
        .or_else(|| theirs(false))
        .map(|p| Content::Piece(PieceId(p as u16), Marks::default()))
}

/// The index of `at` in the frame's row-major grid, if inside it.
fn frame_index(frame: super::BoardBox, at: Coord) -> Option<usize> {
    let (x, y) = (at.x - frame.x0, at.y - frame.y0);
    (x >= 0 && y >= 0 && (x as u32) < frame.files && (y as u32) < frame.ranks)
        .then(|| (y as u32 * frame.files + x as u32) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::Spec;
    use crate::source::Source;

    fn game(path: &str) -> Game {
        let text = std::fs::read_to_string(path).unwrap();
        let (rules, _) = Spec::load(&Source::new(path, text)).unwrap();
        Game::new(&rules).unwrap()
    }

    /// Work stopped by a deadline goes on where it stopped: prospects
    /// worked out a little at a time are those worked out at once, and the
    /// game keeps them; meanwhile the game knows nothing.
    #[test]
    fn prospects_stopped_by_deadlines_go_on_to_the_same_result() {
        for path in [
            "rules/chess.alg",
            "rules/irreversible.alg",
            "tests/data/chess40.alg",
        ] {
            let whole = game(path);
            let mut cache = Cache::new();
            let at_once = whole.prospects(&mut cache).clone();
            let game = game(path);
            let mut calls = 0;
            while game.prospects.get().is_none() {
                calls += 1;
                assert!(calls < 1_000_000, "{path}: no progress");
                cache.set_deadline(Some(
                    std::time::Instant::now() + std::time::Duration::from_micros(200),
                ));
                let p = game.prospects(&mut cache);
                if game.prospects.get().is_none() {
                    assert!(p.scope.is_empty() && game.known_prospects().scope.is_empty());
                }
            }
            cache.set_deadline(None);
            eprintln!("{path}: {calls} calls");
            assert!(calls > 2, "{path}: {calls} calls");
            let piecemeal = game.known_prospects();
            assert_eq!(piecemeal.scope, at_once.scope, "{path}");
            assert_eq!(piecemeal.full, at_once.full, "{path}");
            assert_eq!(piecemeal.arrivals, at_once.arrivals, "{path}");
            assert!(at_once.scope.iter().any(|&s| s > 0), "{path}");
        }
    }

    /// The quick way (all targets at once) finds the same scopes as the exact one.
    #[test]
    fn crowded_boards_give_the_same_scopes() {
        for path in [
            "rules/chess.alg",
            "rules/irreversible.alg",
            "rules/irreversible-captures.alg",
        ] {
            let game = game(path);
            let mut cache = Cache::new();
            let exact = Prospects::build(&game, &mut cache, true).unwrap();
            let quick = Prospects::build(&game, &mut cache, false).unwrap();
            assert_eq!(exact.scope, quick.scope, "{path}");
            assert!(exact.scope.iter().any(|&s| s > 0));
            // Knowing nothing changes no value: every scope is 0.
            let unknown = Prospects::unknown();
            let at = game.initial.position().squares().next().unwrap().0;
            assert_eq!(unknown.scope(&game, PieceId(0), at), 0);
            assert_eq!(unknown.full_scope(PieceId(0)), 0);
        }
    }
}
