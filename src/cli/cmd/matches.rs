//! `chessalg match`: many games between the AI and the random player (or
//! either against itself), played in parallel, with a tally: how a variant's
//! author checks that the AI plays it and how balanced it is.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::Args;

use std::sync::Arc;

use chessalg::ai::{Budget, Weights};
use chessalg::core::PlayerId;
use chessalg::game::{Ending, Game, PlayError, Reason};
use chessalg::session::{Controller, Session, TimeControl, journal};

use super::play::{AiArgs, PlayerKind, SeatArgs};
use crate::cli::{Failure, load_game, play_error};

/// Arguments of `chessalg match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// The rule file of the game.
    rules: String,
    /// Who plays, `ai` or `random` (by default the AI the first player, the
    /// random player the others).
    #[command(flatten)]
    seats: SeatArgs,
    /// How many games; game k uses seed `--seed` + k - 1.
    #[arg(long, default_value_t = 10)]
    games: u64,
    #[command(flatten)]
    ai: AiArgs,
    /// The seed of the first game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop a game after this many plies (it then counts as unfinished).
    #[arg(long, default_value_t = 1000)]
    max_plies: usize,
    /// Games played at once (default: one per processor).
    #[arg(long)]
    jobs: Option<usize>,
    /// Write every game to this PGN file, in seed order.
    #[arg(long)]
    pgn: Option<String>,
    /// Swap the two players' setups (who plays, weights) in every second
    /// game, and score the first player's setup over all games: how two
    /// setups are compared fairly in a game where moving first matters.
    #[arg(long)]
    alternate: bool,
    /// Open each game with this many random plies (drawn from the game's
    /// seed; under `--alternate` both games of a pair share the opening), so
    /// that deterministic AIs play many different games.
    #[arg(long, default_value_t = 0, value_name = "PLIES")]
    opening: usize,
}

/// One finished game.
struct Played {
    seed: u64,
    /// Whether the setups were swapped in this game (`--alternate`).
    swapped: bool,
    ending: Option<(Ending, Reason)>,
    plies: usize,
    pgn: String,
}

/// Runs `chessalg match`.
pub fn run(args: &MatchArgs) -> Result<(), Failure> {
    if args.games == 0 {
        return Err(Failure::Message("--games must be at least 1".to_string()));
    }
    let game = std::sync::Arc::new(load_game(&args.rules)?);
    let seats = args
        .seats
        .controllers(&game, PlayerKind::Ai, PlayerKind::Random)?;
    if seats.contains(&PlayerKind::Human) {
        return Err(Failure::Message(
            "a match is played by `ai` and `random` only; use `chessalg play` to play yourself".to_string(),
        ));
    }
    let budget = args.ai.budget(None)?;
    let clock = args.ai.clock()?;
    let controllers: Vec<Controller> = seats.into_iter().map(Controller::from).collect();
    let weights = args.ai.weights(&game)?;
    if args.alternate && game.players().len() != 2 {
        return Err(Failure::Message(
            "--alternate needs a game of two players".to_string(),
        ));
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, args.games.min(256) as usize);
    // Every finished game is kept at once, in a file of its own.
    let kept = journal::new_match_dir(game.name()).map_err(|e| Failure::Message(e.to_string()))?;
    eprintln!("the games are kept in {}", kept.display());
    let next = AtomicU64::new(0);
    let done: Mutex<Vec<Result<Played, Failure>>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= args.games {
                        break;
                    }
                    let seed = args.seed.wrapping_add(k);
                    let swapped = args.alternate && k % 2 == 1;
                    let setup = if swapped {
                        (
                            controllers.iter().rev().copied().collect(),
                            weights.iter().rev().cloned().collect(),
                        )
                    } else {
                        (controllers.clone(), weights.clone())
                    };
                    // Both games of an `--alternate` pair open alike.
                    let opening = (
                        args.opening,
                        args.seed.wrapping_add(k - k % 2 * u64::from(args.alternate)),
                    );
                    let result = play_one(&game, &setup, (budget, clock), (seed, opening), args.max_plies)
                        .map(|p| Played { swapped, ..p })
                        .map_err(play_error)
                        .and_then(|p| {
                            chessalg::file::write(kept.join(format!("seed-{seed}.pgn")), &p.pgn)
                                .map_err(|e| Failure::Message(e.to_string()))?;
                            Ok(p)
                        });
                    let stop = result.is_err();
                    done.lock().unwrap_or_else(|e| e.into_inner()).push(result);
                    if stop {
                        next.store(args.games, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let mut played = Vec::new();
    for result in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
        played.push(result?);
    }
    played.sort_by_key(|p| p.seed);
    report(&game, &controllers, &played);
    if args.alternate {
        report_setups(&game, &played);
    }
    if let Some(path) = &args.pgn {
        let text: String = played
            .iter()
            .map(|p| p.pgn.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        chessalg::file::write(path, text).map_err(|e| Failure::Message(e.to_string()))?;
        println!("games saved to {path}");
    }
    Ok(())
}

/// Plays game `seed` to its end or the ply limit, after an opening of
/// random plies (how many, and their seed).
fn play_one(
    game: &std::sync::Arc<Game>,
    (controllers, weights): &Setup,
    (budget, clock): (Budget, Option<TimeControl>),
    (seed, (opening, opening_seed)): (u64, (usize, u64)),
    max_plies: usize,
) -> Result<Played, PlayError> {
    let mut m =
        Session::new(game.clone(), game.initial(), controllers.to_vec(), budget, seed).with_weights(weights);
    m.random_opening(opening, opening_seed)?;
    if let Some(control) = clock {
        m = m.with_clock(control);
    }
    let ending = m.play_out(Some(max_plies))?;
    let termination = match &ending {
        Some((_, reason)) => reason.to_string(),
        None => "ply limit".to_string(),
    };
    let pgn = m.pgn(ending.as_ref().map(|(e, _)| *e), Some(termination))?;
    Ok(Played {
        seed,
        swapped: false,
        ending,
        plies: m.actions.len(),
        pgn,
    })
}

/// Who plays each player and with which weights, in turn order.
type Setup = (Vec<Controller>, Vec<Option<Arc<Weights>>>);

/// Under `--alternate`: how the setup given for the first player fared
/// over all games, whichever side it played, with a 95% interval.
fn report_setups(game: &Game, played: &[Played]) {
    let (mut won, mut drawn, mut lost) = (0u32, 0u32, 0u32);
    for p in played {
        let first_setup = PlayerId::new(usize::from(p.swapped));
        match &p.ending {
            Some((Ending::Win(w), _)) if *w == first_setup => won += 1,
            Some((Ending::Win(_), _)) => lost += 1,
            _ => drawn += 1,
        }
    }
    let n = f64::from(won + drawn + lost);
    let score = (f64::from(won) + 0.5 * f64::from(drawn)) / n;
    // The normal interval of a mean of per-game scores (1, 0.5, 0).
    let mean_sq = (f64::from(won) + 0.25 * f64::from(drawn)) / n;
    let half = 1.96 * ((mean_sq - score * score).max(0.0) / n).sqrt();
    println!(
        "the setup given for {} (playing both sides in turn): {won} won, {drawn} drawn or unfinished, {lost} lost: score {:.1}% ± {:.1}%",
        game.players()[0],
        100.0 * score,
        100.0 * half
    );
}

/// Prints a line per game and the tally.
fn report(game: &Game, controllers: &[Controller], played: &[Played]) {
    let mut wins = vec![0; game.players().len()];
    let (mut draws, mut unfinished) = (0, 0);
    for p in played {
        let result = match &p.ending {
            Some((Ending::Win(w), reason)) => {
                wins[*w] += 1;
                format!("{} wins ({reason})", game.player_name(*w))
            }
            Some((Ending::Draw, reason)) => {
                draws += 1;
                format!("draw ({reason})")
            }
            None => {
                unfinished += 1;
                "unfinished".to_string()
            }
        };
        println!("seed {}: {result} after {} plies", p.seed, p.plies);
    }
    let sides: Vec<String> = wins
        .iter()
        .zip(game.players())
        .zip(controllers)
        .map(|((w, name), c)| format!("{name} ({}) won {w}", c.label()))
        .collect();
    println!(
        "{} games: {}, {draws} drawn, {unfinished} unfinished",
        played.len(),
        sides.join(", ")
    );
}
