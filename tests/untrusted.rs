//! Rule texts from strangers (the web playground's): whatever a text says,
//! it is answered within its limits: an expansion that doubles its work
//! stops at a stated limit, placed where it is written; every stage stops
//! at its job's deadline; no file but a regular one is read.

use std::time::{Duration, Instant};

use chessalg::core::budget;
use chessalg::decl::Spec;
use chessalg::engine::{Cache, EngineError};
use chessalg::game::PlayError;
use chessalg::ir::{ExpandError, Problem};
use chessalg::source::Source;

mod common;

/// The first error of loading `text`, with the text its span covers.
fn first_error(text: &str) -> (Problem, String) {
    let problems = Spec::load(&Source::new("t.alg", text))
        .expect_err("the text has an error")
        .list;
    let (_, problem) = (problems.into_iter())
        .find(|(_, p)| !p.is_warning())
        .expect("an error");
    let covered = match &problem {
        Problem::Expand(ExpandError::TooMuchWork { span, .. } | ExpandError::OutOfTime { span }) => {
            text[span.start..span.end].to_string()
        }
        _ => String::new(),
    };
    (problem, covered)
}

#[test]
fn an_expansion_that_doubles_its_work_stops_at_a_stated_limit_where_it_is_written() {
    // 41 functions, each calling the one before twice: 2^40 expressions.
    let text = std::fs::read_to_string("tests/data/untrusted/doubling.alg").unwrap();
    let started = Instant::now();
    let (problem, covered) = first_error(&text);
    assert!(
        matches!(problem, Problem::Expand(ExpandError::TooMuchWork { limit, .. }) if limit == chessalg::ir::MAX_STEPS),
        "{problem:?}"
    );
    assert_eq!(covered, "%X: f40(step)");
    assert!(
        problem.to_string().contains("expands past 2000000 nodes"),
        "{problem}"
    );
    eprintln!("stopped in {:?}", started.elapsed());
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    // Sixteen levels (some 200,000 expressions) are within the limit.
    let shallow = text.replace("f40(step)", "f16(step)");
    assert!(Spec::load(&Source::new("t.alg", shallow)).is_ok());
}

#[test]
fn an_expansion_stops_at_its_jobs_deadline() {
    let text = std::fs::read_to_string("tests/data/untrusted/doubling.alg").unwrap();
    let shallow = text.replace("f40(step)", "f16(step)");
    let (problem, covered) = budget::within(Instant::now(), || first_error(&shallow));
    assert!(
        matches!(problem, Problem::Expand(ExpandError::OutOfTime { .. })),
        "{problem:?}"
    );
    assert_eq!(covered, "%X: f16(step)");
}

/// The searches a job makes stop at its deadline too: a cache made within
/// the job carries it (what the playground's listing of the first moves
/// and the pieces' prospects run under).
#[test]
fn a_search_made_within_a_job_stops_at_its_deadline() {
    let game = common::game("rules/chess.alg");
    let start = game.initial();
    let late = budget::within(Instant::now(), || game.legal_actions(&start, &mut Cache::new()));
    assert!(
        matches!(late, Err(PlayError::Engine(EngineError::OutOfTime))),
        "{late:?}"
    );
    let in_time = budget::within(Instant::now() + Duration::from_secs(60), || {
        game.legal_actions(&start, &mut Cache::new()).map(|l| l.len())
    });
    assert_eq!(in_time.unwrap(), 20);
    assert_eq!(game.legal_actions(&start, &mut Cache::new()).unwrap().len(), 20);
}

#[test]
fn a_text_with_a_byte_order_mark_or_old_mac_line_endings_reads_as_the_same_game() {
    let text = std::fs::read_to_string("rules/tictactoe.alg").unwrap();
    let start_moves = |text: String| {
        let (spec, _) = Spec::load(&Source::new("t.alg", text)).expect("it loads");
        let game = chessalg::game::Game::new(&spec).expect("it is a game");
        let start = game.initial();
        (
            game.name().to_string(),
            game.legal_actions(&start, &mut chessalg::engine::Cache::new())
                .unwrap()
                .len(),
        )
    };
    let plain = start_moves(text.clone());
    assert_eq!(plain, ("Tic-tac-toe".to_string(), 9));
    assert_eq!(start_moves(format!("\u{feff}{text}")), plain);
    assert_eq!(start_moves(text.replace('\n', "\r")), plain);
    assert_eq!(start_moves(text.replace('\n', "\r\n")), plain);
    // An error in such a text is placed where it is.
    let broken = format!("\u{feff}{}", text.replace("moves", "moves?").replace('\n', "\r"));
    let problems = Spec::load(&Source::new("t.alg", broken)).unwrap_err();
    assert!(!problems.list.is_empty());
}
