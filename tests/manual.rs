//! The manual runs: README.md and every chapter of `docs/`.
//!
//! - Every line of a code block that starts with `$ ` is a command: it runs
//!   (in a directory of its chapter's own, where `rules/`, `tests/` and
//!   `benches/` are the repository's, with `chessalg` on the path) and prints
//!   what the lines after it show, stdout and stderr together. A shown
//!   output that ends with a line `...` is the first lines of what it prints.
//! - Every code block marked `alg` is a rule file that `chessalg check
//!   --deny-warnings` passes, except one marked `alg file=NAME`: that is a
//!   file the chapter's commands use, written before they run (what `check`
//!   says of it is shown by a command).
//! - Every other line of a shell block that runs `chessalg` (or `cargo run
//!   --release --`) names a command that exists and flags it takes.
//! - Every relative link points at a file that exists.
//! - The language reference names every keyword of the grammar and every
//!   built-in.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fenced code block of a chapter.
struct Block {
    /// The line of its opening fence (1-based).
    line: usize,
    /// The fence's info string (`sh`, `alg`, ...; empty when none).
    info: String,
    /// Its lines, without the fence's indentation.
    lines: Vec<String>,
}

/// README.md and the chapters of `docs/`, in a fixed order.
fn chapters() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir("docs")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 7, "docs/ holds {} chapters", docs.len());
    files.extend(docs);
    files
}

fn blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, String, Vec<String>)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((n + 1, indent, info.trim().to_string(), Vec::new()));
                }
            }
            Some((start, fence_indent, info, lines)) => {
                if trimmed == "```" {
                    out.push(Block {
                        line: *start,
                        info: std::mem::take(info),
                        lines: std::mem::take(lines),
                    });
                    open = None;
                } else {
                    let cut = indent.min(*fence_indent);
                    lines.push(line[cut..].to_string());
                }
            }
        }
    }
    assert!(open.is_none(), "{}: a code block is never closed", file.display());
    out
}

/// A directory for one chapter's commands, with the repository's games and
/// test data in it.
fn workdir(chapter: &Path) -> PathBuf {
    let name = chapter.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = std::env::temp_dir().join(format!("chessalg-manual-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let repo = std::env::current_dir().unwrap();
    for linked in ["rules", "tests", "benches"] {
        std::os::unix::fs::symlink(repo.join(linked), dir.join(linked)).unwrap();
    }
    dir
}

/// The shell with `chessalg` on its path, in `dir`.
fn shell(dir: &Path, command: &str) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_chessalg"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1; {command}"))
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("CHESSALG_DATA_DIR", dir.join("data"))
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The file a block marked `alg file=NAME` is.
fn file_name(block: &Block) -> Option<&str> {
    let mut words = block.info.split_whitespace();
    (words.next() == Some("alg")).then_some(())?;
    words.find_map(|w| w.strip_prefix("file="))
}

/// The commands of a block: each `$ ` line (joined with the lines its
/// trailing `\` continues) and the output shown after it.
fn examples(block: &Block) -> Vec<(usize, String, Vec<String>)> {
    let mut out: Vec<(usize, String, Vec<String>)> = Vec::new();
    let mut continued = false;
    for (i, line) in block.lines.iter().enumerate() {
        if continued {
            let last = out.last_mut().unwrap();
            last.1.push('\n');
            last.1.push_str(line);
            continued = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            out.push((block.line + 1 + i, command.to_string(), Vec::new()));
            continued = command.ends_with('\\');
        } else if let Some(last) = out.last_mut() {
            last.2.push(line.trim_end().to_string());
        }
    }
    out
}

fn trimmed_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

#[test]
fn every_command_shown_prints_what_is_shown() {
    let mut ran = 0;
    let mut wrong = Vec::new();
    for chapter in chapters() {
        let blocks = blocks(&chapter);
        if blocks.iter().all(|b| examples(b).is_empty()) {
            continue;
        }
        let dir = workdir(&chapter);
        for block in &blocks {
            if let Some(name) = file_name(block) {
                std::fs::write(dir.join(name), block.lines.join("\n") + "\n").unwrap();
            }
        }
        for (line, command, shown) in blocks.iter().flat_map(examples) {
            let printed = trimmed_lines(&shell(&dir, &command));
            let mut shown = shown.clone();
            while shown.last().is_some_and(|l| l.is_empty()) {
                shown.pop();
            }
            let agrees = if shown.last().is_some_and(|l| l == "...") {
                let head = &shown[..shown.len() - 1];
                printed.len() >= head.len() && printed[..head.len()] == *head
            } else {
                printed == shown
            };
            ran += 1;
            if !agrees {
                wrong.push(format!(
                    "{}:{line}: $ {command}\n--- shown\n{}\n--- printed\n{}\n",
                    chapter.display(),
                    shown.join("\n"),
                    printed.join("\n")
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        wrong.is_empty(),
        "{} of {ran} commands print something else:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(ran >= 10, "only {ran} commands in the manual");
}

#[test]
fn every_rule_snippet_passes_check() {
    let dir = std::env::temp_dir().join(format!("chessalg-manual-{}-snippets", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for chapter in chapters() {
        for block in blocks(&chapter).iter().filter(|b| b.info == "alg") {
            let file = dir.join(format!("snippet-{checked}.alg"));
            std::fs::write(&file, block.lines.join("\n") + "\n").unwrap();
            let out = common::command()
                .args(["check", "--deny-warnings"])
                .arg(&file)
                .output()
                .unwrap();
            checked += 1;
            if !out.status.success() {
                wrong.push(format!(
                    "{}:{}:\n{}{}",
                    chapter.display(),
                    block.line,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        wrong.is_empty(),
        "{} of {checked} rule snippets fail `check`:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(checked >= 10, "only {checked} rule snippets in the manual");
}

/// The language reference's chess (its declarations over chess.alg's
/// definitions) is chess: the same perft as `rules/chess.alg` where both
/// sides may castle either way, and from Kiwipete.
#[test]
fn the_language_references_chess_is_chess() {
    let chapter = Path::new("docs/language.md");
    let block = blocks(chapter)
        .into_iter()
        .find(|b| b.info == "alg" && b.lines.iter().any(|l| l.starts_with("game Chess")))
        .expect("docs/language.md shows chess's declarations");
    let text = block.lines.join("\n") + "\n";
    let source = chessalg::source::Source::new("docs/language.md", text);
    let (spec, _) = chessalg::decl::Spec::load(&source).unwrap();
    let shown = chessalg::game::Game::new(&spec).unwrap();
    let chess = common::chess();
    for fen in [
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ] {
        let count = |game: &chessalg::game::Game| {
            let state = game.from_fen(fen).unwrap();
            chessalg::game::perft(game, &state, 2, &mut chessalg::engine::Cache::new()).unwrap()
        };
        assert_eq!(count(&shown), count(&chess), "perft 2 of {fen}");
    }
}

/// The subcommand and flags of a usage line (`chessalg perft FILE --depth 4
/// [--divide]   # ...`), if it is one.
fn usage(line: &str) -> Option<(String, Vec<String>)> {
    let line = line.trim_start();
    let rest = line
        .strip_prefix("chessalg ")
        .or_else(|| line.strip_prefix("cargo run --release -- "))?;
    let code = rest.split(" #").next().unwrap();
    let mut words = code.split_whitespace();
    let command = words.next()?.to_string();
    let flags = words
        .filter_map(|w| {
            let w = w.trim_start_matches(['[', '(']);
            let flag = w.strip_prefix("--")?;
            let flag: String = flag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            Some(format!("--{flag}"))
        })
        .collect();
    Some((command, flags))
}

#[test]
fn every_usage_line_names_a_command_and_its_flags() {
    let help = |args: &[&str]| {
        let out = common::command().args(args).arg("--help").output().unwrap();
        assert!(out.status.success(), "{args:?} --help");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let global = help(&[]);
    let mut checked = 0;
    let mut wrong = Vec::new();
    for chapter in chapters() {
        for block in blocks(&chapter).iter().filter(|b| b.info == "sh") {
            for (i, line) in block.lines.iter().enumerate() {
                let Some((command, flags)) = usage(line) else {
                    continue;
                };
                let place = format!("{}:{}", chapter.display(), block.line + 1 + i);
                if !global.contains(&format!("\n  {command} ")) {
                    wrong.push(format!("{place}: no command `{command}`"));
                    continue;
                }
                let own = help(&[command.as_str()]);
                for flag in flags {
                    let named = |text: &str| {
                        [" ", ",", "\n"]
                            .iter()
                            .any(|end| text.contains(&format!("{flag}{end}")))
                    };
                    if !named(&own) && !named(&global) {
                        wrong.push(format!("{place}: `chessalg {command}` takes no `{flag}`"));
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "only {checked} usage lines");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_relative_link_points_at_a_file() {
    let mut wrong = Vec::new();
    let mut links = 0;
    for chapter in chapters() {
        let text = std::fs::read_to_string(&chapter).unwrap();
        let base = chapter.parent().unwrap();
        let mut targets = Vec::new();
        for piece in text.split("](").skip(1) {
            targets.push(piece.split(')').next().unwrap().to_string());
        }
        for piece in text.split("src=\"").skip(1) {
            targets.push(piece.split('"').next().unwrap().to_string());
        }
        for target in targets {
            if target.contains("://") || target.starts_with('#') {
                continue;
            }
            let path = target.split('#').next().unwrap();
            links += 1;
            if !base.join(path).exists() {
                wrong.push(format!("{}: {target}", chapter.display()));
            }
        }
    }
    assert!(links >= 40, "{links} links");
    assert!(wrong.is_empty(), "links to nothing:\n{}", wrong.join("\n"));
}

/// The words of the grammar's keywords: quoted literals outside comments.
fn grammar_keywords() -> BTreeSet<String> {
    let grammar = std::fs::read_to_string("grammar/chessalg.pest").unwrap();
    let mut words = BTreeSet::new();
    for line in grammar.lines() {
        let code = line.split("//").next().unwrap();
        for (i, piece) in code.split('"').enumerate() {
            if i % 2 == 1 && piece.len() >= 2 && piece.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                words.insert(piece.to_string());
            }
        }
    }
    words
}

#[test]
fn the_language_reference_names_every_keyword_and_builtin() {
    let reference = std::fs::read_to_string("docs/language.md").unwrap();
    let words: BTreeSet<&str> = reference
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let keywords = grammar_keywords();
    assert!(keywords.len() >= 40, "{keywords:?}");
    let mut missing: Vec<String> = keywords
        .into_iter()
        .filter(|k| !words.contains(k.as_str()))
        .collect();
    for keyword in chessalg::syntax::DECLARATION_KEYWORDS {
        if !reference.contains(&format!("`{keyword} ")) && !reference.contains(&format!("`{keyword}`")) {
            missing.push(format!("the declaration `{keyword}`"));
        }
    }
    for builtin in chessalg::ir::BUILTINS {
        if !reference.contains(&format!("`{}", builtin.name)) {
            missing.push(format!("the built-in `{}`", builtin.name));
        }
    }
    assert!(missing.is_empty(), "docs/language.md never names: {missing:?}");
}
