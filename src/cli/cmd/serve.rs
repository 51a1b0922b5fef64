//! `chessalg serve`: the game of a rule file as a board in the browser.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use chessalg::engine::Cache;
use chessalg::session::Controller;
use chessalg::web::{ServeOptions, Store, parse_clock, serve};

use super::play::{PlayerKind, SeatArgs, player_weights};
use crate::cli::{Failure, build_game, load_spec};

/// Arguments of `chessalg serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The rule file of the game (the only file the server reads).
    pub rules: String,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on (another than 127.0.0.1 only when asked).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Who plays each side in the page at first (`--black ai`, `--player
    /// red=random`; by default people play every side); the page changes it.
    #[command(flatten)]
    pub seats: SeatArgs,
    /// Seconds the AI thinks per move when the page asks for no other time.
    #[arg(long, default_value_t = 1.0)]
    pub time: f64,
    /// The most seconds the AI may think for a page that asks.
    #[arg(long, default_value_t = 10.0)]
    pub time_cap: f64,
    /// The AI's deepest search, in plies.
    #[arg(long, default_value_t = 64)]
    pub depth: u32,
    /// New games start from this FEN instead of the game's initial position.
    #[arg(long)]
    pub fen: Option<String>,
    /// The AI scores positions with weights `chessalg train` wrote: `FILE`
    /// for every player, `PLAYER=FILE` for one.
    #[arg(long, value_name = "[PLAYER=]FILE")]
    pub weights: Vec<String>,
    /// Open the page in the system's browser (`xdg-open`, `open` on macOS).
    #[arg(long)]
    pub open: bool,
    /// The SQLite database the games are kept in, written as they are
    /// played (made if missing; default: `games.sqlite3` in the user's
    /// data folder, e.g. `~/.local/share/chessalg/`).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Games in memory only, lost when the server stops (no database).
    #[arg(long, conflicts_with = "db")]
    pub no_db: bool,
    /// New games have a clock of MINUTES+SECONDS (`5+3`: five minutes
    /// each, three seconds added per move), judged by the server; a page
    /// may ask for another.
    #[arg(long, value_name = "MINUTES+SECONDS")]
    pub clock: Option<String>,
}

/// Serves the board until the process is stopped.
pub fn run(args: &ServeArgs) -> Result<(), Failure> {
    let spec = load_spec(&args.rules)?;
    let game = build_game(&spec, &args.rules)?;
    let seconds = |flag: &str, t: f64| {
        if t > 0.0 && t.is_finite() {
            Ok(Duration::from_secs_f64(t.min(86_400.0)))
        } else {
            Err(Failure::Message(format!(
                "--{flag} must be a positive number of seconds, not {t}"
            )))
        }
    };
    let cap = seconds("time-cap", args.time_cap)?;
    let time = seconds("time", args.time)?.min(cap);
    let seats = args
        .seats
        .controllers(&game, PlayerKind::Human, PlayerKind::Human)?
        .into_iter()
        .map(Controller::from)
        .collect();
    let start = match &args.fen {
        Some(fen) => Some(
            game.from_fen_checked(fen, &mut Cache::new())
                .map_err(|e| Failure::Message(format!("--fen: {e}")))?,
        ),
        None => None,
    };
    let options = ServeOptions {
        addr: SocketAddr::new(args.host, args.port),
        ai_time: time,
        ai_cap: cap,
        ai_depth: args.depth.max(1),
        seats,
        start,
        weights: player_weights(&game, &args.weights)?,
        clock: match &args.clock {
            Some(text) => Some(parse_clock(text).map_err(|e| Failure::Message(format!("--clock: {e}")))?),
            None => None,
        },
    };
    let store = if args.no_db {
        Store::in_memory()
    } else {
        let path = match &args.db {
            Some(path) => path.clone(),
            None => default_db()?,
        };
        Store::open(&path)
    }
    .map_err(|e| Failure::Message(e.to_string()))?;
    let open = args.open;
    serve(spec, game, options, store, |addr| {
        let url = format!("http://{addr}/");
        println!("{url}");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        if open {
            open_browser(&url);
        }
    })
    .map_err(|e| Failure::Message(format!("cannot serve on {}:{}: {e}", args.host, args.port)))
}

/// The database of `serve` when none is named: `games.sqlite3` in the
/// user's data folder.
fn default_db() -> Result<PathBuf, Failure> {
    let dirs = directories::ProjectDirs::from("", "", "chessalg").ok_or_else(|| {
        Failure::Message("no data folder is known for this user: give --db FILE or --no-db".into())
    })?;
    Ok(dirs.data_dir().join("games.sqlite3"))
}

/// Starts the system's browser on `url`, or says in one line that it cannot.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let started = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if started.is_err() {
        eprintln!("note: no browser could be started ({opener} is missing): open {url} yourself");
    }
}
