//! `chessalg uci`: the game of a rule file as a UCI engine on stdin and stdout.

use std::path::Path;

use clap::Args;

use chessalg::uci::{Server, variants_beside};

use crate::cli::{Failure, engine, load_game};

/// Arguments of `chessalg uci`.
#[derive(Args, Debug)]
pub struct UciArgs {
    /// The rule file of the game (`UCI_Variant` offers the game files beside it).
    pub rules: String,
    /// The AI scores positions with weights `chessalg train` wrote (`none`:
    /// the declared piece values only; default: the weights the rule file
    /// names, if any).
    #[arg(long)]
    pub weights: Option<String>,
}

/// Runs `chessalg uci` until `quit` or the end of its input.
pub fn run(args: &UciArgs) -> Result<(), Failure> {
    // A bad rule file gets its diagnostics before any protocol starts.
    let game = load_game(&args.rules)?;
    // A bare name stands for a bundled file (whose variants are the bundled ones).
    let bundled = match Path::new(&args.rules).exists() {
        true => None,
        false => chessalg::bundled::lookup(&args.rules).map(|s| s.name),
    };
    let path = Path::new(bundled.as_deref().unwrap_or(&args.rules));
    let weights = match args.weights.as_deref() {
        None | Some("none") => None,
        Some(w) => Some(std::sync::Arc::new(
            chessalg::ai::Weights::load(w, &game).map_err(|e| Failure::Message(format!("--weights: {e}")))?,
        )),
    };
    let server = Server::with_game(game, path, variants_beside(path), engine(), std::io::stdout())
        .with_weights(weights);
    let server = match args.weights.as_deref() {
        Some("none") => server.without_declared_weights(),
        _ => server,
    };
    server
        .run(std::io::stdin().lock())
        .map_err(|e| Failure::Message(format!("cannot read the input: {e}")))
}
