//! The rule files of `rules/`, built into the program: an installed
//! `chessalg` finds them by name (`chessalg play chess`) from any
//! directory, and their imports among themselves.
//!
//! A bundled file's source is named `<bundled>/rules/NAME.alg`; a file on
//! disk always comes first.

use std::path::Path;

use crate::source::Source;

mod files {
    include!(concat!(env!("OUT_DIR"), "/bundled_rules.rs"));
}

/// Where bundled files seem to live, in their sources' names.
pub const DIR: &str = "<bundled>/rules";

/// The bundled files: file name (`chess.alg`) and text.
pub fn files() -> &'static [(&'static str, &'static str)] {
    files::FILES
}

/// The bundled data files the rule files name: path under `rules/`
/// (`weights/checkers.json`) and text.
pub fn data() -> &'static [(&'static str, &'static str)] {
    files::DATA
}

/// The text of file `path`: the file on disk if there is one, else the
/// bundled data file it names (`<bundled>/rules/weights/checkers.json`).
pub fn read_data(path: &str) -> std::io::Result<String> {
    match crate::file::read_text(path, crate::file::MAX_DATA_BYTES) {
        Ok(text) => Ok(text),
        Err(e) => bundled_data(path).map(str::to_string).ok_or(e),
    }
}

/// The text of bundled file `name` (`chess.alg`).
pub fn text(name: &str) -> Option<&'static str> {
    files().iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The bundled file a path stands for: `<bundled>/rules/NAME.alg`, or a
/// bare name (`chess`, `chess.alg`) when no such file is on disk.
pub fn lookup(path: &str) -> Option<Source> {
    let bare = match path.strip_prefix(DIR).and_then(|p| p.strip_prefix('/')) {
        Some(name) => name.to_string(),
        None if !path.contains(['/', '\\']) && !Path::new(path).exists() => {
            if path.ends_with(".alg") {
                path.to_string()
            } else {
                format!("{path}.alg")
            }
        }
        None => return None,
    };
    text(&bare).map(|t| Source::new(format!("{DIR}/{bare}"), t))
}

/// A rule file's source (or a data file's a rule file names): the file at
/// `path` if there is one, else the bundled file it names.
pub fn read(path: &str) -> std::io::Result<Source> {
    match crate::file::read_text(path, crate::file::MAX_RULES_BYTES) {
        Ok(text) => Ok(Source::new(path, text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => lookup(path)
            .or_else(|| bundled_data(path).map(|t| Source::new(path, t)))
            .ok_or(e),
        Err(e) => Err(e),
    }
}

/// The bundled data file `<bundled>/rules/NAME` names.
fn bundled_data(path: &str) -> Option<&'static str> {
    let name = path.strip_prefix(DIR)?.strip_prefix('/')?;
    data().iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::{files, lookup};

    #[test]
    fn every_rule_file_is_bundled_and_found_by_name() {
        let on_disk = (std::fs::read_dir("rules").unwrap().flatten())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".alg"))
            .count();
        assert_eq!(files().len(), on_disk);
        let chess = lookup("chess").expect("chess is bundled");
        assert_eq!(chess.name, "<bundled>/rules/chess.alg");
        assert!(chess.text.contains("game Chess"));
        assert!(lookup("<bundled>/rules/irreversible.alg").is_some());
        assert!(lookup("no-such-game").is_none());
        assert!(lookup("somewhere/chess.alg").is_none());
    }
}
