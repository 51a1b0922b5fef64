//! `chessalg explain RULES MOVE`: how the rules derive a move, or why they
//! do not give it, in the rule file's own words.

use clap::Args;

use chessalg::engine::Cache;
use chessalg::inspect::{Verdict, explain};

use super::fen_failure;
use crate::cli::{Failure, build_game, load_spec};

/// Arguments of `chessalg explain`.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The rule file of the game.
    rules: String,
    /// The move: a legal move's name or SAN (`e1g1`, `O-O`), or the squares
    /// of one the rules do not give (`e1g1`).
    #[arg(value_name = "MOVE")]
    mv: String,
    /// The position (FEN) instead of the game's start.
    #[arg(long)]
    fen: Option<String>,
    /// Print the explanation as JSON (for editors and scripts).
    #[arg(long)]
    json: bool,
}

/// Runs `chessalg explain`: exit 0 for a legal move, 1 otherwise.
pub fn run(args: &ExplainArgs) -> Result<(), Failure> {
    let spec = load_spec(&args.rules)?;
    let game = build_game(&spec, &args.rules)?;
    let state = match &args.fen {
        Some(fen) => game
            .from_fen_checked(fen, &mut Cache::new())
            .map_err(fen_failure)?,
        None => game.initial(),
    };
    let e = explain(&spec, &game, &state, &args.mv).map_err(|e| Failure::Message(e.to_string()))?;
    if args.json {
        let text = serde_json::to_string_pretty(&e).map_err(|e| Failure::Message(e.to_string()))?;
        println!("{text}");
        return match e.verdict {
            Verdict::Legal => Ok(()),
            _ => Err(Failure::Reported),
        };
    }
    let mover = game.player_name(state.turn());
    let name = e.name.clone().unwrap_or_else(|| e.asked.clone());
    match &e.verdict {
        Verdict::Legal => println!("{name} is a legal move of {mover}. Its derivation:"),
        Verdict::LeavesRoyalAttacked(_) => {
            println!(
                "{name} is given by {mover}'s moves, but it is not legal: it leaves a royal piece attacked. Its derivation:"
            )
        }
        Verdict::NotGiven => println!("{name} is not a move of {mover} here: no derivation gives it."),
    }
    let width = e
        .lines
        .iter()
        .map(|l| 2 * l.depth + l.text.chars().count())
        .max()
        .unwrap_or(0)
        .min(100);
    for l in &e.lines {
        let text = format!("{}{}", "  ".repeat(l.depth + 1), l.text);
        match &l.place {
            Some(p) => println!("{text:<w$}   {p}", w = width + 2),
            None => println!("{text}"),
        }
    }
    if let Verdict::LeavesRoyalAttacked(by) = &e.verdict {
        println!("afterwards:");
        for b in by {
            println!("  {b}");
        }
    }
    match e.verdict {
        Verdict::Legal => Ok(()),
        _ => Err(Failure::Reported),
    }
}
