//! Mutants of the shipped rule files on both engines: each file of `rules/`
//! with one to three of its operators, movements, repetitions or guards
//! changed (`|` and `/` swapped, a movement turned, `*` and `+` swapped,
//! a repetition `{1,2}` added, `!{` and `?{` swapped), run on the fast
//! engine and on the backtracker (the reference). The legal moves at the
//! start and along four random plies, and perft 3 (2 where the start has
//! more than 40 moves), must agree wherever both finish within the limit.
//!
//! The default run tries 120 mutants; `cargo test --release --test
//! mutations -- --ignored` runs for `CHESSALG_MUTATION_SECONDS` (3600).

mod common;

use std::time::{Duration, Instant};

use chessalg::core::Rng;
use chessalg::decl::Spec;
use chessalg::engine::{Cache, EngineChoice, Limits};
use chessalg::game::{Game, perft};
use chessalg::source::Source;

const LIMITS: Limits = Limits {
    max_states: 200_000,
    max_cells: 1024,
};

const MOVEMENTS: [&str; 10] = ["u", "d", "l", "r", "ur", "ul", "dr", "dl", "uu", "dd"];

/// The byte ranges of the movement words of a definition line.
fn movement_words(line: &str) -> Vec<(usize, usize)> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            if MOVEMENTS.contains(&&line[start..i]) {
                out.push((start, i));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Whether a line is part of a definition or a `moves` line (not a
/// declaration, a board row or a comment).
fn is_rule(line: &str) -> bool {
    let code = line.split("//").next().unwrap();
    if code.trim().is_empty() {
        return false;
    }
    let first = code.split_whitespace().next().unwrap_or("");
    let declaration = chessalg::syntax::DECLARATION_KEYWORDS.contains(&first) && first != "moves";
    !declaration && (code.contains('=') || code.starts_with(' ') && code.contains("->"))
}

/// One mutation of `text` at a place `random` picks, if it finds one.
fn mutate(text: &str, random: &mut Rng) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let rules: Vec<usize> = (0..lines.len()).filter(|&i| is_rule(lines[i])).collect();
    if rules.is_empty() {
        return None;
    }
    for _ in 0..20 {
        let n = rules[random.below(rules.len())];
        let line = lines[n];
        let code_end = line.find("//").unwrap_or(line.len());
        let code = &line[..code_end];
        let changed = match random.below(6) {
            0 => swap_once(code, " | ", " / ", random),
            1 => swap_once(code, " / ", " | ", random),
            2 => {
                let words = movement_words(code);
                (!words.is_empty()).then(|| {
                    let (a, b) = words[random.below(words.len())];
                    let to = MOVEMENTS[random.below(MOVEMENTS.len())];
                    format!("{}{to}{}", &code[..a], &code[b..])
                })
            }
            3 => swap_once(code, ")*", ")+", random).or_else(|| swap_once(code, ")+ ", ")* ", random)),
            4 => swap_once(code, ") ", "){1,2} ", random),
            _ => swap_once(code, "!{", "?{", random).or_else(|| swap_once(code, "?{", "!{", random)),
        };
        if let Some(changed) = changed {
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            out[n] = format!("{changed}{}", &line[code_end..]);
            return Some(out.join("\n") + "\n");
        }
    }
    None
}

/// `code` with one occurrence of `from` (picked by `random`) made `to`.
fn swap_once(code: &str, from: &str, to: &str, random: &mut Rng) -> Option<String> {
    let places: Vec<usize> = code.match_indices(from).map(|(i, _)| i).collect();
    if places.is_empty() {
        return None;
    }
    let at = places[random.below(places.len())];
    Some(format!("{}{to}{}", &code[..at], &code[at + from.len()..]))
}

fn game(name: &str, text: &str, engine: EngineChoice) -> Option<Game> {
    let (spec, _) = Spec::load(&Source::new(name, text)).ok()?;
    Some(Game::with_engine(&spec, engine).ok()?.with_limits(LIMITS))
}

/// What the runs compared.
#[derive(Default, Debug)]
struct Tally {
    /// Sides per shape the strategies ran.
    shapes: std::collections::BTreeMap<&'static str, u32>,
    mutants: u32,
    compared: u32,
    positions: u32,
    perft3: u32,
    perft2: u32,
}

/// Compares the mutants of every rule file on both engines until `enough`
/// says to stop; panics at the first disagreement, with the mutant.
fn compare_mutants(seed: u64, mut enough: impl FnMut(&Tally) -> bool) -> Tally {
    let mut files: Vec<(String, String)> = std::fs::read_dir("rules")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "alg") && !p.ends_with("prelude.alg"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    files.sort();
    let mut random = Rng::new(seed);
    let mut tally = Tally::default();
    while !enough(&tally) {
        let (name, original) = &files[random.below(files.len())];
        let mut text = original.clone();
        for _ in 0..1 + random.below(3) {
            if let Some(t) = mutate(&text, &mut random) {
                text = t;
            }
        }
        tally.mutants += 1;
        // The mutant stands where the file stood, so its imports resolve.
        let (Some(fast), Some(reference)) = (
            game(name, &text, EngineChoice::all()),
            game(name, &text, EngineChoice::backtrack()),
        ) else {
            continue;
        };
        let (mut a, mut b) = (Cache::new(), Cache::new());
        let start = fast.initial();
        let (Some(x), Some(y)) = (
            common::moves_at(&fast, &start, &mut a),
            common::moves_at(&reference, &start, &mut b),
        ) else {
            continue;
        };
        assert_eq!(
            x, y,
            "the moves at the start differ in this mutant of {name}:\n{text}"
        );
        tally.compared += 1;
        for shape in fast.engine_report().shapes.iter().flatten() {
            *tally.shapes.entry(shape).or_default() += 1;
        }
        let depth = if x.len() <= 40 { 3 } else { 2 };
        if let (Ok(p), Ok(q)) = (
            perft(&fast, &start, depth, &mut a),
            perft(&reference, &start, depth, &mut b),
        ) {
            assert_eq!(p, q, "perft {depth} differs in this mutant of {name}:\n{text}");
            if depth == 3 {
                tally.perft3 += 1;
            } else {
                tally.perft2 += 1;
            }
        }
        let mut state = start;
        for ply in 0..4 {
            let (Some(x), Some(y)) = (
                common::moves_at(&fast, &state, &mut a),
                common::moves_at(&reference, &state, &mut b),
            ) else {
                break;
            };
            assert_eq!(
                x,
                y,
                "the moves differ after {ply} plies (at {}) in this mutant of {name}:\n{text}",
                fast.to_fen(&state)
            );
            tally.positions += 1;
            let legal = fast.legal_actions(&state, &mut a).unwrap();
            if legal.is_empty() {
                break;
            }
            state = fast.play(&state, &legal[random.below(legal.len())]);
        }
    }
    tally
}

#[test]
fn mutants_of_the_rule_files_give_the_same_moves_on_every_engine() {
    let tally = compare_mutants(1, |t| t.mutants >= 120);
    eprintln!("{tally:?}");
    assert!(tally.compared >= 60, "{tally:?}");
    assert!(tally.perft3 >= 40, "{tally:?}");
}

#[test]
#[ignore = "an hour (CHESSALG_MUTATION_SECONDS)"]
fn mutants_for_an_hour() {
    let seconds: u64 = std::env::var("CHESSALG_MUTATION_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3600);
    let seed: u64 = std::env::var("CHESSALG_MUTATION_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let end = Instant::now() + Duration::from_secs(seconds);
    let mut last = Instant::now();
    let tally = compare_mutants(seed, |t| {
        if last.elapsed() > Duration::from_secs(300) {
            eprintln!("{t:?}");
            last = Instant::now();
        }
        Instant::now() >= end
    });
    eprintln!("{seconds} s: {tally:?}");
}
