//! `chessalg apply`: every position a move leads to from a board diagram.

use clap::Args;

use chessalg::engine::{self, Position};
use chessalg::ir::{Rules, Value, print};
use chessalg::program;
use chessalg::source::Source;

use crate::cli::{Failure, load_rules, print_problems, read_source, with_help};

/// Arguments of `chessalg apply`.
#[derive(Args, Debug)]
pub struct ApplyArgs {
    /// The board: a text diagram, rows top to bottom, `.` an empty square, a
    /// piece symbol, a space where there is no square (`-` reads stdin).
    #[arg(long, value_name = "FILE")]
    board: String,
    /// The move to apply.
    #[arg(long, value_name = "EXPR")]
    expr: String,
    /// Definitions (and pieces) the expression may use.
    #[arg(long, value_name = "FILE")]
    with: Option<String>,
    /// Print only the number of resulting positions.
    #[arg(long)]
    count: bool,
}

/// Runs `chessalg apply`.
pub fn run(args: &ApplyArgs) -> Result<(), Failure> {
    let rules = match &args.with {
        Some(f) => load_rules(f)?,
        None => Rules::prelude(),
    };
    let source = Source::new("<expr>", args.expr.clone());
    let value = rules.expand(&source).map_err(|p| {
        print_problems(&p);
        Failure::Reported
    })?;
    let mv = match value {
        Value::Move(m) => m,
        other => {
            return Err(Failure::Message(format!(
                "the expression is {}, not a move: `{}`",
                other.kind(),
                print::value(&other, rules.pieces())
            )));
        }
    };
    let program = program::compile(&mv, rules.pieces()).map_err(|e| Failure::Message(e.to_string()))?;
    let board = read_source(&args.board)?;
    let position = Position::from_diagram(&board.text, rules.pieces())
        .map_err(|e| Failure::Message(format!("{}: {e}", board.name)))?;
    let results = engine::apply(&program, &position, &crate::cli::limits())
        .map_err(|e| Failure::Message(with_help(&e)))?;
    if !args.count {
        for p in &results {
            println!("{}", p.diagram(rules.pieces()));
        }
    }
    println!(
        "{} position{}",
        results.len(),
        if results.len() == 1 { "" } else { "s" }
    );
    Ok(())
}
