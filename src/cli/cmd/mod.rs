//! The subcommands, one file each, and what several of them share.

pub mod apply;
pub mod bench;
pub mod check;
pub mod diff;
pub mod expand;
pub mod explain;
pub mod fmt;
pub mod lsp;
pub mod matches;
pub mod moves;
pub mod perft;
pub mod play;
pub mod serve;
pub mod show;
pub mod stats;
pub mod train;
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
    /// Load the FEN even if the game could never reach it (more royal
    /// pieces than it starts with, a piece where no move could put it, a
    /// rights letter or target square that marks nothing).
    #[arg(long, requires = "fen")]
    pub lenient: bool,
}

/// Loads the game and its starting state.
pub fn setup(args: &GameArgs) -> Result<(Game, State), Failure> {
    let game = load_game(&args.rules)?;
    let state = match &args.fen {
        Some(fen) if args.lenient => game.from_fen(fen).map_err(fen_failure)?,
        Some(fen) => game
            .from_fen_checked(fen, &mut chessalg::engine::Cache::new())
            .map_err(fen_failure)?,
        None => game.initial(),
    };
    Ok((game, state))
}

/// A FEN that was refused, as one line (with the way round it, if there is one).
pub fn fen_failure(e: chessalg::game::FenError) -> Failure {
    match e {
        chessalg::game::FenError::Implausible { .. } => {
            Failure::Message(format!("{e} (`--lenient` loads it anyway)"))
        }
        _ => Failure::Message(e.to_string()),
    }
}
