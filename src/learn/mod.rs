//! Games as learning environments: a fixed action space per rule file and
//! observations as planes over the board, for any rule file; and learning
//! the AI's evaluation from self-play ([`td`]).
//!
//! A move is played as its click sequence (the squares a person clicks, as
//! the web board takes them), in as few actions as the rule file allows,
//! as AlphaZero's encodings do by hand:
//!
//! - **a move**, one action for the first two clicks: a start square and a
//!   square at one of the displacements the rule file's moves make (a
//!   queen's lines and a knight's jumps in chess: [`Game::move_offsets`]);
//! - **a click**, one action per square: the first click of a move that is
//!   one square (a drop, a placement) or whose first displacement is not
//!   in the table, and every click after the first two (a checkers chain's
//!   next landing square, Amazons' arrow);
//! - **a choice**, when moves share their clicks (a promotion's piece, the
//!   piece dropped) or one move's clicks begin another's: what stands on
//!   the last clicked square afterwards (a piece, or nothing);
//! - **the pass**, a move without a square.
//!
//! Where every move puts one piece on one empty square (what
//! [`Game::placed_pieces`] reads from the compiled moves) there is no pass,
//! and no choice when each player has one piece to put down: Connect Four's
//! space is its 42 squares.
//!
//! So a chess move is one action (a promotion two: the move, then the
//! piece), a drop two (the square, then the piece), a placement in
//! Connect Four or Othello one. Each sequence of actions plays at most one
//! legal move in a position, and every legal move has one.

pub mod td;

use smallvec::SmallVec;

use crate::core::{Content, Coord};
use crate::engine::Cache;
use crate::game::{Action, Game, PlayError, State};

/// The steps of one move: the actions that play it, in order.
pub type Steps = SmallVec<[u32; 2]>;

/// The fixed action space of a rule file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionSpace {
    files: u32,
    ranks: u32,
    origin: Coord,
    /// The table's moves, in action order: (start, end) square indices,
    /// by start, then by end.
    moves: Vec<(u32, u32)>,
    /// Per start square, where its moves begin in `moves` (and, last, the
    /// end of `moves`).
    starts: Vec<u32>,
    /// The choices: "nothing" and one per piece kind, or none where no
    /// two moves can share their clicks (see [`ActionSpace::new`]).
    choices: usize,
    /// Whether there is a pass action (a move without a square may come).
    pass: bool,
}

/// An action read back, with squares as (file, rank) from the bottom left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The first two clicks of a move: its start and a square at one of the
    /// table's displacements from it.
    Move {
        /// The start square.
        from: (u32, u32),
        /// The second square clicked.
        to: (u32, u32),
    },
    /// One square clicked.
    Click {
        /// The square.
        at: (u32, u32),
    },
    /// Among moves with the same clicks, the one after which this stands
    /// on the last square clicked.
    Choose(Then),
    /// A pass, or a move that changes no square.
    Pass,
}

/// What stands on a move's last clicked square afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Then {
    /// Nothing.
    Empty,
    /// This piece (by index in the rule file's declaration order).
    Piece(usize),
}

impl ActionSpace {
    /// The action space of `game`: the table's moves (every start square
    /// of the board's bounding box and every displacement of
    /// [`Game::move_offsets`] that stays in it), a click per square, a
    /// choice per piece kind and one for nothing, and the pass. Where
    /// every move puts one piece on one empty square ([`Game::placed_pieces`])
    /// there is no pass, and no choice when each player has one piece to
    /// put down (two moves on one square would be one move): Connect
    /// Four's space is its squares.
    pub fn new(game: &Game) -> ActionSpace {
        let (files, ranks) = game.dimensions();
        let squares = (files * ranks) as usize;
        let mut moves = Vec::new();
        let mut starts = Vec::with_capacity(squares + 1);
        // By rank, then file: each start's ends come in increasing order.
        let mut offsets = game.move_offsets();
        offsets.sort_unstable_by_key(|&(dx, dy)| (dy, dx));
        for from in 0..squares as u32 {
            starts.push(moves.len() as u32);
            let (f, r) = ((from % files) as i32, (from / files) as i32);
            for &(dx, dy) in &offsets {
                let (tf, tr) = (f + dx, r + dy);
                if tf < 0 || tr < 0 || tf >= files as i32 || tr >= ranks as i32 {
                    continue;
                }
                moves.push((from, tr as u32 * files + tf as u32));
            }
        }
        starts.push(moves.len() as u32);
        let placed = game.placed_pieces();
        let one_each = placed
            .as_ref()
            .is_some_and(|p| p.iter().all(|kinds| kinds.len() <= 1));
        ActionSpace {
            files,
            ranks,
            origin: game.square_at(0, 0),
            moves,
            starts,
            choices: if one_each { 0 } else { 1 + game.pieces().len() },
            pass: placed.is_none(),
        }
    }

    /// The number of actions.
    pub fn len(&self) -> usize {
        self.moves.len() + self.squares() + self.choices + usize::from(self.pass)
    }

    /// Whether there is no action (a board without squares and no pass).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of table moves (the actions before the clicks).
    pub fn table_moves(&self) -> usize {
        self.moves.len()
    }

    /// The pass's action, if there is one.
    pub fn pass(&self) -> Option<u32> {
        self.pass.then(|| (self.len() - 1) as u32)
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

    /// The table move from square `from` to square `to`, if there is one.
    fn table_move(&self, from: usize, to: usize) -> Option<u32> {
        let (a, b) = (self.starts[from] as usize, self.starts[from + 1] as usize);
        let k = self.moves[a..b]
            .binary_search_by_key(&(to as u32), |&(_, t)| t)
            .ok()?;
        Some((a + k) as u32)
    }

    fn click(&self, square: usize) -> u32 {
        (self.moves.len() + square) as u32
    }

    fn choose(&self, then: Then) -> u32 {
        let k = match then {
            Then::Empty => 0,
            Then::Piece(p) => 1 + p,
        };
        (self.moves.len() + self.squares() + k) as u32
    }

    fn file_rank(&self, square: u32) -> (u32, u32) {
        (square % self.files, square / self.files)
    }

    /// What an action says, or `None` past the last.
    pub fn step(&self, action: u32) -> Option<Step> {
        let a = action as usize;
        let (moves, squares) = (self.moves.len(), self.squares());
        Some(if a < moves {
            let (from, to) = self.moves[a];
            Step::Move {
                from: self.file_rank(from),
                to: self.file_rank(to),
            }
        } else if a < moves + squares {
            Step::Click {
                at: self.file_rank((a - moves) as u32),
            }
        } else if a < moves + squares + self.choices {
            Step::Choose(match a - moves - squares {
                0 => Then::Empty,
                k => Then::Piece(k - 1),
            })
        } else if self.pass && a + 1 == self.len() {
            Step::Pass
        } else {
            return None;
        })
    }

    /// The steps of each of `legal` (the legal moves of `state`), in order.
    pub fn encode(&self, game: &Game, state: &State, legal: &[Action]) -> Vec<Steps> {
        let clicks = game.click_sequences(state, legal);
        let mut steps: Vec<Steps> = clicks.iter().map(|c| self.clicked(c)).collect();
        // Without choices (see `new`), no two moves share their clicks.
        if self.choices == 0 {
            return steps;
        }
        // A choice ends the moves whose clicks another move shares or goes
        // on from: sorted, such a move has a neighbour equal to it, or the
        // next one different begins with it.
        let mut order: Vec<usize> = (0..steps.len()).collect();
        order.sort_unstable_by(|&a, &b| steps[a].cmp(&steps[b]));
        let mut chosen = vec![false; steps.len()];
        let mut start = 0;
        for k in 1..=order.len() {
            if k < order.len() && steps[order[k]] == steps[order[start]] {
                continue;
            }
            let run = &order[start..k];
            let goes_on = k < order.len() && steps[order[k]].starts_with(&steps[order[start]]);
            if run.len() > 1 || goes_on {
                run.iter().for_each(|&i| chosen[i] = true);
            }
            start = k;
        }
        for (i, s) in steps.iter_mut().enumerate() {
            if chosen[i] {
                s.push(self.choose(self.then(state, &legal[i], &clicks[i])));
            }
        }
        steps
    }

    /// The actions of a click sequence, before any choice.
    fn clicked(&self, clicks: &[Coord]) -> Steps {
        let squares: SmallVec<[usize; 4]> = clicks.iter().filter_map(|&c| self.index(c)).collect();
        if squares.is_empty() {
            // Without a pass (see `new`), every move has a square.
            return self.pass().into_iter().collect();
        }
        match squares.get(1).and_then(|&to| self.table_move(squares[0], to)) {
            Some(head) => std::iter::once(head)
                .chain(squares[2..].iter().map(|&sq| self.click(sq)))
                .collect(),
            None => squares.iter().map(|&sq| self.click(sq)).collect(),
        }
    }

    /// What stands on the last clicked square after `action`.
    fn then(&self, state: &State, action: &Action, clicks: &[Coord]) -> Then {
        let Some(&last) = clicks.last() else {
            return Then::Empty;
        };
        let after = action
            .changes()
            .iter()
            .rev()
            .find(|c| c.at == last)
            .map_or_else(|| state.position().get(last), |c| c.content);
        match after {
            Content::Piece(p, _) => Then::Piece(p.index()),
            _ => Then::Empty,
        }
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
    let planes = ActionSpace::planes(game);
    let mut out = vec![0.0f32; (space.files * space.ranks) as usize * planes];
    observe_into(game, space, state, pending, &mut out);
    out
}

/// [`observe`] written into `out` (of the observation's length: ranks x
/// files x planes), whatever it held before.
pub fn observe_into(game: &Game, space: &ActionSpace, state: &State, pending: &[u32], out: &mut [f32]) {
    let (files, ranks) = (space.files as usize, space.ranks as usize);
    let planes = ActionSpace::planes(game);
    assert_eq!(out.len(), files * ranks * planes, "an observation's length");
    out.fill(0.0);
    let pieces = game.pieces();
    let (np, nm, nb) = (pieces.len(), pieces.mark_count(), pieces.box_count());
    let holes = np + nm;
    let boxes = holes + 1;
    let players = boxes + nb * np;
    let moving = players + game.players().len();
    let cell = |file: usize, rank_from_top: usize| (rank_from_top * files + file) * planes;
    let position = state.position();
    let tallies: SmallVec<[f32; 16]> = (0..nb * np).map(|slot| f32::from(position.tally(slot))).collect();
    let turn = state.turn().index();
    for rank in 0..ranks {
        for file in 0..files {
            let base = cell(file, ranks - 1 - rank);
            let at = Coord::new(space.origin.x + file as i32, space.origin.y + rank as i32);
            match position.get(at) {
                Content::Piece(p, marks) => {
                    out[base + p.index()] = 1.0;
                    for m in 0..nm {
                        if marks.0 & (1 << m) != 0 {
                            out[base + np + m] = 1.0;
                        }
                    }
                }
                Content::Empty => {}
                Content::NoSquare | Content::Count(_) => out[base + holes] = 1.0,
            }
            out[base + boxes..base + boxes + nb * np].copy_from_slice(&tallies);
            out[base + players + turn] = 1.0;
        }
    }
    for &a in pending {
        let squares = match space.step(a) {
            Some(Step::Move { from, to }) => [Some(from), Some(to)],
            Some(Step::Click { at }) => [Some(at), None],
            _ => [None, None],
        };
        for (f, r) in squares.into_iter().flatten() {
            out[cell(f as usize, ranks - 1 - r as usize) + moving] = 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Rng;
    use std::collections::HashSet;

    use crate::game::test_game as load;

    #[test]
    fn chess_moves_are_one_action_each_and_read_back() {
        let game = load("rules/chess.alg");
        let space = ActionSpace::new(&game);
        // A queen's lines and a knight's jumps from every square that stay
        // on the board (1,456 + 336), a click per square, nothing or one of
        // 12 pieces, the pass.
        assert_eq!(space.table_moves(), 1456 + 336);
        assert_eq!(space.len(), 1792 + 64 + 13 + 1);
        let state = game.from_fen("k7/4P3/8/8/8/8/8/7K w - - 0 1").unwrap();
        let c = Choices::of(&game, &space, &state, &mut Cache::new()).unwrap();
        let names = game.move_names(&state, &c.legal);
        let e7e8q = names.iter().position(|n| n == "e7e8q").unwrap();
        let h1g1 = names.iter().position(|n| n == "h1g1").unwrap();
        assert_eq!(c.steps[h1g1].len(), 1, "a move is one action");
        assert_eq!(c.steps[e7e8q].len(), 2, "a promotion is the move, then the piece");
        let queen = game.pieces().lookup('♕').unwrap().index();
        assert_eq!(
            space.step(c.steps[e7e8q][0]),
            Some(Step::Move {
                from: (4, 6),
                to: (4, 7)
            })
        );
        assert_eq!(
            space.step(c.steps[e7e8q][1]),
            Some(Step::Choose(Then::Piece(queen)))
        );
        // The king's three moves and the pawn's one first step.
        assert_eq!(c.next(&[]).len(), 4);
        assert_eq!(c.next(&c.steps[e7e8q][..1]).len(), 4, "four pieces to choose");
    }

    #[test]
    fn a_checkers_chain_is_one_action_per_jump() {
        let game = load("rules/checkers.alg");
        let space = ActionSpace::new(&game);
        assert!(space.len() <= 1024, "{}", space.len());
        let state = game.from_fen("B:W14,22,23,30:B9").unwrap();
        let c = Choices::of(&game, &space, &state, &mut Cache::new()).unwrap();
        assert!(c.steps.iter().all(|s| s.len() == 2));
        let first = c.next(&[]);
        assert_eq!(first.len(), 1, "both jumps start 9 to 18");
        assert!(matches!(space.step(first[0]), Some(Step::Move { .. })));
        let second = c.next(&first);
        assert_eq!(second.len(), 2, "then 25 or 27");
        assert!(c.completed(&first).is_none());
        assert!(c.completed(&[first[0], second[1]]).is_some());
        assert!(matches!(space.step(second[0]), Some(Step::Click { .. })));
    }

    #[test]
    fn drops_and_placements_are_a_square_and_a_piece() {
        let game = load("rules/crazyhouse.alg");
        let space = ActionSpace::new(&game);
        let state = game.from_fen("4k3/8/8/8/8/8/8/4K3[NQ] w - - 0 1").unwrap();
        let c = Choices::of(&game, &space, &state, &mut Cache::new()).unwrap();
        let names = game.move_names(&state, &c.legal);
        let drop = names.iter().position(|n| n == "N@d4").unwrap();
        let knight = game.pieces().lookup('♘').unwrap().index();
        assert_eq!(
            c.steps[drop]
                .iter()
                .map(|&a| space.step(a).unwrap())
                .collect::<Vec<_>>(),
            vec![Step::Click { at: (3, 3) }, Step::Choose(Then::Piece(knight))]
        );
        let connect4 = load("rules/connect4.alg");
        let space = ActionSpace::new(&connect4);
        // Every move puts a player's one disc on an empty square: the
        // space is the squares, without choices or a pass.
        assert_eq!(space.len(), 42);
        assert_eq!(space.pass(), None);
        assert_eq!(space.step(42), None);
        let c = Choices::of(&connect4, &space, &connect4.initial(), &mut Cache::new()).unwrap();
        assert_eq!(c.legal.len(), 7);
        assert!(c.steps.iter().all(|s| s.len() == 1), "a placement is one click");
    }

    #[test]
    fn placement_games_say_which_pieces_their_moves_put_down() {
        let ttt = load("rules/tictactoe.alg");
        let placed = ttt.placed_pieces().expect("tic-tac-toe's moves are placements");
        assert_eq!(placed.len(), 2);
        assert!(placed.iter().all(|p| p.len() == 1) && placed[0] != placed[1]);
        assert_eq!(ActionSpace::new(&ttt).len(), 9);
        // Moves that move a piece, drop from a box, flip, or pass are not.
        for file in [
            "rules/chess.alg",
            "rules/crazyhouse.alg",
            "rules/othello.alg",
            "rules/checkers.alg",
        ] {
            assert_eq!(load(file).placed_pieces(), None, "{file}");
        }
    }

    /// The sizes the learning environments of OpenSpiel and pgx have by
    /// hand, at most twice over (shogi aside: see the README's table).
    #[test]
    fn action_spaces_are_as_small_as_hand_made_ones() {
        for (file, most) in [
            ("rules/chess.alg", 9_348),
            ("rules/checkers.alg", 1_024),
            ("rules/othello.alg", 130),
            ("rules/tictactoe.alg", 18),
            ("rules/connect4.alg", 42),
        ] {
            let len = ActionSpace::new(&load(file)).len();
            assert!(len <= most, "{file}: {len} actions, more than {most}");
        }
    }

    /// Along random games of every rule file, the legal moves' steps are
    /// all different and none is a prefix of another's: the actions cover
    /// every move, and each sequence plays at most one.
    #[test]
    fn every_move_of_every_game_has_its_own_steps() {
        let mut files: Vec<_> = std::fs::read_dir("rules")
            .unwrap()
            .filter_map(|e| e.ok()?.path().to_str().map(str::to_string))
            .filter(|p| p.ends_with(".alg") && !p.ends_with("prelude.alg"))
            .collect();
        files.sort();
        let mut rng = Rng::new(7);
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
                    // Each action says what it is, and the move's squares agree.
                    assert!(s.iter().all(|&a| space.step(a).is_some()));
                }
                let obs = observe(&game, &space, &state, &[]);
                let (f, r) = game.dimensions();
                assert_eq!(obs.len(), (f * r) as usize * ActionSpace::planes(&game));
                let i = rng.below(c.legal.len());
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
