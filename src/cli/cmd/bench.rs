//! `chessalg bench`: how fast the AI searches and perft counts, on the fixed
//! positions of a bench file (`benches/positions.txt`), as a table a person
//! can compare between versions. Perft runs on the engines `--engine` chose
//! and again on the backtracker alone, so the table shows what the
//! strategies gain per game (`fast`: how many of the game's
//! programs it runs).

use std::time::Instant;

use clap::Args;

use chessalg::ai::{Ai, Budget};
use chessalg::engine::{Cache, EngineChoice};
use chessalg::game::{self, Game};

use super::{Failure, GameArgs, play_error, setup};
use crate::cli::load_spec;

/// Arguments of `chessalg bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The positions: lines `RULES ; FEN or start ; SEARCH DEPTH ; PERFT DEPTH`.
    #[arg(default_value = "benches/positions.txt")]
    positions: String,
    /// Times each measurement this many times and reports the median.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
}

/// One line of a bench file.
struct BenchPosition {
    rules: String,
    fen: Option<String>,
    search_depth: u32,
    perft_depth: u32,
}

fn parse(text: &str, file: &str) -> Result<Vec<BenchPosition>, Failure> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(';').map(str::trim).collect();
        let bad = || {
            Failure::Message(format!(
                "{file}:{}: expected `RULES ; FEN ; SEARCH DEPTH ; PERFT DEPTH`",
                n + 1
            ))
        };
        let [rules, fen, search, perft] = fields[..] else {
            return Err(bad());
        };
        out.push(BenchPosition {
            rules: rules.to_string(),
            fen: (fen != "start").then(|| fen.to_string()),
            search_depth: search.parse().map_err(|_| bad())?,
            perft_depth: perft.parse().map_err(|_| bad())?,
        });
    }
    Ok(out)
}

/// The median of `rounds` runs of `f`, which returns a count: (count, seconds).
fn median(rounds: u32, mut f: impl FnMut() -> Result<u64, Failure>) -> Result<(u64, f64), Failure> {
    let mut times = Vec::new();
    let mut count = 0;
    for _ in 0..rounds.max(1) {
        let started = Instant::now();
        count = f()?;
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok((count, times[times.len() / 2]))
}

/// Runs `chessalg bench`.
pub fn run(args: &BenchArgs) -> Result<(), Failure> {
    let text = std::fs::read_to_string(&args.positions)
        .map_err(|e| Failure::Message(format!("cannot read {}: {e}", args.positions)))?;
    let positions = parse(&text, &args.positions)?;
    println!(
        "{:<24} {:>5} {:>9} {:>10} {:>5} {:>10} {:>12} {:>10} {:>12} {:>6} {:>5}",
        "rules",
        "depth",
        "nodes",
        "nodes/s",
        "perft",
        "leaves",
        "leaves/s",
        "node cost",
        "backtrack/s",
        "gain",
        "fast"
    );
    for p in &positions {
        let (game, state) = setup(&GameArgs {
            rules: p.rules.clone(),
            fen: p.fen.clone(),
            lenient: true,
        })?;
        let mut cache = Cache::new();
        let legal = game.legal_actions(&state, &mut cache).map_err(play_error)?;
        if legal.is_empty() {
            return Err(Failure::Message(format!(
                "{}: the position has no legal move",
                p.rules
            )));
        }
        // What the game works out once (the pieces' scopes) is not timed.
        game.prospects(&mut cache);
        let (nodes, search_secs) = median(args.rounds, || {
            let mut ai = Ai::new(1);
            let budget = Budget {
                depth: p.search_depth,
                time: None,
            };
            let choice = ai
                .choose(&game, &state, &legal, budget, &mut cache)
                .map_err(play_error)?;
            Ok(choice.nodes)
        })?;
        let (leaves, perft_secs) = median(args.rounds, || {
            game::perft(&game, &state, p.perft_depth, &mut cache).map_err(play_error)
        })?;
        let reference = Game::with_engine(&load_spec(&p.rules)?, EngineChoice::backtrack())
            .map_err(|e| Failure::Message(e.to_string()))?;
        let (reference_leaves, reference_secs) = median(args.rounds, || {
            game::perft(&reference, &state, p.perft_depth, &mut cache).map_err(play_error)
        })?;
        if reference_leaves != leaves {
            return Err(Failure::Message(format!(
                "{}: perft {} gives {leaves} leaves, but {reference_leaves} on the backtracker",
                p.rules, p.perft_depth
            )));
        }
        let node_rate = nodes as f64 / search_secs.max(1e-9);
        let leaf_rate = leaves as f64 / perft_secs.max(1e-9);
        let reference_rate = leaves as f64 / reference_secs.max(1e-9);
        let (fast, all) = game.engine_report().fast_share();
        println!(
            "{:<24} {:>5} {:>9} {:>10.0} {:>5} {:>10} {:>12.0} {:>10.1} {:>12.0} {:>6.1} {:>5}",
            p.rules,
            p.search_depth,
            nodes,
            node_rate,
            p.perft_depth,
            leaves,
            leaf_rate,
            leaf_rate / node_rate.max(1e-9),
            reference_rate,
            leaf_rate / reference_rate.max(1e-9),
            format!("{fast}/{all}")
        );
    }
    println!("node cost: how many perft leaves take the time of one search node");
    println!("backtrack/s: perft on the backtracker alone; gain: leaves/s over that");
    println!("fast: of the game's programs (moves per side, outcome patterns), how many the strategies run");
    Ok(())
}
