//! Where games are kept as they are played, so that none is lost.
//!
//! A [`Journal`] is one PGN file that is written again, whole, after every
//! move ([`crate::file::write`]: a temporary file renamed over the old one),
//! so a crash, Ctrl-C or `kill -9` at any moment leaves the game complete up
//! to the last move saved. Unless told otherwise, `chessalg play` keeps its
//! games in [`games_dir`], under the user's data directory; besides the
//! usual tags, a kept game names its rule file ([`RULES_TAG`]) and who plays
//! each side ([`crate::session::SEATS_TAG`]), which is what resuming it
//! needs ([`SavedGame`], [`latest_unfinished`]).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Controller, SEATS_TAG, Session, TIME_CONTROL_TAG, TimeControl};
use crate::file::WriteError;
use crate::game::{Ending, PgnReadError, pgn};

/// The PGN tag that names the rule file a kept game was played with (a
/// path, or the name of a bundled game).
pub const RULES_TAG: &str = "Rules";

/// The environment variable that moves the data directory.
pub const DATA_DIR_VARIABLE: &str = "CHESSALG_DATA_DIR";

/// Why a game could not be kept or read back.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum JournalError {
    /// The system names no home or data directory.
    #[error("no data directory: neither $XDG_DATA_HOME nor $HOME is set")]
    #[diagnostic(
        code = "chessalg::journal::no_data_dir",
        help("set CHESSALG_DATA_DIR to a directory for kept games, or give --pgn FILE")
    )]
    NoDataDir,
    /// The directory for kept games could not be made or read.
    #[error("cannot use the directory {path}: {source}")]
    #[diagnostic(code = "chessalg::journal::directory")]
    Directory {
        /// The directory.
        path: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A kept game could not be read.
    #[error("cannot read {path}: {reason}")]
    #[diagnostic(code = "chessalg::journal::read")]
    Read {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The game could not be written (the file kept before is untouched).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Write(#[from] WriteError),
    /// The record could not be made (a search of the game gave up).
    #[error("the game's record: {0}")]
    #[diagnostic(code = "chessalg::journal::record")]
    Record(String),
}

/// The directory chessalg keeps its data in: `$CHESSALG_DATA_DIR` if set,
/// else the platform's data directory (`$XDG_DATA_HOME/chessalg`, or
/// `~/.local/share/chessalg`, on Linux).
pub fn data_dir() -> Result<PathBuf, JournalError> {
    if let Some(dir) = std::env::var_os(DATA_DIR_VARIABLE).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "chessalg")
        .map(|d| d.data_dir().to_path_buf())
        .ok_or(JournalError::NoDataDir)
}

/// The directory of kept games (`games/` in [`data_dir`]), made if missing.
pub fn games_dir() -> Result<PathBuf, JournalError> {
    let dir = data_dir()?.join("games");
    std::fs::create_dir_all(&dir).map_err(|source| JournalError::Directory {
        path: dir.display().to_string(),
        source,
    })?;
    Ok(dir)
}

/// One game's PGN file, written whole after every move.
#[derive(Clone, Debug)]
pub struct Journal {
    path: PathBuf,
}

impl Journal {
    /// The journal in file `path` (made at the first save).
    pub fn at(path: impl Into<PathBuf>) -> Journal {
        let path = path.into();
        if let Some(dir) = path.parent() {
            crate::file::remove_stale_temporaries(if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            });
        }
        Journal { path }
    }

    /// A journal for a new game of `game_name` in `dir`, under a name no
    /// other file there has: the time it started (UTC), the game, a number.
    pub fn new_in(dir: &Path, game_name: &str) -> Journal {
        crate::file::remove_stale_temporaries(dir);
        // Claimed by making it empty: a second `play` started in the same
        // second takes the next number.
        let path = fresh_name(dir, game_name, ".pgn", |path| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .is_ok()
        });
        Journal { path }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the game so far, whole: `ending` its result, `termination` a
    /// closing comment.
    pub fn save(
        &self,
        session: &mut Session,
        ending: Option<Ending>,
        termination: Option<String>,
    ) -> Result<(), JournalError> {
        let text = session
            .pgn(ending, termination)
            .map_err(|e| JournalError::Record(e.to_string()))?;
        crate::file::write(&self.path, text)?;
        Ok(())
    }
}

/// A new directory in [`games_dir`] for the games of one match of
/// `game_name` (`2026-11-27-101500-chess-match/`), each kept there as it ends.
pub fn new_match_dir(game_name: &str) -> Result<PathBuf, JournalError> {
    let games = games_dir()?;
    let dir = fresh_name(&games, game_name, "-match", |path| {
        std::fs::create_dir(path).is_ok()
    });
    std::fs::create_dir_all(&dir).map_err(|source| JournalError::Directory {
        path: dir.display().to_string(),
        source,
    })?;
    Ok(dir)
}

/// A name in `dir` that `claim` could take: the time now (UTC), the game's
/// name, a number if needed, then `suffix`.
fn fresh_name(dir: &Path, game_name: &str, suffix: &str, claim: impl Fn(&Path) -> bool) -> PathBuf {
    let slug: String = game_name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let slug = slug.trim_matches('-');
    let stamp = timestamp();
    let mut n = 1;
    loop {
        let name = match n {
            1 => format!("{stamp}-{slug}{suffix}"),
            _ => format!("{stamp}-{slug}-{n}{suffix}"),
        };
        let path = dir.join(name);
        if claim(&path) || n > 10_000 {
            return path;
        }
        n += 1;
    }
}

/// A kept game as read back: its PGN text and what its tags say about
/// how to go on with it.
#[derive(Clone, Debug)]
pub struct SavedGame {
    /// The file it was read from.
    pub path: PathBuf,
    /// The whole PGN text (the moves are read by the game, which knows them).
    pub text: String,
    /// The rule file it was played with ([`RULES_TAG`]).
    pub rules: Option<String>,
    /// Who played each player, in turn order ([`SEATS_TAG`]).
    pub seats: Option<Vec<Controller>>,
    /// The clock it was played on ([`TIME_CONTROL_TAG`]).
    pub time_control: Option<TimeControl>,
    /// Whether it has a result (`Result` other than `*`).
    pub finished: bool,
}

impl SavedGame {
    /// Reads the kept game in `path`.
    pub fn read(path: &Path) -> Result<SavedGame, JournalError> {
        let fail = |reason: String| JournalError::Read {
            path: path.display().to_string(),
            reason,
        };
        let text =
            crate::file::read_text(path, crate::file::MAX_DATA_BYTES).map_err(|e| fail(e.to_string()))?;
        let tags = pgn::read_tags(&text).map_err(|e: PgnReadError| fail(e.to_string()))?;
        let tag = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        let seats = tag(SEATS_TAG).and_then(|s| s.split_whitespace().map(Controller::from_word).collect());
        let time_control = tag(TIME_CONTROL_TAG).and_then(|t| {
            // PGN's form is in seconds; `TimeControl` reads minutes.
            let (base, inc) = t.split_once('+').unwrap_or((t, "0"));
            let base: f64 = base.parse().ok()?;
            format!("{}+{inc}", base / 60.0).parse().ok()
        });
        Ok(SavedGame {
            path: path.to_path_buf(),
            rules: tag(RULES_TAG).map(str::to_string),
            seats,
            time_control,
            finished: tag("Result").is_some_and(|r| r != "*"),
            text,
        })
    }
}

/// The kept game in `dir` that was saved last and has no result yet, if any.
pub fn latest_unfinished(dir: &Path) -> Result<Option<SavedGame>, JournalError> {
    let entries = std::fs::read_dir(dir).map_err(|source| JournalError::Directory {
        path: dir.display().to_string(),
        source,
    })?;
    let mut games: Vec<(SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    // The newest first; names break ties (they start with the time).
    games.sort_by(|a, b| b.cmp(a));
    for (_, path) in games {
        match SavedGame::read(&path) {
            Ok(saved) if !saved.finished && saved.rules.is_some() => return Ok(Some(saved)),
            _ => continue,
        }
    }
    Ok(None)
}

/// The time now (UTC) as `YYYY-MM-DD-HHMMSS`, for file names.
fn timestamp() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let day = secs % 86_400;
    format!(
        "{}-{:02}{:02}{:02}",
        pgn::today().replace('.', "-"),
        day / 3600,
        day / 60 % 60,
        day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::Budget;
    use crate::game::test_game;

    #[test]
    fn a_kept_game_reads_back_with_its_rules_seats_and_moves() {
        let dir = tempfile::tempdir().unwrap();
        let game = std::sync::Arc::new(test_game("rules/tictactoe.alg"));
        let mut m = Session::new(
            game.clone(),
            game.initial(),
            vec![Controller::Human, Controller::Random],
            Budget { depth: 1, time: None },
            1,
        );
        m.tags.push((RULES_TAG.to_string(), "tictactoe".to_string()));
        let journal = Journal::new_in(dir.path(), game.name());
        let status = m.status().unwrap();
        m.push(status.legal[4].clone());
        journal.save(&mut m, None, None).unwrap();
        let other = Journal::new_in(dir.path(), game.name());
        assert_ne!(other.path(), journal.path(), "a second game gets its own file");
        let saved = latest_unfinished(dir.path())
            .unwrap()
            .expect("the game is unfinished");
        assert_eq!(saved.path, journal.path());
        assert_eq!(saved.rules.as_deref(), Some("tictactoe"));
        assert_eq!(saved.seats, Some(vec![Controller::Human, Controller::Random]));
        let mut cache = crate::engine::Cache::new();
        let read = game.read_pgn(&saved.text, &mut cache).unwrap();
        assert_eq!(read.actions, m.actions);
        // Finished, it is no longer one to resume.
        journal
            .save(&mut m, Some(Ending::Draw), Some("agreed".to_string()))
            .unwrap();
        assert!(latest_unfinished(dir.path()).unwrap().is_none());
    }
}
