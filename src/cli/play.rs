//! `chessalg play`: a game between humans, the AI and the random player.
//! With stdin a terminal, the board is drawn and moves are picked with the
//! keys (`tui`); otherwise line mode reads one command per line.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use clap::{Args, ValueEnum};

use chessalg::game::ai::Budget;
use chessalg::game::{Ending, Game, PlayError, pgn};
use chessalg::session::{Controller, Match, Status};

use super::tui;
use super::{Failure, load_spec};

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Side {
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
    white: Side,
    /// Who plays the second player (black).
    #[arg(long, value_enum, default_value = "ai")]
    black: Side,
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

impl From<Side> for Controller {
    fn from(s: Side) -> Controller {
        match s {
            Side::Human => Controller::Human,
            Side::Ai => Controller::Ai,
            Side::Random => Controller::Random,
        }
    }
}

fn play_error(e: PlayError) -> Failure {
    Failure::Message(e.to_string())
}

/// Runs `chessalg play`.
pub fn run(args: &PlayArgs) -> Result<(), Failure> {
    let rules = load_spec(&args.rules)?;
    let game = Game::new(&rules).map_err(|e| Failure::Message(format!("{}: {e}", args.rules)))?;
    let start = match &args.fen {
        Some(fen) => game.from_fen(fen).map_err(|e| Failure::Message(e.to_string()))?,
        None => game.initial(),
    };
    let budget = args.ai.budget()?;
    let mut controllers = vec![Controller::from(args.white), Controller::from(args.black)];
    controllers.resize(game.players.len(), Controller::Ai);
    let mut m = Match::new(&game, start, controllers, budget, args.seed);
    let has_human = m.controllers.contains(&Controller::Human);
    if has_human && !args.line && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return tui::run(&mut m, args.max_plies, args.pgn.as_deref());
    }
    line_mode(&mut m, args)
}

/// The players' names and the result, as one line.
pub fn result_line(game: &Game, status: &Status) -> String {
    match status.ending {
        Some((Ending::Win(p), reason)) => format!(
            "Game over: {} wins ({reason}) {}",
            game.players[p],
            pgn::result_token(Some(Ending::Win(p)))
        ),
        Some((Ending::Draw, reason)) => format!("Game over: draw ({reason}) 1/2-1/2"),
        None => "Game stopped *".to_string(),
    }
}

/// Writes the game's PGN to `path`.
pub fn save(
    m: &mut Match<'_>,
    path: &str,
    ending: Option<Ending>,
    termination: Option<String>,
) -> Result<(), String> {
    let text = m.pgn(ending, termination).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))
}

fn line_mode(m: &mut Match<'_>, args: &PlayArgs) -> Result<(), Failure> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout();
    let game = m.game;
    let mut show_board = true;
    loop {
        let status = m.status().map_err(play_error)?;
        let state = m.state().clone();
        let player = &game.players[state.turn];
        if show_board && !args.quiet {
            print!("{}", game.board_text(&state));
            let check = if status.in_check { " (check)" } else { "" };
            println!("{player} to move{check}");
        }
        show_board = true;
        if status.ending.is_some() {
            let reason = status.ending.map(|(_, r)| r.to_string());
            println!("{}", result_line(game, &status));
            if let Some(path) = &args.pgn {
                save(m, path, status.ending.map(|(e, _)| e), reason).map_err(Failure::Message)?;
            }
            return Ok(());
        }
        if args.max_plies.is_some_and(|n| m.actions.len() >= n) {
            println!("Game stopped after {} plies *", m.actions.len());
            if let Some(path) = &args.pgn {
                save(m, path, None, Some("ply limit".to_string())).map_err(Failure::Message)?;
            }
            return Ok(());
        }
        let index = match m.controller() {
            Controller::Human => {
                print!("{player}> ");
                let _ = out.flush();
                let Some(Ok(line)) = lines.next() else {
                    println!();
                    return quit(m, args);
                };
                let text = line.trim();
                let mut words = text.split_whitespace();
                match words.next() {
                    None => {
                        show_board = false;
                        continue;
                    }
                    Some("quit" | "exit") => return quit(m, args),
                    Some("moves") => {
                        let mut sans = status.sans.clone();
                        sans.sort();
                        println!("{}", sans.join(" "));
                        show_board = false;
                        continue;
                    }
                    Some("undo") => {
                        let n = m.undo();
                        if n == 0 {
                            println!("nothing to undo");
                            show_board = false;
                        } else {
                            println!("took back {n} move{}", if n == 1 { "" } else { "s" });
                        }
                        continue;
                    }
                    Some("save") => {
                        match words.next() {
                            Some(path) => match save(m, path, None, None) {
                                Ok(()) => println!("saved {path}"),
                                Err(e) => println!("{e}"),
                            },
                            None => println!("save needs a file name: save FILE"),
                        }
                        show_board = false;
                        continue;
                    }
                    Some("help") => {
                        println!("a move (e2e4, e7e8q, Nf3, exd5, O-O), moves, undo, save FILE, quit");
                        show_board = false;
                        continue;
                    }
                    Some(_) => match game.read_move(&state, &status.legal, text) {
                        Ok(i) => i,
                        Err(e) => {
                            let mut shown: Vec<String> = game
                                .moves_for_input(&state, &status.legal, text)
                                .into_iter()
                                .map(|i| status.sans[i].clone())
                                .collect();
                            shown.sort();
                            let list = if shown.is_empty() {
                                "none from there".to_string()
                            } else {
                                shown.join(" ")
                            };
                            println!("{e}; legal: {list}");
                            show_board = false;
                            continue;
                        }
                    },
                }
            }
            _ => {
                let d = m.decide(&status.legal).map_err(play_error)?;
                let how = match d.choice {
                    Some(c) => format!(
                        " (depth {}, score {:+.2}, {} nodes, {:.2} s)",
                        c.depth,
                        f64::from(c.score) / 100.0,
                        c.nodes,
                        d.elapsed.as_secs_f64()
                    ),
                    None => String::new(),
                };
                println!(
                    "{} {player} plays {}{how}",
                    move_number(&state),
                    status.sans[d.index]
                );
                d.index
            }
        };
        if m.controller() == Controller::Human && !args.quiet {
            println!("{} {player} plays {}", move_number(&state), status.sans[index]);
        }
        m.push(status.legal[index].clone());
        if let Some(path) = &args.pgn {
            save(m, path, None, None).map_err(Failure::Message)?;
        }
    }
}

fn move_number(state: &chessalg::game::State) -> String {
    if state.turn == 0 {
        format!("{}.", state.fullmove)
    } else {
        format!("{}...", state.fullmove)
    }
}

fn quit(m: &mut Match<'_>, args: &PlayArgs) -> Result<(), Failure> {
    if let Some(path) = &args.pgn {
        save(m, path, None, Some("abandoned".to_string())).map_err(Failure::Message)?;
        println!("game saved to {path}");
    }
    println!("bye");
    Ok(())
}
