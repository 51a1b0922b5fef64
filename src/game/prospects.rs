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
const EXACT_SQUARES: usize = 100;

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

/// The changes of each move `owner`'s rules give on `position`, on the
/// game's engine (the fast one where it runs), legality not tested.
fn moves_of(
    game: &Game,
    owner: PlayerId,
    position: &Position,
    cache: &mut Cache,
) -> Result<Vec<Vec<Change>>, PlayError> {
    let mut all = Vec::new();
    game.engine
        .each_move(owner.index(), position, false, cache, &game.limits, &mut |s| {
            all.push(s.changes.to_vec());
            ControlFlow::Continue(())
        })?;
    Ok(all)
}

/// A set of square indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct SquareSet(Vec<u64>);

impl SquareSet {
    fn new(n: usize) -> SquareSet {
        SquareSet(vec![0; n.div_ceil(64)])
    }

    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn union_with(&mut self, other: &SquareSet) {
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
        let frame = game.frame;
        let squares: Vec<Coord> = game.initial.position().squares().map(|(at, _)| at).collect();
        let mut index = vec![None; (frame.files * frame.ranks) as usize];
        for (i, &at) in squares.iter().enumerate() {
            if let Some(k) = frame_index(frame, at) {
                index[k] = Some(i);
            }
        }
        let n = squares.len();
        let pieces = game.info.len();
        let node = |p: usize, s: usize| p * n + s;
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); pieces * n];
        let mut takes: Vec<SquareSet> = vec![SquareSet::new(n); pieces * n];
        let empty: Vec<(Coord, Content)> = squares.iter().map(|&at| (at, Content::Empty)).collect();
        let find = |at: Coord| frame_index(frame, at).and_then(|k| index[k]);
        for (p, info) in game.info.iter().enumerate() {
            let Some(owner) = info.owner else { continue };
            let Some(target) = victim(game, owner) else {
                continue;
            };
            let piece = Content::Piece(PieceId(p as u16), Marks::default());
            for (s, &from) in squares.iter().enumerate() {
                let mut board = empty.clone();
                board[s].1 = piece;
                // Where it can go alone on the board.
                let alone = Position::from_squares(board.iter().copied());
                for changes in moves_of(game, owner, &alone, cache)? {
                    for c in changes {
                        if let (Content::Piece(q, _), Some(t)) = (c.content, find(c.at))
                            && game.info[q.index()].owner == Some(owner)
                            && node(q.index(), t) != node(p, s)
                        {
                            next[node(p, s)].push(node(q.index(), t));
                        }
                    }
                }
                // What it can take: an opponent's piece on each other square,
                // alone or all at once.
                let setups: Vec<Position> = if one_target {
                    (0..n)
                        .filter(|&t| t != s)
                        .map(|t| {
                            let mut b = board.clone();
                            b[t].1 = target;
                            Position::from_squares(b)
                        })
                        .collect()
                } else {
                    let crowd = board
                        .iter()
                        .map(|&(at, c)| (at, if at == from { c } else { target }));
                    vec![Position::from_squares(crowd)]
                };
                for position in &setups {
                    for changes in moves_of(game, owner, position, cache)? {
                        for c in changes {
                            let Some(t) = find(c.at) else { continue };
                            if t == s || !matches!(position.get(c.at), Content::Piece(..)) {
                                continue;
                            }
                            takes[node(p, s)].insert(t);
                            if let Content::Piece(q, _) = c.content
                                && game.info[q.index()].owner == Some(owner)
                            {
                                next[node(p, s)].push(node(q.index(), t));
                            }
                        }
                    }
                }
            }
        }
        // Scope: what the squares reachable by its moves can take, together.
        let mut scope = vec![0; pieces * n];
        let mut seen = vec![false; pieces * n];
        let mut stack = Vec::new();
        for start in 0..pieces * n {
            seen.iter_mut().for_each(|v| *v = false);
            let mut all = SquareSet::new(n);
            stack.push(start);
            seen[start] = true;
            while let Some(k) = stack.pop() {
                all.union_with(&takes[k]);
                for &m in &next[k] {
                    if !seen[m] {
                        seen[m] = true;
                        stack.push(m);
                    }
                }
            }
            scope[start] = all.len();
        }
        let full = (0..pieces)
            .map(|p| (0..n).map(|s| scope[node(p, s)]).max().unwrap_or(0))
            .collect();
        let mut arrivals = vec![SquareSet::new(n); pieces];
        for edges in &next {
            for &m in edges {
                arrivals[m / n].insert(m % n);
            }
        }
        Ok(Prospects {
            squares: n,
            index,
            scope,
            full,
            arrivals,
        })
    }

    /// Prospects that know nothing: every scope 0, so no piece's value changes.
    pub fn unknown() -> Prospects {
        Prospects {
            squares: 0,
            index: Vec::new(),
            scope: Vec::new(),
            full: Vec::new(),
            arrivals: Vec::new(),
        }
    }

    /// Whether some move could leave `piece` on `at`; none when no move
    /// leaves it anywhere (its moves need more than one other piece, or
    /// it is only ever placed by moves that need context).
    pub fn arrives(&self, game: &Game, piece: PieceId, at: Coord) -> Option<bool> {
        let set = self.arrivals.get(piece.index()).filter(|s| s.len() > 0)?;
        let s = frame_index(game.frame, at).and_then(|k| self.index.get(k).copied().flatten())?;
        Some(set.0[s / 64] >> (s % 64) & 1 == 1)
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
