//! `chessalg check`: every rule file loaded and, when it declares a game,
//! the game built (its moves compiled), so `check` refuses what `play`
//! would; its warnings printed; exit 0 if all are valid (and, with
//! `--deny-warnings`, draw no warning).

use chessalg::decl::Spec;
use chessalg::game::Game;

use crate::cli::{Failure, build_game, print_problems, read_source};

/// Runs `chessalg check`; with `engines`, says which engine runs each
/// side's moves and each pattern, and why the fast one does not.
pub fn run(files: &[String], deny_warnings: bool, engines: bool) -> Result<(), Failure> {
    let mut failed = 0;
    for f in files {
        match check(f, engines) {
            Ok((_, warnings, _)) if deny_warnings && warnings > 0 => {
                eprintln!("{f}: {warnings} warning(s), refused by --deny-warnings");
                failed += 1;
            }
            Ok((definitions, _, engines)) => {
                println!("{f}: ok ({definitions} definitions)");
                print!("{engines}");
            }
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
/// of warnings when it is valid, and with `engines` the lines that say
/// which engine runs what.
fn check(path: &str, engines: bool) -> Result<(usize, usize, String), Failure> {
    let source = read_source(path)?;
    let (spec, warnings) = Spec::load(&source).map_err(|problems| {
        print_problems(&problems);
        Failure::Reported
    })?;
    let (warnings, game) = Game::checked(&spec, warnings, |spec| build_game(spec, path));
    print_problems(&warnings);
    let lines = match game {
        Some(Err(failure)) => return Err(failure),
        Some(Ok(game)) if engines => engine_lines(&game),
        _ => String::new(),
    };
    Ok((spec.rules().definitions().len(), warnings.warnings(), lines))
}

/// One line per side (the strategies its moves run on, in the order they
/// are asked, with the shapes they run on square sets; or why the
/// backtracker runs them), a line for each strategy that declined a side's
/// moves on the way, and one for the `when` patterns.
fn engine_lines(game: &Game) -> String {
    let report = game.engine_report();
    let mut out = String::new();
    for (i, why) in report.sides.iter().enumerate() {
        let name = game.players().get(i).map_or("?", String::as_str);
        out += &match why {
            None => {
                let (strategies, shapes) = (&report.strategies[i], &report.shapes[i]);
                format!(
                    "  {name}: {} (shapes: {})\n",
                    strategies.join(", "),
                    shapes.join(", ")
                )
            }
            Some(why) => format!("  {name}: backtrack: {why}\n"),
        };
        for (strategy, why) in report.declines.get(i).into_iter().flatten() {
            out += &format!("    {strategy} declined: {why}\n");
        }
    }
    if !report.patterns.is_empty() {
        let fast = report.patterns.iter().filter(|p| p.is_none()).count();
        out += &format!(
            "  patterns: {fast} of {} on square-set strategies\n",
            report.patterns.len()
        );
        for (why, strategies) in report.patterns.iter().zip(&report.pattern_strategies) {
            out += &match why {
                None => format!("    {}\n", strategies.join(", ")),
                Some(why) => format!("    backtrack: {why}\n"),
            };
        }
    }
    out
}
