//! Games as learning environments: a fixed action space per rule file and
//! observations as planes over the board, for any rule file; and learning
//! the AI's evaluation from self-play ([`td`]).
//!
//! A move is played as its click sequence (the squares a person clicks, as
//! the web board takes them) cut into steps of two squares: a move of one
//! or two clicks is one action, a longer one (a checkers chain, Amazons'
//! queen move and arrow) one action per segment, the same player acting
//! until the move is complete. An action is `(from, to, tag)`: the tag says
//! whether the move goes on, or, on its last step, which piece stands on
//! its last square afterwards (a promotion's piece, a dropped piece, a
//! gate), so moves alike in their squares get different actions. One more
//! action is the pass (or any move without a square).

pub mod td;

use smallvec::SmallVec;

use crate::core::{Content, Coord};
use crate::engine::Cache;
use crate::game::{Action, Game, PlayError, State};

/// A step that leaves the move unfinished (more steps follow).
const GOES_ON: usize = 1;

/// The last step of a move after which its last square is empty.
const EMPTY_AFTER: usize = 0;

/// The steps of one move: the actions that play it, in order.
pub type Steps = SmallVec<[u32; 2]>;

/// The fixed action space of a rule file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionSpace {
    files: u32,
    ranks: u32,
    origin: Coord,
    /// Tags: empty after, goes on, then one per piece kind.
    tags: usize,
}

/// An action read back: its two squares (file, rank from the bottom left)
/// and what its tag says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A segment of a move: from one square to another (the same for a
    /// placement or a drop); `then` is what the step's tag says.
    Squares {
        /// The first square (file, rank).
        from: (u32, u32),
        /// The second square (file, rank).
        to: (u32, u32),
        /// What follows or what stands on `to` afterwards.
        then: Then,
    },
    /// A pass, or a move that changes no square.
    Pass,
}

/// What a step's tag says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Then {
    /// More steps follow.
    GoesOn,
    /// The move is complete and its last square is empty.
    Empty,
    /// The move is complete and this piece (by index in the rule file's
    /// declaration order) stands on its last square.
    Piece(usize),
}

impl ActionSpace {
    /// The action space of `game`: every pair of squares of its board's
    /// bounding box, times the tags, and the pass.
    pub fn new(game: &Game) -> ActionSpace {
        let (files, ranks) = game.dimensions();
        ActionSpace {
            files,
            ranks,
            origin: game.square_at(0, 0),
            tags: 2 + game.pieces().len(),
        }
    }

    /// The number of actions.
    pub fn len(&self) -> usize {
        self.squares() * self.squares() * self.tags + 1
    }

    /// Never empty: there is always the pass.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The pass's action.
    pub fn pass(&self) -> u32 {
        (self.len() - 1) as u32
    }

    fn squares(&self) -> usize {
        (self.files * self.ranks) as usize
    }

    /// A square's index (rank by rank from the bottom left), if in the box.
    fn index(&self, at: Coord) -> Option<usize> {
        let (f, r) = (at.x - self.origin.x, at.y - self.origin.y);
        (f >= 0 && r >= 0 && (f as u32) < self.files && (r as u32) < self.ranks)
            .then(|| r as usize * self.files as usize + f as usize)
    }

    fn code(&self, from: usize, to: usize, tag: usize) -> u32 {
        ((from * self.squares() + to) * self.tags + tag) as u32
    }

    /// What an action says, or `None` past the last.
    pub fn step(&self, action: u32) -> Option<Step> {
        let a = action as usize;
        if a + 1 == self.len() {
            return Some(Step::Pass);
        }
        if a >= self.len() {
            return None;
        }
        let tag = a % self.tags;
        let pair = a / self.tags;
        let (from, to) = (pair / self.squares(), pair % self.squares());
        let at = |i: usize| ((i % self.files as usize) as u32, (i / self.files as usize) as u32);
        let then = match tag {
            GOES_ON => Then::GoesOn,
            EMPTY_AFTER => Then::Empty,
            t => Then::Piece(t - 2),
        };
        Some(Step::Squares {
            from: at(from),
            to: at(to),
            then,
        })
    }

    /// The steps of each of `legal` (the legal moves of `state`), in order.
    pub fn encode(&self, game: &Game, state: &State, legal: &[Action]) -> Vec<Steps> {
        let clicks = game.click_sequences(state, legal);
        legal
            .iter()
            .zip(&clicks)
            .map(|(action, clicks)| self.steps(state, action, clicks))
            .collect()
    }

    fn steps(&self, state: &State, action: &Action, clicks: &[Coord]) -> Steps {
        let squares: SmallVec<[usize; 4]> = clicks.iter().filter_map(|&c| self.index(c)).collect();
        if squares.is_empty() {
            return SmallVec::from_slice(&[self.pass()]);
        }
        let last = *clicks.last().expect("clicks are not empty");
        let after = action
            .changes()
            .iter()
            .rev()
            .find(|c| c.at == last)
            .map_or_else(|| state.position().get(last), |c| c.content);
        let final_tag = match after {
            Content::Piece(p, _) => 2 + p.index(),
            _ => EMPTY_AFTER,
        };
        if squares.len() == 1 {
            return SmallVec::from_slice(&[self.code(squares[0], squares[0], final_tag)]);
        }
        let n = squares.len() - 1;
        (0..n)
            .map(|i| {
                let tag = if i + 1 == n { final_tag } else { GOES_ON };
                self.code(squares[i], squares[i + 1], tag)
            })
            .collect()
    }

    /// The number of observation planes of `game` (see [`observe`]).
    pub fn planes(game: &Game) -> usize {
        let pieces = game.pieces();
        pieces.len() + pieces.mark_count() + 1 + pieces.box_count() * pieces.len() + game.players().len() + 1
    }
}

/// The legal moves of a position with their steps, and where a move being
/// made stands: what a learning environment needs at each step.
#[derive(Clone, Debug)]
pub struct Choices {
    /// The legal moves.
    pub legal: Vec<Action>,
    /// Each move's steps.
    pub steps: Vec<Steps>,
}

impl Choices {
    /// The legal moves of `state` and their steps.
    pub fn of(
        game: &Game,
        space: &ActionSpace,
        state: &State,
        cache: &mut Cache,
    ) -> Result<Choices, PlayError> {
        let legal = game.legal_actions(state, cache)?;
        let steps = space.encode(game, state, &legal);
        Ok(Choices { legal, steps })
    }

    /// The actions that may follow the steps `done` of a move being made.
    pub fn next(&self, done: &[u32]) -> Vec<u32> {
        let mut next: Vec<u32> = self
            .steps
            .iter()
            .filter(|s| s.len() > done.len() && s.starts_with(done))
            .map(|s| s[done.len()])
            .collect();
        next.sort_unstable();
        next.dedup();
        next
    }

    /// The move that the steps `done` complete, if they complete one.
    pub fn completed(&self, done: &[u32]) -> Option<usize> {
        self.steps.iter().position(|s| s.as_slice() == done)
    }
}

/// The observation of `state`: planes over the board's bounding box, in
/// (rank from the top, file, plane) order, values as `f32`: one plane per
/// piece kind (each kind has one owner), one per mark, the holes (squares
/// not on the board), for each box and piece the count it holds (the same
/// value on every square), one per player (all ones for the player to
/// move), and the squares of the move being made (`pending`: its steps).
pub fn observe(game: &Game, space: &ActionSpace, state: &State, pending: &[u32]) -> Vec<f32> {
    let (files, ranks) = (space.files as usize, space.ranks as usize);
    let planes = ActionSpace::planes(game);
    let mut out = vec![0.0f32; files * ranks * planes];
    let pieces = game.pieces();
    let (np, nm, nb) = (pieces.len(), pieces.mark_count(), pieces.box_count());
    let holes = np + nm;
    let boxes = holes + 1;
    let players = boxes + nb * np;
    let moving = players + game.players().len();
    let cell = |file: usize, rank_from_top: usize| (rank_from_top * files + file) * planes;
    let mut on_board = vec![false; files * ranks];
    for (at, content) in state.position().squares() {
        let Some(i) = space.index(at) else { continue };
        on_board[i] = true;
        let (file, rank) = (i % files, i / files);
        let base = cell(file, ranks - 1 - rank);
        if let Content::Piece(p, marks) = content {
            out[base + p.index()] = 1.0;
            for m in 0..nm {
                if marks.0 & (1 << m) != 0 {
                    out[base + np + m] = 1.0;
                }
            }
        }
    }
    let turn = state.turn().index();
    for (i, &on) in on_board.iter().enumerate() {
        let base = cell(i % files, ranks - 1 - i / files);
        if !on {
            out[base + holes] = 1.0;
        }
        for slot in 0..nb * np {
            out[base + boxes + slot] = f32::from(state.position().tally(slot));
        }
        out[base + players + turn] = 1.0;
    }
    for &a in pending {
        if let Some(Step::Squares { from, to, .. }) = space.step(a) {
            for (f, r) in [from, to] {
                out[cell(f as usize, ranks - 1 - r as usize) + moving] = 1.0;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    use crate::game::test_game as load;

    #[test]
    fn chess_moves_are_one_action_each_and_read_back() {
        let game = load("rules/chess.alg");
        let space = ActionSpace::new(&game);
        assert_eq!(space.len(), 64 * 64 * 14 + 1);
        let state = game.from_fen("k7/4P3/8/8/8/8/8/7K w - - 0 1").unwrap();
        let c = Choices::of(&game, &space, &state, &mut Cache::new()).unwrap();
        let names = game.move_names(&state, &c.legal);
        let e7e8q = names.iter().position(|n| n == "e7e8q").unwrap();
        assert_eq!(c.steps[e7e8q].len(), 1);
        let queen = game.pieces().lookup('♕').unwrap().index();
        assert_eq!(
            space.step(c.steps[e7e8q][0]),
            Some(Step::Squares {
                from: (4, 6),
                to: (4, 7),
                then: Then::Piece(queen)
            })
        );
        assert_eq!(c.next(&[]).len(), c.legal.len(), "every first step is a move");
    }

    #[test]
    fn a_checkers_chain_is_one_action_per_jump() {
        let game = load("rules/checkers.alg");
        let space = ActionSpace::new(&game);
        let state = game.from_fen("B:W14,22,23,30:B9").unwrap();
        let c = Choices::of(&game, &space, &state, &mut Cache::new()).unwrap();
        assert!(c.steps.iter().all(|s| s.len() == 2));
        let first = c.next(&[]);
        assert_eq!(first.len(), 1, "both jumps start 9 to 18");
        let second = c.next(&first);
        assert_eq!(second.len(), 2, "then 25 or 27");
        assert!(c.completed(&first).is_none());
        assert!(c.completed(&[first[0], second[1]]).is_some());
        assert!(matches!(
            space.step(first[0]),
            Some(Step::Squares {
                then: Then::GoesOn,
                ..
            })
        ));
    }

    /// Along random games of every rule file, the legal moves' steps are
    /// all different and none is a prefix of another's unless it goes on:
    /// the actions cover every move, one way each.
    #[test]
    fn every_move_of_every_game_has_its_own_steps() {
        let mut files: Vec<_> = std::fs::read_dir("rules")
            .unwrap()
            .filter_map(|e| e.ok()?.path().to_str().map(str::to_string))
            .filter(|p| p.ends_with(".alg") && !p.ends_with("prelude.alg"))
            .collect();
        files.sort();
        let mut seed = 7u64;
        for path in files {
            let game = load(&path);
            let space = ActionSpace::new(&game);
            let mut cache = Cache::new();
            let mut state = game.initial();
            for _ in 0..60 {
                let c = Choices::of(&game, &space, &state, &mut cache).unwrap();
                if c.legal.is_empty()
                    || game
                        .ending_reason(&state, &c.legal, &mut cache)
                        .unwrap()
                        .is_some()
                {
                    break;
                }
                let mut seen = HashSet::new();
                for s in &c.steps {
                    assert!(seen.insert(s.clone()), "{path}: two moves share {s:?}");
                    assert!(s.iter().all(|&a| (a as usize) < space.len()));
                    for k in 1..s.len() {
                        assert!(
                            c.completed(&s[..k]).is_none(),
                            "{path}: a move is a prefix of another"
                        );
                    }
                }
                let obs = observe(&game, &space, &state, &[]);
                let (f, r) = game.dimensions();
                assert_eq!(obs.len(), (f * r) as usize * ActionSpace::planes(&game));
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let i = (seed >> 33) as usize % c.legal.len();
                state = game.play(&state, &c.legal[i]);
            }
        }
    }

    #[test]
    fn the_observation_has_pieces_holes_hands_and_the_turn() {
        let game = load("rules/crazyhouse.alg");
        let space = ActionSpace::new(&game);
        let state = game.from_fen("4k3/8/8/8/8/8/8/4K3[NNq] b - - 0 1").unwrap();
        let obs = observe(&game, &space, &state, &[]);
        let planes = ActionSpace::planes(&game);
        let np = game.pieces().len();
        let king = game.pieces().lookup('♔').unwrap().index();
        // e1: rank 1 is the last row from the top.
        let e1 = (7 * 8 + 4) * planes;
        assert_eq!(obs[e1 + king], 1.0);
        let nm = game.pieces().mark_count();
        assert_eq!(obs[e1 + np + nm], 0.0, "e1 is no hole");
        let knights: f32 = (0..game.pieces().box_count() * np)
            .map(|slot| obs[e1 + np + nm + 1 + slot])
            .sum();
        assert_eq!(knights, 3.0, "two knights and a queen in hand");
        let black = np + nm + 1 + game.pieces().box_count() * np + 1;
        assert_eq!(obs[black], 1.0, "black to move, on every square");
    }
}
