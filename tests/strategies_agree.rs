//! Every engine strategy against the reference, on games nobody wrote by
//! hand: rule files generated from the shapes the engine's strategies
//! take (steps, slides, repeated binds, ordered tails, guards that test
//! `attacked`, tests of where a piece stands on the board's shape, here or
//! where it came from, choices of pieces, drops from a hand and captures
//! into it, chains of jumps made for as long as one can be) on
//! random boards with a royal piece each,
//! run on the strategies and on the backtracker. The legal moves (names
//! and resulting positions), the moves the rules give before the legality
//! filter, and perft 2 must be the same.
//!
//! And a table (`tests/data/engines/*.alg`, as regex's `testdata/`): each
//! file says the moves and perft counts it must give, on every engine.

mod common;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use chessalg::decl::Spec;
use chessalg::engine::{Cache, EngineChoice, Limits};
use chessalg::game::{Game, PerftTable, perft, perft_with};
use chessalg::source::Source;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// A search that grows past this is skipped, on both engines.
const LIMITS: Limits = Limits {
    max_states: 20_000,
    max_cells: 256,
};

const DIRECTIONS: [&str; 8] = ["u", "d", "l", "r", "ur", "ul", "dr", "dl"];

/// What a white piece may land on (black's are the same with the colours swapped).
const TARGETS: [&str; 4] = [".", "(. | ♜)", "(. | ♟ | ♜ | ♚)", "♟"];

fn direction() -> impl Strategy<Value = &'static str> {
    prop::sample::select(DIRECTIONS.to_vec())
}

/// One piece's move, written for white.
fn piece_move() -> BoxedStrategy<String> {
    let target = prop::sample::select(TARGETS.to_vec());
    let leaf = prop_oneof![
        // A step.
        4 => (direction(), target.clone()).prop_map(|(m, t)| format!("(% + {m}{t} -> . + {m}%)")),
        // A slide, stopping on an empty square or taking.
        3 => (direction(), target).prop_map(|(m, t)| format!("(% + {m}. -> . + {m}%)* (% + {m}{t} -> . + {m}%)")),
        // A slide over empty squares only.
        2 => direction().prop_map(|m| format!("(% + {m}. -> . + {m}%)+")),
        // A promotion, or nothing.
        1 => Just("((% -> ♖) / nil)".to_string()),
        1 => Just("!{attacked}".to_string()),
        1 => Just("?{attacked}".to_string()),
        // Only if the next player is left without a legal move, or not.
        1 => Just("?{no_reply}".to_string()),
        1 => Just("!{no_reply}".to_string()),
        // The square the piece started on, if it left it: a pawn put there.
        1 => Just("(%from: (% -> ♙))".to_string()),
        1 => Just("?{%from: nil}".to_string()),
        // Where the piece stands on the board's shape (a region written
        // with the board's edges, as shogi's promotion zone is), here or
        // on the square it left.
        1 => direction().prop_map(|m| format!("?{{% + {m}_}}")),
        1 => direction().prop_map(|m| format!("!{{(% + {m}#) | (% + {m}{m}#)}}")),
        1 => direction().prop_map(|m| format!("?{{%from: ?{{(% + {m}#) | (% + {m}_ + {m}{m}#)}}}}")),
        1 => direction().prop_map(|m| format!("!{{%from: ?{{% + {m}_}}}}")),
        1 => (direction(), direction())
            .prop_map(|(a, b)| format!("(?{{(% + {a}#) | (% + {a}{a}#)}} / ?{{%from: ?{{% + {b}_}}}})")),
        // A capture that puts the piece taken into the hand, as one's own.
        1 => (direction(), prop::sample::select(vec![("♟", "♙"), ("♜", "♖")]))
            .prop_map(|(m, (taken, kept))| format!("(% + {m}{taken} -> . + {m}% + hand {kept})")),
    ];
    leaf.prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} | {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(({a}) / ({b}))")),
            inner.clone().prop_map(|a| format!("({a}){{1,2}}")),
            inner.prop_map(|a| format!("in_any_direction({a})")),
        ]
    })
    .boxed()
}

/// A piece's chain, written for white: a first jump, then jumps for as long
/// as one can be made (checkers' captures), maybe a promotion after; or a
/// loop that keeps the board as full (no chain: the walker walks it).
fn chain_move() -> BoxedStrategy<String> {
    let jump = |m: &str, over: &str| format!("(% + {m}{over} + {m}{m}. -> . + {m}. + {m}{m}%)");
    let jumps = prop::collection::vec(direction(), 1..=3);
    let over = prop::sample::select(vec!["(♟ | ♜)", "♟", "(♟ | ♜ | ♙)"]);
    let tail = prop::sample::select(vec![
        "",
        "((% -> ♖) / nil)",
        "((% + u# -> ♖ + u#) / nil)",
        "((% + u# -> ♖ + u#) / (% + d# -> ♙ + d#))",
    ]);
    (jumps, direction(), over, tail, 0..4u8)
        .prop_map(move |(ms, first, over, tail, kind)| {
            let loop_ = ms.iter().map(|&m| jump(m, over)).collect::<Vec<_>>().join(" | ");
            let first = match kind {
                0 => loop_.clone(),
                1 => jump(first, over),
                // A step first: the chain may start without a capture.
                2 => format!("(% + {first}. -> . + {first}%)"),
                // The loop moves without taking: the board stays as full.
                _ => {
                    let step = |m: &str| format!("(% + {m}. -> . + {m}%)");
                    let steps = ms.iter().map(|&m| step(m)).collect::<Vec<_>>().join(" | ");
                    return format!("({steps}) ({steps})+ !{{{steps}}} {tail}");
                }
            };
            format!("({first}) ({loop_})+ !{{{loop_}}} {tail}")
        })
        .boxed()
}

/// A side's moves, written for white: binds of its pieces, combined.
fn side_moves() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec!["♔", "♖", "♙"]);
    let bind = prop_oneof![
        6 => (piece.clone(), piece_move()).prop_map(|(p, m)| format!("(%{p}: {m})")),
        1 => (piece, chain_move()).prop_map(|(p, m)| format!("(%{p}: {m})")),
    ]
    .boxed();
    // A piece put down: on any empty square, or beside a piece of one's
    // own, or taking the piece beside it; or dropped from the hand.
    let placement = prop_oneof![
        Just("(. -> ♙)".to_string()),
        direction().prop_map(|m| format!("(. + {m}♖ -> ♙ + {m}♖)")),
        // A piece put down that takes the piece beside it (no piece bound:
        // whether it attacks a square is asked of the square it writes).
        direction().prop_map(|m| format!("(. + {m}(♟ | ♚) -> ♙ + {m}.)")),
        Just("(hand ♙ + . -> ♙)".to_string()),
        Just("((hand ♖ + . -> ♖) | (hand ♙ + . -> ♙))".to_string()),
        direction().prop_map(|m| format!("(hand ♙ + . + {m}♖ -> ♙ + {m}♖)")),
    ];
    prop_oneof![
        1 => (placement, bind.clone()).prop_map(|(a, b)| format!("{a} | {b}")),
        3 => bind.clone(),
        2 => (bind.clone(), bind.clone()).prop_map(|(a, b)| format!("{a} | {b}")),
        1 => (bind.clone(), bind.clone()).prop_map(|(a, b)| format!("({a}) / ({b})")),
        1 => bind.clone().prop_map(|a| format!("({a}){{1,2}}")),
        1 => (bind.clone(), bind).prop_map(|(a, b)| format!("{a} {b}")),
    ]
}

/// White's moves turned into black's: the colours swapped, not the board.
fn for_black(white: &str) -> String {
    white
        .chars()
        .map(|c| match c {
            '♔' => '♚',
            '♚' => '♔',
            '♖' => '♜',
            '♜' => '♖',
            '♙' => '♟',
            '♟' => '♙',
            c => c,
        })
        .collect()
}

/// A board of 3x3 to 5x5 squares with one king of each colour.
fn board() -> impl Strategy<Value = Vec<String>> {
    let content = prop::sample::select(vec!['.', '.', '.', '.', '♖', '♜', '♙', '♟']);
    (
        3usize..=5,
        3usize..=5,
        prop::collection::vec(content, 25),
        0usize..25,
        0usize..25,
    )
        .prop_map(|(w, h, cells, white_king, black_king)| {
            let mut cells: Vec<char> = cells[..w * h].to_vec();
            let white_king = white_king % (w * h);
            let mut black_king = black_king % (w * h);
            if black_king == white_king {
                black_king = (black_king + 1) % (w * h);
            }
            cells[white_king] = '♔';
            cells[black_king] = '♚';
            cells.chunks(w).map(|row| row.iter().collect()).collect()
        })
}

/// What the hand (a box both sides take from and put into) holds at the start.
fn hand() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "♙", "♙ ♟", "♖ ♜ ♙", "♟ ♟ ♖"])
}

/// How the turn passes: in turn, or (one game in four) with a pass for a
/// player without a move while the other has one.
fn turns() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "", "turns alternate passing\n"])
}

/// The rule file of one generated game.
fn game_text(white: &str, black: &str, rows: &[String], hand: &str, turns: &str) -> String {
    let mut text = String::from(
        "game Generated\nplayers white black\npiece ♔ ♚ fen K k royal\npiece ♖ ♜ fen R r\npiece ♙ ♟ fen P p\n",
    );
    text.push_str(turns);
    text.push_str(&format!("box hand {hand}\nfen box hand\n"));
    text.push_str("in_any_direction(M) = M | R M | R² M | R³ M\n");
    text.push_str("board\n");
    for row in rows {
        text.push_str(&format!("    {row}\n"));
    }
    text.push_str(&format!("moves white = {white}\nmoves black = {black}\n"));
    text.push_str("outcome no_moves checked = loss\noutcome no_moves = draw\n");
    text
}

fn game(text: &str, engine: EngineChoice) -> Option<Game> {
    let (spec, _) = Spec::load(&Source::new("generated.alg", text)).ok()?;
    Some(Game::with_engine(&spec, engine).ok()?.with_limits(LIMITS))
}

/// The moves of the start, as sorted (name, resulting position) pairs, with
/// and without the legality filter; `None` if a search hit its limit.
type Listed = (Vec<(String, u64)>, Vec<(String, u64)>);

fn listed(game: &Game) -> Option<Listed> {
    let mut cache = Cache::new();
    let start = game.initial();
    let legal = common::moves_at(game, &start, &mut cache)?;
    let generated = game.generated_actions(&start, &mut cache).ok()?;
    Some((legal, common::named(game, &start, &generated)))
}

/// The strategies compared with the backtracker: each alone (the
/// backtracker answering what it does not) and with the walk under it (the
/// walk answering, inside each list, what it does not), and the perft on
/// square sets over the choices of rewrites.
fn each_strategy() -> Vec<(&'static str, EngineChoice)> {
    let mut out = Vec::new();
    for name in chessalg::engine::STRATEGY_NAMES {
        match name {
            "backtrack" => {}
            "walk" => out.push((name, name.parse().unwrap())),
            "set-perft" => out.push((name, "set-perft,choice,traced-plan".parse().unwrap())),
            _ => {
                out.push((name, name.parse().unwrap()));
                out.push((name, format!("{name},walk").parse().unwrap()));
            }
        }
    }
    out
}

/// Runs `cases` generated games on `engine` and on the backtracker: the
/// moves at the start (with and without the legality filter) and along
/// four plies picked by the case, and perft 2 (3 where the start has at
/// most 12 moves). Returns how many sides ran on each strategy.
fn generated_games(cases: u32, engine: EngineChoice) -> BTreeMap<String, u32> {
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let compared = Cell::new(0u32);
    let fast_sides = Cell::new(0u32);
    let shapes: RefCell<BTreeMap<&'static str, u32>> = RefCell::default();
    let strategies: RefCell<BTreeMap<String, u32>> = RefCell::default();
    let positions = Cell::new(0u32);
    let perfts = Cell::new(0u32);
    let strategy = (
        side_moves(),
        side_moves(),
        board(),
        prop::collection::vec(any::<usize>(), 4),
        (hand(), turns()),
    );
    let result = runner.run(&strategy, |(white, black, rows, picks, (hand, turns))| {
        let text = game_text(&white, &for_black(&black), &rows, hand, turns);
        if std::env::var_os("SHOW_GENERATED").is_some() {
            eprintln!("{text}");
        }
        let (Some(fast), Some(reference)) = (game(&text, engine), game(&text, EngineChoice::backtrack()))
        else {
            return Ok(());
        };
        let (Some(mine), Some(theirs)) = (listed(&fast), listed(&reference)) else {
            return Ok(());
        };
        prop_assert_eq!(&mine, &theirs, "the moves at the start differ:\n{}", text);
        compared.set(compared.get() + 1);
        let report = fast.engine_report();
        let (on_fast, _) = report.fast_share();
        fast_sides.set(fast_sides.get() + on_fast as u32);
        for shape in report.shapes.iter().flatten() {
            *shapes.borrow_mut().entry(shape).or_default() += 1;
        }
        for list in &report.strategies {
            for strategy in chessalg::engine::STRATEGY_NAMES {
                if list
                    .iter()
                    .any(|s| s.split([' ', '[', ']', ',', ';']).any(|w| w == strategy))
                {
                    *strategies.borrow_mut().entry(strategy.to_string()).or_default() += 1;
                }
            }
        }
        let (mut a, mut b) = (Cache::new(), Cache::new());
        let start = fast.initial();
        let depth = if mine.0.len() <= 12 { 3 } else { 2 };
        // A perft table (of one entry) makes perft go move by move, through
        // the game's states, where it otherwise counts on positions alone.
        let table = PerftTable::with_megabytes(0).unwrap();
        if let (Ok(x), Ok(y), Ok(z)) = (
            perft(&fast, &start, depth, &mut a),
            perft(&reference, &start, depth, &mut b),
            perft_with(&fast, &start, depth, &mut a, Some(&table)),
        ) {
            prop_assert_eq!(x, y, "perft {} differs:\n{}", depth, text);
            prop_assert_eq!(
                x,
                z,
                "perft {} on positions and move by move differ:\n{}",
                depth,
                text
            );
            perfts.set(perfts.get() + 1);
        }
        let mut state = start;
        for (ply, pick) in picks.into_iter().enumerate() {
            let (Some(x), Some(y)) = (
                common::moves_at(&fast, &state, &mut a),
                common::moves_at(&reference, &state, &mut b),
            ) else {
                break;
            };
            prop_assert_eq!(
                &x,
                &y,
                "the moves differ after {} plies ({}):\n{}",
                ply,
                state.key(),
                text
            );
            positions.set(positions.get() + 1);
            let legal = fast.legal_actions(&state, &mut a).unwrap();
            if legal.is_empty() {
                break;
            }
            state = fast.play(&state, &legal[pick % legal.len()]);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "{cases} generated games on `{engine}`: {} compared ({} sides on square-set strategies), {} positions, {} perft counts",
        compared.get(),
        fast_sides.get(),
        positions.get(),
        perfts.get()
    );
    eprintln!("sides per shape: {:?}", shapes.borrow());
    eprintln!("sides per strategy: {:?}", strategies.borrow());
    // The comparison must not become vacuous: most games build and most
    // sides run on the strategies.
    assert!(
        compared.get() > cases * 3 / 4,
        "{} of {cases} compared",
        compared.get()
    );
    if engine.is_all() {
        assert!(
            fast_sides.get() > compared.get(),
            "{} sides on square-set strategies",
            fast_sides.get()
        );
    }
    strategies.into_inner()
}

#[test]
fn generated_games_give_the_same_moves_on_every_engine() {
    generated_games(3000, EngineChoice::all());
}

#[test]
#[ignore = "100,000 games: a few minutes"]
fn many_generated_games_give_the_same_moves_on_every_engine() {
    generated_games(100_000, EngineChoice::all());
}

/// Each strategy, run alone and with the walk under it, on 3,000 generated
/// games: the same moves and perft counts as the backtracker's, and (so
/// that the comparison is not vacuous) the strategy takes some sides.
/// The perft on square sets and the placement count take programs these
/// games do not make: the table below holds them.
#[test]
fn each_strategy_alone_gives_the_same_moves_as_the_backtracker() {
    each_strategy_on(3000);
}

#[test]
#[ignore = "100,000 games per strategy: an hour"]
fn each_strategy_alone_on_many_generated_games() {
    each_strategy_on(100_000);
}

fn each_strategy_on(cases: u32) {
    let mut totals: BTreeMap<String, u32> = BTreeMap::new();
    for (name, engine) in each_strategy() {
        let taken = generated_games(cases, engine);
        let count = taken.get(name).copied().unwrap_or(0);
        *totals.entry(name.to_string()).or_default() += count;
        // And games whose programs these do not make: whole choices of
        // rewrites, placements counted, patterns that are one guard.
        for path in BUNDLED {
            *totals.entry(name.to_string()).or_default() += bundled_agrees(path, engine, name);
        }
    }
    eprintln!("programs per strategy, alone and with the walk: {totals:?}");
    for (name, count) in &totals {
        assert!(*count > 0, "`{name}` took no program");
    }
}

/// Rule files of `rules/` whose programs the generated games do not make.
const BUNDLED: [&str; 4] = [
    "rules/tictactoe.alg",
    "rules/connect4.alg",
    "rules/othello.alg",
    "rules/breakthrough.alg",
];

/// Perft 3 of the rule file at `path` on `engine` and on the backtracker,
/// which must agree, and how many of its programs (sides' moves and
/// patterns) strategy `name` runs.
fn bundled_agrees(path: &str, engine: EngineChoice, name: &str) -> u32 {
    let text = std::fs::read_to_string(path).unwrap();
    let (spec, _) = Spec::load(&Source::new(path, text)).unwrap();
    let chosen = Game::with_engine(&spec, engine).unwrap();
    let reference = Game::with_engine(&spec, EngineChoice::backtrack()).unwrap();
    let start = chosen.initial();
    let (mut a, mut b) = (Cache::new(), Cache::new());
    assert_eq!(
        perft(&chosen, &start, 3, &mut a).unwrap(),
        perft(&reference, &start, 3, &mut b).unwrap(),
        "{path} perft 3 on `{engine}`"
    );
    if name == "set-perft" {
        return chosen.perft_on_square_sets(&start) as u32;
    }
    let report = chosen.engine_report();
    let lists = report.strategies.iter().chain(&report.pattern_strategies);
    lists
        .filter(|list| {
            list.iter()
                .any(|s| s.split([' ', '[', ']', ',', ';']).any(|w| w == name))
        })
        .count() as u32
}

/// One file of the table: the moves and perft counts its comments expect.
struct Expected {
    moves: Vec<String>,
    perfts: Vec<(u32, u64)>,
}

fn expected(text: &str) -> Expected {
    let mut out = Expected {
        moves: Vec::new(),
        perfts: Vec::new(),
    };
    for line in text.lines() {
        if let Some(moves) = line.strip_prefix("// expect moves:") {
            out.moves = moves.split_whitespace().map(str::to_string).collect();
        } else if let Some(rest) = line.strip_prefix("// expect perft ") {
            let (depth, count) = rest.split_once(':').expect("`// expect perft N: COUNT`");
            out.perfts
                .push((depth.trim().parse().unwrap(), count.trim().parse().unwrap()));
        }
    }
    out
}

#[test]
fn the_table_gives_what_each_file_expects_on_every_engine() {
    let mut files: Vec<_> = std::fs::read_dir("tests/data/engines")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "alg"))
        .collect();
    files.sort();
    assert!(files.len() >= 2);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let want = expected(&text);
        assert!(
            !want.moves.is_empty() || !want.perfts.is_empty(),
            "{} expects nothing",
            path.display()
        );
        let mut engines = vec![EngineChoice::all(), EngineChoice::backtrack()];
        engines.extend(each_strategy().into_iter().map(|(_, engine)| engine));
        for engine in engines {
            let (spec, _) = Spec::load(&Source::new(path.display().to_string(), text.clone()))
                .unwrap_or_else(|p| panic!("{}: {:?}", path.display(), p.list));
            let game = Game::with_engine(&spec, engine).unwrap();
            let mut cache = Cache::new();
            let start = game.initial();
            let legal = game.legal_actions(&start, &mut cache).unwrap();
            let mut names = game.move_names(&start, &legal);
            names.sort();
            let mut moves = want.moves.clone();
            moves.sort();
            if !want.moves.is_empty() {
                assert_eq!(names, moves, "{} on `{engine}`", path.display());
            }
            for &(depth, count) in &want.perfts {
                let got = perft(&game, &start, depth, &mut cache).unwrap();
                assert_eq!(got, count, "{} perft {depth} on `{engine}`", path.display());
            }
        }
    }
}

/// A rewrite of a generated placement game, for crosses (`X`); noughts'
/// are the same with the colours swapped.
fn placement_rewrite() -> BoxedStrategy<String> {
    prop_oneof![
        Just(". -> X".to_string()),
        // Comes to rest on the edge or on a disc (gravity along -m), the
        // edge first or last.
        (direction(), any::<bool>()).prop_map(|(m, edge_first)| {
            let (edge, discs) = (
                format!("({m}# + . -> {m}# + X)"),
                format!("({m} X + . -> {m} X + X) | ({m} O + . -> {m} O + X)"),
            );
            if edge_first {
                format!("{edge} | {discs}")
            } else {
                format!("{discs} | {edge}")
            }
        }),
        // Takes the disc beside it, turns it, or steps.
        direction().prop_map(|m| format!("X + {m} O -> X + {m}.")),
        direction().prop_map(|m| format!("X + {m} O -> X + {m} X")),
        direction().prop_map(|m| format!("X + {m}. -> . + {m} X")),
    ]
    .boxed()
}

/// A pattern of a generated placement game that ends it, for crosses.
fn placement_pattern() -> BoxedStrategy<String> {
    prop_oneof![
        (direction(), 2..=3usize).prop_map(|(m, k)| {
            let line: Vec<String> = (0..k).map(|i| format!("{} X", m.repeat(i))).collect();
            let line = line.join(" + ");
            format!("{line} -> {line}")
        }),
        // A hole between two discs: a capture may complete it.
        direction().prop_map(|m| format!("X + {m}. + {m}{m} X -> X + {m}. + {m}{m} X")),
    ]
    .boxed()
}

fn swap_colours(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'X' => 'O',
            'O' => 'X',
            c => c,
        })
        .collect()
}

/// Games whose moves and ending patterns are choices of rewrites (placements,
/// drops, captures, flips, steps; lines, holes, some only on one player's
/// turn): perft on square sets alone (or, where a plan declines, on
/// positions alone) against the same perft made move by move (a perft
/// table turns both off) and the backtracker's.
#[test]
fn perft_on_square_sets_agrees_with_perft_move_by_move() {
    let mut runner = TestRunner::new(Config {
        cases: 400,
        failure_persistence: None,
        ..Config::default()
    });
    let (compared, on_sets) = (Cell::new(0u32), Cell::new(0u32));
    let rows = (3..=5usize, 3..=5usize).prop_flat_map(|(w, h)| {
        prop::collection::vec(prop::sample::select(vec!['.', '.', '.', '.', 'X', 'O']), w * h).prop_map(
            move |cells| {
                cells
                    .chunks(w)
                    .map(|r| r.iter().collect::<String>())
                    .collect::<Vec<_>>()
            },
        )
    });
    let strategy = (
        prop::collection::vec(placement_rewrite(), 1..=3),
        prop::collection::vec(placement_rewrite(), 1..=3),
        prop::collection::vec((placement_pattern(), 0..4usize), 1..=3),
        rows,
    );
    let result = runner.run(&strategy, |(crosses, noughts, patterns, rows)| {
        let mut text = String::from("game Placements\nplayers crosses noughts\npiece X O value 1\nboard\n");
        for row in rows.iter().rev() {
            text.push_str(&format!("    {row}\n"));
        }
        let choice = |rewrites: &[String]| {
            rewrites
                .iter()
                .map(|r| format!("({r})"))
                .collect::<Vec<_>>()
                .join(" | ")
        };
        text.push_str(&format!("moves crosses = {}\n", choice(&crosses)));
        text.push_str(&format!("moves noughts = {}\n", swap_colours(&choice(&noughts))));
        for (pattern, kind) in &patterns {
            // For crosses or for noughts, on every turn or on one player's.
            let (pattern, winner) = if kind % 2 == 0 {
                (pattern.clone(), "crosses")
            } else {
                (swap_colours(pattern), "noughts")
            };
            let turn = if *kind >= 2 {
                format!("turn {winner} ")
            } else {
                String::new()
            };
            text.push_str(&format!("outcome {turn}when {pattern} = win {winner}\n"));
        }
        text.push_str("outcome no_moves = draw\n");
        let (Some(fast), Some(reference)) = (
            game(&text, EngineChoice::all()),
            game(&text, EngineChoice::backtrack()),
        ) else {
            return Ok(());
        };
        let start = fast.initial();
        if fast.perft_on_square_sets(&start) {
            on_sets.set(on_sets.get() + 1);
        }
        let table = PerftTable::with_megabytes(1).unwrap();
        let (mut a, mut b, mut c) = (Cache::new(), Cache::new(), Cache::new());
        for depth in 1..=3 {
            let (Ok(x), Ok(y), Ok(z)) = (
                perft(&fast, &start, depth, &mut a),
                perft_with(&fast, &start, depth, &mut b, Some(&table)),
                perft(&reference, &start, depth, &mut c),
            ) else {
                return Ok(());
            };
            prop_assert_eq!(
                x,
                y,
                "perft {} on square sets and move by move differ:\n{}",
                depth,
                text
            );
            prop_assert_eq!(x, z, "perft {} differs from the backtracker's:\n{}", depth, text);
        }
        compared.set(compared.get() + 1);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "placement games: {} compared, {} counted on square sets",
        compared.get(),
        on_sets.get()
    );
    assert!(compared.get() > 300, "{} compared", compared.get());
    assert!(
        on_sets.get() > compared.get() / 2,
        "{} on square sets",
        on_sets.get()
    );
}
