//! `chessalg fmt`: every rule file in `rules/` is in the canonical layout;
//! mangled copies of them (spaces added and taken away around operators,
//! blanks at line ends) come back to it, meaning the same (`expand`, the
//! game's start and its moves, its outcomes); the layout is idempotent; `--check` shows a
//! diff and exits 1.

use chessalg::core::Rng;
use chessalg::decl::Spec;
use chessalg::engine::Cache;
use chessalg::game::Game;
use chessalg::ir::{Expanded, print};
use chessalg::source::Source;
use chessalg::syntax::format_file;

mod common;

/// The rule files of `rules/`.
fn rule_files() -> Vec<String> {
    let mut paths: Vec<String> = std::fs::read_dir("rules")
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path().display().to_string())
        .filter(|p| p.ends_with(".alg"))
        .collect();
    paths.sort();
    paths
}

/// What a rule file means, as text: every definition expanded, and, for a
/// game, its start (FEN) and the moves there.
fn meaning(path: &str, text: &str) -> String {
    let (spec, _) = Spec::load(&Source::new(path, text)).unwrap_or_else(|e| panic!("{path}: {e:?}"));
    let rules = spec.rules();
    let mut out = String::new();
    for (name, expanded) in rules.definitions() {
        match expanded {
            Expanded::Value(v) => out += &format!("{name} = {}\n", print::value(v, rules.pieces())),
            Expanded::Function(params) => out += &format!("{name}({})\n", params.join(", ")),
        }
    }
    if spec.game().is_game() {
        let game = Game::new(&spec).unwrap();
        let start = game.initial();
        let legal = game.legal_actions(&start, &mut Cache::new()).unwrap();
        out += &format!("{}\n{:?}\n", game.to_fen(&start), game.move_names(&start, &legal));
        // How it ends: each outcome line's condition (a `when`'s move as
        // written, without its spaces), result and whether perft stops there.
        for o in &spec.game().outcomes {
            let condition = format!("{:?}", o.condition);
            let condition = match o.written.as_str() {
                "" => condition,
                written => format!(
                    "{} {}",
                    condition.split('(').next().unwrap_or_default(),
                    written.replace(' ', "")
                ),
            };
            out += &format!("{condition} {:?} {}\n", o.verdict, o.automatic);
        }
    }
    out
}

/// `text` with the spaces around its binary operators (in definitions,
/// `moves` and `outcome` lines, outside comments) taken away or doubled at
/// random, spaces after `(` and `,` added, and blanks at line ends.
fn mangle(text: &str, rng: &mut Rng) -> String {
    let mut out = String::new();
    let mut in_board = false;
    for line in text.lines() {
        let starts_item = !line.starts_with([' ', '\t']) && !line.starts_with("//") && !line.is_empty();
        if starts_item {
            in_board = line.starts_with("board");
        }
        let (code, comment) = match line.find("//") {
            Some(i) => line.split_at(i),
            None => (line, ""),
        };
        let is_expression = !in_board
            && (code.contains(" = ") || code.starts_with([' ', '\t']))
            && ![
                "piece", "game", "fen", "mark", "box", "region", "players", "import", "weights",
            ]
            .iter()
            .any(|w| code.starts_with(w));
        let mut code = code.to_string();
        if is_expression {
            for op in [" -> ", " | ", " / ", " + ", " = "] {
                let parts: Vec<&str> = code.split(op).collect();
                let mut joined = parts[0].to_string();
                for p in &parts[1..] {
                    let bare = op.trim();
                    joined += match rng.below(3) {
                        0 => bare.to_string(),
                        1 => format!("  {bare}   "),
                        _ => op.to_string(),
                    }
                    .as_str();
                    joined += p;
                }
                code = joined;
            }
            code = code.replace(", ", if rng.below(2) == 0 { "," } else { ",   " });
            code = code.replace('(', if rng.below(2) == 0 { "( " } else { "(" });
        }
        out += &code;
        out += comment;
        out += &" ".repeat(rng.below(3));
        out.push('\n');
    }
    out
}

#[test]
fn every_rule_file_is_in_the_canonical_layout() {
    for path in rule_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let formatted = format_file(&text).unwrap_or_else(|e| panic!("{path}: {e:?}"));
        assert!(
            formatted == text,
            "{path} is not laid out: run `chessalg fmt {path}`"
        );
    }
    let mut args = vec!["fmt", "--check"];
    let files = rule_files();
    args.extend(files.iter().map(String::as_str));
    let out = common::run(&args, b"");
    assert!(out.status.success(), "{}", common::text(&out.stdout));
}

#[test]
fn mangled_rule_files_come_back_meaning_the_same() {
    let mut rng = Rng::new(0xF0F0_1234_5678_9ABC);
    let mut changed = 0;
    for path in rule_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let meant = meaning(&path, &text);
        for _ in 0..3 {
            let mangled = mangle(&text, &mut rng);
            if mangled != text {
                changed += 1;
            }
            // The mangled file means what the original means...
            assert_eq!(
                meaning(&path, &mangled),
                meant,
                "{path}: mangling changed the meaning\n{mangled}"
            );
            // ... and its layout is the original, which lays out as itself.
            let back = format_file(&mangled).unwrap_or_else(|e| panic!("{path}: {e:?}"));
            assert!(
                back == text,
                "{path}: a mangled copy lays out differently:\n{back}"
            );
            assert_eq!(format_file(&back).unwrap(), back, "{path}: not idempotent");
        }
    }
    assert!(changed > 60, "{changed} mangled copies differ");
}

#[test]
fn fmt_check_shows_a_diff_and_fmt_writes_the_layout() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fmt-check");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.alg");
    std::fs::write(&path, "piece X O\nwin=(X+r X|X+u X)->X   \n  |  nil\n").unwrap();
    let p = path.to_str().unwrap();
    let out = common::run(&["fmt", "--check", p], b"");
    assert_eq!(out.status.code(), Some(1));
    let diff = common::text(&out.stdout);
    assert!(diff.contains("+win = (X + r X | X + u X) -> X"), "{diff}");
    assert!(diff.contains("+    | nil"), "{diff}");
    let out = common::run(&["fmt", p], b"");
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "piece X O\nwin = (X + r X | X + u X) -> X\n    | nil\n"
    );
    let out = common::run(&["fmt", "--check", p], b"");
    assert!(out.status.success());
    // A file that does not parse is refused with its diagnostics, unchanged.
    std::fs::write(&path, "win = (X +\n").unwrap();
    let out = common::run(&["fmt", p], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "win = (X +\n");
}
