//! Files written whole or not at all, and read within a size limit.
//!
//! Everything chessalg writes (a game's PGN after every move, learned
//! weights, plots, pictures) goes through [`write()`]: the new contents go to a
//! temporary file in the target's own directory, which is flushed to disk and
//! then renamed over the target. A rename within one file system is atomic,
//! so a reader (or the next run, after a crash or `kill -9`) sees either the
//! old file whole or the new one whole, never an empty or half-written one.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The largest rule file read, in bytes (the largest in `rules/` is a few
/// dozen kilobytes).
pub const MAX_RULES_BYTES: u64 = 4 << 20;

/// The largest data file read (a PGN, learned weights), in bytes.
pub const MAX_DATA_BYTES: u64 = 64 << 20;

/// The bytes of regular file `path`, or an error past `limit` bytes.
///
/// Anything but a regular file is refused unread, before a byte is read:
/// a device without an end (`/dev/zero`), one that waits for input
/// (`/dev/stdin`, a terminal), a named pipe whose writer never comes, a
/// directory. The file is opened without waiting (`O_NONBLOCK`) and what
/// was opened is the one checked, so a pipe put in the file's place
/// between a look and the open blocks nothing either.
pub fn read_bytes(path: impl AsRef<Path>, limit: u64) -> std::io::Result<Vec<u8>> {
    let file = open_regular(path.as_ref())?;
    read_all(file, limit)
}

/// Why a path that is not a regular file is not read.
fn not_regular() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "not a regular file (a device, a pipe or a directory): chessalg reads only files",
    )
}

/// `path` opened for reading if it is a regular file, without waiting for
/// a writer or a device on the way.
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    // A cheap look first: a FIFO's open would otherwise wait for a writer
    // where `O_NONBLOCK` is not available.
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

/// Everything `reader` gives, or an error past `limit` bytes.
pub fn read_all(reader: impl Read, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than {limit} bytes, the most chessalg reads"),
        ));
    }
    Ok(bytes)
}

/// The text of file `path` (UTF-8), or an error past `limit` bytes.
pub fn read_text(path: impl AsRef<Path>, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_bytes(path, limit)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Why a file could not be written (the old one, if any, is untouched).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("cannot write {path}: {source}")]
#[diagnostic(
    code = "chessalg::file::write",
    help("check that the directory exists and that you may write in it")
)]
pub struct WriteError {
    /// The file that was to be written.
    pub path: String,
    /// What the system said.
    #[source]
    pub source: std::io::Error,
}

/// Replaces the file at `path` by `contents`, atomically: after a crash at
/// any moment, `path` holds either what it held before or `contents`, whole.
/// A path that is not a regular file (`/dev/stdout`, a pipe) is written
/// directly, as it cannot be replaced.
pub fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Result<(), WriteError> {
    let path = path.as_ref();
    let fail = |source| WriteError {
        path: path.display().to_string(),
        source,
    };
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return std::fs::write(path, contents).map_err(fail);
    }
    let dir = directory_of(path);
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(
            ".{}.",
            path.file_name()
                .map_or("chessalg".into(), |n| n.to_string_lossy())
        ))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(fail)?;
    temp.write_all(contents.as_ref()).map_err(fail)?;
    temp.as_file().sync_all().map_err(fail)?;
    temp.persist(path).map_err(|e| fail(e.error))?;
    // The rename itself reaches the disk when the directory is synced.
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Removes what [`write()`] leaves behind when it is killed mid-write: its
/// temporary files in `dir` (`.NAME.XXXXXX.tmp`) last changed more than a
/// minute ago (a younger one may be another program's write in progress).
pub fn remove_stale_temporaries(dir: impl AsRef<Path>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let stale = |m: &std::fs::Metadata| {
        m.modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > 60)
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.')
            && name.ends_with(".tmp")
            && entry.metadata().is_ok_and(|m| m.is_file() && stale(&m))
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether a file could be written at `path` now, checked without touching
/// it: a temporary file is made beside it and removed. What a long job
/// (training) asks before it starts, so it fails before the work, not after.
pub fn check_writable(path: impl AsRef<Path>) -> Result<(), WriteError> {
    let path = path.as_ref();
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(WriteError {
            path: path.display().to_string(),
            source: std::io::Error::other("it is a directory"),
        });
    }
    tempfile::Builder::new()
        .prefix(".chessalg-check.")
        .suffix(".tmp")
        .tempfile_in(directory_of(path))
        .map(drop)
        .map_err(|source| WriteError {
            path: path.display().to_string(),
            source,
        })
}

/// The directory a file at `path` lives in (`.` for a bare name).
fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_file_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.pgn");
        write(&path, "first").unwrap();
        write(&path, "second, longer").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second, longer");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the file itself: {names:?}");
    }

    #[test]
    fn reading_stops_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x");
        std::fs::write(&path, "abc").unwrap();
        assert_eq!(read_text(&path, 3).unwrap(), "abc");
        assert!(read_text(&path, 2).is_err());
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        for path in ["/dev/zero", "/dev/stdin", "/dev/null"] {
            let e = read_bytes(path, 1000).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{path}: {e}");
        }
        let e = read_text(dir.path(), 1000).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        #[cfg(unix)]
        {
            // A named pipe with no writer: refused at once, not waited on.
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.unwrap().success());
            let e = read_text(&fifo, 1000).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
    }

    #[test]
    fn a_missing_directory_is_an_error_that_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/w.json");
        let e = write(&path, "x").unwrap_err();
        assert!(e.to_string().contains("w.json"), "{e}");
        assert!(check_writable(&path).is_err());
        assert!(check_writable(dir.path()).is_err(), "a directory is not a file");
        assert!(check_writable(dir.path().join("w.json")).is_ok());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
