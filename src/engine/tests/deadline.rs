//! A deadline on the cache ([`Cache::set_deadline`]): every question to an
//! engine, on every strategy, stops with [`EngineError::OutOfTime`] once it
//! has passed, a search too long to finish stops soon after it, and without
//! one (or with one far off) every answer is what it was.

use std::time::{Duration, Instant};

use super::*;
use crate::engine::meter::{CLOCK_EVERY, Meter, QUESTION_COST};

/// Every answer `engine` gives about `position` (each side's moves, safe
/// and not, their counts, the patterns, `can_change` on every square) with
/// `cache`: the moves as their changes, the rest as they are.
fn answers(
    engine: &Engine,
    position: &Position,
    patterns: usize,
    cache: &mut Cache,
) -> Result<String, EngineError> {
    let limits = Limits::default();
    let mut out = String::new();
    for side in [WHITE, BLACK] {
        for safe in [false, true] {
            let mut found = Vec::new();
            engine.each_move(side, position, safe, cache, &limits, &mut |o| {
                found.push(seen(o));
                ControlFlow::Continue(())
            })?;
            let n = engine.count_moves(side, position, safe, cache, &limits)?;
            out += &format!("{side} {safe}: {n} {found:?}\n");
        }
        for pattern in 0..patterns {
            let holds = engine.pattern_holds(pattern, side, position, cache, &limits)?;
            out += &format!("pattern {pattern} for {side}: {holds}\n");
        }
        for (at, _) in position.squares() {
            let hit = engine.can_change(side, position, at, cache, &limits)?;
            out += &format!("{side} changes {}: {hit}\n", name(at));
        }
        let program = engine.program(side).clone();
        let has = engine.has_result(&program, side, position, cache, &limits)?;
        let mut results = 0;
        engine.each_result(&program, side, position, cache, &limits, &mut |_| {
            results += 1;
            ControlFlow::Continue(())
        })?;
        out += &format!("{side} has {has}, {results} results\n");
    }
    Ok(out)
}

/// The engines the tests ask, with how many patterns each has: the
/// walker (rooks, kings and a pawn, protecting the kings), a choice of
/// rewrites (placements) with patterns, and each on the backtracker alone.
fn engines(f: &Fixture) -> Vec<(Engine, usize, &'static str)> {
    let placements = |choice: engine::EngineChoice| {
        let side = |moves| Side {
            moves: f.program(moves),
            protected: vec![],
            owned: vec![],
        };
        let sides = vec![side(". -> ♙"), side(". -> ♟")];
        let patterns = ["♙ + r♙ -> ♙ + r♙", "♟ + u♟ -> ♟ + u♟"]
            .iter()
            .map(|p| f.program(p))
            .collect();
        engine::prepare(sides, patterns, 4, 4, &choice)
    };
    let mut all = Vec::new();
    for choice in [engine::EngineChoice::all(), engine::EngineChoice::backtrack()] {
        all.push((
            f.engine_on("white_moves", "black_moves", 4, 4, choice),
            0,
            "walked",
        ));
        all.push((placements(choice), 2, "placements"));
    }
    all
}

#[test]
fn every_question_past_its_deadline_stops_on_every_strategy() {
    let f = Fixture::new();
    let position = f.board("♜..♚\n....\n.♙..\n♔..♖\n");
    let engines = engines(&f);
    // The strategies take each of its programs: the walker and the
    // choice of rewrites are asked, not only the backtracker.
    assert_eq!(engines[0].0.report().fast_share(), (2, 2));
    assert_eq!(engines[1].0.report().fast_share(), (4, 4));
    for (engine, patterns, what) in &engines {
        let before = answers(engine, &position, *patterns, &mut Cache::new()).unwrap();
        let mut cache = Cache::new();
        let now = Instant::now();
        cache.set_deadline(Some(now));
        assert_eq!(cache.deadline(), Some(now));
        let limits = Limits::default();
        // Each question on a cache of its own: each reads the clock.
        let past = || {
            let mut cache = Cache::new();
            cache.set_deadline(Some(now));
            cache
        };
        let stopped = |r: Result<(), EngineError>| assert_eq!(r, Err(EngineError::OutOfTime), "{what}");
        for side in [WHITE, BLACK] {
            for safe in [false, true] {
                let mut called = false;
                stopped(
                    engine.each_move(side, &position, safe, &mut past(), &limits, &mut |_| {
                        called = true;
                        ControlFlow::Continue(())
                    }),
                );
                assert!(!called, "{what}: a move given past the deadline");
                stopped(
                    engine
                        .count_moves(side, &position, safe, &mut past(), &limits)
                        .map(drop),
                );
            }
            for pattern in 0..*patterns {
                stopped(
                    engine
                        .pattern_holds(pattern, side, &position, &mut past(), &limits)
                        .map(drop),
                );
            }
            stopped(
                engine
                    .can_change(side, &position, sq("a1"), &mut past(), &limits)
                    .map(drop),
            );
            let program = engine.program(side).clone();
            stopped(
                engine
                    .has_result(&program, side, &position, &mut past(), &limits)
                    .map(drop),
            );
            stopped(
                engine.each_result(&program, side, &position, &mut past(), &limits, &mut |_| {
                    ControlFlow::Continue(())
                }),
            );
            stopped(engine::search(&program, &position, &mut past(), &limits).map(drop));
        }
        // Once a question on a cache stops, every later one stops at its
        // start; without the deadline, and with one far off, the cache
        // answers as a new one does.
        assert_eq!(
            answers(engine, &position, *patterns, &mut cache),
            Err(EngineError::OutOfTime)
        );
        assert_eq!(
            engine.count_moves(WHITE, &position, false, &mut cache, &limits),
            Err(EngineError::OutOfTime)
        );
        cache.set_deadline(None);
        assert_eq!(
            answers(engine, &position, *patterns, &mut cache).unwrap(),
            before,
            "{what}"
        );
        cache.set_deadline(Some(Instant::now() + Duration::from_secs(3600)));
        assert_eq!(
            answers(engine, &position, *patterns, &mut cache).unwrap(),
            before,
            "{what}"
        );
    }
}

#[test]
fn a_search_that_would_run_for_ages_stops_soon_after_its_deadline() {
    let f = Fixture::new();
    // Every subset of 36 squares: far more states than any test could wait
    // for, under a limit on states that is never reached.
    let program = f.program("(. -> ♙)*");
    let position = f.board("......\n......\n......\n......\n......\n......\n");
    let limits = Limits {
        max_states: u64::MAX / 2,
        ..Limits::default()
    };
    let side = |moves: &str| Side {
        moves: f.program(moves),
        protected: vec![],
        owned: vec![],
    };
    let engine = engine::prepare(
        vec![side("(. -> ♙)*"), side(". -> ♟")],
        Vec::new(),
        6,
        6,
        &engine::EngineChoice::all(),
    );
    for question in ["search", "each_move", "count_moves"] {
        let mut cache = Cache::new();
        let started = Instant::now();
        cache.set_deadline(Some(started + Duration::from_millis(50)));
        let result = match question {
            "search" => engine::search(&program, &position, &mut cache, &limits).map(|o| o.len() as u64),
            "each_move" => engine
                .each_move(WHITE, &position, false, &mut cache, &limits, &mut |_| {
                    ControlFlow::Continue(())
                })
                .map(|()| 0),
            _ => engine.count_moves(WHITE, &position, false, &mut cache, &limits),
        };
        let took = started.elapsed();
        assert_eq!(result, Err(EngineError::OutOfTime), "{question}");
        // Fifty milliseconds, and a generous margin for a loaded machine.
        assert!(took >= Duration::from_millis(50), "{question}: {took:?}");
        assert!(took < Duration::from_secs(2), "{question}: {took:?}");
    }
}

#[test]
fn a_meter_reads_the_clock_between_its_charges_and_keeps_its_limit() {
    let limits = Limits {
        max_states: 10 * CLOCK_EVERY,
        ..Limits::default()
    };
    // Without a deadline: exactly the limit, then the limit's error.
    let meter = Meter::new(&limits);
    assert!(meter.charge_many(10 * CLOCK_EVERY));
    assert_eq!(
        meter.charge(),
        Err(EngineError::StateLimit {
            limit: 10 * CLOCK_EVERY
        })
    );
    // A deadline far off changes nothing of that.
    let far = Instant::now() + Duration::from_secs(3600);
    let meter = Meter::until(&limits, far, CLOCK_EVERY);
    for _ in 0..10 * CLOCK_EVERY {
        meter.charge().unwrap();
    }
    assert_eq!(
        meter.charge(),
        Err(EngineError::StateLimit {
            limit: 10 * CLOCK_EVERY
        })
    );
    // A deadline that passes while states are charged: the charges fail
    // within the next reading of the clock, and go on failing.
    let soon = Instant::now() + Duration::from_millis(5);
    let meter = Meter::until(&limits, soon, CLOCK_EVERY);
    assert!(meter.charge_many(CLOCK_EVERY / 2));
    std::thread::sleep(Duration::from_millis(10));
    let mut charged = 0;
    while meter.charge().is_ok() {
        charged += 1;
    }
    assert!(
        charged <= CLOCK_EVERY,
        "{charged} states charged past the deadline"
    );
    assert_eq!(meter.charge(), Err(EngineError::OutOfTime));
    assert!(!meter.charge_many(1));
    assert_eq!(meter.exceeded(), EngineError::OutOfTime);
}

#[test]
fn questions_that_charge_nothing_read_the_clock_now_and_then() {
    let f = Fixture::new();
    let engines = engines(&f);
    // The placements on square sets: a question charges no state.
    let (engine, _, _) = &engines[1];
    let position = f.board("♟...\n....\n.♙..\n....\n");
    let limits = Limits::default();
    let mut cache = Cache::new();
    let deadline = Instant::now() + Duration::from_millis(20);
    cache.set_deadline(Some(deadline));
    // Questions answered once the deadline had passed.
    let mut late = 0;
    loop {
        let answer = engine.count_moves(WHITE, &position, false, &mut cache, &limits);
        let now = Instant::now();
        match answer {
            Ok(n) => assert_eq!(n, 14),
            Err(e) => {
                assert_eq!(e, EngineError::OutOfTime);
                assert!(now >= deadline);
                break;
            }
        }
        if now >= deadline {
            late += 1;
        }
    }
    assert!(
        late <= CLOCK_EVERY / QUESTION_COST + 1,
        "{late} questions answered past the deadline"
    );
    // Every question after the first stopped one stops at its start.
    for side in [WHITE, BLACK] {
        let r = engine.count_moves(side, &position, false, &mut cache, &limits);
        assert_eq!(r, Err(EngineError::OutOfTime));
    }
}
