//! The server's games kept in an embedded SQLite database, written as they
//! are played: a game's row when it is created (where it started, its seats
//! and its clock), one row per move with the clocks after it, in
//! transactions, so that a server killed at any moment and started again on
//! the same file finds every game with its moves, seats and clocks.
//!
//! The file is the server's own: a new or empty file is made a chessalg
//! database (SQLite's `application_id` and `user_version` say so); any other
//! file (not SQLite, another program's database, a newer schema, a chessalg
//! database with damaged pages) is refused with one line and left byte for
//! byte as it was. One server at a time: a lock beside the file
//! (`FILE.lock`, holding the server's process id) is held for the store's
//! life, and a second server on the same file refuses to start, naming the
//! process that holds it. A move is stored once: the database refuses a
//! second move for a ply of a game.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::session::TimeControl;

/// SQLite's `application_id` of a chessalg database ("cALG").
const APPLICATION_ID: i32 = 0x6341_4c47;

/// The schema version written in `user_version`.
const SCHEMA_VERSION: i32 = 2;

/// The first schema (version 1); a new database is made with it, then
/// brought up to [`SCHEMA_VERSION`] by [`MIGRATIONS`], as an old one is.
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

/// What brings a database of version `i + 1` to version `i + 2`: each
/// only adds (columns with no value in old rows, tables), so a database
/// of an older chessalg loads with every game as it was.
const MIGRATIONS: [&str; 1] = ["
ALTER TABLE games ADD COLUMN ended_winner INTEGER;
ALTER TABLE games ADD COLUMN ended_reason TEXT;
ALTER TABLE games ADD COLUMN rematch INTEGER;
CREATE TABLE seeks (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    waiting INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    joined_ms INTEGER
);
"];

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
    /// A chessalg database whose pages are damaged (SQLite's check failed).
    #[error("{0} is damaged ({1}): it was left as it is; restore a copy, or give another --db")]
    Damaged(PathBuf, String),
    /// Another server holds the database.
    #[error("{path} is in use by {holder}: stop it, or give another --db")]
    InUse {
        /// The database.
        path: PathBuf,
        /// Who holds it (`another chessalg serve (process 1234)`).
        holder: String,
    },
    /// The lock beside the database could not be made or taken.
    #[error("cannot lock {0}: {1}")]
    Lock(PathBuf, std::io::Error),
    /// The move of that ply is stored already (another copy of the game
    /// played it): nothing was written.
    #[error("game {game} has a move {ply} already")]
    MoveTaken {
        /// The game.
        game: u64,
        /// The ply, from 1.
        ply: usize,
    },
    /// A row of the database does not read as a game (edited by hand, or
    /// written by something else).
    #[error("game {game}'s row in the database does not read: {reason}")]
    BadRow {
        /// The game.
        game: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// SQLite failed.
    #[error("the game database failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
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
    pub clock: Option<TimeControl>,
    /// The player (by index) whose time ran out, if one did.
    pub flagged: Option<usize>,
    /// The moves played, in order.
    pub moves: Vec<StoredMove>,
    /// The rule text it is played under, when not the server's rule file
    /// (a game of the playground).
    pub rules_text: Option<String>,
    /// How it ended by its players' word (a resignation, a draw agreed),
    /// if it did.
    pub ended: Option<Ended>,
    /// The game its players went on to play next (a rematch), if any.
    pub rematch: Option<u64>,
}

/// How a game ended by its players' word rather than by its rules or
/// its clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndedBy {
    /// A player resigned.
    Resignation,
    /// The players agreed to a draw.
    Agreement,
    /// The player to move left the game, and the opponent claimed it.
    Abandonment,
}

impl EndedBy {
    /// Its name, as the database and the API write it.
    pub fn name(self) -> &'static str {
        match self {
            EndedBy::Resignation => "resignation",
            EndedBy::Agreement => "agreement",
            EndedBy::Abandonment => "abandonment",
        }
    }

    /// The ending of a name [`EndedBy::name`] gives.
    pub fn from_name(name: &str) -> Option<EndedBy> {
        [EndedBy::Resignation, EndedBy::Agreement, EndedBy::Abandonment]
            .into_iter()
            .find(|e| e.name() == name)
    }
}

/// A game's end by its players' word: who won (by index; none: a draw), and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ended {
    /// The winner, by index in turn order; `None` for a draw.
    pub winner: Option<usize>,
    /// How it ended.
    pub by: EndedBy,
}

/// An open seat waiting for an opponent (a seek of the lobby), as the
/// database holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSeek {
    /// The game made for it.
    pub game_id: u64,
    /// The game's name.
    pub game: String,
    /// The player (by index) whose seat is taken, waiting.
    pub waiting: usize,
    /// When it was made (milliseconds since the Unix epoch).
    pub created_ms: u64,
    /// The game's clock, if it has one.
    pub clock: Option<TimeControl>,
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
    /// The lock file held for the store's life (none in memory).
    _lock: Option<std::fs::File>,
}

/// Takes the lock beside the database at `path` (`FILE.lock`) and writes
/// this process's id in it; an error naming the holder if another process
/// has it. The lock goes with the process, however it ends (`kill -9`
/// too): the file left behind holds no lock.
fn lock(path: &Path) -> Result<std::fs::File, StoreError> {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock_path = PathBuf::from(name);
    let failed = |e| StoreError::Lock(lock_path.clone(), e);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(failed)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.take(64).read_to_string(&mut text);
            let holder = match text.trim().parse::<u32>() {
                Ok(pid) => format!("another chessalg serve (process {pid})"),
                Err(_) => format!("another process (it holds {})", lock_path.display()),
            };
            return Err(StoreError::InUse {
                path: path.to_path_buf(),
                holder,
            });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(failed(e)),
    }
    file.set_len(0).map_err(failed)?;
    file.rewind().map_err(failed)?;
    write!(file, "{}", std::process::id()).map_err(failed)?;
    Ok(file)
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
        let lock = lock(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // SQLite's side files of a database in WAL mode, made when it is
        // opened: a refused file is left without new ones beside it.
        let side = |suffix: &str| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            PathBuf::from(name)
        };
        let made: Vec<PathBuf> = ["-wal", "-shm"]
            .iter()
            .map(|s| side(s))
            .filter(|p| !p.exists())
            .collect();
        let connection = Connection::open_with_flags(path, flags)?;
        let prepared = Store::prepare(connection, path, Some(lock));
        if prepared.is_err() {
            for p in made {
                let _ = std::fs::remove_file(p);
            }
        }
        prepared
    }

    /// A database in memory, gone when the server stops (tests, fuzzing).
    pub fn in_memory() -> Result<Store, StoreError> {
        Store::prepare(Connection::open_in_memory()?, Path::new(":memory:"), None)
    }

    fn prepare(
        connection: Connection,
        path: &Path,
        lock: Option<std::fs::File>,
    ) -> Result<Store, StoreError> {
        let not_ours = |e: rusqlite::Error| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => StoreError::NotADatabase(path.to_path_buf()),
            Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
                StoreError::Damaged(path.to_path_buf(), "its first page does not read".into())
            }
            _ => StoreError::Sqlite(e),
        };
        // Until the file is known to be ours and whole, nothing is written
        // to it: not even the checkpoint SQLite makes when it closes.
        connection.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        connection.busy_timeout(Duration::from_secs(5))?;
        let id: i32 = (connection.query_row("PRAGMA application_id", [], |r| r.get(0))).map_err(not_ours)?;
        let version: i32 = connection
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(not_ours)?;
        let tables: i64 = (connection.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0)))
            .map_err(not_ours)?;
        if id == 0 && version == 0 && tables == 0 {
            connection.execute_batch(&format!(
                "BEGIN; {SCHEMA} PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1; COMMIT;"
            ))?;
        } else if id != APPLICATION_ID {
            return Err(StoreError::Foreign(path.to_path_buf()));
        } else if version > SCHEMA_VERSION {
            return Err(StoreError::Newer(path.to_path_buf(), version));
        } else {
            check_pages(&connection, path)?;
        }
        // An older database (or the new one) brought up to this version,
        // each step in a transaction of its own.
        let from = version.max(1);
        for (step, migration) in MIGRATIONS.iter().enumerate().skip((from - 1) as usize) {
            let to = step + 2;
            connection.execute_batch(&format!("BEGIN; {migration} PRAGMA user_version = {to}; COMMIT;"))?;
        }
        connection.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, false)?;
        // Every commit reaches the file before it returns: a process killed
        // after a move was answered keeps it.
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(Store {
            connection: Mutex::new(connection),
            _lock: lock,
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
            "INSERT INTO games (game, start_fen, created_ms, seats, clock_base_ms, clock_increment_ms, flagged, rules_text,
                                ended_winner, ended_reason, rematch)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                game.game,
                game.start_fen,
                game.created_ms as i64,
                game.seats.as_ref().map(|s| s.join(" ")),
                game.clock.map(|c| c.base.as_millis() as i64),
                game.clock.map(|c| c.increment.as_millis() as i64),
                game.flagged.map(|p| p as i64),
                game.rules_text,
                game.ended.and_then(|e| e.winner).map(|p| p as i64),
                game.ended.map(|e| e.by.name()),
                game.rematch.map(|r| r as i64),
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
    /// loss or a resignation: the game goes on from there).
    pub fn truncate(&self, id: u64, ply: usize) -> Result<(), StoreError> {
        let mut c = self.connection();
        let t = c.transaction()?;
        t.execute(
            "DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2",
            params![id as i64, ply as i64],
        )?;
        t.execute(
            "UPDATE games SET flagged = NULL, ended_winner = NULL, ended_reason = NULL WHERE id = ?1",
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

    /// Records how game `id` ended by its players' word.
    pub fn end(&self, id: u64, ended: Ended) -> Result<(), StoreError> {
        self.connection().execute(
            "UPDATE games SET ended_winner = ?2, ended_reason = ?3 WHERE id = ?1",
            params![id as i64, ended.winner.map(|p| p as i64), ended.by.name()],
        )?;
        Ok(())
    }

    /// Records that game `id`'s players went on to play game `next`.
    pub fn link_rematch(&self, id: u64, next: u64) -> Result<(), StoreError> {
        self.connection().execute(
            "UPDATE games SET rematch = ?2 WHERE id = ?1",
            params![id as i64, next as i64],
        )?;
        Ok(())
    }

    /// Lists game `id` (a game with seats) as a seek: player `waiting`'s
    /// seat taken, the others open.
    pub fn insert_seek(&self, id: u64, waiting: usize, created_ms: u64) -> Result<(), StoreError> {
        self.connection().execute(
            "INSERT INTO seeks (game_id, waiting, created_ms) VALUES (?1, ?2, ?3)",
            params![id as i64, waiting as i64, created_ms as i64],
        )?;
        Ok(())
    }

    /// The seeks not joined, made since `since_ms`, newest first, at most `limit`.
    pub fn open_seeks(&self, since_ms: u64, limit: usize) -> Result<Vec<StoredSeek>, StoreError> {
        let c = self.connection();
        let mut statement = c.prepare(
            "SELECT s.game_id, g.game, s.waiting, s.created_ms, g.clock_base_ms, g.clock_increment_ms
             FROM seeks s JOIN games g ON g.id = s.game_id
             WHERE s.joined_ms IS NULL AND s.created_ms >= ?1
             ORDER BY s.created_ms DESC, s.game_id DESC LIMIT ?2",
        )?;
        let rows = statement.query_map(params![since_ms as i64, limit as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, Option<i64>>(4)?,
                r.get::<_, Option<i64>>(5)?,
            ))
        })?;
        let mut seeks = Vec::new();
        for row in rows {
            let (id, game, waiting, created, base, increment) = row?;
            let id = natural(id, "id", 0)?;
            let clock = match (base, increment) {
                (Some(b), Some(i)) => Some(TimeControl {
                    base: Duration::from_millis(natural(b, "clock", id)?),
                    increment: Duration::from_millis(natural(i, "increment", id)?),
                }),
                _ => None,
            };
            seeks.push(StoredSeek {
                game_id: id,
                game,
                waiting: natural(waiting, "waiting seat", id)? as usize,
                created_ms: natural(created, "seek's time", id)?,
                clock,
            });
        }
        Ok(seeks)
    }

    /// Joins the seek of game `id` at `now_ms` if it is open and was made
    /// since `since_ms`: the player waiting if it was, `None` if there is
    /// no such open seek (never joined twice: the update is one statement).
    pub fn join_seek(&self, id: u64, now_ms: u64, since_ms: u64) -> Result<Option<usize>, StoreError> {
        let mut c = self.connection();
        let t = c.transaction()?;
        let changed = t.execute(
            "UPDATE seeks SET joined_ms = ?2 WHERE game_id = ?1 AND joined_ms IS NULL AND created_ms >= ?3",
            params![id as i64, now_ms as i64, since_ms as i64],
        )?;
        if changed == 0 {
            return Ok(None);
        }
        let waiting: i64 = t.query_row(
            "SELECT waiting FROM seeks WHERE game_id = ?1",
            params![id as i64],
            |r| r.get(0),
        )?;
        t.commit()?;
        Ok(Some(natural(waiting, "waiting seat", id)? as usize))
    }

    /// Whether game `id` is a seek nobody joined (its open seats are open).
    pub fn seek_open(&self, id: u64) -> Result<Option<usize>, StoreError> {
        let c = self.connection();
        let waiting: Option<i64> = c
            .query_row(
                "SELECT waiting FROM seeks WHERE game_id = ?1 AND joined_ms IS NULL",
                params![id as i64],
                |r| r.get(0),
            )
            .optional()?;
        waiting
            .map(|w| natural(w, "waiting seat", id).map(|w| w as usize))
            .transpose()
    }

    /// Game `id`, if the database has it; a [`StoreError::BadRow`] if its
    /// rows do not read as a game (a number out of range, a gap in its
    /// moves, a value of the wrong type).
    pub fn load(&self, id: u64) -> Result<Option<StoredGame>, StoreError> {
        let c = self.connection();
        let bad = |reason: String| StoreError::BadRow { game: id, reason };
        let unreadable = |e: rusqlite::Error| match e {
            rusqlite::Error::InvalidColumnType(_, name, kind) => bad(format!("its {name} is {kind}")),
            rusqlite::Error::FromSqlConversionFailure(i, kind, _) => {
                bad(format!("its column {} is {kind} where it should not be", i + 1))
            }
            e => StoreError::Sqlite(e),
        };
        type Row = (
            String,
            String,
            i64,
            Option<String>,
            Option<i64>,
            Option<i64>,
            Option<i64>,
            Option<String>,
            (Option<i64>, Option<String>, Option<i64>),
        );
        let row: Option<Row> = c
            .query_row(
                "SELECT game, start_fen, created_ms, seats, clock_base_ms, clock_increment_ms, flagged, rules_text,
                        ended_winner, ended_reason, rematch
                 FROM games WHERE id = ?1",
                params![id as i64],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        (r.get(8)?, r.get(9)?, r.get(10)?),
                    ))
                },
            )
            .optional()
            .map_err(unreadable)?;
        let Some((game, start_fen, created, seats, base, increment, flagged, rules_text, last)) = row else {
            return Ok(None);
        };
        let (ended_winner, ended_reason, rematch) = last;
        let ended = match ended_reason {
            None => None,
            Some(reason) => Some(Ended {
                winner: (ended_winner.map(|p| natural(p, "winner", id)).transpose()?).map(|p| p as usize),
                by: EndedBy::from_name(&reason)
                    .ok_or_else(|| bad(format!("its ending {reason:?} is not one chessalg writes")))?,
            }),
        };
        let clock = match (base, increment) {
            (None, None) => None,
            (Some(b), Some(i)) => Some(TimeControl {
                base: Duration::from_millis(natural(b, "clock", id)?),
                increment: Duration::from_millis(natural(i, "increment", id)?),
            }),
            _ => {
                return Err(bad(
                    "it has a clock's time without its increment, or the other way".into(),
                ));
            }
        };
        let seats = match seats {
            Some(s) if s.split(' ').any(str::is_empty) => {
                return Err(bad(format!("its seats {s:?} have an empty token")));
            }
            s => s.map(|s| s.split(' ').map(str::to_string).collect()),
        };
        let mut game = StoredGame {
            id,
            game,
            start_fen,
            created_ms: natural(created, "creation time", id)?,
            seats,
            clock,
            flagged: flagged
                .map(|p| natural(p, "player out of time", id))
                .transpose()?
                .map(|p| p as usize),
            moves: Vec::new(),
            rules_text,
            ended,
            rematch: rematch.map(|r| natural(r, "rematch", id)).transpose()?,
        };
        let mut statement =
            c.prepare("SELECT ply, name, played_ms, clocks FROM moves WHERE game_id = ?1 ORDER BY ply")?;
        let rows = statement
            .query_map(params![id as i64], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, Option<String>>(3)?,
                ))
            })
            .map_err(unreadable)?;
        for (expected, row) in rows.enumerate() {
            let (ply, name, played, clocks) = row.map_err(unreadable)?;
            if ply != expected as i64 {
                return Err(bad(format!("its moves jump from {expected} to {}", ply + 1)));
            }
            let clocks = match clocks {
                None => None,
                Some(text) => Some(
                    (text.split(' '))
                        .map(|t| t.parse::<u64>())
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|_| bad(format!("move {}'s clocks {text:?} are not numbers", ply + 1)))?,
                ),
            };
            game.moves.push(StoredMove {
                name,
                played_ms: natural(played, "time of a move", id)?,
                clocks,
            });
        }
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

/// SQLite's own check of every page of the database (`quick_check`): an
/// error naming its first finding if one is damaged.
fn check_pages(connection: &Connection, path: &Path) -> Result<(), StoreError> {
    let damaged = |why: String| StoreError::Damaged(path.to_path_buf(), why);
    let mut statement = (connection.prepare("PRAGMA quick_check(1)")).map_err(|e| damaged(e.to_string()))?;
    let first: String = (statement.query_row([], |r| r.get(0))).map_err(|e| damaged(e.to_string()))?;
    if first == "ok" {
        Ok(())
    } else {
        // (SQLite's report runs over lines: one line here.)
        Err(damaged(first.split_whitespace().collect::<Vec<_>>().join(" ")))
    }
}

/// Stores move `ply` (from 0) of game `id`; a second move for a ply is
/// refused (the primary key), whoever sends it.
fn insert_move(c: &Connection, id: u64, ply: usize, m: &StoredMove) -> Result<(), StoreError> {
    let clocks = (m.clocks.as_ref()).map(|c| c.iter().map(u64::to_string).collect::<Vec<_>>().join(" "));
    let inserted = c.execute(
        "INSERT INTO moves (game_id, ply, name, played_ms, clocks) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id as i64, ply as i64, m.name, m.played_ms as i64, clocks],
    );
    match inserted {
        Ok(_) => Ok(()),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) => {
            Err(StoreError::MoveTaken {
                game: id,
                ply: ply + 1,
            })
        }
        Err(e) => Err(e.into()),
    }
}

/// A number read from a row that must not be negative.
fn natural(value: i64, what: &str, game: u64) -> Result<u64, StoreError> {
    u64::try_from(value).map_err(|_| StoreError::BadRow {
        game,
        reason: format!("its {what} is {value}"),
    })
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
            clock: Some(TimeControl {
                base: Duration::from_secs(300),
                increment: Duration::from_secs(3),
            }),
            flagged: None,
            rules_text: Some("game Chess".into()),
            ended: None,
            rematch: None,
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
    fn a_database_of_schema_1_loads_its_games_and_takes_the_new_state() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite3");
        {
            // A database as chessalg wrote it before endings, rematches and seeks.
            let c = Connection::open(&path).unwrap();
            c.execute_batch(&format!(
                "{SCHEMA} PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1;
                 INSERT INTO games (game, start_fen, created_ms, seats, flagged)
                     VALUES ('Chess', 'startpos', 5, 'aa bb', NULL);
                 INSERT INTO moves (game_id, ply, name, played_ms) VALUES (1, 0, 'e2e4', 9);"
            ))
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let old = store.load(1).unwrap().unwrap();
        assert_eq!((old.ended, old.rematch, old.moves.len()), (None, None, 1));
        let ended = Ended {
            winner: Some(1),
            by: EndedBy::Resignation,
        };
        store.end(1, ended).unwrap();
        let next = store.insert(&sample()).unwrap();
        store.link_rematch(1, next).unwrap();
        store.insert_seek(next, 0, 100).unwrap();
        drop(store);
        let store = Store::open(&path).unwrap();
        let old = store.load(1).unwrap().unwrap();
        assert_eq!((old.ended, old.rematch), (Some(ended), Some(next)));
        let version: i32 = (store.connection())
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        // A take-back undoes a resignation.
        store.truncate(1, 1).unwrap();
        assert_eq!(store.load(1).unwrap().unwrap().ended, None);
        assert_eq!(store.open_seeks(0, 10).unwrap().len(), 1);
    }

    #[test]
    fn a_seek_is_joined_once_and_only_while_it_is_fresh() {
        let store = Store::in_memory().unwrap();
        let id = store.insert(&sample()).unwrap();
        store.insert_seek(id, 1, 1_000).unwrap();
        let listed = store.open_seeks(500, 10).unwrap();
        assert_eq!(
            listed,
            [StoredSeek {
                game_id: id,
                game: "Chess".into(),
                waiting: 1,
                created_ms: 1_000,
                clock: sample().clock,
            }]
        );
        assert!(store.open_seeks(1_001, 10).unwrap().is_empty());
        assert_eq!(store.join_seek(id, 2_000, 1_001).unwrap(), None);
        assert_eq!(store.seek_open(id).unwrap(), Some(1));
        assert_eq!(store.join_seek(id, 2_000, 500).unwrap(), Some(1));
        assert_eq!(store.join_seek(id, 2_001, 500).unwrap(), None);
        assert_eq!(store.seek_open(id).unwrap(), None);
        assert!(store.open_seeks(0, 10).unwrap().is_empty());
        // An ending of a name chessalg never writes is the game's error.
        store
            .connection()
            .execute(
                "UPDATE games SET ended_reason = 'boredom' WHERE id = ?1",
                params![id as i64],
            )
            .unwrap();
        let e = store.load(id).unwrap_err();
        assert!(e.to_string().contains("boredom"), "{e}");
    }

    #[test]
    fn a_second_move_for_a_ply_is_refused_and_the_first_kept() {
        let store = Store::in_memory().unwrap();
        let id = store.insert(&sample()).unwrap();
        let other = StoredMove {
            name: "d2d4".into(),
            played_ms: 11,
            clocks: None,
        };
        let e = store.push_move(id, 0, &other).unwrap_err();
        assert!(matches!(e, StoreError::MoveTaken { ply: 1, .. }), "{e}");
        assert_eq!(store.load(id).unwrap().unwrap().moves, sample().moves);
        store.push_move(id, 1, &other).unwrap();
        assert_eq!(store.load(id).unwrap().unwrap().moves.len(), 2);
    }

    #[test]
    fn a_second_store_on_one_file_is_refused_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.sqlite3");
        let first = Store::open(&path).unwrap();
        let e = Store::open(&path).unwrap_err();
        let said = e.to_string();
        assert!(matches!(e, StoreError::InUse { .. }), "{said}");
        assert!(said.contains("games.sqlite3"), "{said}");
        assert!(
            said.contains(&format!("process {}", std::process::id())),
            "{said}"
        );
        drop(first);
        Store::open(&path).expect("free again once the first is gone");
    }

    #[test]
    fn a_damaged_database_is_refused_and_left_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.sqlite3");
        {
            let store = Store::open(&path).unwrap();
            for _ in 0..50 {
                store.insert(&sample()).unwrap();
            }
        }
        let mut bytes = std::fs::read(&path).unwrap();
        let page = 4096;
        assert!(bytes.len() >= 4 * page, "{} bytes", bytes.len());
        // The moves table's first page: its b-tree header made nonsense.
        for b in &mut bytes[2 * page..2 * page + 12] {
            *b = 0xee;
        }
        std::fs::write(&path, &bytes).unwrap();
        let e = Store::open(&path).unwrap_err();
        assert!(matches!(e, StoreError::Damaged(..)), "{e}");
        assert!(e.to_string().contains("damaged"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "the file was changed");
        let mut names: Vec<_> = (std::fs::read_dir(dir.path()).unwrap())
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["games.sqlite3", "games.sqlite3.lock"]);
    }

    #[test]
    fn rows_edited_by_hand_are_a_clear_error_for_their_game() {
        let store = Store::in_memory().unwrap();
        let edits = [
            (
                "UPDATE games SET created_ms = -5 WHERE id = ?1",
                "creation time is -5",
            ),
            (
                "UPDATE games SET created_ms = 'soon' WHERE id = ?1",
                "created_ms is Text",
            ),
            (
                "UPDATE games SET clock_increment_ms = NULL WHERE id = ?1",
                "without its increment",
            ),
            ("UPDATE games SET flagged = -1 WHERE id = ?1", "out of time is -1"),
            ("UPDATE games SET seats = 'aa  bb' WHERE id = ?1", "empty token"),
            ("UPDATE moves SET ply = 3 WHERE game_id = ?1", "jump from 0 to 4"),
            (
                "UPDATE moves SET clocks = '1 x' WHERE game_id = ?1",
                "not numbers",
            ),
            (
                "UPDATE moves SET played_ms = 'late' WHERE game_id = ?1",
                "played_ms is Text",
            ),
        ];
        for (edit, said) in edits {
            let id = store.insert(&sample()).unwrap();
            store.connection().execute(edit, params![id as i64]).unwrap();
            let e = store.load(id).unwrap_err();
            assert!(matches!(e, StoreError::BadRow { .. }), "{edit}: {e}");
            assert!(e.to_string().contains(said), "{edit}: {e}");
        }
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
