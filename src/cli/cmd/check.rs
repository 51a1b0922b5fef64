//! `chessalg check`: every rule file loaded and, when it declares a game,
//! the game built (its moves compiled), so `check` refuses what `play`
//! would; its warnings printed; exit 0 if all are valid (and, with
//! `--deny-warnings`, draw no warning).

use chessalg::decl::Spec;
use chessalg::game::Game;

use crate::cli::{Failure, build_game, print_problems, read_source};

/// Runs `chessalg check`.
pub fn run(files: &[String], deny_warnings: bool) -> Result<(), Failure> {
    let mut failed = 0;
    for f in files {
        match check(f) {
            Ok((_, warnings)) if deny_warnings && warnings > 0 => {
                eprintln!("{f}: {warnings} warning(s), refused by --deny-warnings");
                failed += 1;
            }
            Ok((definitions, _)) => println!("{f}: ok ({definitions} definitions)"),
            Err(Failure::Reported) => failed += 1,
            Err(Failure::Message(m)) => {
                eprintln!("error: {m}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        eprintln!("{failed} of {} file(s) failed the check", files.len());
        return Err(Failure::Reported);
    }
    Ok(())
}

/// Checks one file, printing its problems: its number of definitions and
/// of warnings when it is valid.
fn check(path: &str) -> Result<(usize, usize), Failure> {
    let source = read_source(path)?;
    let (spec, warnings) = Spec::load(&source).map_err(|problems| {
        print_problems(&problems);
        Failure::Reported
    })?;
    let (warnings, game) = Game::checked(&spec, warnings, |spec| build_game(spec, path));
    print_problems(&warnings);
    if let Some(Err(failure)) = game {
        return Err(failure);
    }
    Ok((spec.rules().definitions().len(), warnings.warnings()))
}
