//! `chessalg fmt`: rule files in the canonical layout (see
//! `chessalg::syntax::format_file`): white space only, never the meaning.

use clap::Args;

use chessalg::ir::Problems;

use crate::cli::{Failure, print_problems, read_source};

/// Arguments of `chessalg fmt`.
#[derive(Args, Debug)]
pub struct FmtArgs {
    /// Rule files (`-`: standard input, the layout on standard output).
    #[arg(required = true)]
    files: Vec<String>,
    /// Change no file: show how each would change, and exit 1 if any would.
    #[arg(long)]
    check: bool,
}

/// Runs `chessalg fmt`.
pub fn run(args: &FmtArgs) -> Result<(), Failure> {
    let (mut failed, mut differ) = (0, 0);
    for path in &args.files {
        let source = read_source(path)?;
        let formatted = match chessalg::syntax::format_file(&source.text) {
            Ok(text) => text,
            Err(errors) => {
                let mut problems = Problems::default();
                for e in errors {
                    problems.list.push((source.clone(), e.into()));
                }
                print_problems(&problems);
                failed += 1;
                continue;
            }
        };
        if path == "-" && !args.check {
            print!("{formatted}");
            continue;
        }
        if formatted == source.text {
            continue;
        }
        differ += 1;
        if args.check {
            print!("{}", diff(path, &source.text, &formatted));
        } else {
            chessalg::file::write(path, &formatted).map_err(|e| Failure::Message(e.to_string()))?;
            println!("formatted {path}");
        }
    }
    if failed > 0 {
        return Err(Failure::Reported);
    }
    if args.check && differ > 0 {
        eprintln!(
            "{differ} of {} file(s) not in the canonical layout (`chessalg fmt FILE` lays them out)",
            args.files.len()
        );
        return Err(Failure::Reported);
    }
    Ok(())
}

/// A unified diff from `old` to `new` of file `path`.
fn diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header(path, &format!("{path} (formatted)"))
        .to_string()
}
