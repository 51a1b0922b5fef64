//! `chessalg play`: a game between humans, the AI and the random player.
//! With stdin a terminal, the board is drawn and moves are picked with the
//! keys (`tui`); otherwise line mode reads one command per line.

use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use clap::{Args, ValueEnum};

use chessalg::game::Game;

use std::sync::Arc;

use chessalg::ai::{Budget, Weights};
use chessalg::engine::Cache;
use chessalg::session::journal::{self, Journal, SavedGame};
use chessalg::session::{Controller, Session, TimeControl, TimeControlError};

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

/// Who plays each player, shared by `play` and `match`.
#[derive(Args, Debug)]
pub struct SeatArgs {
    /// Who plays the player named `white` (or, if none is, the first player).
    #[arg(long, value_enum)]
    white: Option<PlayerKind>,
    /// Who plays the player named `black` (or, if none is, the second player).
    #[arg(long, value_enum)]
    black: Option<PlayerKind>,
    /// Who plays a player, by the name the rule file gives it:
    /// `--player red=ai` (repeat it for each player to set).
    #[arg(long = "player", value_name = "NAME=WHO")]
    players: Vec<String>,
}

impl SeatArgs {
    /// Who plays each player, in turn order: `first` for the first player
    /// and `rest` for the others unless the flags say otherwise.
    pub fn controllers(
        &self,
        game: &Game,
        first: PlayerKind,
        rest: PlayerKind,
    ) -> Result<Vec<PlayerKind>, Failure> {
        let seats = (0..game.players().len())
            .map(|i| if i == 0 { first } else { rest })
            .collect();
        self.over(game, seats)
    }

    /// `seats` (one per player, in turn order) with the flags' changes.
    pub fn over(&self, game: &Game, mut seats: Vec<PlayerKind>) -> Result<Vec<PlayerKind>, Failure> {
        let names = game.players();
        seats.resize(names.len(), PlayerKind::Ai);
        let named = |name: &str, fallback: usize| {
            names
                .iter()
                .position(|p| p.eq_ignore_ascii_case(name))
                .or((fallback < names.len()).then_some(fallback))
        };
        for (kind, colour, fallback) in [(self.white, "white", 0), (self.black, "black", 1)] {
            if let Some(kind) = kind {
                let i = named(colour, fallback).ok_or_else(|| {
                    Failure::Message(format!(
                        "--{colour}: this game has only {} player(s)",
                        names.len()
                    ))
                })?;
                seats[i] = kind;
            }
        }
        for seat in &self.players {
            let Some((name, who)) = seat.split_once('=') else {
                return Err(Failure::Message(format!(
                    "--player {seat}: write NAME=WHO, e.g. --player {}=ai",
                    names[0]
                )));
            };
            let Some(i) = names.iter().position(|p| p == name.trim()) else {
                return Err(Failure::Message(format!(
                    "--player {seat}: `{name}` is not a player of this game (its players: {})",
                    names.join(", ")
                )));
            };
            seats[i] = PlayerKind::from_str(who.trim(), true).map_err(|_| {
                Failure::Message(format!(
                    "--player {seat}: `{who}` is not `human`, `ai` or `random`"
                ))
            })?;
        }
        Ok(seats)
    }
}

/// The AI's budget flags, shared by `play` and `match`.
#[derive(Args, Debug)]
pub struct AiArgs {
    /// How many plies deep the AI searches (default: as deep as its time allows).
    #[arg(long)]
    depth: Option<u32>,
    /// Seconds the AI may think per move (`play`'s default: 1).
    #[arg(long)]
    time: Option<f64>,
    /// Play on a clock, MINUTES+INCREMENT (seconds): `5+3`. Each player's
    /// time runs on their turn, the AI spends a share of what it has left,
    /// and a player whose time runs out loses.
    #[arg(long, value_name = "MINUTES+INCREMENT")]
    clock: Option<String>,
    /// The AI scores positions with weights `chessalg train` wrote: `FILE`
    /// for every player, `PLAYER=FILE` for one (repeat for each); `none`:
    /// the declared piece values only. Default: the weights the rule file
    /// names (`weights "FILE"`), if any.
    #[arg(long, value_name = "[PLAYER=]FILE")]
    weights: Vec<String>,
}

impl AiArgs {
    /// The AI's budget per move: `--depth` and `--time` as given; with
    /// neither, `default_time` seconds if given, else depth 3.
    pub fn budget(&self, default_time: Option<f64>) -> Result<Budget, Failure> {
        if let Some(t) = self.time
            && !(t > 0.0 && t.is_finite())
        {
            return Err(Failure::Message(format!(
                "--time must be a positive number of seconds, not {t}"
            )));
        }
        let time = match (self.time, self.depth, &self.clock) {
            (Some(t), _, _) => Some(t),
            (None, None, None) => default_time,
            _ => None,
        };
        let timed = time.is_some() || self.clock.is_some();
        Ok(Budget {
            depth: self.depth.unwrap_or(if timed { 64 } else { 3 }).max(1),
            time: time.map(Duration::from_secs_f64),
        })
    }

    /// Each player's learned weights (in turn order), as `--weights` says.
    pub fn weights(&self, game: &Game) -> Result<Vec<Option<Arc<Weights>>>, Failure> {
        player_weights(game, &self.weights)
    }

    /// The clock the game is played on, if `--clock` asks for one.
    pub fn clock(&self) -> Result<Option<TimeControl>, Failure> {
        self.clock
            .as_deref()
            .map(|c| {
                c.parse()
                    .map_err(|e: TimeControlError| Failure::Message(format!("--clock: {e}")))
            })
            .transpose()
    }
}

/// Each player's weights from `--weights` values (`FILE` for all players,
/// `PLAYER=FILE` for one, `none` for the declared values only), in turn
/// order; where none is given, the weights the rule file names, if any.
pub fn player_weights(game: &Game, specs: &[String]) -> Result<Vec<Option<Arc<Weights>>>, Failure> {
    let names = game.players();
    let declared = Weights::declared(game)
        .map_err(|e| Failure::Message(format!("the rule file's weights: {e}")))?
        .map(Arc::new);
    let mut out = vec![declared; names.len()];
    for spec in specs {
        let (who, path) = match spec.split_once('=') {
            Some((p, f)) if names.iter().any(|n| n == p) => (names.iter().position(|n| n == p), f),
            _ => (None, spec.as_str()),
        };
        let w = match path {
            "none" => None,
            _ => Some(Arc::new(
                Weights::load(path, game).map_err(|e| Failure::Message(format!("--weights: {e}")))?,
            )),
        };
        match who {
            Some(i) => out[i] = w,
            None => out.iter_mut().for_each(|o| *o = w.clone()),
        }
    }
    Ok(out)
}

/// Arguments of `chessalg play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The rule file of the game (with `--resume`: the one the kept game names).
    #[arg(required_unless_present = "resume")]
    rules: Option<String>,
    /// Who plays (by default a human the first player, the AI the others).
    #[command(flatten)]
    seats: SeatArgs,
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
    /// Keep the game in this PGN file, written whole after every move and
    /// when it ends (default: a new file in the data directory's `games/`,
    /// `~/.local/share/chessalg/games/` on Linux, `$CHESSALG_DATA_DIR/games/`
    /// if that is set).
    #[arg(long)]
    pgn: Option<String>,
    /// Go on with a kept game: the last unfinished one in the data
    /// directory, or the PGN file given. Its rule file, players and clock
    /// come from the file unless flags say otherwise; it is kept where it was.
    #[arg(long, value_name = "PGN")]
    resume: Option<Option<String>>,
    /// Line mode even in a terminal.
    #[arg(long)]
    line: bool,
    /// Print only the moves and the result, not the board after each move.
    #[arg(long)]
    quiet: bool,
}

impl From<Controller> for PlayerKind {
    fn from(c: Controller) -> PlayerKind {
        match c {
            Controller::Human => PlayerKind::Human,
            Controller::Ai => PlayerKind::Ai,
            Controller::Random => PlayerKind::Random,
        }
    }
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

/// How long the AI thinks per move in `play` when no flag says.
const DEFAULT_SECONDS: f64 = 1.0;

/// The kept game `--resume` names: the file given, or the last unfinished
/// one in the data directory.
fn resumed(which: Option<&str>) -> Result<SavedGame, Failure> {
    let saved = match which {
        Some(path) => {
            SavedGame::read(Path::new(path)).map_err(|e| Failure::Message(format!("--resume: {e}")))?
        }
        None => {
            let dir = journal::games_dir().map_err(|e| Failure::Message(format!("--resume: {e}")))?;
            journal::latest_unfinished(&dir)
                .map_err(|e| Failure::Message(format!("--resume: {e}")))?
                .ok_or_else(|| {
                    Failure::Message(format!(
                        "--resume: no unfinished game is kept in {}; start one with `chessalg play RULES`",
                        dir.display()
                    ))
                })?
        }
    };
    if saved.finished {
        return Err(Failure::Message(format!(
            "--resume: the game in {} is over (it has a result)",
            saved.path.display()
        )));
    }
    Ok(saved)
}

/// How a kept game names its rule file: a file's absolute path (so it is
/// found from any directory), or a bundled game's name as given.
fn rules_tag(rules: &str) -> String {
    match std::fs::canonicalize(rules) {
        Ok(path) if path.is_file() => path.display().to_string(),
        _ => rules.to_string(),
    }
}

/// Runs `chessalg play`.
pub fn run(args: &PlayArgs) -> Result<(), Failure> {
    let saved = match &args.resume {
        Some(which) => Some(resumed(which.as_deref())?),
        None => None,
    };
    let rules = match (&args.rules, saved.as_ref().and_then(|s| s.rules.as_ref())) {
        (Some(rules), _) | (None, Some(rules)) => rules.clone(),
        (None, None) => {
            return Err(Failure::Message(
                "--resume: the kept game does not name its rule file; give it: chessalg play RULES --resume PGN"
                    .to_string(),
            ));
        }
    };
    let game = std::sync::Arc::new(load_game(&rules)?);
    let mut cache = Cache::new();
    let (start, played) = match (&saved, &args.fen) {
        (Some(_), Some(_)) => {
            return Err(Failure::Message(
                "--fen and --resume: a resumed game goes on from where it stopped".to_string(),
            ));
        }
        (Some(saved), None) => {
            let read = game
                .read_pgn(&saved.text, &mut cache)
                .map_err(|e| Failure::Message(format!("--resume: {}: {e}", saved.path.display())))?;
            (read.start, read.actions)
        }
        (None, Some(fen)) => (
            game.from_fen(fen).map_err(|e| Failure::Message(e.to_string()))?,
            Vec::new(),
        ),
        (None, None) => (game.initial(), Vec::new()),
    };
    let budget = args.ai.budget(Some(DEFAULT_SECONDS))?;
    let clock = match (args.ai.clock()?, saved.as_ref()) {
        (Some(c), _) => Some(c),
        (None, Some(s)) => s.time_control,
        (None, None) => None,
    };
    let seats = match saved.as_ref().and_then(|s| s.seats.clone()) {
        Some(seats) => args
            .seats
            .over(&game, seats.into_iter().map(PlayerKind::from).collect())?,
        None => args.seats.controllers(&game, PlayerKind::Human, PlayerKind::Ai)?,
    };
    let controllers = seats.into_iter().map(Controller::from).collect();
    let weights = args.ai.weights(&game)?;
    let mut m = Session::new(game.clone(), start, controllers, budget, args.seed).with_weights(&weights);
    for action in played {
        m.push(action);
    }
    // A resumed game's clocks start again from the time control.
    if let Some(control) = clock {
        m = m.with_clock(control);
    }
    m.tags.push((journal::RULES_TAG.to_string(), rules_tag(&rules)));
    let journal = match (&args.pgn, &saved) {
        (Some(path), _) => Journal::at(path),
        (None, Some(saved)) => Journal::at(&saved.path),
        (None, None) => {
            let dir = journal::games_dir().map_err(|e| Failure::Message(e.to_string()))?;
            Journal::new_in(&dir, game.name())
        }
    };
    let has_human = m.controllers.contains(&Controller::Human);
    let terminal =
        has_human && !args.line && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if !terminal {
        ui::line::on_interrupt(&journal);
    }
    // Written at once: the file exists (and is whole) from the start.
    ui::save(&mut m, &journal, None, None)?;
    match &saved {
        Some(_) => eprintln!(
            "resumed after {} moves; the game is kept in {}",
            m.actions.len(),
            journal.path().display()
        ),
        None => eprintln!("the game is kept in {}", journal.path().display()),
    }
    if terminal {
        return ui::terminal::run(&mut m, args.max_plies, &journal);
    }
    let options = ui::Options {
        quiet: args.quiet,
        max_plies: args.max_plies,
        journal: &journal,
    };
    ui::line::run(&mut m, &options)
}
