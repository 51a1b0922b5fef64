//! `chessalg check`: every rule file loaded and, when it declares a game,
//! the game built (its moves compiled), so `check` refuses what `play`
//! would; exit 0 if all are valid.

use crate::cli::{Failure, build_game, load_spec};

/// Runs `chessalg check`.
pub fn run(files: &[String]) -> Result<(), Failure> {
    let mut failed = 0;
    for f in files {
        let checked = load_spec(f).and_then(|spec| {
            if spec.game().is_game() {
                build_game(&spec, f)?;
            }
            Ok(spec)
        });
        match checked {
            Ok(spec) => println!("{f}: ok ({} definitions)", spec.rules().definitions().len()),
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
