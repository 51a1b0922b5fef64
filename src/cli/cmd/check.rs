//! `chessalg check`: every rule file loaded, its game included; exit 0 if all are valid.

use crate::cli::{Failure, load_spec};

/// Runs `chessalg check`.
pub fn run(files: &[String]) -> Result<(), Failure> {
    let mut failed = 0;
    for f in files {
        match load_spec(f) {
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
