//! The subcommands, one file each, and what several of them share.

pub mod apply;
pub mod bench;
pub mod check;
pub mod expand;
pub mod matches;
pub mod moves;
pub mod perft;
pub mod play;
pub mod show;
pub mod uci;

use clap::Args;

use chessalg::game::{Game, State};

pub use crate::cli::play_error;
use crate::cli::{Failure, load_game};

/// The rule file and the position to start from.
#[derive(Args, Debug)]
pub struct GameArgs {
    /// The rule file of the game.
    pub rules: String,
    /// Start from this FEN instead of the game's initial position.
    #[arg(long)]
    pub fen: Option<String>,
}

/// Loads the game and its starting state.
pub fn setup(args: &GameArgs) -> Result<(Game, State), Failure> {
    let game = load_game(&args.rules)?;
    let state = match &args.fen {
        Some(fen) => game.from_fen(fen).map_err(|e| Failure::Message(e.to_string()))?,
        None => game.initial(),
    };
    Ok((game, state))
}
