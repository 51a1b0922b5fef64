//! `chessalg train`: the AI learns its evaluation for a rule file from
//! games against itself (TD(λ) over generic features), and writes weights
//! that `play`, `match`, `uci` and `serve` load with `--weights`.

use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use chessalg::ai::Weights;
use chessalg::learn::td::{TrainOptions, curve_svg, train};

use crate::cli::{Failure, load_game, play_error};

/// Arguments of `chessalg train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The rule file of the game.
    pub rules: String,
    /// Self-play games to learn from (0: write the starting weights).
    #[arg(long, default_value_t = 2000)]
    pub games: u64,
    /// Where to write the weights (JSON).
    #[arg(long, short)]
    pub out: String,
    /// Go on from these weights instead of the declared values.
    #[arg(long)]
    pub from: Option<String>,
    /// The AI's search depth in self-play and in the learning curve.
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// λ of TD(λ): how far back each difference reaches (0 to 1).
    #[arg(long, default_value_t = 0.8)]
    pub lambda: f32,
    /// The step size: how far one position's score moves per unit of
    /// error, in hundredths of a value point.
    #[arg(long, default_value_t = 100.0)]
    pub rate: f32,
    /// The chance of a random move in self-play (exploration, 0 to 1).
    #[arg(long, default_value_t = 0.1)]
    pub epsilon: f64,
    /// Games played at once with the same weights (in parallel).
    #[arg(long, default_value_t = 16)]
    pub batch: usize,
    /// A game stops unscored after this many plies.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,
    /// Write the learning curve (score against the starting weights) as SVG.
    #[arg(long)]
    pub curve: Option<String>,
    /// Measure the curve every this many games.
    #[arg(long, default_value_t = 200)]
    pub curve_every: u64,
    /// Games per point of the curve (both seats in turn).
    #[arg(long, default_value_t = 40)]
    pub curve_games: u64,
    /// The seed of the first self-play game.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs `chessalg train`.
pub fn run(args: &TrainArgs) -> Result<(), Failure> {
    let game = load_game(&args.rules)?;
    if !(0.0..=1.0).contains(&args.lambda) || !(0.0..=1.0).contains(&args.epsilon) {
        return Err(Failure::Message(
            "--lambda and --epsilon must be between 0 and 1".to_string(),
        ));
    }
    if !(args.rate > 0.0 && args.rate.is_finite()) {
        return Err(Failure::Message(format!(
            "--rate must be a positive number, not {}",
            args.rate
        )));
    }
    let start = match &args.from {
        Some(path) => Weights::load(path, &game).map_err(|e| Failure::Message(format!("--from: {e}")))?,
        None => Weights::initial(&game),
    };
    // `--games 0` writes the starting weights (the declared values) alone.
    // Otherwise nothing is written until there are new weights: an existing
    // file stays as it is if training is stopped; but fail before the work,
    // not after it, if they could not be written.
    if args.games == 0 {
        start
            .save(&args.out)
            .map_err(|e| Failure::Message(format!("--out: {e}")))?;
        println!("the starting weights of {} written to {}", game.name(), args.out);
        return Ok(());
    }
    for (flag, path) in [("--out", Some(&args.out)), ("--curve", args.curve.as_ref())] {
        if let Some(path) = path {
            chessalg::file::check_writable(path).map_err(|e| Failure::Message(format!("{flag}: {e}")))?;
        }
    }
    let options = TrainOptions {
        games: args.games,
        batch: args.batch.max(1),
        depth: args.depth.max(1),
        lambda: args.lambda,
        rate: args.rate,
        epsilon: args.epsilon,
        max_plies: args.max_plies.max(1),
        curve_every: if args.curve.is_some() { args.curve_every } else { 0 },
        curve_games: args.curve_games.max(2),
        seed: args.seed,
        ..TrainOptions::default()
    };
    let bar = ProgressBar::new(args.games);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} games  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let started = Instant::now();
    let (weights, curve) = train(&game, &start, &options, |played, point| {
        bar.set_position(played);
        if let Some(p) = point {
            bar.set_message(format!("score against the start: {:.0}%", p.score * 100.0));
            let line = format!(
                "after {:>6} games: {:5.1}% against the starting weights",
                p.games,
                p.score * 100.0
            );
            if bar.is_hidden() {
                eprintln!("{line}");
            } else {
                bar.println(line);
            }
        }
    })
    .map_err(play_error)?;
    bar.finish_and_clear();
    weights
        .save(&args.out)
        .map_err(|e| Failure::Message(format!("--out: {e}")))?;
    println!(
        "{} self-play games of {} in {:.1} s; weights written to {}",
        args.games,
        game.name(),
        started.elapsed().as_secs_f64(),
        args.out
    );
    if let Some(path) = &args.curve {
        let title = format!(
            "{}: TD(λ={}) self-play, depth {}",
            game.name(),
            args.lambda,
            options.depth
        );
        chessalg::file::write(path, curve_svg(&title, &curve))
            .map_err(|e| Failure::Message(format!("--curve: {e}")))?;
        println!("learning curve written to {path}");
    }
    Ok(())
}
