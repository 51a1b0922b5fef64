//! How a game in progress is shown and driven: line by line or on a
//! terminal board, and what both need (the result line, saving the PGN).

pub mod line;
pub mod terminal;

use chessalg::game::{Ending, Game};
use chessalg::session::journal::Journal;
use chessalg::session::{Session, Status};

use crate::cli::Failure;

/// How a game is played out on screen.
pub struct Options<'a> {
    /// Print only the moves and the result.
    pub quiet: bool,
    /// Stop after this many plies.
    pub max_plies: Option<usize>,
    /// Where the game is kept: written whole after every move and at the end.
    pub journal: &'a Journal,
}

/// The players' names and the result, as one line.
pub fn result_line(game: &Game, status: &Status) -> String {
    match &status.ending {
        Some((Ending::Win(p), reason)) => format!(
            "Game over: {} wins ({reason}) {}",
            game.player_name(*p),
            game.result_token(Some(Ending::Win(*p)))
        ),
        Some((Ending::Draw, reason)) => format!("Game over: draw ({reason}) 1/2-1/2"),
        None => "Game stopped *".to_string(),
    }
}

/// Writes the game's PGN to its journal, whole.
pub fn save(
    m: &mut Session,
    journal: &Journal,
    ending: Option<Ending>,
    termination: Option<String>,
) -> Result<(), Failure> {
    journal
        .save(m, ending, termination)
        .map_err(|e| Failure::Message(e.to_string()))
}
