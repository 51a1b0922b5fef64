//! `chessalg diff A B`: the first positions where two rule files (or a rule
//! file and a UCI engine) disagree about the legal moves.

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use chessalg::inspect::{DiffOptions, EngineClient, Other, diff};

use super::{GameArgs, setup};
use crate::cli::{Failure, load_game};

/// Arguments of `chessalg diff`.
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The first rule file, and the position to start from (its FEN).
    #[command(flatten)]
    first: GameArgs,
    /// The second rule file (or give `--uci`).
    #[arg(required_unless_present = "uci", conflicts_with = "uci")]
    second: Option<String>,
    /// Compare with a UCI engine that answers `go perft 1` instead
    /// (`--uci fairy-stockfish`; the program and its arguments).
    #[arg(long, value_name = "COMMAND")]
    uci: Option<String>,
    /// The engine's variant (sets `UCI_Variant`).
    #[arg(long, requires = "uci")]
    variant: Option<String>,
    /// Other engine options, `NAME=VALUE` (repeat for each).
    #[arg(long = "option", requires = "uci", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Compare every position up to this many plies.
    #[arg(long, default_value_t = 3)]
    depth: usize,
    /// Then play this many random games deeper (among the moves both have).
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// A random game stops after this many plies.
    #[arg(long, default_value_t = 200)]
    max_plies: usize,
    /// Show at most this many differing positions.
    #[arg(long, default_value_t = 3)]
    show: usize,
    /// The seed of the first random game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `chessalg diff`: exit 0 when no difference was found, 1 otherwise.
pub fn run(args: &DiffArgs) -> Result<(), Failure> {
    let (game, start) = setup(&args.first)?;
    let second_game;
    let (other, other_name) = match (&args.second, &args.uci) {
        (Some(path), _) => {
            second_game = load_game(path)?;
            (Other::Rules(&second_game), path.clone())
        }
        (None, Some(command)) => {
            let mut options = Vec::new();
            if let Some(v) = &args.variant {
                options.push(("UCI_Variant".to_string(), v.clone()));
            }
            for o in &args.options {
                let (name, value) = o
                    .split_once('=')
                    .ok_or_else(|| Failure::Message(format!("--option {o}: write it NAME=VALUE")))?;
                options.push((name.to_string(), value.to_string()));
            }
            let engine =
                EngineClient::start(command, &options).map_err(|e| Failure::Message(e.to_string()))?;
            let name = match &args.variant {
                Some(v) => format!("{command} ({v})"),
                None => command.clone(),
            };
            (Other::Engine(engine), name)
        }
        (None, None) => return Err(Failure::Message("give a second rule file or --uci".into())),
    };
    let opts = DiffOptions {
        depth: args.depth,
        games: args.games,
        max_plies: args.max_plies,
        seed: args.seed,
        keep: args.show.max(1),
    };
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let shown = |n: u64| bar.set_message(format!("{n} positions compared"));
    let report = diff(&game, &start, other, opts, &shown);
    bar.finish_and_clear();
    let report = report.map_err(|e| Failure::Message(e.to_string()))?;
    let first_name = &args.first.rules;
    println!(
        "compared {} positions: every position to ply {}, then {} random games (to ply {} at most; deepest {})",
        report.compared, args.depth, args.games, args.max_plies, report.deepest
    );
    if report.over_unasked > 0 {
        println!(
            "({} of them are over by {first_name}'s rules: the engine was not asked there, since its perft does not judge endings)",
            report.over_unasked
        );
    }
    let Some(first) = report.differences.first() else {
        println!("no difference: {first_name} and {other_name} list the same legal moves in all of them");
        return Ok(());
    };
    let ply = first.path.len();
    println!(
        "first difference at ply {ply}: {} there{}",
        if report.at_first_ply == 1 {
            "1 position differs".to_string()
        } else {
            format!("{} positions differ", report.at_first_ply)
        },
        if report.at_first_ply as usize > report.differences.len() {
            format!(" ({} shown)", report.differences.len())
        } else {
            String::new()
        }
    );
    for d in &report.differences {
        println!();
        match d.path.is_empty() {
            true => println!("at the start"),
            false => println!("after {} ({})", d.san.join(" "), d.path.join(" ")),
        }
        print!("{}", d.board);
        println!("FEN {}", d.fen);
        let list = |moves: &[String]| match moves.is_empty() {
            true => "none".to_string(),
            false => moves.join(" "),
        };
        let over = |over: bool| if over { " (the game is over here)" } else { "" };
        println!("only in {first_name}: {}{}", list(&d.only_first), over(d.over.0));
        println!(
            "only in {other_name}: {}{}",
            list(&d.only_other),
            over(d.over.1.unwrap_or(false))
        );
    }
    Err(Failure::Reported)
}
