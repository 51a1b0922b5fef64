//! `chessalg serve`: the game of a rule file as a board in the browser.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use clap::Args;

use chessalg::web::{ServeOptions, serve};

use crate::cli::{Failure, load_game};

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
    /// The AI's thinking time per move, in milliseconds, when the page asks for none.
    #[arg(long, default_value_t = 1000)]
    pub time: u64,
    /// The most thinking time a page may ask for, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub time_cap: u64,
    /// The AI's deepest search, in plies.
    #[arg(long, default_value_t = 64)]
    pub depth: u32,
    /// A player the AI plays in the page from the start (repeat for each:
    /// `--ai black`); the page's boxes change it.
    #[arg(long = "ai", value_name = "PLAYER")]
    pub ai: Vec<String>,
    /// Open the page in the system's browser (`xdg-open`, `open` on macOS).
    #[arg(long)]
    pub open: bool,
}

/// Serves the board until the process is stopped.
pub fn run(args: &ServeArgs) -> Result<(), Failure> {
    let game = load_game(&args.rules)?;
    if let Some(unknown) = args.ai.iter().find(|p| !game.players().contains(p)) {
        return Err(Failure::Message(format!(
            "--ai {unknown}: the players are {}",
            game.players().join(", ")
        )));
    }
    let options = ServeOptions {
        addr: SocketAddr::new(args.host, args.port),
        ai_time: Duration::from_millis(args.time.clamp(1, args.time_cap.max(1))),
        ai_cap: Duration::from_millis(args.time_cap.max(1)),
        ai_depth: args.depth.max(1),
        ai_players: args.ai.clone(),
    };
    let open = args.open;
    serve(game, options, |addr| {
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
