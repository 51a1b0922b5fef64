//! `chessalg show`: a position drawn, with whose turn, its FEN, check and outcome.

use chessalg::engine::Cache;
use chessalg::game::Ending;

use super::{Failure, GameArgs, play_error, setup};

/// Runs `chessalg show`.
pub fn run(args: &GameArgs) -> Result<(), Failure> {
    let (game, state) = setup(args)?;
    let mut cache = Cache::new();
    print!("{}", game.board_text(&state));
    println!("{} to move", game.player_name(state.turn()));
    println!("FEN: {}", game.to_fen(&state));
    let legal = game.legal_actions(&state, &mut cache).map_err(play_error)?;
    if game
        .royal_attacked(state.position(), state.turn(), &mut cache)
        .map_err(play_error)?
    {
        println!("{} is in check", game.player_name(state.turn()));
    }
    match game.ending(&state, &legal, &mut cache).map_err(play_error)? {
        Some(Ending::Win(p)) => println!("Game over: {} wins", game.player_name(p)),
        Some(Ending::Draw) => println!("Game over: draw"),
        None => println!("{} legal moves", legal.len()),
    }
    Ok(())
}
