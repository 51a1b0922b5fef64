//! Learning the AI's evaluation from self-play by temporal differences
//! (TD(λ), as Samuel's checkers player and TD-Gammon learned): games of the
//! AI against itself with the weights being learned, each position's value
//! pulled towards the next one's and the last towards the result.
//!
//! A position's value for the first player is `±tanh(score / scale)`, the
//! score being the weights' evaluation for the player to move (see
//! [`Weights`]). Games are played in batches, in parallel, with the weights
//! of the batch; the updates of a batch are summed and applied after it.

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::ai::{Ai, Budget, Feature, Weights};
use crate::core::Rng;
use crate::engine::Cache;
use crate::game::{Ending, Game, PlayError, State};

/// How `train` learns.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// Self-play games in all.
    pub games: u64,
    /// Games played at once with the same weights.
    pub batch: usize,
    /// The AI's search depth in self-play (and in the learning curve).
    pub depth: u32,
    /// λ: how far back each difference reaches (0: one position, 1: all).
    pub lambda: f32,
    /// The step size, in hundredths of a value point per unit of error.
    pub rate: f32,
    /// The chance of a random move instead of the AI's (exploration).
    pub epsilon: f64,
    /// The score (hundredths) whose value is tanh(1) ≈ 0.76.
    pub scale: f32,
    /// A game stops (unscored) after this many plies.
    pub max_plies: usize,
    /// Measure the learning curve every this many games (0: never).
    pub curve_every: u64,
    /// Games per point of the curve (played in both seats in turn).
    pub curve_games: u64,
    /// The seed of the first game.
    pub seed: u64,
}

impl Default for TrainOptions {
    fn default() -> TrainOptions {
        TrainOptions {
            games: 1000,
            batch: 16,
            depth: 1,
            lambda: 0.8,
            rate: 100.0,
            epsilon: 0.1,
            scale: 300.0,
            max_plies: 300,
            curve_every: 100,
            curve_games: 40,
            seed: 1,
        }
    }
}

/// A point of the learning curve: after how many games, the score of the
/// weights then against the starting ones (1 a win, 0.5 a draw).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    /// Self-play games trained so far.
    pub games: u64,
    /// The mean score against the starting weights.
    pub score: f64,
}

/// The features of `state` with each index once (repeats summed).
fn merged_features(w: &Weights, game: &Game, state: &State, cache: &mut Cache) -> Vec<Feature> {
    let mut f = Vec::new();
    w.features(game, state, cache, &mut f);
    f.sort_unstable_by_key(|&(i, _)| i);
    let mut out: Vec<Feature> = Vec::with_capacity(f.len());
    for (i, x) in f {
        match out.last_mut() {
            Some(last) if last.0 == i => last.1 += x,
            _ => out.push((i, x)),
        }
    }
    out.retain(|&(_, x)| x != 0.0);
    out
}

/// One self-play game: the features of each position where a move was
/// chosen, its player to move, and how it ended. What a worker sends back
/// to the learner (as JSON, for a driver across machines).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// Each position's features (see [`Weights::features`]) and the index
    /// of its player to move.
    pub positions: Vec<(Vec<Feature>, usize)>,
    /// The value for the first player at the end (the result, or the
    /// last position's value if the game was stopped).
    pub last: f32,
}

/// Trains `start` for `game` as `options` say; `progress` is told the
/// games played so far and each new point of the learning curve.
pub fn train(
    game: &Game,
    start: &Weights,
    options: &TrainOptions,
    mut progress: impl FnMut(u64, Option<CurvePoint>),
) -> Result<(Weights, Vec<CurvePoint>), PlayError> {
    let mut weights = start.clone();
    let initial = Arc::new(start.clone());
    let mut curve = Vec::new();
    let mut played = 0u64;
    let batch = options.batch.max(1) as u64;
    while played < options.games {
        let n = batch.min(options.games - played);
        let frozen = Arc::new(weights.clone());
        let games: Vec<Result<Trajectory, PlayError>> = (0..n)
            .into_par_iter()
            .map(|k| self_play(game, &frozen, options, options.seed.wrapping_add(played + k)))
            .collect();
        let games = games.into_iter().collect::<Result<Vec<_>, _>>()?;
        learn(&mut weights, &games, options);
        let before = played;
        played += n;
        weights.games = start.games + played;
        let point = if options.curve_every > 0 && played / options.curve_every > before / options.curve_every
        {
            let score = compare(game, &Arc::new(weights.clone()), &initial, options)?;
            let p = CurvePoint { games: played, score };
            curve.push(p);
            Some(p)
        } else {
            None
        };
        progress(played, point);
    }
    Ok((weights, curve))
}

/// Learns from a batch of games played with `weights`: the mean of their
/// TD(λ) updates (as if each game were learned alone) is added.
pub fn learn(weights: &mut Weights, games: &[Trajectory], options: &TrainOptions) {
    if games.is_empty() {
        return;
    }
    let mut delta = vec![0.0f32; weights.len()];
    for t in games {
        td_lambda(weights, t, options, &mut delta);
    }
    for (i, d) in delta.into_iter().enumerate() {
        if d != 0.0 {
            weights.add(i, d / games.len() as f32);
        }
    }
}

/// The value for the first player of a position with `features` whose
/// player to move is `mover`, and its gradient's common factor.
fn value(w: &Weights, features: &[Feature], mover: usize, scale: f32) -> (f32, f32) {
    let v = (w.score(features) / scale).tanh();
    let sign = if mover == 0 { 1.0 } else { -1.0 };
    (sign * v, sign * (1.0 - v * v))
}

/// Adds one game's TD(λ) updates to `delta`.
fn td_lambda(w: &Weights, t: &Trajectory, o: &TrainOptions, delta: &mut [f32]) {
    let mut trace = vec![0.0f32; delta.len()];
    let mut touched: Vec<usize> = Vec::new();
    let values: Vec<(f32, f32)> = t
        .positions
        .iter()
        .map(|(f, mover)| {
            let known: Vec<Feature> = f.iter().copied().filter(|&(k, _)| k < w.len()).collect();
            value(w, &known, *mover, o.scale)
        })
        .collect();
    for (i, (features, _)) in t.positions.iter().enumerate() {
        let (u, grad) = values[i];
        let next = values.get(i + 1).map_or(t.last.clamp(-1.0, 1.0), |v| v.0);
        for x in trace.iter_mut() {
            *x *= o.lambda;
        }
        // Normalised (NLMS): a position moves its own score by at most
        // `rate` per unit of error, however many features it has.
        // A trajectory from elsewhere may name features these weights lack.
        // The kinds' own values stay as declared: a piece's value on each
        // square (its table) is learned around them, so the counts, which
        // move together in every position, do not swamp the squares.
        let (first, len) = (w.pieces.len(), trace.len());
        let learned = |&&(k, x): &&Feature| k >= first && k < len && x.is_finite();
        let features: Vec<Feature> = features.iter().filter(learned).copied().collect();
        let norm: f32 = features.iter().map(|&(_, x)| x.abs()).sum::<f32>().max(1.0);
        for &(k, x) in &features {
            if trace[k] == 0.0 {
                touched.push(k);
            }
            trace[k] += grad * x / norm;
        }
        let error = next - u;
        if error != 0.0 {
            for &k in &touched {
                delta[k] += o.rate * error * trace[k];
            }
        }
    }
}

/// One game of the AI against itself with weights `w`, exploring.
pub fn self_play(
    game: &Game,
    w: &Arc<Weights>,
    o: &TrainOptions,
    seed: u64,
) -> Result<Trajectory, PlayError> {
    let mut cache = Cache::new();
    let mut ai = Ai::new(seed).with_weights(Some(w.clone()));
    let mut rng = Rng::new(seed ^ 0x7d);
    let mut state = game.initial();
    let mut positions = Vec::new();
    let budget = Budget {
        depth: o.depth.max(1),
        time: None,
    };
    for _ in 0..o.max_plies {
        let legal = game.legal_actions(&state, &mut cache)?;
        if let Some(end) = game.ending_reason(&state, &legal, &mut cache)?.map(|(e, _)| e) {
            return Ok(Trajectory {
                positions,
                last: result_for_first(end),
            });
        }
        if legal.is_empty() {
            return Ok(Trajectory { positions, last: 0.0 });
        }
        positions.push((merged_features(w, game, &state, &mut cache), state.turn().index()));
        let explore = (rng.below(1 << 20) as f64) < o.epsilon * f64::from(1u32 << 20);
        let i = if explore {
            rng.below(legal.len())
        } else {
            ai.choose(game, &state, &legal, budget, &mut cache)?.index
        };
        state = game.play(&state, &legal[i]);
    }
    // Stopped: the last position's own value stands for the result.
    let features = merged_features(w, game, &state, &mut cache);
    let last = value(w, &features, state.turn().index(), o.scale).0;
    Ok(Trajectory { positions, last })
}

/// 1 if the first player won, -1 if another did, 0 for a draw.
fn result_for_first(end: Ending) -> f32 {
    match end {
        Ending::Win(p) if p.index() == 0 => 1.0,
        Ending::Win(_) => -1.0,
        Ending::Draw => 0.0,
    }
}

/// Random plies that open each pair of games of [`compare`].
pub const COMPARE_OPENING: usize = 4;

/// The mean score of weights `a` against `b` over `curve_games` games at
/// the training depth, `a` taking each seat in turn (no exploration), each
/// pair of games opened by the same [`COMPARE_OPENING`] random plies.
pub fn compare(game: &Game, a: &Arc<Weights>, b: &Arc<Weights>, o: &TrainOptions) -> Result<f64, PlayError> {
    let scores: Vec<Result<f64, PlayError>> = (0..o.curve_games)
        .into_par_iter()
        .map(|k| {
            let a_first = k % 2 == 0;
            let seed = o.seed ^ (0x5eed_0000 + k);
            let mut ais = [
                Ai::new(seed).with_weights(Some(if a_first { a.clone() } else { b.clone() })),
                Ai::new(seed + 1).with_weights(Some(if a_first { b.clone() } else { a.clone() })),
            ];
            let mut cache = Cache::new();
            let mut state: State = game.initial();
            let budget = Budget {
                depth: o.depth.max(1),
                time: None,
            };
            // Both games of a pair open with the same random plies, so that
            // the deterministic AIs play different games.
            let mut opening = Rng::new(o.seed ^ (0x0be1_0000 + k / 2));
            for _ in 0..COMPARE_OPENING {
                let legal = game.legal_actions(&state, &mut cache)?;
                if legal.is_empty() || game.ending_reason(&state, &legal, &mut cache)?.is_some() {
                    break;
                }
                state = game.play(&state, &legal[opening.below(legal.len())]);
            }
            for _ in 0..o.max_plies {
                let legal = game.legal_actions(&state, &mut cache)?;
                if let Some((end, _)) = game.ending_reason(&state, &legal, &mut cache)? {
                    let first = result_for_first(end) as f64;
                    let for_a = if a_first { first } else { -first };
                    return Ok((for_a + 1.0) / 2.0);
                }
                if legal.is_empty() {
                    break;
                }
                let turn = state.turn().index().min(1);
                let i = ais[turn].choose(game, &state, &legal, budget, &mut cache)?.index;
                state = game.play(&state, &legal[i]);
            }
            Ok(0.5)
        })
        .collect();
    let mut total = 0.0;
    for s in &scores {
        total += s.as_ref().map_err(Clone::clone)?;
    }
    Ok(total / o.curve_games.max(1) as f64)
}

/// The learning curve as an SVG chart: the score against the starting
/// weights (0-100%) over the games trained, with the 50% line.
pub fn curve_svg(title: &str, curve: &[CurvePoint]) -> String {
    let (w, h, left, bottom, top, right) = (640.0, 360.0, 60.0, 40.0, 40.0, 20.0);
    let max_games = curve.iter().map(|p| p.games).max().unwrap_or(1).max(1) as f64;
    let x = |g: f64| left + (w - left - right) * g / max_games;
    let y = |s: f64| top + (h - top - bottom) * (1.0 - s);
    let mut out = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, sans-serif" font-size="12">
<rect width="{w}" height="{h}" fill="#fff"/>
<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>
"##,
        w / 2.0,
        title.replace('&', "&amp;").replace('<', "&lt;")
    );
    for s in [0.0, 0.25, 0.5, 0.75, 1.0] {
        out += &format!(
            r##"<line x1="{left}" x2="{}" y1="{y}" y2="{y}" stroke="{}"/><text x="{}" y="{}" text-anchor="end">{}%</text>
"##,
            w - right,
            if s == 0.5 { "#999" } else { "#e4e4e4" },
            left - 6.0,
            y(s) + 4.0,
            (s * 100.0) as i32,
            y = y(s)
        );
    }
    out += &format!(
        r##"<text x="{}" y="{}" text-anchor="middle">self-play games trained (of {})</text>
<text x="14" y="{}" transform="rotate(-90 14 {})" text-anchor="middle">score against the starting weights</text>
"##,
        (left + w - right) / 2.0,
        h - 8.0,
        max_games,
        (top + h - bottom) / 2.0,
        (top + h - bottom) / 2.0
    );
    let points: Vec<String> = std::iter::once((0.0, 0.5))
        .chain(curve.iter().map(|p| (p.games as f64, p.score)))
        .map(|(g, s)| format!("{:.1},{:.1}", x(g), y(s)))
        .collect();
    out += &format!(
        r##"<polyline points="{}" fill="none" stroke="#1f6fb2" stroke-width="2"/>
"##,
        points.join(" ")
    );
    for p in curve {
        out += &format!(
            r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="#1f6fb2"/>
"##,
            x(p.games as f64),
            y(p.score)
        );
    }
    out += "</svg>\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::game::test_game as load;

    /// A won game pulls the winner's weights up: after training on
    /// tic-tac-toe the weights change, and the curve has its points.
    #[test]
    fn training_changes_the_weights_and_measures_a_curve() {
        let game = load("rules/tictactoe.alg");
        let start = Weights::initial(&game);
        let options = TrainOptions {
            games: 40,
            batch: 8,
            curve_every: 20,
            curve_games: 4,
            ..TrainOptions::default()
        };
        let mut seen = Vec::new();
        let (trained, curve) = train(&game, &start, &options, |g, _| seen.push(g)).unwrap();
        assert_eq!(seen, [8, 16, 24, 32, 40]);
        assert_eq!(curve.len(), 2);
        assert!(curve.iter().all(|p| (0.0..=1.0).contains(&p.score)));
        assert_ne!(
            trained.squares, start.squares,
            "the square weights learned something"
        );
        assert_eq!(trained.games, 40);
        let svg = curve_svg("tic-tac-toe", &curve);
        assert!(svg.contains("<polyline") && svg.matches("<circle").count() == 2);
    }

    /// The TD error at the end is the result minus the last value: a
    /// first-player win raises what the first player's pieces are worth.
    #[test]
    fn a_win_raises_the_winners_features() {
        let game = load("rules/tictactoe.alg");
        let w = Weights::initial(&game);
        let t = Trajectory {
            positions: vec![(vec![(w.pieces.len() + 4, 1.0)], 0)],
            last: 1.0,
        };
        let mut delta = vec![0.0; w.len()];
        td_lambda(&w, &t, &TrainOptions::default(), &mut delta);
        assert!(delta[w.pieces.len() + 4] > 0.0);
        let t = Trajectory {
            positions: vec![(vec![(w.pieces.len() + 4, 1.0)], 1)],
            last: 1.0,
        };
        let mut delta = vec![0.0; w.len()];
        td_lambda(&w, &t, &TrainOptions::default(), &mut delta);
        assert!(
            delta[w.pieces.len() + 4] < 0.0,
            "the second player's feature, the first player won"
        );
    }
}
