//! `chessalg serve`: the game of a rule file as a board in the browser.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use chessalg::engine::Cache;
use chessalg::session::{Controller, TimeControl};
use chessalg::web::{HostLimits, ServeOptions, Store, serve};

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
    /// The address people reach the server at (`https://chess.example.org`),
    /// which seat links start with; by default links are relative to the
    /// page (the `Host` a request names is never trusted).
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// The most connections open at once (default: three quarters of the
    /// open files the process may have). Past it the longest idle one is
    /// closed; if all are at work, a new one is answered 503.
    #[arg(long, value_name = "N", help_heading = "Hosting limits")]
    pub max_connections: Option<usize>,
    /// The most event streams (pages following a game live) open at once
    /// (default: half the connections); past it, 503.
    #[arg(long, value_name = "N", help_heading = "Hosting limits")]
    pub max_streams: Option<usize>,
    /// Seconds a connection may take to send a request's head, from its
    /// opening or its last answer (an idle connection is closed then).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 20.0,
        help_heading = "Hosting limits"
    )]
    pub idle_timeout: f64,
    /// Games kept in memory (the database keeps them all): past it, those
    /// nothing holds go, least recently used first.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10_000,
        help_heading = "Hosting limits"
    )]
    pub max_games: usize,
    /// New games one client address may make a minute (0: no limit); past it, 429.
    #[arg(long, value_name = "N", default_value_t = 30, help_heading = "Hosting limits")]
    pub games_per_minute: u32,
    /// Rule texts one client address may have the playground check a
    /// minute (0: no limit); past it, 429.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 120,
        help_heading = "Hosting limits"
    )]
    pub checks_per_minute: u32,
    /// Megabytes the playground's rule sets may take in memory together.
    #[arg(
        long,
        value_name = "MB",
        default_value_t = 512,
        help_heading = "Hosting limits"
    )]
    pub playground_memory: usize,
    /// Minutes a seek (an open seat in the lobby) stays listed unjoined.
    #[arg(
        long,
        value_name = "MINUTES",
        default_value_t = 30.0,
        help_heading = "Hosting limits"
    )]
    pub seek_minutes: f64,
    /// Seconds a seat may have no page following its game before it counts
    /// as gone: its seek leaves the lobby, and on its turn the opponent may
    /// claim the game.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 180.0,
        help_heading = "Hosting limits"
    )]
    pub away: f64,
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
            Some(text) => {
                Some((text.parse::<TimeControl>()).map_err(|e| Failure::Message(format!("--clock: {e}")))?)
            }
            None => None,
        },
        public_url: match &args.public_url {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                Some(url.trim_end_matches('/').to_string())
            }
            Some(url) => {
                return Err(Failure::Message(format!(
                    "--public-url must start with http:// or https://, not {url:?}"
                )));
            }
            None => None,
        },
        limits: limits(args)?,
        rules_text: std::fs::read_to_string(&args.rules).ok(),
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

/// The hosting limits the flags ask for.
fn limits(args: &ServeArgs) -> Result<HostLimits, Failure> {
    let defaults = HostLimits::default();
    if !(args.idle_timeout > 0.0 && args.idle_timeout <= 3600.0) {
        return Err(Failure::Message(format!(
            "--idle-timeout must be a number of seconds above 0 and at most 3600, not {}",
            args.idle_timeout
        )));
    }
    let within = |flag: &str, t: f64| {
        if t > 0.0 && t <= 7.0 * 86_400.0 {
            Ok(Duration::from_secs_f64(t))
        } else {
            Err(Failure::Message(format!(
                "--{flag} must be above 0 and at most a week, not {}",
                if flag == "away" { t } else { t / 60.0 }
            )))
        }
    };
    let positive = |flag: &str, n: usize| {
        if n == 0 {
            Err(Failure::Message(format!("--{flag} must be at least 1")))
        } else {
            Ok(n)
        }
    };
    let max_connections = positive(
        "max-connections",
        args.max_connections.unwrap_or(defaults.max_connections),
    )?;
    Ok(HostLimits {
        max_connections,
        max_streams: positive(
            "max-streams",
            args.max_streams.unwrap_or(max_connections / 2).max(1),
        )?,
        idle_timeout: Duration::from_secs_f64(args.idle_timeout),
        max_games: positive("max-games", args.max_games)?,
        games_per_minute: args.games_per_minute,
        checks_per_minute: args.checks_per_minute,
        playground_bytes: positive("playground-memory", args.playground_memory)?.saturating_mul(1 << 20),
        seek_life: within("seek-minutes", args.seek_minutes * 60.0)?,
        away: within("away", args.away)?,
        ..defaults
    })
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
