//! The server's games kept in an embedded SQLite database, written as they
//! are played: a game's row when it is created (where it started, its seats
//! and its clock), one row per move with the clocks after it, in
//! transactions, so that a server killed at any moment and started again on
//! the same file finds every game with its moves, seats and clocks.
//!
//! The file is the server's own: a new or empty file is made a chessalg
//! database (SQLite's `application_id` and `user_version` say so); any other
//! file (not SQLite, another program's database, a newer schema) is refused
//! with one line and left untouched.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

/// SQLite's `application_id` of a chessalg database ("cALG").
const APPLICATION_ID: i32 = 0x6341_4c47;

/// The schema version written in `user_version`.
const SCHEMA_VERSION: i32 = 1;

const SCHEMA: &str = "
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    seats TEXT,
    clock_base_ms INTEGER,
    clock_increment_ms INTEGER,
    flagged INTEGER,
    rules_text TEXT
);
CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    name TEXT NOT NULL,
    played_ms INTEGER NOT NULL,
    clocks TEXT,
    PRIMARY KEY (game_id, ply)
);
";

/// Why a database cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file is not an SQLite database.
    #[error("{0} is not a chessalg database (not an SQLite file); give another --db")]
    NotADatabase(PathBuf),
    /// An SQLite database of another program, or of no program but with tables.
    #[error("{0} is another program's database, not chessalg's; give another --db")]
    Foreign(PathBuf),
    /// A chessalg database of a newer schema.
    #[error("{0} was written by a newer chessalg (schema {1}); give another --db")]
    Newer(PathBuf, i32),
    /// SQLite failed.
    #[error("the game database failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// The clock settings of a game: time at the start and added per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockSetting {
    /// Each player's time at the start.
    pub base: Duration,
    /// Time added after each of the player's moves.
    pub increment: Duration,
}

/// A game as the database holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Its id (the server's game id).
    pub id: u64,
    /// The game's name (from its rule file).
    pub game: String,
    /// Where it started.
    pub start_fen: String,
    /// When it was created (milliseconds since the Unix epoch).
    pub created_ms: u64,
    /// Each player's seat token, in turn order (none: a game without seats).
    pub seats: Option<Vec<String>>,
    /// Its clock, if it has one.
    pub clock: Option<ClockSetting>,
    /// The player (by index) whose time ran out, if one did.
    pub flagged: Option<usize>,
    /// The moves played, in order.
    pub moves: Vec<StoredMove>,
    /// The rule text it is played under, when not the server's rule file
    /// (a game of the playground).
    pub rules_text: Option<String>,
}

/// A move as the database holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMove {
    /// Its name, as `moves` names it.
    pub name: String,
    /// When it was played (milliseconds since the Unix epoch).
    pub played_ms: u64,
    /// Each player's time left after it, in milliseconds (a game with a clock).
    pub clocks: Option<Vec<u64>>,
}

/// An open game database.
pub struct Store {
    connection: Mutex<Connection>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Store")
    }
}

impl Store {
    /// Opens the database at `path`, making it (and its folder) if it does
    /// not exist; refuses a file that is not a chessalg database.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(path, flags)?;
        Store::prepare(connection, path)
    }

    /// A database in memory, gone when the server stops (tests, fuzzing).
    pub fn in_memory() -> Result<Store, StoreError> {
        Store::prepare(Connection::open_in_memory()?, Path::new(":memory:"))
    }

    fn prepare(connection: Connection, path: &Path) -> Result<Store, StoreError> {
        let not_ours = |e: rusqlite::Error| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => StoreError::NotADatabase(path.to_path_buf()),
            _ => StoreError::Sqlite(e),
        };
        connection.busy_timeout(Duration::from_secs(5))?;
        let id: i32 = (connection.query_row("PRAGMA application_id", [], |r| r.get(0))).map_err(not_ours)?;
        let version: i32 = connection.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let tables: i64 = connection.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
        if id == 0 && version == 0 && tables == 0 {
            connection.execute_batch(&format!(
                "BEGIN; {SCHEMA} PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))?;
        } else if id != APPLICATION_ID {
            return Err(StoreError::Foreign(path.to_path_buf()));
        } else if version > SCHEMA_VERSION {
            return Err(StoreError::Newer(path.to_path_buf(), version));
        }
        // Every commit reaches the file before it returns: a process killed
        // after a move was answered keeps it.
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(Store {
            connection: Mutex::new(connection),
        })
    }

    fn connection(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent (a
        // transaction not committed is rolled back): go on with it.
        self.connection.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores a new game (its `id` is ignored) and its moves; its id.
    pub fn insert(&self, game: &StoredGame) -> Result<u64, StoreError> {
        let mut c = self.connection();
        let t = c.transaction()?;
        t.execute(
            "INSERT INTO games (game, start_fen, created_ms, seats, clock_base_ms, clock_increment_ms, flagged, rules_text)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                game.game,
                game.start_fen,
                game.created_ms as i64,
                game.seats.as_ref().map(|s| s.join(" ")),
                game.clock.map(|c| c.base.as_millis() as i64),
                game.clock.map(|c| c.increment.as_millis() as i64),
                game.flagged.map(|p| p as i64),
                game.rules_text,
            ],
        )?;
        let id = t.last_insert_rowid() as u64;
        for (ply, m) in game.moves.iter().enumerate() {
            insert_move(&t, id, ply, m)?;
        }
        t.commit()?;
        Ok(id)
    }

    /// Stores move number `ply` (from 0) of game `id`.
    pub fn push_move(&self, id: u64, ply: usize, m: &StoredMove) -> Result<(), StoreError> {
        let c = self.connection();
        insert_move(&c, id, ply, m)
    }

    /// Takes back the moves of game `id` from number `ply` on (and a time
    /// loss: the game goes on from there).
    pub fn truncate(&self, id: u64, ply: usize) -> Result<(), StoreError> {
        let mut c = self.connection();
        let t = c.transaction()?;
        t.execute(
            "DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2",
            params![id as i64, ply as i64],
        )?;
        t.execute(
            "UPDATE games SET flagged = NULL WHERE id = ?1",
            params![id as i64],
        )?;
        t.commit()?;
        Ok(())
    }

    /// Records that player `player`'s time ran out in game `id`.
    pub fn flag(&self, id: u64, player: usize) -> Result<(), StoreError> {
        self.connection().execute(
            "UPDATE games SET flagged = ?2 WHERE id = ?1",
            params![id as i64, player as i64],
        )?;
        Ok(())
    }

    /// Game `id`, if the database has it.
    pub fn load(&self, id: u64) -> Result<Option<StoredGame>, StoreError> {
        let c = self.connection();
        let game = c
            .query_row(
                "SELECT id, game, start_fen, created_ms, seats, clock_base_ms, clock_increment_ms, flagged, rules_text
                 FROM games WHERE id = ?1",
                params![id as i64],
                |r| {
                    let seats: Option<String> = r.get(4)?;
                    let base: Option<i64> = r.get(5)?;
                    let increment: Option<i64> = r.get(6)?;
                    let flagged: Option<i64> = r.get(7)?;
                    Ok(StoredGame {
                        id: r.get::<_, i64>(0)? as u64,
                        game: r.get(1)?,
                        start_fen: r.get(2)?,
                        created_ms: r.get::<_, i64>(3)? as u64,
                        seats: seats.map(|s| s.split(' ').map(str::to_string).collect()),
                        clock: base.zip(increment).map(|(b, i)| ClockSetting {
                            base: Duration::from_millis(b.max(0) as u64),
                            increment: Duration::from_millis(i.max(0) as u64),
                        }),
                        flagged: flagged.map(|p| p.max(0) as usize),
                        moves: Vec::new(),
                        rules_text: r.get(8)?,
                    })
                },
            )
            .optional()?;
        let Some(mut game) = game else {
            return Ok(None);
        };
        let mut statement =
            c.prepare("SELECT name, played_ms, clocks FROM moves WHERE game_id = ?1 ORDER BY ply")?;
        let moves = statement.query_map(params![id as i64], |r| {
            let clocks: Option<String> = r.get(2)?;
            Ok(StoredMove {
                name: r.get(0)?,
                played_ms: r.get::<_, i64>(1)? as u64,
                clocks: clocks.map(|s| s.split(' ').filter_map(|t| t.parse().ok()).collect()),
            })
        })?;
        game.moves = moves.collect::<Result<_, _>>()?;
        Ok(Some(game))
    }

    /// The ids of the newest `limit` games, newest first.
    pub fn recent(&self, limit: usize) -> Result<Vec<u64>, StoreError> {
        let c = self.connection();
        let mut statement = c.prepare("SELECT id FROM games ORDER BY id DESC LIMIT ?1")?;
        let ids = statement.query_map(params![limit as i64], |r| r.get::<_, i64>(0))?;
        Ok(ids.map(|id| id.map(|id| id as u64)).collect::<Result<_, _>>()?)
    }
}

fn insert_move(c: &Connection, id: u64, ply: usize, m: &StoredMove) -> Result<(), StoreError> {
    let clocks = (m.clocks.as_ref()).map(|c| c.iter().map(u64::to_string).collect::<Vec<_>>().join(" "));
    c.execute(
        "INSERT OR REPLACE INTO moves (game_id, ply, name, played_ms, clocks) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id as i64, ply as i64, m.name, m.played_ms as i64, clocks],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> StoredGame {
        StoredGame {
            id: 0,
            game: "Chess".into(),
            start_fen: "startpos".into(),
            created_ms: 5,
            seats: Some(vec!["aa".into(), "bb".into()]),
            clock: Some(ClockSetting {
                base: Duration::from_secs(300),
                increment: Duration::from_secs(3),
            }),
            flagged: None,
            rules_text: Some("game Chess".into()),
            moves: vec![StoredMove {
                name: "e2e4".into(),
                played_ms: 9,
                clocks: Some(vec![299_000, 300_000]),
            }],
        }
    }

    #[test]
    fn a_game_comes_back_from_the_file_as_it_was_stored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.sqlite3");
        let id = {
            let store = Store::open(&path).unwrap();
            let id = store.insert(&sample()).unwrap();
            let m = StoredMove {
                name: "e7e5".into(),
                played_ms: 10,
                clocks: Some(vec![299_000, 298_000]),
            };
            store.push_move(id, 1, &m).unwrap();
            store.push_move(id, 2, &m).unwrap();
            store.truncate(id, 2).unwrap();
            store.flag(id, 1).unwrap();
            id
        };
        let store = Store::open(&path).unwrap();
        let back = store.load(id).unwrap().unwrap();
        let mut want = sample();
        want.id = id;
        want.flagged = Some(1);
        want.moves.push(StoredMove {
            name: "e7e5".into(),
            played_ms: 10,
            clocks: Some(vec![299_000, 298_000]),
        });
        assert_eq!(back, want);
        assert_eq!(store.load(id + 1).unwrap(), None);
        // A take-back undoes a time loss too.
        store.truncate(id, 1).unwrap();
        let back = store.load(id).unwrap().unwrap();
        assert_eq!((back.moves.len(), back.flagged), (1, None));
        assert_eq!(store.recent(10).unwrap(), vec![id]);
    }

    #[test]
    fn files_that_are_not_ours_are_refused_and_left_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("notes.txt");
        std::fs::write(
            &text,
            "not a database, just some words of text here ....".repeat(40),
        )
        .unwrap();
        let before = std::fs::read(&text).unwrap();
        assert!(matches!(Store::open(&text), Err(StoreError::NotADatabase(_))));
        assert_eq!(std::fs::read(&text).unwrap(), before);

        let other = dir.path().join("other.sqlite3");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
        let before = std::fs::read(&other).unwrap();
        assert!(matches!(Store::open(&other), Err(StoreError::Foreign(_))));
        assert_eq!(std::fs::read(&other).unwrap(), before);

        let newer = dir.path().join("newer.sqlite3");
        Store::open(&newer).unwrap();
        Connection::open(&newer)
            .unwrap()
            .execute_batch("PRAGMA user_version = 99;")
            .unwrap();
        assert!(matches!(Store::open(&newer), Err(StoreError::Newer(_, 99))));
    }
}
