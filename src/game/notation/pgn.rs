//! PGN: a game's record as chess programs exchange it. The tags, SAN
//! movetext with move numbers, and the result.

use std::fmt::Write;

use crate::engine::Cache;

use crate::core::PlayerId;
use crate::game::{Action, Ending, FenError, Game, PlayError, State};

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
    /// More tag pairs (name, value), written after the standard ones.
    pub extra: Vec<(String, String)>,
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
    /// when a game has neither, or the rule file's initial position.
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
        for (name, value) in &tags.extra {
            tag(&mut out, name, value);
        }
        // Any game but chess itself names itself, as lichess's variants do
        // (`[Variant "Atomic Chess"]`, which python-chess reads).
        if self.name != "Chess" {
            tag(&mut out, "Variant", &self.name);
        }
        // A game from the rule file's own start needs no `FEN` tag: a reader
        // that knows the `Variant` starts there (this one does).
        let fen = self.to_fen(start);
        if fen != PGN_DEFAULT_START && fen != self.to_fen(&self.initial()) {
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

/// Why a PGN text does not give a game of this rule file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum PgnReadError {
    /// The tag pairs or the movetext do not read as PGN.
    #[error("bad PGN: {0}")]
    #[diagnostic(code = "chessalg::game::pgn")]
    Syntax(String),
    /// The `FEN` tag is not a position of this game.
    #[error("the PGN's FEN tag: {0}")]
    #[diagnostic(code = "chessalg::game::pgn_fen")]
    Fen(FenError),
    /// A move of the movetext is not legal where it stands.
    #[error("the PGN's move {ply} (`{text}`): {reason}")]
    #[diagnostic(
        code = "chessalg::game::pgn_move",
        help("moves are read as `chessalg moves` names them, or in SAN")
    )]
    Move {
        /// Which ply, counted from 1.
        ply: usize,
        /// The move as written.
        text: String,
        /// Why it is refused.
        reason: String,
    },
}

/// A game read from PGN: where it started and the moves played.
#[derive(Clone, Debug)]
pub struct PgnGame {
    /// The position before the first move (the `FEN` tag, or the start).
    pub start: State,
    /// The moves, in order.
    pub actions: Vec<Action>,
}

/// A PGN tag pair: its name and its value.
type Tag = (String, String);

/// The tag pairs (name, value) of the first game in a PGN text, in order.
pub fn read_tags(text: &str) -> Result<Vec<(String, String)>, PgnReadError> {
    pgn_words(text).map(|(tags, _)| tags)
}

/// The tag pairs (name, value) and the movetext's words of the first game
/// in `text`: comments, variations, NAGs, move numbers and the result taken
/// out.
fn pgn_words(text: &str) -> Result<(Vec<Tag>, Vec<String>), PgnReadError> {
    let (tags, movetext) = tags_and_movetext(text)?;
    let moves = movetext_words(&movetext)?
        .iter()
        .filter_map(|w| move_of_word(w))
        .map(str::to_string)
        .collect();
    Ok((tags, moves))
}

/// A PGN syntax error saying `message`.
fn syntax(message: &str) -> PgnReadError {
    PgnReadError::Syntax(message.to_string())
}

/// The tag pairs of the first game in `text`, and its movetext, lines
/// joined with newlines (escape lines, `%...`, left out).
fn tags_and_movetext(text: &str) -> Result<(Vec<Tag>, String), PgnReadError> {
    let mut tags = Vec::new();
    let mut movetext = String::new();
    let mut in_moves = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('%') {
            continue;
        }
        if !in_moves && t.starts_with('[') {
            tags.push(tag_pair(t)?);
            continue;
        }
        if t.is_empty() {
            if in_moves {
                break; // the first game's movetext ends at a blank line
            }
            continue;
        }
        in_moves = true;
        movetext.push_str(t);
        movetext.push('\n');
    }
    Ok((tags, movetext))
}

/// The name and value of tag pair line `t` (`[White "a \"b\""]`), the
/// value's escapes read.
fn tag_pair(t: &str) -> Result<Tag, PgnReadError> {
    let inner = t
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| syntax(&format!("a tag pair is not closed: {t}")))?;
    let (name, value) = inner
        .split_once(char::is_whitespace)
        .ok_or_else(|| syntax(&format!("a tag pair has no value: {t}")))?;
    let value = value.trim();
    let value = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .ok_or_else(|| syntax(&format!("a tag's value is not quoted: {t}")))?;
    Ok((
        name.to_string(),
        value.replace("\\\"", "\"").replace("\\\\", "\\"),
    ))
}

/// The words of `movetext` outside comments (`{...}`, `; ...`) and
/// variations (`(...)`).
fn movetext_words(movetext: &str) -> Result<Vec<String>, PgnReadError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut depth = 0usize; // inside variations
    let mut chars = movetext.chars();
    let mut flush = |word: &mut String, depth: usize| {
        if depth == 0 && !word.is_empty() {
            words.push(std::mem::take(word));
        }
        word.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                flush(&mut word, depth);
                if !chars.by_ref().any(|c| c == '}') {
                    return Err(syntax("a comment `{` is not closed"));
                }
            }
            ';' => {
                flush(&mut word, depth);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut word, depth);
                depth += 1;
            }
            ')' => {
                flush(&mut word, depth);
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| syntax("a variation `)` was never opened"))?;
            }
            c if c.is_whitespace() => flush(&mut word, depth),
            c => word.push(c),
        }
    }
    flush(&mut word, depth);
    if depth > 0 {
        return Err(syntax("a variation `(` is not closed"));
    }
    Ok(words)
}

/// The move movetext word `w` makes, without its move number (`12.`,
/// `12...`, `12.e4`) and its `!` and `?`; none for a NAG (`$1`), a result
/// or a bare move number.
fn move_of_word(w: &str) -> Option<&str> {
    if w.starts_with('$') || ["*", "1-0", "0-1", "1/2-1/2"].contains(&w) {
        return None;
    }
    let digits = w.len() - w.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = &w[digits..];
    let w = if digits > 0 && rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else {
        w
    };
    let w = w.trim_end_matches(['!', '?']);
    (!w.is_empty()).then_some(w)
}

impl Game {
    /// The first game of a PGN text: its start (the `FEN` tag, or the
    /// game's own start) and its moves, each read as
    /// [`Game::read_move`] reads a typed move and checked legal in turn.
    pub fn read_pgn(&self, text: &str, cache: &mut Cache) -> Result<PgnGame, PgnReadError> {
        let (tags, words) = pgn_words(text)?;
        let start = match tags.iter().find(|(n, _)| n == "FEN") {
            Some((_, fen)) => self.from_fen(fen).map_err(PgnReadError::Fen)?,
            None => self.initial(),
        };
        let mut state = start.clone();
        let mut actions = Vec::new();
        for (i, word) in words.iter().enumerate() {
            let refuse = |reason: String| PgnReadError::Move {
                ply: i + 1,
                text: word.clone(),
                reason,
            };
            let legal = self
                .legal_actions(&state, cache)
                .map_err(|e| refuse(e.to_string()))?;
            let ended = self
                .ending_reason(&state, &legal, cache)
                .map_err(|e| refuse(e.to_string()))?;
            if let Some((_, reason)) = ended {
                return Err(refuse(format!("the game is already over ({reason})")));
            }
            let k = self
                .read_move(&state, &legal, word)
                .map_err(|e| refuse(e.to_string()))?;
            state = self.play(&state, &legal[k]);
            actions.push(legal[k].clone());
        }
        Ok(PgnGame { start, actions })
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::game::test_game as load;

    /// A game of `plies` moves picked by a fixed rule, written as PGN and
    /// read back: the same start and moves.
    fn round_trip(path: &str, fen: Option<&str>, plies: usize) {
        let game = load(path);
        let mut cache = Cache::new();
        let start = fen.map_or_else(|| game.initial(), |f| game.from_fen(f).unwrap());
        let mut state = start.clone();
        let mut actions = Vec::new();
        for ply in 0..plies {
            let legal = game.legal_actions(&state, &mut cache).unwrap();
            if legal.is_empty() || game.ending_reason(&state, &legal, &mut cache).unwrap().is_some() {
                break;
            }
            let a = legal[(ply * 7 + 3) % legal.len()].clone();
            state = game.play(&state, &a);
            actions.push(a);
        }
        let text = game
            .pgn(&start, &actions, None, &PgnTags::default(), &mut cache)
            .unwrap();
        let read = game.read_pgn(&text, &mut cache).unwrap();
        assert_eq!(read.start, start, "{path}");
        assert_eq!(read.actions, actions, "{path}:\n{text}");
    }

    #[test]
    fn a_written_game_reads_back() {
        round_trip("rules/chess.alg", None, 60);
        round_trip(
            "rules/chess.alg",
            Some("r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1"),
            20,
        );
        round_trip("rules/checkers.alg", None, 40);
        round_trip("rules/crazyhouse.alg", None, 60);
        round_trip("rules/othello.alg", None, 60);
        round_trip("rules/amazons.alg", None, 12);
    }

    #[test]
    fn comments_variations_numbers_and_results_are_skipped() {
        let game = load("rules/chess.alg");
        let text = "[Event \"x\"]\n[White \"a \\\"b\\\"\"]\n\n1. e4 {best by test} e5 (1... c5 2. Nf3) 2.Nf3 $1 Nc6!? ; a line\n3. Bb5 1-0\n";
        let read = game.read_pgn(text, &mut Cache::new()).unwrap();
        assert_eq!(read.actions.len(), 5);
        let none = game.read_pgn("", &mut Cache::new()).unwrap();
        assert!(none.actions.is_empty() && none.start == game.initial());
    }

    #[test]
    fn bad_pgn_is_refused_saying_where() {
        let game = load("rules/chess.alg");
        let mut cache = Cache::new();
        let err = game.read_pgn("1. e4 e5 2. Ke3", &mut cache).unwrap_err();
        assert!(matches!(err, PgnReadError::Move { ply: 3, .. }), "{err}");
        assert!(err.to_string().contains("`Ke3`"), "{err}");
        for bad in [
            "[Event x]\n\n1. e4",
            "[FEN \"8/8 w\"]\n\n1. e4",
            "1. e4 {open",
            "1. e4 (e5",
        ] {
            assert!(game.read_pgn(bad, &mut cache).is_err(), "{bad}");
        }
        let over = "1. f3 e5 2. g4 Qh4 3. a3";
        let err = game.read_pgn(over, &mut cache).unwrap_err();
        assert!(err.to_string().contains("already over"), "{err}");
    }
}
