//! `stats`: a game measured from many games played out, as Ludii's game
//! metrics do: how long games last, how many moves a player has to choose
//! from (the branching factor, overall and ply by ply), how games end, how
//! the first player fares, captures and promotions, material over the game.
//! Played by the AI against itself and by random players, in parallel.

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use crate::ai::{Budget, Weights};
use crate::core::Rng;
use crate::core::{Content, PlayerId};
use crate::engine::Cache;
use crate::game::{Ending, Game, PlayError, State};
use crate::session::{Controller, Session};

/// What `stats` plays.
#[derive(Clone, Copy, Debug)]
pub struct StatsOptions {
    /// Games per kind of player (AI against AI, random against random).
    pub games: u64,
    /// The AI's budget per move.
    pub budget: Budget,
    /// A game stops unfinished after this many plies.
    pub max_plies: usize,
    /// The seed of the first game.
    pub seed: u64,
    /// Plies each game opens with at random (varying the AI's games).
    pub opening: usize,
}

/// One game played out.
#[derive(Clone, Debug)]
struct Record {
    /// Legal moves at each ply (before the move).
    branching: Vec<u32>,
    /// Each player's material on the board at each ply (and at the end).
    material: Vec<Vec<f64>>,
    captures: u32,
    promotions: u32,
    /// Who won (`None`: drawn or unfinished), and how it ended.
    winner: Option<PlayerId>,
    ending: String,
}

/// The measures of one kind of game (AI against AI, or random against random).
#[derive(Clone, Debug, Serialize)]
pub struct Measures {
    /// Who played (`AI (depth 2)`, `random`).
    pub players: String,
    /// Games played.
    pub games: u64,
    /// Plies per game: mean, least, most.
    pub length: (f64, usize, usize),
    /// Legal moves per position, over every position of every game.
    pub branching: f64,
    /// The mean branching factor at each ply, over the games still going.
    pub branching_by_ply: Vec<f64>,
    /// Each player's mean material on the board at each ply (games still
    /// going), player by player.
    pub material_by_ply: Vec<Vec<f64>>,
    /// Pieces of another player removed from the board, per game.
    pub captures: f64,
    /// Moves where a piece turned into another, per game.
    pub promotions: f64,
    /// How games ended (`white wins: no legal move, ...`), with counts,
    /// most frequent first.
    pub endings: Vec<(String, u64)>,
    /// The first player's score (1 a win, ½ a draw or unfinished) and its
    /// 95% interval's half width.
    pub first_score: (f64, f64),
    /// Wins per player, then draws and unfinished games.
    pub wins: Vec<u64>,
}

/// The measures of a game: AI against AI, and random against random.
#[derive(Clone, Debug, Serialize)]
pub struct GameStats {
    /// The game's name.
    pub game: String,
    /// Its players.
    pub players: Vec<String>,
    /// Random plies each game opened with.
    pub opening: usize,
    /// AI against AI.
    pub ai: Measures,
    /// Random against random.
    pub random: Measures,
}

/// Plays `opts.games` games of each kind in parallel and measures them,
/// the AI scoring positions with each player's `weights` (none: the
/// declared values); `progress` is called once per finished game.
pub fn stats(
    game: &Arc<Game>,
    weights: &[Option<Arc<Weights>>],
    opts: StatsOptions,
    progress: &(dyn Fn() + Sync),
) -> Result<GameStats, PlayError> {
    let mut measures = Vec::new();
    for controller in [Controller::Ai, Controller::Random] {
        let records: Result<Vec<Record>, PlayError> = (0..opts.games)
            .into_par_iter()
            .map(|k| {
                let r = play_one(game, controller, weights, opts, opts.seed.wrapping_add(k));
                progress();
                r
            })
            .collect();
        let label = match controller {
            Controller::Random => "random".to_string(),
            _ => format!("AI (depth {})", opts.budget.depth),
        };
        measures.push(summarise(game, label, &records?));
    }
    let random = measures.pop().expect("two kinds");
    let ai = measures.pop().expect("two kinds");
    Ok(GameStats {
        game: game.name().to_string(),
        players: game.players().to_vec(),
        opening: opts.opening,
        ai,
        random,
    })
}

/// Each player's material on the board: declared values, or a count where
/// the file declares none.
fn material(game: &Game, state: &State, counted: bool) -> Vec<f64> {
    let mut out = vec![0.0; game.players().len()];
    for (_, content) in state.position().squares() {
        if let Content::Piece(p, _) = content
            && let Some(owner) = game.piece_info(p).owner
        {
            out[owner.index()] += match counted {
                true => 1.0,
                false => game.piece_info(p).value.unwrap_or(0.0),
            };
        }
    }
    out
}

fn play_one(
    game: &Arc<Game>,
    controller: Controller,
    weights: &[Option<Arc<Weights>>],
    opts: StatsOptions,
    seed: u64,
) -> Result<Record, PlayError> {
    let n = game.players().len();
    let counted = game.pieces().ids().all(|p| game.piece_info(p).value.is_none());
    let mut m = Session::new(
        game.clone(),
        game.initial(),
        vec![controller; n],
        opts.budget,
        seed,
    )
    .with_weights(weights);
    let mut cache = Cache::new();
    let mut opening = Rng::new(seed ^ 0x09e4);
    let mut r = Record {
        branching: Vec::new(),
        material: Vec::new(),
        captures: 0,
        promotions: 0,
        winner: None,
        ending: "unfinished (ply limit)".to_string(),
    };
    loop {
        let state = m.state().clone();
        let before = material(game, &state, true);
        r.material.push(material(game, &state, counted));
        let legal = game.legal_actions(&state, &mut cache)?;
        if let Some((ending, reason)) = game.ending_reason(&state, &legal, &mut cache)? {
            r.ending = match ending {
                Ending::Win(p) => {
                    r.winner = Some(p);
                    format!("{} wins: {reason}", game.player_name(p))
                }
                Ending::Draw => format!("draw: {reason}"),
            };
            return Ok(r);
        }
        if r.branching.len() >= opts.max_plies {
            return Ok(r);
        }
        r.branching.push(legal.len() as u32);
        let pick = match r.branching.len() <= opts.opening {
            true => opening.below(legal.len()),
            false => m.decide(&legal)?.index,
        };
        let action = legal[pick].clone();
        if action.became().is_some() {
            r.promotions += 1;
        }
        m.push(action);
        let after = material(game, m.state(), true);
        let mover = state.turn().index();
        r.captures += (0..n)
            .filter(|&p| p != mover && after[p] < before[p])
            .map(|p| (before[p] - after[p]) as u32)
            .sum::<u32>();
    }
}

fn summarise(game: &Game, players: String, records: &[Record]) -> Measures {
    let n = records.len().max(1) as f64;
    let lengths: Vec<usize> = records.iter().map(|r| r.branching.len()).collect();
    let positions: usize = lengths.iter().sum();
    let moves: u64 = records
        .iter()
        .flat_map(|r| &r.branching)
        .map(|&b| u64::from(b))
        .sum();
    let longest = lengths.iter().copied().max().unwrap_or(0);
    let by_ply = |ply: usize| records.iter().filter(move |r| r.branching.len() > ply);
    let branching_by_ply = (0..longest)
        .map(|ply| {
            let going: Vec<f64> = by_ply(ply).map(|r| f64::from(r.branching[ply])).collect();
            going.iter().sum::<f64>() / going.len().max(1) as f64
        })
        .collect();
    let np = game.players().len();
    let material_by_ply = (0..np)
        .map(|p| {
            (0..=longest)
                .map(|ply| {
                    let going: Vec<f64> = (records.iter())
                        .filter_map(|r| r.material.get(ply).map(|m| m[p]))
                        .collect();
                    going.iter().sum::<f64>() / going.len().max(1) as f64
                })
                .collect()
        })
        .collect();
    let mut endings: BTreeMap<String, u64> = BTreeMap::new();
    let mut wins = vec![0u64; np + 1];
    for r in records {
        *endings.entry(r.ending.clone()).or_default() += 1;
        match r.winner {
            Some(p) => wins[p.index()] += 1,
            None => wins[np] += 1,
        }
    }
    let mut endings: Vec<(String, u64)> = endings.into_iter().collect();
    endings.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    // The first player's score per game: 1, ½ or 0; its mean and interval.
    let scores: Vec<f64> = (records.iter())
        .map(|r| match r.winner {
            Some(p) if p.index() == 0 => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        })
        .collect();
    let mean = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / n;
    Measures {
        players,
        games: records.len() as u64,
        length: (
            positions as f64 / n,
            lengths.iter().copied().min().unwrap_or(0),
            longest,
        ),
        branching: moves as f64 / positions.max(1) as f64,
        branching_by_ply,
        material_by_ply,
        captures: f64::from(records.iter().map(|r| r.captures).sum::<u32>()) / n,
        promotions: f64::from(records.iter().map(|r| r.promotions).sum::<u32>()) / n,
        endings,
        first_score: (mean, 1.96 * (var / n).sqrt()),
        wins,
    }
}

/// The branching factor and each player's material over the plies (AI and
/// random games) as an SVG of two charts.
pub fn plot_svg(stats: &GameStats) -> String {
    let colours = ["#1f6fb2", "#d9480f", "#2b8a3e", "#862e9c"];
    let branching = vec![
        (stats.ai.players.clone(), colours[0], &stats.ai.branching_by_ply),
        (
            stats.random.players.clone(),
            colours[1],
            &stats.random.branching_by_ply,
        ),
    ];
    let mut material = Vec::new();
    for (m, dash) in [(&stats.ai, ""), (&stats.random, "5,4")] {
        for (p, line) in m.material_by_ply.iter().enumerate() {
            let name = format!("{}, {}", stats.players[p], m.players);
            material.push((name, colours[p % colours.len()], dash, line));
        }
    }
    let (w, h) = (720.0, 300.0);
    let mut out = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{}" viewBox="0 0 {w} {}" font-family="DejaVu Sans, sans-serif" font-size="12">
<rect width="{w}" height="{}" fill="#fff"/>
"##,
        2.0 * h,
        2.0 * h,
        2.0 * h
    );
    let lines: Vec<(String, &str, &str, &Vec<f64>)> =
        branching.into_iter().map(|(n, c, l)| (n, c, "", l)).collect();
    out += &chart(
        &format!("{}: legal moves per position, by ply", stats.game),
        "ply",
        "legal moves",
        &lines,
        (0.0, w, h),
    );
    out += &chart(
        &format!("{}: material on the board, by ply", stats.game),
        "ply",
        "material",
        &material,
        (h, w, h),
    );
    out += "</svg>\n";
    out
}

/// One line chart at height `top`, with a legend.
fn chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[(String, &str, &str, &Vec<f64>)],
    (top, w, h): (f64, f64, f64),
) -> String {
    let (left, right, head, bottom) = (60.0, 200.0, 36.0, 36.0);
    let xmax = lines.iter().map(|l| l.3.len()).max().unwrap_or(1).max(2) as f64 - 1.0;
    let ymax = lines
        .iter()
        .flat_map(|l| l.3.iter().copied())
        .fold(1.0_f64, f64::max)
        * 1.05;
    let x = |i: f64| left + (w - left - right) * i / xmax;
    let y = |v: f64| top + head + (h - head - bottom) * (1.0 - v / ymax);
    let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;");
    let mut out = format!(
        r##"<text x="{}" y="{}" font-size="14" text-anchor="middle">{}</text>
<text x="{}" y="{}" text-anchor="middle">{}</text>
<text x="14" y="{}" transform="rotate(-90 14 {})" text-anchor="middle">{}</text>
"##,
        (left + w - right) / 2.0,
        top + 22.0,
        esc(title),
        (left + w - right) / 2.0,
        top + h - 6.0,
        esc(x_label),
        top + h / 2.0,
        top + h / 2.0,
        esc(y_label)
    );
    for k in 0..=4 {
        let v = ymax * f64::from(k) / 4.0;
        out += &format!(
            r##"<line x1="{left}" x2="{}" y1="{yy:.1}" y2="{yy:.1}" stroke="#e4e4e4"/><text x="{}" y="{:.1}" text-anchor="end">{:.0}</text>
"##,
            w - right,
            left - 6.0,
            y(v) + 4.0,
            v,
            yy = y(v)
        );
    }
    for k in 0..=4 {
        let i = xmax * f64::from(k) / 4.0;
        out += &format!(
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">{:.0}</text>
"##,
            x(i),
            top + h - bottom + 14.0,
            i
        );
    }
    for (k, (name, colour, dash, line)) in lines.iter().enumerate() {
        let points: Vec<String> = (line.iter().enumerate())
            .map(|(i, &v)| format!("{:.1},{:.1}", x(i as f64), y(v)))
            .collect();
        out += &format!(
            r##"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="1.5" stroke-dasharray="{dash}"/>
<line x1="{}" x2="{}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{}">{}</text>
"##,
            points.join(" "),
            w - right + 10.0,
            w - right + 34.0,
            w - right + 40.0,
            top + head + 4.0 + 18.0 * k as f64,
            esc(name),
            ly = top + head + 18.0 * k as f64
        );
    }
    out
}
