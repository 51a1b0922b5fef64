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

/// The result as one line, in the rule file's words: the winner's name,
/// what the outcome is called (`checkmate`; else its rule), a count's
/// detail (`33-31`) and the score.
pub fn result_line(game: &Game, status: &Status) -> String {
    let Some(ended) = &status.ending else {
        return "Game stopped *".to_string();
    };
    let called = ended.described();
    match ended.ending {
        Ending::Win(p) => format!(
            "Game over: {} wins ({called}) {}",
            game.display_name(p),
            game.result_token(Some(ended.ending))
        ),
        Ending::Draw => format!("Game over: draw ({called}) 1/2-1/2"),
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
