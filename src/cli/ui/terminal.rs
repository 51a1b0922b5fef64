//! The terminal board of `chessalg play`: move the cursor with the arrow
//! keys, Enter picks a piece (its targets light up) and then a target;
//! `u` takes back, `q`, Esc twice or Ctrl-C quits (the game is kept in its
//! journal after every move, and on quitting). Only the legal moves can be
//! picked.

use std::io::{Write, stdout};

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::style::{Color, Print, ResetColor, SetBackgroundColor, SetForegroundColor};
use crossterm::{cursor, execute, queue, terminal};

use chessalg::core::Coord;
use chessalg::session::journal::Journal;
use chessalg::session::{Controller, Session, Status};

use super::{result_line, save};
use crate::cli::{Failure, play_error};

/// Restores the terminal when dropped, whatever happens.
struct Screen;

impl Screen {
    fn enter() -> std::io::Result<Screen> {
        terminal::enable_raw_mode()?;
        execute!(stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        Ok(Screen)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = execute!(stdout(), ResetColor, cursor::Show, terminal::LeaveAlternateScreen);
        let _ = terminal::disable_raw_mode();
    }
}

fn io(e: std::io::Error) -> Failure {
    Failure::Message(format!("terminal: {e}"))
}

struct View {
    cursor: (u32, u32),
    selected: Option<Coord>,
    /// Moves between the same squares that differ (promotions): pick one by number.
    choosing: Option<Vec<usize>>,
    message: String,
}

/// Runs a match on the terminal board. Returns when it ends or the user quits.
pub fn run(m: &mut Session, max_plies: Option<usize>, journal: &Journal) -> Result<(), Failure> {
    let screen = Screen::enter().map_err(io)?;
    let (files, _) = m.game.dimensions();
    let mut view = View {
        cursor: (files / 2, 1),
        selected: None,
        choosing: None,
        message: String::new(),
    };
    let outcome = run_loop(m, &mut view, max_plies, journal);
    drop(screen);
    match outcome {
        Ok(last) => {
            println!("{last}");
            println!("game kept in {}", journal.path().display());
            Ok(())
        }
        Err(e) => Err(e),
    }
}

fn save_now(
    m: &mut Session,
    journal: &Journal,
    status: &Status,
    termination: Option<String>,
) -> Result<(), Failure> {
    save(m, journal, status.ending.as_ref().map(|e| e.ending), termination)
}

/// Saves the game after a move: it goes on, so no ending and no termination.
fn save_played(m: &mut Session, journal: &Journal) -> Result<(), Failure> {
    save(m, journal, None, None)
}

fn run_loop(
    m: &mut Session,
    view: &mut View,
    max_plies: Option<usize>,
    journal: &Journal,
) -> Result<String, Failure> {
    loop {
        let status = m.status().map_err(play_error)?;
        let over = status.ending.is_some();
        let stopped = !over && max_plies.is_some_and(|n| m.actions.len() >= n);
        if over || stopped {
            let line = if stopped {
                format!("Game stopped after {} plies *", m.actions.len())
            } else {
                result_line(&m.game, &status)
            };
            save_now(m, journal, &status, status.ending.as_ref().map(|e| e.called()))?;
            view.message = format!("{line}   (u: take back, q: quit)");
            draw(m, &status, view).map_err(io)?;
            match read_key().map_err(io)? {
                Key::Undo => {
                    m.undo();
                    view.message.clear();
                    continue;
                }
                Key::Quit | Key::Cancel => return Ok(line),
                _ => continue,
            }
        }
        if m.controller() != Controller::Human {
            view.message = format!("{} is thinking...", m.game.player_name(m.state().turn()));
            draw(m, &status, view).map_err(io)?;
            let d = m.decide(&status.legal).map_err(play_error)?;
            view.message = format!(
                "{} played {} ({:.2} s)",
                m.game.player_name(m.state().turn()),
                status.sans[d.index],
                d.elapsed.as_secs_f64()
            );
            m.push(status.legal[d.index].clone());
            save_played(m, journal)?;
            continue;
        }
        draw(m, &status, view).map_err(io)?;
        let key = read_key().map_err(io)?;
        let (files, ranks) = m.game.dimensions();
        match key {
            Key::Left => view.cursor.0 = view.cursor.0.saturating_sub(1),
            Key::Right => view.cursor.0 = (view.cursor.0 + 1).min(files - 1),
            Key::Down => view.cursor.1 = view.cursor.1.saturating_sub(1),
            Key::Up => view.cursor.1 = (view.cursor.1 + 1).min(ranks - 1),
            Key::Quit => {
                save_now(m, journal, &status, Some("abandoned".to_string()))?;
                return Ok("Game abandoned *".to_string());
            }
            Key::Cancel => {
                if view.selected.is_none() && view.choosing.is_none() {
                    save_now(m, journal, &status, Some("abandoned".to_string()))?;
                    return Ok("Game abandoned *".to_string());
                }
                view.selected = None;
                view.choosing = None;
                view.message.clear();
            }
            Key::Undo => {
                let n = m.undo();
                view.selected = None;
                view.choosing = None;
                view.message = format!("took back {n} move(s)");
            }
            Key::Digit(d) => {
                if let Some(options) = view.choosing.take() {
                    match options.get(d.wrapping_sub(1)) {
                        Some(&i) => {
                            play_human(m, view, &status, i);
                            save_played(m, journal)?;
                        }
                        None => view.choosing = Some(options),
                    }
                }
            }
            Key::Enter => {
                let at = m.game.square_at(view.cursor.0, view.cursor.1);
                let from_here: Vec<usize> = (0..status.legal.len())
                    .filter(|&i| status.legal[i].from() == Some(at))
                    .collect();
                match view.selected {
                    Some(from) if from != at => {
                        let picks: Vec<usize> = (0..status.legal.len())
                            .filter(|&i| {
                                status.legal[i].from() == Some(from) && status.legal[i].to() == Some(at)
                            })
                            .collect();
                        match picks.len() {
                            0 if !from_here.is_empty() => {
                                view.selected = Some(at);
                                view.message.clear();
                            }
                            0 => {
                                view.message =
                                    format!("{} is not a target: pick a lit square", m.game.square_label(at))
                            }
                            1 => {
                                play_human(m, view, &status, picks[0]);
                                save_played(m, journal)?;
                            }
                            _ => {
                                let list: Vec<String> = picks
                                    .iter()
                                    .enumerate()
                                    .map(|(k, &i)| format!("{}: {}", k + 1, status.sans[i]))
                                    .collect();
                                view.message = format!("choose: {}", list.join("  "));
                                view.choosing = Some(picks);
                            }
                        }
                    }
                    Some(_) => {
                        view.selected = None;
                        view.message.clear();
                    }
                    None if from_here.is_empty() => {
                        view.message = format!("no legal move from {}", m.game.square_label(at));
                    }
                    None => {
                        view.selected = Some(at);
                        view.message.clear();
                    }
                }
            }
            Key::Other => {}
        }
    }
}

fn play_human(m: &mut Session, view: &mut View, status: &Status, i: usize) {
    view.message = format!("you played {}", status.sans[i]);
    view.selected = None;
    view.choosing = None;
    m.push(status.legal[i].clone());
}

enum Key {
    Left,
    Right,
    Up,
    Down,
    Enter,
    Undo,
    Quit,
    Cancel,
    Digit(usize),
    Other,
}

fn read_key() -> std::io::Result<Key> {
    loop {
        if let Event::Key(KeyEvent {
            code,
            modifiers,
            kind,
            ..
        }) = event::read()?
        {
            if kind == KeyEventKind::Release {
                continue;
            }
            return Ok(match code {
                KeyCode::Char('c') if modifiers.contains(KeyModifiers::CONTROL) => Key::Quit,
                KeyCode::Left | KeyCode::Char('h') => Key::Left,
                KeyCode::Right | KeyCode::Char('l') => Key::Right,
                KeyCode::Up | KeyCode::Char('k') => Key::Up,
                KeyCode::Down | KeyCode::Char('j') => Key::Down,
                KeyCode::Enter | KeyCode::Char(' ') => Key::Enter,
                KeyCode::Char('u') => Key::Undo,
                KeyCode::Char('q') => Key::Quit,
                KeyCode::Esc => Key::Cancel,
                KeyCode::Char(c) if c.is_ascii_digit() => Key::Digit(c as usize - '0' as usize),
                _ => Key::Other,
            });
        }
    }
}

fn draw(m: &Session, status: &Status, view: &View) -> std::io::Result<()> {
    let game = &m.game;
    let state = m.state();
    let (files, ranks) = game.dimensions();
    let targets: Vec<Coord> = match view.selected {
        Some(from) => status
            .legal
            .iter()
            .filter(|a| a.from() == Some(from))
            .filter_map(|a| a.to())
            .collect(),
        None => Vec::new(),
    };
    let last = m.actions.last();
    let mut out = stdout();
    queue!(
        out,
        terminal::Clear(terminal::ClearType::All),
        cursor::MoveTo(0, 0)
    )?;
    let mut row = 0;
    let line = |out: &mut std::io::Stdout, row: &mut u16| -> std::io::Result<()> {
        *row += 1;
        queue!(out, ResetColor, cursor::MoveTo(0, *row))
    };
    queue!(out, Print(format!("  {}", game.name())))?;
    line(&mut out, &mut row)?;
    for rank in (0..ranks).rev() {
        line(&mut out, &mut row)?;
        queue!(out, Print(format!("{:>2} ", rank + 1)))?;
        for file in 0..files {
            let at = game.square_at(file, rank);
            let content = state.position().get(at);
            let text = match content {
                chessalg::core::Content::NoSquare
                | chessalg::core::Content::Empty
                | chessalg::core::Content::Count(_) => "   ".to_string(),
                chessalg::core::Content::Piece(p, _) => format!(" {} ", game.pieces().symbol(p)),
            };
            let light = (file + rank) % 2 == 1;
            let mut bg = if light {
                Color::Rgb {
                    r: 240,
                    g: 217,
                    b: 181,
                }
            } else {
                Color::Rgb {
                    r: 181,
                    g: 136,
                    b: 99,
                }
            };
            if last.is_some_and(|a| a.from() == Some(at) || a.to() == Some(at)) {
                bg = Color::Rgb {
                    r: 205,
                    g: 210,
                    b: 106,
                };
            }
            if targets.contains(&at) {
                bg = Color::Rgb {
                    r: 120,
                    g: 190,
                    b: 120,
                };
            }
            if view.selected == Some(at) {
                bg = Color::Rgb {
                    r: 100,
                    g: 150,
                    b: 230,
                };
            }
            if view.cursor == (file, rank) {
                bg = Color::Rgb {
                    r: 230,
                    g: 120,
                    b: 90,
                };
            }
            if matches!(content, chessalg::core::Content::NoSquare) {
                bg = Color::Reset;
            }
            queue!(
                out,
                SetBackgroundColor(bg),
                SetForegroundColor(Color::Black),
                Print(text),
                ResetColor
            )?;
        }
    }
    line(&mut out, &mut row)?;
    let mut labels = String::from("   ");
    for file in 0..files {
        labels.push_str(&format!(" {} ", char::from_u32('a' as u32 + file).unwrap_or('?')));
    }
    queue!(out, Print(labels))?;
    line(&mut out, &mut row)?;
    line(&mut out, &mut row)?;
    let check = if status.in_check { ", in check" } else { "" };
    let clock = m.clock_line().map_or(String::new(), |c| format!("   {c}"));
    queue!(
        out,
        Print(format!(
            "{} to move{check}   cursor {}{clock}",
            game.display_name(state.turn()),
            game.square_label(game.square_at(view.cursor.0, view.cursor.1))
        ))
    )?;
    line(&mut out, &mut row)?;
    queue!(out, Print(&view.message))?;
    line(&mut out, &mut row)?;
    line(&mut out, &mut row)?;
    queue!(
        out,
        Print("arrows: move   Enter: pick piece / target   Esc: unpick   u: take back   q: quit")
    )?;
    out.flush()
}
