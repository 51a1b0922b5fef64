//! `chessalg perft`: the leaves of the legal-move tree, optionally per first move.

use std::time::Instant;

use clap::Args;

use chessalg::engine::Cache;
use chessalg::game;

use super::{Failure, GameArgs, play_error, setup};

/// Arguments of `chessalg perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    game: GameArgs,
    /// How many plies deep to count.
    #[arg(long, short)]
    depth: u32,
    /// One `move: count` line per first move, then the total.
    #[arg(long)]
    divide: bool,
}

/// Runs `chessalg perft`.
pub fn run(args: &PerftArgs) -> Result<(), Failure> {
    let (game, state) = setup(&args.game)?;
    let mut cache = Cache::new();
    let started = Instant::now();
    let total = if args.divide {
        let rows = game::divide(&game, &state, args.depth, &mut cache).map_err(play_error)?;
        for (name, n) in &rows {
            println!("{name}: {n}");
        }
        println!();
        let total: u64 = rows.iter().map(|(_, n)| n).sum();
        println!("Nodes searched: {total}");
        total
    } else {
        let total = game::perft(&game, &state, args.depth, &mut cache).map_err(play_error)?;
        println!("{total}");
        total
    };
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{total} nodes in {secs:.3} s ({:.0} nodes/s)",
        total as f64 / secs.max(1e-9)
    );
    Ok(())
}
