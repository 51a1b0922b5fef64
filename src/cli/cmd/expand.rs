//! `chessalg expand`: the canonical core form of definitions or an expression.

use clap::Args;

use chessalg::ir::{Expanded, Rules, print};
use chessalg::source::Source;

use crate::cli::{Failure, load_rules, print_problems, read_source};

/// Arguments of `chessalg expand`.
#[derive(Args, Debug)]
pub struct ExpandArgs {
    /// The rule file whose definitions to print.
    #[arg(required_unless_present = "expr", conflicts_with = "expr")]
    file: Option<String>,
    /// Only these definitions, in this order (default: all, in file order).
    #[arg(requires = "file")]
    names: Vec<String>,
    /// Expand this expression instead (`-` reads it from stdin).
    #[arg(long, value_name = "EXPR")]
    expr: Option<String>,
    /// Definitions the expression may use (default: the prelude's pieces only).
    #[arg(long, value_name = "FILE", requires = "expr")]
    with: Option<String>,
}

/// Runs `chessalg expand`.
pub fn run(args: &ExpandArgs) -> Result<(), Failure> {
    if let Some(expr) = &args.expr {
        let rules = match &args.with {
            Some(f) => load_rules(f)?,
            None => Rules::prelude(),
        };
        let source = if expr == "-" {
            read_source("-")?
        } else {
            Source::new("<expr>", expr.clone())
        };
        let value = rules.expand(&source).map_err(|p| {
            print_problems(&p);
            Failure::Reported
        })?;
        println!("{}", print::value(&value, rules.pieces()));
        return Ok(());
    }
    let file = args.file.as_deref().expect("clap requires a file without --expr");
    let rules = load_rules(file)?;
    for wanted in &args.names {
        if !rules.definitions().iter().any(|(n, _)| n == wanted) {
            return Err(Failure::Message(format!("{file} has no definition `{wanted}`")));
        }
    }
    let chosen: Vec<&(String, Expanded)> = if args.names.is_empty() {
        rules.definitions().iter().collect()
    } else {
        // In the order asked for.
        args.names
            .iter()
            .filter_map(|n| rules.definitions().iter().find(|(d, _)| d == n))
            .collect()
    };
    for (name, expanded) in chosen {
        match expanded {
            Expanded::Value(v) => println!("{name} = {}", print::value(v, rules.pieces())),
            Expanded::Function(params) => println!(
                "// {name}({}): a function, expanded where it is called",
                params.join(", ")
            ),
        }
    }
    Ok(())
}
