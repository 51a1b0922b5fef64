//! A learned evaluation: a weight per generic feature of a position, the
//! same for every rule file: each piece kind's value, its value on each
//! square (a piece-square table), each mark it carries, and each piece a box
//! holds. A position is scored for the player to move: the features of that
//! player's pieces count for it, the others' against. Written by
//! `chessalg train` as JSON; read by `play`, `match`, `uci` and `serve`
//! (`--weights FILE`).

use serde::{Deserialize, Serialize};

use crate::core::{Content, PlayerId};
use crate::game::{Game, State};

/// The weights of one game's evaluation, in hundredths of a value point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// The game they were learned for (its `game` name).
    pub game: String,
    /// The board's bounding box: files, ranks.
    pub files: u32,
    /// See `files`.
    pub ranks: u32,
    /// Each piece kind's value, in declaration order.
    pub pieces: Vec<f32>,
    /// Each piece kind's value on each square, kind by kind, squares rank
    /// by rank from the bottom left.
    pub squares: Vec<f32>,
    /// Each piece kind's value for each mark it carries, kind by kind.
    pub marks: Vec<f32>,
    /// Each box slot's value per piece it holds.
    pub hands: Vec<f32>,
    /// How many self-play games trained them.
    #[serde(default)]
    pub games: u64,
}

/// Why a weights file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum WeightsError {
    /// The file cannot be read or written.
    #[error("{path}: {reason}")]
    #[diagnostic(code(chessalg::ai::weights_file))]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The file is not weights JSON.
    #[error("{path} is not a weights file: {reason}")]
    #[diagnostic(
        code(chessalg::ai::weights_json),
        help("`chessalg train RULES --out FILE` writes one")
    )]
    Json {
        /// The file.
        path: String,
        /// The parser's complaint.
        reason: String,
    },
    /// The weights are for another game or board.
    #[error("{path} holds weights for {found}, not for {expected}")]
    #[diagnostic(
        code(chessalg::ai::weights_game),
        help("train weights for this rule file with `chessalg train`")
    )]
    OtherGame {
        /// The file.
        path: String,
        /// What it is for.
        found: String,
        /// What this game needs.
        expected: String,
    },
}

/// A feature of a position and how much of it there is (signed: positive
/// for the player to move).
pub type Feature = (usize, f32);

impl Weights {
    /// The starting weights of `game`: the declared values (in hundredths)
    /// and nothing else, what the untrained evaluation knows.
    pub fn initial(game: &Game) -> Weights {
        let (files, ranks) = game.dimensions();
        let pieces = game.pieces();
        let np = pieces.len();
        Weights {
            game: game.name().to_string(),
            files,
            ranks,
            pieces: pieces
                .ids()
                .map(|p| game.piece_info(p).value.unwrap_or(0.0) as f32 * 100.0)
                .collect(),
            squares: vec![0.0; np * (files * ranks) as usize],
            marks: vec![0.0; np * pieces.mark_count()],
            hands: vec![0.0; pieces.box_count() * np],
            games: 0,
        }
    }

    /// The number of weights.
    pub fn len(&self) -> usize {
        self.pieces.len() + self.squares.len() + self.marks.len() + self.hands.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The weight of feature `i` (in the order of [`Weights::features`]).
    pub fn get(&self, i: usize) -> f32 {
        let (a, b, c) = self.bounds();
        if i < a {
            self.pieces[i]
        } else if i < b {
            self.squares[i - a]
        } else if i < c {
            self.marks[i - b]
        } else {
            self.hands[i - c]
        }
    }

    /// Adds `delta` to weight `i`.
    pub fn add(&mut self, i: usize, delta: f32) {
        let (a, b, c) = self.bounds();
        if i < a {
            self.pieces[i] += delta;
        } else if i < b {
            self.squares[i - a] += delta;
        } else if i < c {
            self.marks[i - b] += delta;
        } else {
            self.hands[i - c] += delta;
        }
    }

    fn bounds(&self) -> (usize, usize, usize) {
        let a = self.pieces.len();
        let b = a + self.squares.len();
        (a, b, b + self.marks.len())
    }

    /// The features of `state`, for the player to move.
    pub fn features(&self, game: &Game, state: &State, out: &mut Vec<Feature>) {
        out.clear();
        self.each_feature(game, state, |i, x| out.push((i, x)));
    }

    /// Calls `f` with each feature of `state` (for the player to move).
    fn each_feature(&self, game: &Game, state: &State, mut f: impl FnMut(usize, f32)) {
        let mover = state.turn();
        let np = self.pieces.len();
        let nm = self.marks.len().checked_div(np).unwrap_or(0);
        let squares = (self.files * self.ranks) as usize;
        let (a, b, c) = self.bounds();
        let origin = game.square_at(0, 0);
        let sign = |owner: Option<PlayerId>| match owner {
            Some(o) if o == mover => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        };
        for (at, content) in state.position().squares() {
            let Content::Piece(p, marks) = content else {
                continue;
            };
            let s = sign(game.piece_info(p).owner);
            if s == 0.0 {
                continue;
            }
            let k = p.index();
            f(k, s);
            let (file, rank) = (at.x - origin.x, at.y - origin.y);
            if file >= 0 && rank >= 0 && (file as u32) < self.files && (rank as u32) < self.ranks {
                f(
                    a + k * squares + rank as usize * self.files as usize + file as usize,
                    s,
                );
            }
            for m in 0..nm {
                if marks.0 & (1 << m) != 0 {
                    f(b + k * nm + m, s);
                }
            }
        }
        for (slot, count) in state.position().tallies() {
            if count == 0 || c + slot >= self.len() {
                continue;
            }
            let (_, p) = game.pieces().slot_of(slot);
            let s = sign(game.piece_info(p).owner);
            if s != 0.0 {
                f(c + slot, s * f32::from(count));
            }
        }
    }

    /// The score of `state` for the player to move, in hundredths (the
    /// search's static score: summed as the features are met, no list kept).
    pub fn evaluate(&self, game: &Game, state: &State) -> i32 {
        let mut score = 0.0;
        self.each_feature(game, state, |i, x| score += self.get(i) * x);
        score.round() as i32
    }

    /// The score of some features.
    pub fn score(&self, features: &[Feature]) -> f32 {
        features.iter().map(|&(i, x)| self.get(i) * x).sum()
    }

    /// Whether these weights fit `game` (its name and board).
    pub fn check(&self, game: &Game, path: &str) -> Result<(), WeightsError> {
        let fresh = Weights::initial(game);
        let shape = |w: &Weights| {
            (
                w.game.clone(),
                w.files,
                w.ranks,
                w.pieces.len(),
                w.squares.len(),
                w.marks.len(),
                w.hands.len(),
            )
        };
        if shape(self) != shape(&fresh) {
            return Err(WeightsError::OtherGame {
                path: path.to_string(),
                found: format!(
                    "{} ({}x{}, {} weights)",
                    self.game,
                    self.files,
                    self.ranks,
                    self.len()
                ),
                expected: format!(
                    "{} ({}x{}, {} weights)",
                    fresh.game,
                    fresh.files,
                    fresh.ranks,
                    fresh.len()
                ),
            });
        }
        Ok(())
    }

    /// Reads weights for `game` from a JSON file.
    pub fn load(path: &str, game: &Game) -> Result<Weights, WeightsError> {
        let text = std::fs::read_to_string(path).map_err(|e| WeightsError::File {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        let weights: Weights = serde_json::from_str(&text).map_err(|e| WeightsError::Json {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        weights.check(game, path)?;
        Ok(weights)
    }

    /// Writes the weights as JSON.
    pub fn save(&self, path: &str) -> Result<(), WeightsError> {
        let text = serde_json::to_string(self).map_err(|e| WeightsError::Json {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        std::fs::write(path, text + "\n").map_err(|e| WeightsError::File {
            path: path.to_string(),
            reason: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::game::test_game as load;

    #[test]
    fn the_initial_weights_score_the_declared_material() {
        let game = load("rules/chess.alg");
        let w = Weights::initial(&game);
        assert_eq!(w.evaluate(&game, &game.initial()), 0);
        let state = game.from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").unwrap();
        assert_eq!(w.evaluate(&game, &state), 500);
        let state = game.from_fen("4k3/8/8/8/8/8/8/R3K3 b - - 0 1").unwrap();
        assert_eq!(w.evaluate(&game, &state), -500, "for the player to move");
    }

    #[test]
    fn a_square_weight_counts_where_its_piece_stands() {
        let game = load("rules/connect4.alg");
        let mut w = Weights::initial(&game);
        let start = game.initial();
        assert_eq!(w.evaluate(&game, &start), 0);
        let mut f = Vec::new();
        let legal = game
            .legal_actions(&start, &mut crate::engine::Cache::new())
            .unwrap();
        let after = game.play(&start, &legal[3]);
        w.features(&game, &after, &mut f);
        let square = f.iter().find(|(i, _)| *i >= w.pieces.len()).unwrap().0;
        let before = w.evaluate(&game, &after);
        w.add(square, 7.0);
        assert_eq!(
            w.evaluate(&game, &after) - before,
            -7,
            "the other player's disc, for the player to move"
        );
        assert_eq!(w.get(square), 7.0);
    }

    #[test]
    fn weights_for_another_game_are_refused() {
        let chess = load("rules/chess.alg");
        let checkers = load("rules/checkers.alg");
        let w = Weights::initial(&checkers);
        let err = w.check(&chess, "w.json").unwrap_err();
        assert!(err.to_string().contains("Checkers"), "{err}");
        assert!(Weights::initial(&chess).check(&chess, "w.json").is_ok());
    }
}
