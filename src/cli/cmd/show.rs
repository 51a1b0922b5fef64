//! `chessalg show`: a position drawn, with whose turn, its FEN, check and outcome.

use clap::Args;

use chessalg::engine::Cache;
use chessalg::game::Ending;

use super::{Failure, GameArgs, play_error, setup};

/// Arguments of `chessalg show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Also write the position as an SVG picture to this file.
    #[arg(long)]
    pub svg: Option<std::path::PathBuf>,
}

/// Runs `chessalg show`.
pub fn run(args: &ShowArgs) -> Result<(), Failure> {
    let (game, state) = setup(&args.game)?;
    if let Some(path) = &args.svg {
        chessalg::file::write(
            path,
            chessalg::web::svg::position_svg(&game, &state, chessalg::web::svg::PieceSet::Standalone),
        )
        .map_err(|e| Failure::Message(e.to_string()))?;
    }
    let mut cache = Cache::new();
    print!("{}", game.board_text(&state));
    println!("{} to move", game.display_name(state.turn()));
    println!("FEN: {}", game.to_fen(&state));
    let legal = game.legal_actions(&state, &mut cache).map_err(play_error)?;
    if game
        .royal_attacked(state.position(), state.turn(), &mut cache)
        .map_err(play_error)?
    {
        println!("{} is in check", game.display_name(state.turn()));
    }
    match game.ended(&state, &legal, &mut cache).map_err(play_error)? {
        Some(ended) => match ended.ending {
            Ending::Win(p) => println!("Game over: {} wins ({})", game.display_name(p), ended.described()),
            Ending::Draw => println!("Game over: draw ({})", ended.described()),
        },
        None => println!("{} legal moves", legal.len()),
    }
    Ok(())
}
