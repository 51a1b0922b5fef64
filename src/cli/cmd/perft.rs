//! `chessalg perft`: the leaves of the legal-move tree, optionally per first move.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Args;

use chessalg::game;

use super::{Failure, GameArgs, play_error, setup};

/// Arguments of `chessalg perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    game: GameArgs,
    /// How many plies deep to count.
    #[arg(long, short)]
    depth: u32,
    /// One `move: count` line per first move, then the total.
    #[arg(long)]
    divide: bool,
    /// Count on this many threads (0: one per core); the counts are the same.
    #[arg(long, short = 't', default_value_t = 1)]
    threads: usize,
    /// Keep counted subtrees in a table of at most this many MiB (1 to
    /// 65536) and count each position met again once (the counts are the same).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: Option<u64>,
}

/// Runs `chessalg perft`.
pub fn run(args: &PerftArgs) -> Result<(), Failure> {
    let (game, state) = setup(&args.game)?;
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let table = args
        .hash
        .map(|mb| game::PerftTable::with_megabytes(mb as usize))
        .transpose()
        .map_err(play_error)?;
    if table.is_some() && !game.perft_table_applies() {
        eprintln!(
            "note: --hash is not used: this game's automatic repetition outcome makes counts depend on the moves before"
        );
    }
    let table = table.as_ref();
    let started = Instant::now();
    let total = if args.divide {
        let rows = game::divide_parallel(&game, &state, args.depth, threads, table).map_err(play_error)?;
        for (name, n) in &rows {
            println!("{name}: {n}");
        }
        println!();
        let total: u64 = rows.iter().map(|(_, n)| n).sum();
        println!("Nodes searched: {total}");
        total
    } else {
        // On a terminal, a line of progress while it counts; nothing in a pipe.
        let watching = std::io::stderr().is_terminal();
        let progress = game::PerftProgress::default();
        let done = AtomicBool::new(false);
        let total = std::thread::scope(|scope| {
            if watching {
                scope.spawn(|| show_progress(&progress, &done, started));
            }
            let total = game::perft_watched(
                &game,
                &state,
                args.depth,
                threads,
                table,
                watching.then_some(&progress),
            );
            done.store(true, Ordering::Relaxed);
            total
        })
        .map_err(play_error)?;
        println!("{total}");
        total
    };
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{total} nodes in {secs:.3} s ({:.0} nodes/s)",
        total as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// Rewrites one line on stderr every half second until `done`: subtrees
/// counted, leaves so far and their rate; then clears it.
fn show_progress(progress: &game::PerftProgress, done: &AtomicBool, started: Instant) {
    let mut shown = false;
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        let secs = started.elapsed().as_secs_f64();
        if secs < 0.5 || done.load(Ordering::Relaxed) {
            continue;
        }
        let (parts, counted, leaves) = (
            progress.parts.load(Ordering::Relaxed),
            progress.done.load(Ordering::Relaxed),
            progress.leaves.load(Ordering::Relaxed),
        );
        eprint!(
            "\r\x1b[Kperft: {counted}/{parts} subtrees, {leaves} leaves, {:.1} M leaves/s, {secs:.0} s",
            leaves as f64 / secs / 1e6
        );
        shown = true;
    }
    if shown {
        eprint!("\r\x1b[K");
    }
}
