//! `chessalg stats RULES`: a game measured from many games played out by
//! the AI against itself and by random players (length, branching factor,
//! how games end, the first player's score, captures, promotions).

use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use chessalg::ai::Budget;
use chessalg::inspect::{GameStats, StatsOptions, stats};

use super::play_error;
use crate::cli::{Failure, load_game};

/// Arguments of `chessalg stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// The rule file of the game.
    rules: String,
    /// Games of each kind: the AI against itself, random against random.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// How many plies deep the AI searches.
    #[arg(long, default_value_t = 2)]
    depth: u32,
    /// A game stops unfinished after this many plies.
    #[arg(long, default_value_t = 500)]
    max_plies: usize,
    /// The seed of the first game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Open each game with this many random plies (so that the AI, which
    /// is deterministic but for ties, plays more different games).
    #[arg(long, default_value_t = 0, value_name = "PLIES")]
    opening: usize,
    /// Print the measures as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Draw the branching factor and the material over the plies to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<String>,
}

/// Runs `chessalg stats`.
pub fn run(args: &StatsArgs) -> Result<(), Failure> {
    if args.games == 0 || args.depth == 0 {
        return Err(Failure::Message("--games and --depth must be at least 1".into()));
    }
    let game = std::sync::Arc::new(load_game(&args.rules)?);
    let opts = StatsOptions {
        games: args.games,
        budget: Budget {
            depth: args.depth,
            time: None,
        },
        max_plies: args.max_plies.max(1),
        seed: args.seed,
        opening: args.opening,
    };
    let bar = ProgressBar::new(2 * args.games);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} games")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let started = Instant::now();
    // The weights the rule file names, as `play` and `match` use them.
    let weights = super::play::player_weights(&game, &[])?;
    let measured = stats(&game, &weights, opts, &|| bar.inc(1)).map_err(play_error)?;
    bar.finish_and_clear();
    if let Some(path) = &args.plot {
        chessalg::file::write(path, chessalg::inspect::stats::plot_svg(&measured))
            .map_err(|e| Failure::Message(e.to_string()))?;
    }
    if args.json {
        let text = serde_json::to_string_pretty(&measured).map_err(|e| Failure::Message(e.to_string()))?;
        println!("{text}");
    } else {
        print!("{}", table(&measured));
        println!(
            "({} games in {:.1} s)",
            2 * args.games,
            started.elapsed().as_secs_f64()
        );
    }
    if let Some(path) = &args.plot {
        eprintln!("plot written to {path}");
    }
    Ok(())
}

/// The measures as a table: one column per kind of game.
fn table(s: &GameStats) -> String {
    use chessalg::inspect::stats::Measures;
    let (a, r) = (&s.ai, &s.random);
    let mut rows: Vec<(String, String, String)> = vec![(String::new(), a.players.clone(), r.players.clone())];
    let mut row = |name: &str, f: &dyn Fn(&Measures) -> String| rows.push((name.to_string(), f(a), f(r)));
    row("game length, plies (least-most)", &|m| {
        format!("{:.1} ({}-{})", m.length.0, m.length.1, m.length.2)
    });
    row("legal moves per position", &|m| format!("{:.1}", m.branching));
    row("captures per game", &|m| format!("{:.1}", m.captures));
    row("promotions per game", &|m| format!("{:.2}", m.promotions));
    row(&format!("score of {}", s.players[0]), &|m| {
        format!(
            "{:.1}% ± {:.1}%",
            100.0 * m.first_score.0,
            100.0 * m.first_score.1
        )
    });
    for (i, p) in s.players.iter().enumerate() {
        row(&format!("{p} wins"), &|m| m.wins[i].to_string());
    }
    let n = s.players.len();
    row("drawn or unfinished", &|m| m.wins[n].to_string());
    row("how games end:", &|_| String::new());
    let mut endings: Vec<&String> = a.endings.iter().map(|e| &e.0).collect();
    for (e, _) in &r.endings {
        if !endings.contains(&e) {
            endings.push(e);
        }
    }
    for e in endings {
        row(&format!("  {e}"), &|m| {
            let k = m.endings.iter().find(|x| &x.0 == e).map_or(0, |x| x.1);
            format!("{:.0}%", 100.0 * k as f64 / m.games.max(1) as f64)
        });
    }
    let w0 = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let w1 = rows
        .iter()
        .map(|r| r.1.chars().count())
        .max()
        .unwrap_or(0)
        .max(12);
    let mut out = format!("{}: {} games of each kind\n", s.game, a.games);
    if s.opening > 0 {
        out.push_str(&format!("(each opened with {} random plies)\n", s.opening));
    }
    for (name, x, y) in rows {
        let line = format!("{name:<w0$}  {x:<w1$}  {y}");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
