//! The engines agree: random games of every rule file in `rules/`, played on
//! the default engines (the strategies where they take a program) and
//! on the backtracker alone, give the same legal moves (names and resulting
//! positions), the same counts and the same outcomes at every position.

use chessalg::core::Rng;
use chessalg::decl::Spec;
use chessalg::engine::{Cache, EngineChoice};
use chessalg::game::{Game, State};
use chessalg::source::Source;

/// Both builds of the game of the rule file at `path`, if it is a game.
fn games(path: &str) -> Option<(Game, Game)> {
    let text = std::fs::read_to_string(path).unwrap();
    let (spec, _) = Spec::load(&Source::new(path, text)).unwrap();
    let fast = Game::with_engine(&spec, EngineChoice::all()).ok()?;
    let reference = Game::with_engine(&spec, EngineChoice::backtrack()).unwrap();
    Some((fast, reference))
}

/// Every legal move at `state`: its name and the key of the position it leads to, sorted.
fn moves(game: &Game, state: &State, cache: &mut Cache) -> Vec<(String, u64)> {
    let legal = game.legal_actions(state, cache).unwrap();
    let names = game.move_names(state, &legal);
    let mut out: Vec<(String, u64)> = legal
        .iter()
        .zip(names)
        .map(|(a, name)| (name, game.play(state, a).key()))
        .collect();
    out.sort();
    out
}

/// Plays `games` random games of at most `plies` plies, comparing the engines at each position.
fn agree(path: &str, games_played: u64, plies: usize) -> usize {
    let Some((fast, reference)) = games(path) else {
        return 0;
    };
    let (mut c1, mut c2) = (Cache::new(), Cache::new());
    let mut positions = 0;
    for g in 0..games_played {
        let mut rng = Rng::new(g);
        let mut state = fast.initial();
        for ply in 0..plies {
            positions += 1;
            let here = format!("{path}, game {g}, ply {ply}:\n{}", fast.board_text(&state));
            let a = moves(&fast, &state, &mut c1);
            let b = moves(&reference, &state, &mut c2);
            assert_eq!(a, b, "moves differ at {here}");
            assert_eq!(
                fast.count_legal(&state, &mut c1).unwrap(),
                reference.count_legal(&state, &mut c2).unwrap(),
                "counts differ at {here}"
            );
            assert_eq!(
                fast.ends_tree(&state, &mut c1).unwrap(),
                reference.ends_tree(&state, &mut c2).unwrap(),
                "ends differ at {here}"
            );
            let legal = fast.legal_actions(&state, &mut c1).unwrap();
            let ending = fast.ending(&state, &legal, &mut c1).unwrap();
            assert_eq!(
                ending,
                reference.ending(&state, &legal, &mut c2).unwrap(),
                "outcomes differ at {here}"
            );
            if ending.is_some() || legal.is_empty() {
                break;
            }
            state = fast.play(&state, &legal[rng.below(legal.len())]);
        }
    }
    positions
}

#[test]
fn engines_agree_on_random_games_of_every_rule_file() {
    let mut files: Vec<String> = std::fs::read_dir("rules")
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".alg"))
        .collect();
    files.sort();
    let mut checked = 0;
    for f in &files {
        let n = agree(f, 4, 60);
        if n > 0 {
            checked += 1;
        }
    }
    // Every rule file but the prelude is a game.
    assert!(
        checked >= files.len() - 1,
        "only {checked} of {} files were games",
        files.len()
    );
}

#[test]
fn the_fast_engines_take_placements_patterns_and_royal_safety() {
    let (fast, reference) = games("rules/connect4.alg").unwrap();
    assert_eq!(fast.engine_report().fast_share(), (4, 4));
    assert_eq!(reference.engine_report().fast_share(), (0, 4));
    // Royal safety and `attacked` (castling) are walked too.
    let (chess, _) = games("rules/chess.alg").unwrap();
    assert_eq!(chess.engine_report().fast_share(), (2, 2));
}

/// Each side's moves run on an ordered list of strategies, and the
/// strategies that decline a program on the way say why, by name: chess's
/// moves are no single choice (the traced plan declines them), the choice
/// among pieces takes them and leaves castling to a list of its own; of
/// checkers' two ordered parts (jumps first, then steps) the choice among
/// pieces declines both, the chains take the jumps and decline the steps.
#[test]
fn every_strategy_that_declines_says_why() {
    let (chess, _) = games("rules/chess.alg").unwrap();
    let report = chess.engine_report();
    assert_eq!(
        report.strategies[0],
        ["pieces [rest: absent-pieces, walk]", "absent-pieces", "walk"]
    );
    let declines = &report.declines[0];
    assert!(declines.contains(&(
        "traced-plan".to_string(),
        "it does more than choose one rewrite (rewrites in sequence)".to_string()
    )));
    assert!(declines.contains(&(
        "rest: traced-plan".to_string(),
        "it does more than choose one rewrite (a guard)".to_string()
    )));
    let (checkers, _) = games("rules/checkers.alg").unwrap();
    let report = checkers.engine_report();
    assert_eq!(
        report.strategies[0],
        [
            "parts [1: chains, first-rewrite, walk; 2: traced-plan, first-rewrite, walk]",
            "walk"
        ]
    );
    let declines = &report.declines[0];
    let named = |name: &str| declines.iter().filter(|(n, _)| n == name).count();
    assert_eq!(named("part 1: pieces"), 1);
    assert_eq!(named("part 2: pieces"), 1);
    assert_eq!(named("part 1: chains"), 0, "{declines:?}");
    assert!(declines.contains(&(
        "part 2: chains".to_string(),
        "it is not a choice among pieces each making a chain".to_string()
    )));
    // A file the backtracker runs has no fast strategy to decline.
    let (reference, _) = games("rules/threecheck.alg").unwrap();
    assert!(reference.engine_report().declines.iter().all(Vec::is_empty));
}

/// Checkers' numbered notation writes every landing square of a jump: the
/// walker traces the path as the backtracker does, multi-jumps that branch
/// or come back to their start included.
#[test]
fn the_walker_traces_jump_paths_as_the_backtracker_does() {
    let (fast, reference) = games("rules/checkers.alg").unwrap();
    let (mut c1, mut c2) = (Cache::new(), Cache::new());
    for fen in [
        "B:W6,7,14,15:B2",
        "B:W6,7,14,15,22,23:BK2",
        "W:W27:B23,15,16,7,8,K24",
    ] {
        let state = fast.from_fen(fen).unwrap();
        let a = moves(&fast, &state, &mut c1);
        let b = moves(&reference, &state, &mut c2);
        assert_eq!(a, b, "{fen}");
        assert!(
            a.iter().all(|(name, _)| name.matches('x').count() >= 2),
            "{fen}: {a:?}"
        );
    }
    // Legal moves are listed on the walker, paths and all.
    assert_eq!(fast.engine_report().fast_share(), (2, 2));
}

/// The cases of `tests/data/engines/`: each file says the moves of its start
/// (`// expect moves: ...`) and perft counts (`// expect perft N: M`), which
/// every engine must give.
#[test]
fn every_engine_gives_each_case_its_expected_moves() {
    let mut cases = 0;
    for entry in std::fs::read_dir("tests/data/engines").unwrap() {
        let path = entry.unwrap().path().display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let (spec, _) = Spec::load(&Source::new(&path, text.clone())).unwrap();
        for engine in [EngineChoice::all(), EngineChoice::backtrack()] {
            let game = Game::with_engine(&spec, engine).unwrap();
            let mut cache = Cache::new();
            let start = game.initial();
            for line in text.lines() {
                if let Some(expected) = line.strip_prefix("// expect moves:") {
                    let legal = game.legal_actions(&start, &mut cache).unwrap();
                    let mut names = game.move_names(&start, &legal);
                    names.sort();
                    let mut expected: Vec<&str> = expected.split_whitespace().collect();
                    expected.sort();
                    assert_eq!(names, expected, "{path} on {engine}");
                    cases += 1;
                }
                if let Some(rest) = line.strip_prefix("// expect perft ") {
                    let (depth, count) = rest.split_once(':').unwrap();
                    let n = chessalg::game::perft(&game, &start, depth.parse().unwrap(), &mut cache).unwrap();
                    assert_eq!(
                        n,
                        count.trim().parse::<u64>().unwrap(),
                        "{path} on {engine}: perft {depth}"
                    );
                    cases += 1;
                }
            }
        }
    }
    assert!(cases >= 8, "{cases} cases");
}
