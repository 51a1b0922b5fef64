//! The playground: a rule file written in the page, checked as it is
//! typed (the diagnostics `check` and the language server give, placed on
//! their lines) and played at once. Rule text from a browser is untrusted:
//! it reads no file of the server's (imports and weights name bundled
//! files only, and no answer says anything of the server's files), and it
//! is checked and built under one deadline that every stage (parse,
//! expand, compile, analyse, list the first moves) charges and stops at,
//! a limit on the expansion's work, on the board's squares and on the
//! states one search may count: the limit reached is the answer, as a
//! diagnostic.

use std::time::{Duration, Instant};

use lsp_types::DiagnosticSeverity;
use serde_json::{Value, json};

use crate::core::{budget, memory};
use crate::decl::Spec;
use crate::engine::{Cache, Limits};
use crate::game::{Game, GameError};
use crate::lsp::analysis::Analysis;
use crate::source::Source;

/// The largest rule text the playground checks, in bytes.
pub(super) const MAX_TEXT: usize = 64 * 1024;

/// How long one check (with the build of its game) may take: every stage
/// stops at it, and the answer is the limit.
pub(super) const CHECK_TIME: Duration = Duration::from_secs(3);

/// The most states one search may count in a game of the playground.
pub(super) const MAX_STATES: u64 = 200_000;

/// The most squares a playground game's board may have.
pub(super) const MAX_SQUARES: usize = 4096;

/// The name a playground text has in its diagnostics.
const NAME: &str = "playground.alg";

/// Reads a file an untrusted text names: a bundled rule file by its name
/// (`import "chess.alg"`), or a bundled data file by its path under
/// `rules/` (`weights "weights/checkers.json"`); never a file of the
/// server's, and the answer is the same whatever the server holds.
fn bundled_only(path: &str) -> std::io::Result<Source> {
    let data = crate::bundled::data()
        .iter()
        .find(|(name, _)| path == *name || path.ends_with(&format!("/{name}")));
    if let Some((name, text)) = data {
        return Ok(Source::new(format!("{}/{name}", crate::bundled::DIR), *text));
    }
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let name = if name.ends_with(".alg") {
        name.to_string()
    } else {
        format!("{name}.alg")
    };
    crate::bundled::text(&name)
        .map(|text| Source::new(format!("{}/{name}", crate::bundled::DIR), text))
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the playground reads no file of the server: import a bundled rule file (`import \"chess.alg\"`), name bundled weights (`weights \"weights/checkers.json\"`)",
            )
        })
}

/// A checked playground text: its diagnostics, and when it has no error,
/// its game and rules with the bytes they take in memory.
pub(super) struct Checked {
    /// `[{line, column, end_line, end_column, severity, message, help}]`,
    /// lines and columns from 1.
    pub(super) diagnostics: Vec<Value>,
    /// The game, its rules and their bytes, when the text has no error.
    pub(super) built: Option<(Game, Spec, usize)>,
}

/// Checks `text` as `chessalg check` does, and builds its game (under the
/// playground's limits) when there is no error; every stage stops at the
/// check's deadline, [`CHECK_TIME`] from now.
pub(super) fn check(text: &str) -> Checked {
    let deadline = Instant::now() + CHECK_TIME;
    budget::within(deadline, || check_now(text))
}

/// [`check`], under the deadline the thread works to.
fn check_now(text: &str) -> Checked {
    if text.len() > MAX_TEXT {
        return Checked {
            diagnostics: vec![at_start(format!(
                "the text is {} bytes, more than the {MAX_TEXT} the playground checks",
                text.len()
            ))],
            built: None,
        };
    }
    let build = |spec: &Spec| {
        let squares = spec.game().board.len();
        if squares > MAX_SQUARES {
            return Err(GameError::BoardTooLarge {
                squares,
                limit: MAX_SQUARES,
            });
        }
        let game = Game::new(spec)?.with_limits(Limits {
            max_states: MAX_STATES,
            ..Limits::default()
        });
        if budget::passed() {
            return Err(GameError::OutOfTime);
        }
        Ok(game)
    };
    let ((analysis, game), bytes) =
        memory::measured(|| Analysis::built_with(Source::new(NAME, text), &bundled_only, build));
    let mut diagnostics: Vec<Value> = (analysis.diagnostics.iter())
        .map(|d| {
            let (message, help) = match d.message.split_once("\nhelp: ") {
                Some((m, h)) => (m.to_string(), Some(h.to_string())),
                None => (d.message.clone(), None),
            };
            let severity = match d.severity {
                Some(DiagnosticSeverity::WARNING) => "warning",
                Some(DiagnosticSeverity::INFORMATION) | Some(DiagnosticSeverity::HINT) => "note",
                _ => "error",
            };
            let mut line = d.range.start.line + 1;
            let mut end_line = d.range.end.line + 1;
            // A board too large is the `board` declaration's.
            if message.contains("squares, more than the")
                && let Some(at) = line_starting(text, "board")
            {
                (line, end_line) = (at as u32, at as u32);
            }
            json!({
                "line": line,
                "column": d.range.start.character + 1,
                "end_line": end_line,
                "end_column": d.range.end.character + 1,
                "severity": severity,
                "message": message,
                "help": help,
            })
        })
        .collect();
    let (Some(game), Some(spec)) = (game, analysis.spec) else {
        return Checked {
            diagnostics,
            built: None,
        };
    };
    // The first position's moves, listed under the limits, and what the
    // AI will want of the game: a rule that runs away stops here, at the
    // `moves` line of the player to move.
    let (listed, more) = memory::measured(|| {
        let mut cache = Cache::new();
        let start = game.initial();
        let listed = game.legal_actions(&start, &mut cache);
        if listed.is_ok() {
            game.prospects(&mut cache);
        }
        listed
    });
    if let Err(e) = listed {
        let player = &game.players()[game.initial().turn().index()];
        let line = line_starting(text, &format!("moves {player}")).unwrap_or(1);
        let help = if budget::passed() {
            format!(
                "the playground checks and builds a text within {} s: a repetition without a bound (`*`, `+`) of moves that repeat themselves explodes; bound it (`{{1,8}}`)",
                CHECK_TIME.as_secs()
            )
        } else {
            format!(
                "the playground lists moves under a limit of {MAX_STATES} states: a repetition without a bound (`*`, `+`) of moves that repeat themselves explodes; bound it (`{{1,8}}`)"
            )
        };
        diagnostics.push(json!({
            "line": line, "column": 1, "end_line": line, "end_column": 1,
            "severity": "error",
            "message": format!("{player}'s moves in the start position: {e}"),
            "help": help,
        }));
        return Checked {
            diagnostics,
            built: None,
        };
    }
    // Without the program's meter (the library alone), a rough measure.
    let bytes = bytes.zip(more).map_or(
        256 * 1024 + 4096 * game.initial().position().squares().count(),
        |(a, b)| a + b,
    );
    Checked {
        diagnostics,
        built: Some((game, spec, bytes)),
    }
}

/// The line (from 1) of the first line of `text` that starts with `start`.
fn line_starting(text: &str, start: &str) -> Option<usize> {
    text.lines().position(|l| l.starts_with(start)).map(|i| i + 1)
}

/// A diagnostic at the start of the text (a limit reached).
pub(super) fn at_start(message: String) -> Value {
    json!({
        "line": 1, "column": 1, "end_line": 1, "end_column": 1,
        "severity": "error", "message": message, "help": null,
    })
}

/// The diagnostic of a game that takes more memory (`bytes`) than the
/// playground keeps in all (`limit`).
pub(super) fn too_large(bytes: usize, limit: usize) -> Value {
    let mb = |b: usize| b.div_ceil(1 << 20);
    json!({
        "line": 1, "column": 1, "end_line": 1, "end_column": 1,
        "severity": "error",
        "message": format!("this game takes {} MB in memory, more than the {} MB the playground keeps for all its games", mb(bytes), mb(limit)),
        "help": "try a smaller board or fewer pieces, or play it on your own machine (`chessalg serve FILE`)",
    })
}

/// The diagnostic of a check that ran out of time.
pub(super) fn too_slow() -> Value {
    json!({
        "line": 1, "column": 1, "end_line": 1, "end_column": 1,
        "severity": "error",
        "message": format!("the check took longer than {} s, the playground's limit", CHECK_TIME.as_secs()),
        "help": "a repetition or a region that grows with the board may explode: bound it (`{1,8}`) or try a smaller board",
    })
}

/// The bundled rule files' names (`chess.alg`), sorted.
pub(super) fn bundled_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = crate::bundled::files().iter().map(|(name, _)| *name).collect();
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundled_file_checks_clean_and_builds() {
        let checked = check(crate::bundled::text("chess.alg").unwrap());
        assert!(checked.diagnostics.iter().all(|d| d["severity"] != "error"));
        let (game, _, bytes) = checked.built.unwrap();
        assert_eq!(game.name(), "Chess");
        assert!(bytes > 0);
    }

    #[test]
    fn errors_are_placed_on_their_line_with_a_help() {
        let text = "game G\nplayers a b\npiece X Y\nboard\n    X.\n    .Y\nmoves a = %X: % + u. -> . + u%\nmoves b = %Y: % + d. -> . + q%\n";
        let checked = check(text);
        assert!(checked.built.is_none());
        let d = checked
            .diagnostics
            .iter()
            .find(|d| d["severity"] == "error")
            .unwrap();
        assert_eq!(d["line"], 8, "{d}");
        assert!(d["message"].as_str().unwrap().contains('q'), "{d}");
    }

    #[test]
    fn untrusted_text_imports_only_bundled_files() {
        let secret = std::env::temp_dir().join(format!("chessalg-secret-{}.alg", std::process::id()));
        std::fs::write(&secret, "game Secret\n").unwrap();
        let text = format!("import \"{}\"\n", secret.display());
        let checked = check(&text);
        let _ = std::fs::remove_file(&secret);
        assert!(checked.built.is_none());
        let all: String = (checked.diagnostics.iter())
            .map(|d| d["message"].to_string())
            .collect();
        assert!(all.contains("reads no file of the server"), "{all}");
        assert!(!all.contains("Secret"), "{all}");
        assert!(check("import \"chess.alg\"\n").built.is_some());
    }

    #[test]
    fn a_text_over_the_limit_is_refused_unread() {
        let checked = check(&" ".repeat(MAX_TEXT + 1));
        assert!(checked.built.is_none());
        assert!(
            checked.diagnostics[0]["message"]
                .as_str()
                .unwrap()
                .contains("more than")
        );
    }
}
