//! `chessalg moves`, `perft` and `show`: a game's legal moves, perft counts
//! and positions.

use std::time::Instant;

use clap::Args;

use chessalg::engine::Cache;
use chessalg::game::{self, Ending, Game, State};

use super::{Failure, load_spec};

/// The rule file and the position to start from.
#[derive(Args, Debug)]
pub struct GameArgs {
    /// The rule file of the game.
    rules: String,
    /// Start from this FEN instead of the game's initial position.
    #[arg(long)]
    fen: Option<String>,
}

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

/// Loads the game and its starting state.
fn setup(args: &GameArgs) -> Result<(Game, State), Failure> {
    let rules = load_spec(&args.rules)?;
    let game = Game::new(&rules).map_err(|e| Failure::Message(format!("{}: {e}", args.rules)))?;
    let state = match &args.fen {
        Some(fen) => game.from_fen(fen).map_err(|e| Failure::Message(e.to_string()))?,
        None => game.initial(),
    };
    Ok((game, state))
}

fn play_error(e: game::PlayError) -> Failure {
    Failure::Message(e.to_string())
}

/// Runs `chessalg moves`.
pub fn moves(args: &GameArgs) -> Result<(), Failure> {
    let (game, state) = setup(args)?;
    let mut cache = Cache::new();
    let actions = game.legal_actions(&state, &mut cache).map_err(play_error)?;
    let mut names: Vec<String> = actions.iter().map(|a| game.action_name(&state, a)).collect();
    names.sort();
    for n in names {
        println!("{n}");
    }
    Ok(())
}

/// Runs `chessalg perft`.
pub fn perft(args: &PerftArgs) -> Result<(), Failure> {
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

/// Runs `chessalg show`.
pub fn show(args: &GameArgs) -> Result<(), Failure> {
    let (game, state) = setup(args)?;
    let mut cache = Cache::new();
    print!("{}", game.board_text(&state));
    println!("{} to move", game.players[state.turn]);
    println!("FEN: {}", game.to_fen(&state));
    let legal = game.legal_actions(&state, &mut cache).map_err(play_error)?;
    if game
        .royal_attacked(&state.position, state.turn, &mut cache)
        .map_err(play_error)?
    {
        println!("{} is in check", game.players[state.turn]);
    }
    match game.ending(&state, &legal, &mut cache).map_err(play_error)? {
        Some(Ending::Win(p)) => println!("Game over: {} wins", game.players[p]),
        Some(Ending::Draw) => println!("Game over: draw"),
        None => println!("{} legal moves", legal.len()),
    }
    Ok(())
}
