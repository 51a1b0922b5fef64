//! `chessalg moves`: the legal moves of a position, one name a line.

use chessalg::engine::Cache;

use super::{Failure, GameArgs, play_error, setup};

/// Runs `chessalg moves`.
pub fn run(args: &GameArgs) -> Result<(), Failure> {
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
