//! The playground: a rule file written in the page, checked as it is
//! typed (the diagnostics `check` and the language server give, placed on
//! their lines) and played at once. Rule text from a browser is untrusted:
//! it is checked and built under limits on size, time, expansion and
//! states, it may import only the bundled rule files (never a file of the
//! server's), and the limit reached is the answer, as a diagnostic.

use std::time::Duration;

use lsp_types::DiagnosticSeverity;
use serde_json::{Value, json};

use crate::decl::Spec;
use crate::engine::Limits;
use crate::game::Game;
use crate::lsp::analysis::Analysis;
use crate::source::Source;

/// The largest rule text the playground checks, in bytes.
pub(super) const MAX_TEXT: usize = 64 * 1024;

/// How long one check (or one build of a game) may take before the
/// request is answered with the limit.
pub(super) const CHECK_TIME: Duration = Duration::from_secs(3);

/// The most states one search may count in a game of the playground.
pub(super) const MAX_STATES: u64 = 200_000;

/// The name a playground text has in its diagnostics.
const NAME: &str = "playground.alg";

/// Reads an import of untrusted text: a bundled rule file by its name,
/// never a file of the server's.
fn bundled_only(path: &str) -> std::io::Result<Source> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let name = if name.ends_with(".alg") {
        name.to_string()
    } else {
        format!("{name}.alg")
    };
    crate::bundled::text(&name)
        .map(|text| Source::new(format!("<bundled>/rules/{name}"), text))
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the playground imports only the bundled rule files (`import \"chess.alg\"`)",
            )
        })
}

/// A checked playground text: its diagnostics, and the game when it has
/// no error.
pub(super) struct Checked {
    /// `[{line, column, end_line, end_column, severity, message, help}]`,
    /// lines and columns from 1.
    pub(super) diagnostics: Vec<Value>,
    pub(super) game: Option<Game>,
    /// Its rules, when they load.
    pub(super) spec: Option<Spec>,
}

/// Checks `text` as `chessalg check` does; builds its game (under the
/// playground's limits on states) when there is no error.
pub(super) fn check(text: &str) -> Checked {
    if text.len() > MAX_TEXT {
        return Checked {
            diagnostics: vec![at_start(format!(
                "the text is {} bytes, more than the {MAX_TEXT} the playground checks",
                text.len()
            ))],
            game: None,
            spec: None,
        };
    }
    let analysis = Analysis::new(Source::new(NAME, text), &bundled_only);
    let diagnostics: Vec<Value> = (analysis.diagnostics.iter())
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
            json!({
                "line": d.range.start.line + 1,
                "column": d.range.start.character + 1,
                "end_line": d.range.end.line + 1,
                "end_column": d.range.end.character + 1,
                "severity": severity,
                "message": message,
                "help": help,
            })
        })
        .collect();
    let clean = diagnostics.iter().all(|d| d["severity"] != "error");
    let game = match (&analysis.spec, clean) {
        (Some(spec), true) => Game::new(spec).ok().map(|g| {
            g.with_limits(Limits {
                max_states: MAX_STATES,
                ..Limits::default()
            })
        }),
        _ => None,
    };
    // The first position's moves, listed under the limits: a rule that
    // runs away stops here, at the `moves` line of the player to move.
    let mut diagnostics = diagnostics;
    let game = game.and_then(|game| {
        let start = game.initial();
        match game.legal_actions(&start, &mut crate::engine::Cache::new()) {
            Ok(_) => Some(game),
            Err(e) => {
                let player = &game.players()[start.turn().index()];
                let line = (text.lines())
                    .position(|l| l.starts_with(&format!("moves {player}")))
                    .map_or(1, |i| i + 1);
                diagnostics.push(json!({
                    "line": line, "column": 1, "end_line": line, "end_column": 1,
                    "severity": "error",
                    "message": format!("{player}'s moves in the start position: {e}"),
                    "help": format!(
                        "the playground lists moves under a limit of {MAX_STATES} states: a repetition without a bound (`*`, `+`) of moves that repeat themselves explodes; bound it (`{{1,8}}`)"
                    ),
                }));
                None
            }
        }
    });
    Checked {
        diagnostics,
        game,
        spec: analysis.spec,
    }
}

/// A diagnostic at the start of the text (a limit reached).
pub(super) fn at_start(message: String) -> Value {
    json!({
        "line": 1, "column": 1, "end_line": 1, "end_column": 1,
        "severity": "error", "message": message, "help": null,
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
        assert_eq!(checked.game.unwrap().name(), "Chess");
    }

    #[test]
    fn errors_are_placed_on_their_line_with_a_help() {
        let text = "game G\nplayers a b\npiece X Y\nboard\n    X.\n    .Y\nmoves a = %X: % + u. -> . + u%\nmoves b = %Y: % + d. -> . + q%\n";
        let checked = check(text);
        assert!(checked.game.is_none());
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
        assert!(checked.game.is_none());
        let all: String = (checked.diagnostics.iter())
            .map(|d| d["message"].to_string())
            .collect();
        assert!(all.contains("only the bundled rule files"), "{all}");
        assert!(!all.contains("Secret"), "{all}");
        assert!(check("import \"chess.alg\"\n").game.is_some());
    }

    #[test]
    fn a_text_over_the_limit_is_refused_unread() {
        let checked = check(&" ".repeat(MAX_TEXT + 1));
        assert!(checked.game.is_none());
        assert!(
            checked.diagnostics[0]["message"]
                .as_str()
                .unwrap()
                .contains("more than")
        );
    }
}
