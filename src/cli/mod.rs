//! The command line: clap types and subcommands. The only place that prints.

mod cmd;
mod ui;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::OnceLock;

use clap::{Parser, Subcommand};

use chessalg::decl::Spec;
use chessalg::engine::{EngineChoice, Limits};
use chessalg::game::{Game, GameError};
use chessalg::ir::{Problems, Rules};
use chessalg::report::{self, Style};
use chessalg::source::Source;
use chessalg::syntax::SyntaxError;

/// chessalg: write board games as algebra, then check, expand and play them.
#[derive(Parser, Debug)]
#[command(name = "chessalg", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The strategies games run on: `all` (each program on the fastest
    /// that takes it, the backtracker for the rest), or a comma-separated
    /// list of strategy names (`walk`, `pieces,walk`, `backtrack`: the
    /// reference alone); the backtracker answers what the chosen do not.
    /// `check --engines` shows each side's list; a name that is none
    /// lists them all.
    #[arg(long, global = true, default_value = "all", value_name = "STRATEGIES")]
    engine: EngineChoice,
    /// The most states one search may explore before it stops with an
    /// error: one listing of a position's moves, with the tests of each, or
    /// one application of `apply`. Every engine counts and stops alike; a
    /// rule that repeats without end (`(. -> X)*` on a large board) stops
    /// here instead of running for ever.
    #[arg(long, global = true, value_name = "N", default_value_t = Limits::DEFAULT_MAX_STATES)]
    max_states: u64,
}

/// The engine chosen on the command line (`--engine`), set once at the start.
static ENGINE: OnceLock<EngineChoice> = OnceLock::new();

/// The bounds on each search (`--max-states`), set once at the start.
static LIMITS: OnceLock<Limits> = OnceLock::new();

#[derive(Subcommand, Debug)]
enum Command {
    /// Check rule files: exit 0 if all are valid, else print every error.
    Check {
        /// Rule files (`.alg`).
        #[arg(required = true)]
        files: Vec<String>,
        /// Count warnings as errors: exit 1 when any file draws one.
        #[arg(long)]
        deny_warnings: bool,
        /// Say which strategies run each side's moves (in the order they are asked, with
        /// the shapes it runs on square sets, or the backtracker, and why).
        #[arg(long)]
        engines: bool,
    },
    /// Print the expanded core form of definitions, or of one expression.
    Expand(cmd::expand::ExpandArgs),
    /// Lay rule files out canonically (white space only); `--check` shows what would change.
    Fmt(cmd::fmt::FmtArgs),
    /// Apply a move to a board diagram and print every resulting position.
    Apply(cmd::apply::ApplyArgs),
    /// List the legal moves of a position, one per line (`e2e4`, `e7e8q`).
    Moves(cmd::GameArgs),
    /// Count the leaves of the legal-move tree (perft).
    Perft(cmd::perft::PerftArgs),
    /// Show a position: the board, whose turn, its FEN, check and outcome.
    Show(cmd::show::ShowArgs),
    /// Play a game: humans, the AI or the random player on each side.
    Play(cmd::play::PlayArgs),
    /// Play many games between the AI and the random player, in parallel, and count the results
    Match(cmd::matches::MatchArgs),
    /// Measure the AI's search rate and perft's, on fixed positions (`benches/positions.txt`).
    Bench(cmd::bench::BenchArgs),
    /// Run as a UCI engine playing the rule file's game (for GUIs, match runners and bots).
    Uci(cmd::uci::UciArgs),
    /// Run as a language server for rule files over stdio (diagnostics, hover, definitions, completion, formatting)
    Lsp,
    /// Serve the game as a board in the browser, with a JSON API (`http://127.0.0.1:8080/`)
    Serve(cmd::serve::ServeArgs),
    /// Learn the AI's evaluation from games against itself (TD(λ)); write the weights.
    Train(cmd::train::TrainArgs),
    /// Find the first positions where two rule files (or a rule file and a UCI engine) list different legal moves.
    Diff(cmd::diff::DiffArgs),
    /// Show how the rules derive a move, or why they do not give it.
    Explain(cmd::explain::ExplainArgs),
    /// Measure a game from many games played out: length, branching factor, how games end, balance.
    Stats(cmd::stats::StatsArgs),
}

/// A failure that ends the command: already printed or to print as one line.
pub enum Failure {
    /// Diagnostics were printed; exit non-zero.
    Reported,
    /// One line to print as `error: ...`.
    Message(String),
}

/// Runs the command line and returns the exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let _ = ENGINE.set(cli.engine);
    let _ = LIMITS.set(Limits {
        max_states: cli.max_states.max(1),
        ..Limits::default()
    });
    let result = match cli.command {
        Command::Check {
            files,
            deny_warnings,
            engines,
        } => cmd::check::run(&files, deny_warnings, engines),
        Command::Expand(args) => cmd::expand::run(&args),
        Command::Fmt(args) => cmd::fmt::run(&args),
        Command::Apply(args) => cmd::apply::run(&args),
        Command::Moves(args) => cmd::moves::run(&args),
        Command::Perft(args) => cmd::perft::run(&args),
        Command::Show(args) => cmd::show::run(&args),
        Command::Play(args) => cmd::play::run(&args),
        Command::Match(args) => cmd::matches::run(&args),
        Command::Bench(args) => cmd::bench::run(&args),
        Command::Uci(args) => cmd::uci::run(&args),
        Command::Lsp => cmd::lsp::run(),
        Command::Serve(args) => cmd::serve::run(&args),
        Command::Train(args) => cmd::train::run(&args),
        Command::Diff(args) => cmd::diff::run(&args),
        Command::Stats(args) => cmd::stats::run(&args),
        Command::Explain(args) => cmd::explain::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Reported) => ExitCode::from(1),
        Err(Failure::Message(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(1)
        }
    }
}

/// The engine chosen on the command line (`--engine`).
pub fn engine() -> EngineChoice {
    ENGINE.get().copied().unwrap_or_default()
}

/// The bounds on each search, as the command line sets them (`--max-states`).
pub fn limits() -> Limits {
    LIMITS.get().copied().unwrap_or_default()
}

/// A search that gave up, as the line the command prints, with its help
/// (how to raise a limit that was reached).
pub fn play_error(e: chessalg::game::PlayError) -> Failure {
    Failure::Message(with_help(&e))
}

/// An error's message and, on a second line, its help if it has one.
pub fn with_help(e: &dyn miette::Diagnostic) -> String {
    match e.help() {
        Some(help) => format!("{e}\n  help: {help}"),
        None => e.to_string(),
    }
}

/// How diagnostics are drawn on this terminal.
fn style() -> Style {
    let terminal = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    Style {
        colour: terminal,
        ..Style::PLAIN
    }
}

/// Prints problems (errors and warnings) to stderr.
pub fn print_problems(problems: &Problems) {
    if !problems.list.is_empty() {
        eprint!("{}", report::render(problems, style()));
    }
}

/// Reads a source file (`-` for stdin); text that is not UTF-8 becomes a diagnostic.
pub fn read_source(path: &str) -> Result<Source, Failure> {
    let mut bytes = Vec::new();
    let name = if path == "-" { "<stdin>" } else { path };
    let limit = chessalg::file::MAX_RULES_BYTES;
    let read = if path == "-" {
        chessalg::file::read_all(std::io::stdin(), limit)
    } else {
        chessalg::file::read_bytes(path, limit)
    }
    .map(|b| bytes = b);
    if let Err(e) = read {
        if e.kind() == std::io::ErrorKind::FileTooLarge {
            return Err(Failure::Message(format!("cannot read {name}: {e}")));
        }
        // A bare name (`chess`) is a rule file built into chessalg.
        return chessalg::bundled::lookup(path).ok_or_else(|| {
            Failure::Message(format!(
                "cannot read {name}: {e} (bundled games: {})",
                bundled_names().join(", ")
            ))
        });
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Source::new(name, text)),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let source = Source::new(name, lossy);
            let mut problems = Problems::default();
            problems
                .list
                .push((source, SyntaxError::not_utf8(e.as_bytes(), offset).into()));
            print_problems(&problems);
            Err(Failure::Reported)
        }
    }
}

/// The names of the rule files built into chessalg (`chess`, `othello`, ...).
fn bundled_names() -> Vec<&'static str> {
    (chessalg::bundled::files().iter())
        .filter_map(|(n, _)| n.strip_suffix(".alg"))
        .filter(|n| *n != "prelude")
        .collect()
}

/// Loads a rule file's definitions (checking the whole file, its game
/// included), printing its warnings, or all its problems on failure.
pub fn load_rules(path: &str) -> Result<Rules, Failure> {
    load_spec(path).map(Spec::into_rules)
}

/// The game a rule file declares; a file that is not a playable game is
/// reported as a diagnostic with its help.
pub fn load_game(path: &str) -> Result<Game, Failure> {
    let spec = load_spec(path)?;
    build_game(&spec, path)
}

/// The game of a loaded file; on failure the diagnostic is printed.
pub fn build_game(spec: &Spec, path: &str) -> Result<Game, Failure> {
    Game::with_engine(spec, ENGINE.get().copied().unwrap_or_default())
        .map(|game| game.with_limits(limits()))
        .map_err(|e| {
            if matches!(e, GameError::NoGame | GameError::NoBoard) {
                eprintln!("{path}:");
            }
            eprint!("{}", report::render_one(&e, style()));
            Failure::Reported
        })
}

/// Loads a rule file, printing its warnings, or all its problems on failure.
pub fn load_spec(path: &str) -> Result<Spec, Failure> {
    let source = read_source(path)?;
    match Spec::load(&source) {
        Ok((spec, warnings)) => {
            print_problems(&warnings);
            Ok(spec)
        }
        Err(problems) => {
            print_problems(&problems);
            Err(Failure::Reported)
        }
    }
}
