//! PGN: a game's record as chess programs exchange it. The tags, SAN
//! movetext with move numbers, and the result.

use std::fmt::Write;

use crate::engine::Cache;

use crate::core::PlayerId;
use crate::game::{Action, Ending, Game, PlayError, State};

/// What PGN's tags say beyond the moves.
#[derive(Clone, Debug, Default)]
pub struct PgnTags {
    /// `Event`: defaults to the game's name.
    pub event: Option<String>,
    /// `Date` as `YYYY.MM.DD`: defaults to `????.??.??`.
    pub date: Option<String>,
    /// Who plays, in turn order (tagged `White` and `Black` as
    /// [`Game::pgn_colours`] says).
    pub players: Vec<String>,
    /// A comment after the last move that says why the game ended.
    pub termination: Option<String>,
}

/// The position the PGN standard (section 9.7.1) assumes for a game without
/// a `FEN` tag: part of the PGN format, as FEN's syntax is.
const PGN_DEFAULT_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Game {
    /// The players PGN's `White` and `Black` tags name: the players called
    /// `white` and `black` if the file has them (in whichever turn order),
    /// else the first and the second.
    pub fn pgn_colours(&self) -> [Option<PlayerId>; 2] {
        let named = |colour: &str| {
            self.players
                .iter()
                .position(|p| p.eq_ignore_ascii_case(colour))
                .map(PlayerId::new)
        };
        match (named("white"), named("black")) {
            (Some(w), Some(b)) => [Some(w), Some(b)],
            _ => [0, 1].map(|i| (i < self.players.len()).then(|| PlayerId::new(i))),
        }
    }

    /// The result token of an ending (`1-0` when `White` won, `0-1`,
    /// `1/2-1/2`), or `*` while the game goes on or another player won.
    pub fn result_token(&self, ending: Option<Ending>) -> &'static str {
        let [white, black] = self.pgn_colours();
        match ending {
            Some(Ending::Win(p)) if Some(p) == white => "1-0",
            Some(Ending::Win(p)) if Some(p) == black => "0-1",
            Some(Ending::Draw) => "1/2-1/2",
            _ => "*",
        }
    }

    /// The PGN of the moves `actions` played from `start`. `[SetUp "1"]` and
    /// `[FEN ...]` are written unless `start` is the position PGN assumes
    /// when a game has neither (so always for a variant's own setup).
    pub fn pgn(
        &self,
        start: &State,
        actions: &[Action],
        ending: Option<Ending>,
        tags: &PgnTags,
        cache: &mut Cache,
    ) -> Result<String, PlayError> {
        let result = self.result_token(ending);
        let mut out = String::new();
        let tag = |out: &mut String, name: &str, value: &str| {
            let value = value.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(out, "[{name} \"{value}\"]");
        };
        tag(&mut out, "Event", tags.event.as_deref().unwrap_or(&self.name));
        tag(&mut out, "Site", "?");
        tag(&mut out, "Date", tags.date.as_deref().unwrap_or("????.??.??"));
        tag(&mut out, "Round", "?");
        let [white, black] = self.pgn_colours().map(|p| {
            p.and_then(|p| tags.players.get(p.index()))
                .map_or("?", String::as_str)
        });
        tag(&mut out, "White", white);
        tag(&mut out, "Black", black);
        tag(&mut out, "Result", result);
        // Any game but chess itself names itself, as lichess's variants do
        // (`[Variant "Atomic Chess"]`, which python-chess reads).
        if self.name != "Chess" {
            tag(&mut out, "Variant", &self.name);
        }
        let fen = self.to_fen(start);
        if fen != PGN_DEFAULT_START {
            tag(&mut out, "SetUp", "1");
            tag(&mut out, "FEN", &fen);
        }
        out.push('\n');
        let mut words: Vec<String> = Vec::new();
        let mut state = start.clone();
        for (i, action) in actions.iter().enumerate() {
            let legal = self.legal_actions(&state, cache)?;
            let san = self.san(&state, action, &legal, cache)?;
            if state.turn().index() == 0 {
                words.push(format!("{}.", state.fullmove()));
            } else if i == 0 {
                words.push(format!("{}...", state.fullmove()));
            }
            words.push(san);
            state = self.play(&state, action);
        }
        if let Some(t) = &tags.termination {
            words.push(format!("{{{}}}", t.replace('}', ")")));
        }
        words.push(result.to_string());
        let mut line = String::new();
        for w in words {
            if !line.is_empty() && line.len() + 1 + w.len() > 79 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&w);
        }
        out.push_str(&line);
        out.push_str("\n\n");
        Ok(out)
    }
}

/// Today's date in PGN's form (`YYYY.MM.DD`, UTC), from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}
