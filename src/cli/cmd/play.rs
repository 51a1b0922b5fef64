//! `chessalg play`: a game between humans, the AI and the random player.
//! With stdin a terminal, the board is drawn and moves are picked with the
//! keys (`tui`); otherwise line mode reads one command per line.

use std::io::IsTerminal;
use std::time::Duration;

use clap::{Args, ValueEnum};

use chessalg::ai::Budget;
use chessalg::session::{Controller, Session};

use crate::cli::{Failure, load_game, ui};

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlayerKind {
    /// A person at the keyboard.
    Human,
    /// The alpha-beta AI.
    Ai,
    /// Uniformly random legal moves.
    Random,
}

/// The AI's budget flags, shared by `play` and `match`.
#[derive(Args, Debug)]
pub struct AiArgs {
    /// How many plies deep the AI searches (default 3, or as deep as `--time` allows).
    #[arg(long)]
    depth: Option<u32>,
    /// Seconds the AI may think per move.
    #[arg(long)]
    time: Option<f64>,
}

impl AiArgs {
    /// The AI's budget: depth 3 by default, or as deep as the time allows.
    pub fn budget(&self) -> Result<Budget, Failure> {
        if let Some(t) = self.time
            && !(t > 0.0 && t.is_finite())
        {
            return Err(Failure::Message(format!(
                "--time must be a positive number of seconds, not {t}"
            )));
        }
        Ok(Budget {
            depth: self
                .depth
                .unwrap_or(if self.time.is_some() { 64 } else { 3 })
                .max(1),
            time: self.time.map(Duration::from_secs_f64),
        })
    }
}

/// Arguments of `chessalg play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The rule file of the game.
    rules: String,
    /// Who plays the first player (white).
    #[arg(long, value_enum, default_value = "human")]
    white: PlayerKind,
    /// Who plays the second player (black).
    #[arg(long, value_enum, default_value = "ai")]
    black: PlayerKind,
    #[command(flatten)]
    ai: AiArgs,
    /// Seed of the random player and of the AI's choices among equal moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop the game after this many plies.
    #[arg(long)]
    max_plies: Option<usize>,
    /// Start from this FEN instead of the game's initial position.
    #[arg(long)]
    fen: Option<String>,
    /// Write the game to this PGN file after every move and when it ends.
    #[arg(long)]
    pgn: Option<String>,
    /// Line mode even in a terminal.
    #[arg(long)]
    line: bool,
    /// Print only the moves and the result, not the board after each move.
    #[arg(long)]
    quiet: bool,
}

impl From<PlayerKind> for Controller {
    fn from(s: PlayerKind) -> Controller {
        match s {
            PlayerKind::Human => Controller::Human,
            PlayerKind::Ai => Controller::Ai,
            PlayerKind::Random => Controller::Random,
        }
    }
}

/// Runs `chessalg play`.
pub fn run(args: &PlayArgs) -> Result<(), Failure> {
    let game = load_game(&args.rules)?;
    let start = match &args.fen {
        Some(fen) => game.from_fen(fen).map_err(|e| Failure::Message(e.to_string()))?,
        None => game.initial(),
    };
    let budget = args.ai.budget()?;
    let mut controllers = vec![Controller::from(args.white), Controller::from(args.black)];
    controllers.resize(game.players().len(), Controller::Ai);
    let mut m = Session::new(&game, start, controllers, budget, args.seed);
    let has_human = m.controllers.contains(&Controller::Human);
    if has_human && !args.line && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return ui::terminal::run(&mut m, args.max_plies, args.pgn.as_deref());
    }
    let options = ui::Options {
        quiet: args.quiet,
        max_plies: args.max_plies,
        pgn: args.pgn.as_deref(),
    };
    ui::line::run(&mut m, &options)
}
