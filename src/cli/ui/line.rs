//! Line mode: one command per line on stdin, the board printed after each move.
//! The game is kept in its journal after every move; Ctrl-C ends the
//! program once the journal is whole.

use std::io::{BufRead, Write};
use std::sync::Mutex;

use chessalg::session::journal::Journal;
use chessalg::session::{Controller, Session};

use super::{Options, result_line, save};
use crate::cli::{Failure, play_error};

/// Plays `m` to its end (or the ply limit, or end of input) in line mode.
pub fn run(m: &mut Session, args: &Options<'_>) -> Result<(), Failure> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout();
    let game = m.game.clone();
    let game = &*game;
    let mut show_board = true;
    loop {
        let status = m.status().map_err(play_error)?;
        let state = m.state().clone();
        let player = &game.display_name(state.turn());
        if show_board && !args.quiet {
            print!("{}", game.board_text(&state));
            let check = if status.in_check { " (check)" } else { "" };
            println!("{player} to move{check}");
            if let Some(clock) = m.clock_line() {
                println!("{clock}");
            }
        }
        show_board = true;
        if status.ending.is_some() {
            let reason = status.ending.as_ref().map(|e| e.called());
            println!("{}", result_line(game, &status));
            keep(m, args.journal, status.ending.as_ref().map(|e| e.ending), reason)?;
            return Ok(());
        }
        if args.max_plies.is_some_and(|n| m.actions.len() >= n) {
            println!("Game stopped after {} plies *", m.actions.len());
            keep(m, args.journal, None, Some("ply limit".to_string()))?;
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
                            Some(path) => match save(m, &Journal::at(path), None, None) {
                                Ok(()) => println!("saved {path}"),
                                Err(Failure::Message(e)) => println!("{e}"),
                                Err(Failure::Reported) => {}
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
        keep(m, args.journal, None, None)?;
    }
}

/// Held while the journal is written, so Ctrl-C never ends the program
/// in the middle of a write (which would leave a stray temporary file).
static WRITING: Mutex<()> = Mutex::new(());

/// Writes the game to its journal, Ctrl-C held off meanwhile.
fn keep(
    m: &mut Session,
    journal: &Journal,
    ending: Option<chessalg::game::Ending>,
    termination: Option<String>,
) -> Result<(), Failure> {
    let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    save(m, journal, ending, termination)
}

/// From now on, Ctrl-C waits for a write of the journal in progress, says
/// where the game is kept, and ends the program (status 130). The journal
/// holds every move played (it is written after each).
pub fn on_interrupt(journal: &Journal) {
    let path = journal.path().display().to_string();
    // Only one handler per process; a second game in the same process keeps
    // the first one's (tests call this once).
    let _ = ctrlc::set_handler(move || {
        let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
        println!();
        println!("game kept in {path}; `chessalg play --resume {path}` goes on with it");
        let _ = std::io::stdout().flush();
        std::process::exit(130);
    });
}

fn move_number(state: &chessalg::game::State) -> String {
    if state.turn().index() == 0 {
        format!("{}.", state.fullmove())
    } else {
        format!("{}...", state.fullmove())
    }
}

fn quit(m: &mut Session, args: &Options<'_>) -> Result<(), Failure> {
    keep(m, args.journal, None, Some("abandoned".to_string()))?;
    println!("game kept in {}", args.journal.path().display());
    println!("bye");
    Ok(())
}
