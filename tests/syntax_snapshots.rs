//! Snapshots of the parse tree and of the expansion of every expression of
//! seed 003 (copied into `tests/data/seed/seed003.alg`), and of every
//! diagnostic in `tests/data/errors/`.

use chessalg::decl::Spec;
use chessalg::ir::{Expanded, Rules, print};
use chessalg::report::{self, Style};
use chessalg::source::Source;
use chessalg::syntax;

fn seed() -> Source {
    let text = std::fs::read_to_string("tests/data/seed/seed003.alg").expect("seed file");
    Source::new("seed003.alg", text)
}

#[test]
fn seed_parse_tree() {
    let file = syntax::parse_file(&seed().text).expect("the seed parses");
    insta::assert_snapshot!(syntax::print::file(&file));
}

#[test]
fn seed_expansion() {
    let (rules, warnings) = Rules::load(&seed()).expect("the seed expands");
    assert!(warnings.list.is_empty());
    let mut out = String::new();
    for (name, e) in rules.definitions() {
        match e {
            Expanded::Value(v) => out.push_str(&format!("{name} = {}\n", print::value(v, rules.pieces()))),
            Expanded::Function(ps) => out.push_str(&format!("{name}({}): function\n", ps.join(", "))),
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn diagnostics() {
    insta::glob!("data/errors/*.alg", |path| {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let source = Source::new(name, text);
        // What `check` prints: errors, or the warnings of the file and of its game.
        let text = match Spec::load(&source) {
            Ok((spec, warnings)) => {
                let (warnings, game) =
                    chessalg::game::Game::checked(&spec, warnings, chessalg::game::Game::new);
                let refused = match game {
                    Some(Err(e)) => report::render_one(&e, Style::PLAIN),
                    _ => String::new(),
                };
                report::render(&warnings, Style::PLAIN) + &refused
            }
            Err(problems) => report::render(&problems, Style::PLAIN),
        };
        assert!(!text.is_empty(), "{} reports nothing", path.display());
        insta::assert_snapshot!(text);
    });
}

/// The rule files users run, expanded: a change to the grammar, the expander
/// or the rules shows here.
#[test]
fn rule_files_expand() {
    let mut paths: Vec<_> = std::fs::read_dir("rules")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "alg"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.to_string_lossy().into_owned();
        let (spec, warnings) = Spec::load(&Source::new(name, text)).expect("the rule file loads");
        assert!(warnings.list.is_empty());
        let rules = spec.rules();
        let mut out = String::new();
        for (name, e) in rules.definitions() {
            match e {
                Expanded::Value(v) => {
                    out.push_str(&format!("{name} = {}\n", print::value(v, rules.pieces())))
                }
                Expanded::Function(ps) => out.push_str(&format!("{name}({}): function\n", ps.join(", "))),
            }
        }
        for (i, m) in spec.game().moves.iter().enumerate() {
            let player = &spec.game().players[i];
            out.push_str(&format!(
                "moves {player} = {}\n",
                print::move_text(m, rules.pieces())
            ));
        }
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_snapshot!(format!("rules_{stem}"), out);
    }
}
