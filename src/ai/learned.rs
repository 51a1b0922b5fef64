//! A learned evaluation: a weight per generic feature of a position, the
//! same for every rule file: each piece kind's value, its value on each
//! square (a piece-square table), each mark it carries, and each piece a box
//! holds. A position is scored for the player to move: the features of that
//! player's pieces count for it, the others' against. Written by
//! `chessalg train` as JSON; read by `play`, `match`, `uci` and `serve`
//! (`--weights FILE`).

use serde::{Deserialize, Serialize};

use crate::core::{Content, PlayerId};
use crate::engine::{Cache, EngineError};
use crate::game::{Game, PlayError, State};

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
    /// Per piece kind, two values: a piece of the player to move standing
    /// where an opponent's move could change its square (under threat), and
    /// an opponent's piece under threat. (Absent in older files: zeros.)
    #[serde(default)]
    pub threats: Vec<f32>,
    /// How many self-play games trained them.
    #[serde(default)]
    pub games: u64,
}

/// Why a weights file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum WeightsError {
    /// The file cannot be read or written.
    #[error("{path}: {reason}")]
    #[diagnostic(code = "chessalg::ai::weights_file")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The file is not weights JSON.
    #[error("{path} is not a weights file: {reason}")]
    #[diagnostic(
        code = "chessalg::ai::weights_json",
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
        code = "chessalg::ai::weights_game",
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
            threats: vec![0.0; 2 * np],
            games: 0,
        }
    }

    /// The number of weights.
    pub fn len(&self) -> usize {
        self.pieces.len() + self.squares.len() + self.marks.len() + self.hands.len() + self.threats.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The weight of feature `i` (in the order of [`Weights::features`]).
    pub fn get(&self, i: usize) -> f32 {
        let (a, b, c, d) = self.bounds();
        if i < a {
            self.pieces[i]
        } else if i < b {
            self.squares[i - a]
        } else if i < c {
            self.marks[i - b]
        } else if i < d {
            self.hands[i - c]
        } else {
            self.threats[i - d]
        }
    }

    /// Adds `delta` to weight `i`.
    pub fn add(&mut self, i: usize, delta: f32) {
        let (a, b, c, d) = self.bounds();
        if i < a {
            self.pieces[i] += delta;
        } else if i < b {
            self.squares[i - a] += delta;
        } else if i < c {
            self.marks[i - b] += delta;
        } else if i < d {
            self.hands[i - c] += delta;
        } else {
            self.threats[i - d] += delta;
        }
    }

    /// Where the squares, marks, hands and threats begin among the features.
    fn bounds(&self) -> (usize, usize, usize, usize) {
        let a = self.pieces.len();
        let b = a + self.squares.len();
        let c = b + self.marks.len();
        (a, b, c, c + self.hands.len())
    }

    /// The features of `state`, for the player to move.
    pub fn features(&self, game: &Game, state: &State, cache: &mut Cache, out: &mut Vec<Feature>) {
        out.clear();
        self.each_feature(game, state, cache, true, |i, x| out.push((i, x)));
    }

    /// Calls `f` with each feature of `state` (for the player to move); the
    /// threats only if `threats` (they cost a search per piece). A threat
    /// whose search fails counts as none; `false` if one of them ran past
    /// the cache's deadline ([`Cache::set_deadline`]).
    fn each_feature(
        &self,
        game: &Game,
        state: &State,
        cache: &mut Cache,
        threats: bool,
        mut f: impl FnMut(usize, f32),
    ) -> bool {
        let mut in_time = true;
        let mover = state.turn();
        let np = self.pieces.len();
        let nm = self.marks.len().checked_div(np).unwrap_or(0);
        let squares = (self.files * self.ranks) as usize;
        let (a, b, c, d) = self.bounds();
        let origin = game.square_at(0, 0);
        let threats = threats && self.threats.len() == 2 * np;
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
            if threats && let Some(owner) = game.piece_info(p).owner {
                match game.attacked(state.position(), at, owner, cache) {
                    Ok(true) => f(d + 2 * k + usize::from(s < 0.0), 1.0),
                    Err(PlayError::Engine(EngineError::OutOfTime)) => in_time = false,
                    Ok(false) | Err(_) => {}
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
        in_time
    }

    /// The score of `state` for the player to move, in hundredths (the
    /// search's static score: summed as the features are met, no list kept).
    pub fn evaluate(&self, game: &Game, state: &State, cache: &mut Cache) -> i32 {
        let (score, _) = self.evaluate_in_time(game, state, cache);
        score
    }

    /// [`Weights::evaluate`], and whether its threat tests all finished
    /// before the cache's deadline (see [`Cache::set_deadline`]).
    pub(crate) fn evaluate_in_time(&self, game: &Game, state: &State, cache: &mut Cache) -> (i32, bool) {
        let mut score = 0.0;
        let threats = self.threats.iter().any(|&t| t != 0.0);
        let in_time = self.each_feature(game, state, cache, threats, |i, x| score += self.get(i) * x);
        (score.round() as i32, in_time)
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
                w.threats.len(),
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
        let text = crate::bundled::read_data(path).map_err(|e| WeightsError::File {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        Weights::from_json(&text, game, path)
    }

    /// Reads weights for `game` from JSON text (from `path`, for messages);
    /// a file without threat weights (written before they existed) gets zeros.
    pub fn from_json(text: &str, game: &Game, path: &str) -> Result<Weights, WeightsError> {
        let mut weights: Weights = serde_json::from_str(text).map_err(|e| WeightsError::Json {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        if weights.threats.is_empty() {
            weights.threats = vec![0.0; 2 * weights.pieces.len()];
        }
        weights.check(game, path)?;
        Ok(weights)
    }

    /// The weights the rule file of `game` names (`weights "FILE"`), if any.
    pub fn declared(game: &Game) -> Result<Option<Weights>, WeightsError> {
        game.weights_file()
            .map(|path| Weights::load(path, game))
            .transpose()
    }

    /// Writes the weights as JSON.
    pub fn save(&self, path: &str) -> Result<(), WeightsError> {
        let text = serde_json::to_string(self).map_err(|e| WeightsError::Json {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        crate::file::write(path, text + "\n").map_err(|e| WeightsError::File {
            path: path.to_string(),
            reason: e.source.to_string(),
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
        assert_eq!(w.evaluate(&game, &game.initial(), &mut Cache::new()), 0);
        let state = game.from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").unwrap();
        assert_eq!(w.evaluate(&game, &state, &mut Cache::new()), 500);
        let state = game.from_fen("4k3/8/8/8/8/8/8/R3K3 b - - 0 1").unwrap();
        assert_eq!(
            w.evaluate(&game, &state, &mut Cache::new()),
            -500,
            "for the player to move"
        );
    }

    #[test]
    fn a_square_weight_counts_where_its_piece_stands() {
        let game = load("rules/connect4.alg");
        let mut w = Weights::initial(&game);
        let start = game.initial();
        assert_eq!(w.evaluate(&game, &start, &mut Cache::new()), 0);
        let mut f = Vec::new();
        let legal = game
            .legal_actions(&start, &mut crate::engine::Cache::new())
            .unwrap();
        let after = game.play(&start, &legal[3]);
        w.features(&game, &after, &mut Cache::new(), &mut f);
        let square = f.iter().find(|(i, _)| *i >= w.pieces.len()).unwrap().0;
        let before = w.evaluate(&game, &after, &mut Cache::new());
        w.add(square, 7.0);
        assert_eq!(
            w.evaluate(&game, &after, &mut Cache::new()) - before,
            -7,
            "the other player's disc, for the player to move"
        );
        assert_eq!(w.get(square), 7.0);
    }

    #[test]
    fn a_threat_weight_counts_pieces_an_opponent_move_could_take() {
        let game = load("rules/breakthrough.alg");
        let mut w = Weights::initial(&game);
        let np = w.pieces.len();
        // White's pawn on d4 and black's on e5 attack each other; black's
        // a8 pawn is out of reach.
        let state = game.from_fen("p7/8/8/4p3/3P4/8/8/8 w - - 0 1").unwrap();
        let mut f = Vec::new();
        w.features(&game, &state, &mut Cache::new(), &mut f);
        let mut threats: Vec<Feature> = f.into_iter().filter(|&(i, _)| i >= w.len() - 2 * np).collect();
        threats.sort_by_key(|&(i, _)| i);
        let base = w.len() - 2 * np;
        // ♙ of the player to move under threat, ♟ of the opponent under threat.
        assert_eq!(threats, [(base, 1.0), (base + 3, 1.0)]);
        w.threats[0] = 40.0;
        w.threats[3] = -15.0;
        // One pawn against two, then the threats.
        assert_eq!(w.evaluate(&game, &state, &mut Cache::new()), 100 - 200 + 40 - 15);
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
