//! SAN, PGN, the AI and `chessalg play` on `rules/chess.alg`.

use std::time::{Duration, Instant};

use chessalg::ai::{Ai, Budget};
use chessalg::core::PlayerId;
use chessalg::engine::Cache;
use chessalg::game::{Ending, Game, MoveInputError, PgnTags, SearchOptions, State};

mod common;
use common::{chess, game as game_of, play};

/// The SAN of every legal move of a position, sorted.
fn sans(game: &Game, state: &State) -> Vec<String> {
    let mut cache = Cache::new();
    let legal = game.legal_actions(state, &mut cache).unwrap();
    let mut s = game.san_all(state, &legal, &mut cache).unwrap();
    s.sort();
    s
}

fn sans_of(fen: &str) -> Vec<String> {
    let game = chess();
    let state = game.from_fen(fen).unwrap();
    sans(&game, &state)
}

fn has(list: &[String], s: &str) -> bool {
    list.iter().any(|x| x == s)
}

#[test]
fn san_from_the_start() {
    let game = chess();
    let s = sans(&game, &game.initial());
    assert_eq!(s.len(), 20);
    for m in ["Nf3", "Nc3", "Na3", "e4", "e3", "a4", "h3"] {
        assert!(has(&s, m), "{m} missing from {s:?}");
    }
}

#[test]
fn san_castling_both_ways() {
    let s = sans_of("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert!(has(&s, "O-O") && has(&s, "O-O-O"), "{s:?}");
    let s = sans_of("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    assert!(has(&s, "O-O") && has(&s, "O-O-O"), "{s:?}");
}

#[test]
fn san_promotion_with_check() {
    let s = sans_of("k7/4P3/8/8/8/8/8/4K3 w - - 0 1");
    for m in ["e8=Q+", "e8=R+", "e8=B", "e8=N"] {
        assert!(has(&s, m), "{m} missing from {s:?}");
    }
}

#[test]
fn san_captures_and_disambiguation() {
    let s = sans_of("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    assert!(has(&s, "Nbd2") && has(&s, "Nfd2"), "{s:?}");
    let s = sans_of("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
    assert!(has(&s, "R1a3") && has(&s, "R5a3"), "{s:?}");
    let s = sans_of("4k3/8/8/2p1p3/3P4/8/8/4K3 w - - 0 1");
    assert!(has(&s, "dxc5") && has(&s, "dxe5") && has(&s, "d5"), "{s:?}");
    // en passant is a capture: it lowers the opponent's piece count
    let s = sans_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    assert!(has(&s, "exd6"), "{s:?}");
}

#[test]
fn fools_mate_is_written_with_a_hash() {
    let game = chess();
    let (state, written, actions) = play(&game, game.initial(), &["f3", "e5", "g4", "Qh4"]);
    assert_eq!(written, ["f3", "e5", "g4", "Qh4#"]);
    let mut cache = Cache::new();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    assert_eq!(
        game.ending(&state, &legal, &mut cache).unwrap(),
        Some(Ending::Win(PlayerId::new(1)))
    );
    let tags = PgnTags {
        players: vec!["A".into(), "B".into()],
        ..PgnTags::default()
    };
    let pgn = game
        .pgn(
            &game.initial(),
            &actions,
            Some(Ending::Win(PlayerId::new(1))),
            &tags,
            &mut cache,
        )
        .unwrap();
    assert!(pgn.starts_with("[Event \"Chess\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n"));
    assert!(pgn.contains("[White \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n\n"));
    assert!(!pgn.contains("SetUp"));
    assert!(pgn.ends_with("\n1. f3 e5 2. g4 Qh4# 0-1\n\n"), "{pgn}");
}

#[test]
fn pgn_from_a_set_up_position() {
    let game = chess();
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 7";
    let start = game.from_fen(fen).unwrap();
    let (_, written, actions) = play(&game, start.clone(), &["0-0-0", "e1g1"]);
    assert_eq!(written, ["O-O-O", "O-O"]);
    let mut cache = Cache::new();
    let pgn = game
        .pgn(&start, &actions, None, &PgnTags::default(), &mut cache)
        .unwrap();
    assert!(
        pgn.contains("[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 7\"]\n"),
        "{pgn}"
    );
    assert!(pgn.ends_with("\n7... O-O-O 8. O-O *\n\n"), "{pgn}");
}

#[test]
fn typed_moves_in_many_spellings() {
    let game = chess();
    let state = game.initial();
    let mut cache = Cache::new();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let name = |t: &str| game.action_name(&state, &legal[game.read_move(&state, &legal, t).unwrap()]);
    assert_eq!(name("Nf3"), "g1f3");
    assert_eq!(name("g1f3"), "g1f3");
    assert_eq!(name("Ng1f3"), "g1f3");
    assert_eq!(name("e4"), "e2e4");
    assert_eq!(name("e2-e4"), "e2e4");
    assert!(matches!(
        game.read_move(&state, &legal, "e5"),
        Err(MoveInputError::NoMatch { .. })
    ));
    assert!(game.read_move(&state, &legal, "").is_err());
    let promo = game.from_fen("k7/4P3/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    let legal = game.legal_actions(&promo, &mut cache).unwrap();
    for t in ["e8=Q", "e8Q", "e7e8q", "e8=Q+"] {
        let i = game.read_move(&promo, &legal, t).unwrap();
        assert_eq!(game.action_name(&promo, &legal[i]), "e7e8q", "{t}");
    }
    assert!(matches!(
        game.read_move(&promo, &legal, "e8"),
        Err(MoveInputError::Ambiguous { .. })
    ));
}

#[test]
fn the_ai_takes_a_free_queen_and_mates_in_one() {
    let game = chess();
    let mut cache = Cache::new();
    let budget = Budget { depth: 2, time: None };
    // a free queen on d5
    let state = game.from_fen("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1").unwrap();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let c = Ai::new(1)
        .choose(&game, &state, &legal, budget, &mut cache)
        .unwrap();
    assert_eq!(game.action_name(&state, &legal[c.index]), "d1d5");
    // back-rank mate
    let state = game.from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").unwrap();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let c = Ai::new(1)
        .choose(&game, &state, &legal, budget, &mut cache)
        .unwrap();
    assert_eq!(game.action_name(&state, &legal[c.index]), "a1a8");
}

#[test]
fn the_ai_sees_past_its_horizon_to_the_end_of_an_exchange() {
    let game = chess();
    let mut cache = Cache::new();
    // At depth 1 the pawn on d5 looks free to the queen, but a pawn takes
    // back: the quiescence search plays the exchange out and keeps the queen.
    let state = game.from_fen("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1").unwrap();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let c = Ai::new(1)
        .choose(&game, &state, &legal, Budget { depth: 1, time: None }, &mut cache)
        .unwrap();
    assert_ne!(game.action_name(&state, &legal[c.index]), "d1d5");
    // And a pawn that no one can take back is taken (with a pawn of its own,
    // white does not leave a bare knight, which could only draw).
    let state = game.from_fen("4k3/8/8/3p4/8/4N3/P7/4K3 w - - 0 1").unwrap();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let c = Ai::new(1)
        .choose(&game, &state, &legal, Budget { depth: 1, time: None }, &mut cache)
        .unwrap();
    assert_eq!(game.action_name(&state, &legal[c.index]), "e3d5");
}

/// Null-move pruning and late-move reductions, each on and off, keep the
/// AI's choice where the best move is known: Morphy's mate in two (1.Ra6!,
/// the only move that mates in two) and a knight fork that wins the queen.
#[test]
fn search_shortcuts_keep_the_known_best_moves() {
    let game = chess();
    let mut cache = Cache::new();
    let cases = [
        ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", "a1a6"),
        ("q3k3/8/8/1N6/8/8/P7/4K3 w - - 0 1", "b5c7"),
    ];
    for null_move in [false, true] {
        for reductions in [false, true] {
            for (fen, best) in cases {
                let state = game.from_fen(fen).unwrap();
                let legal = game.legal_actions(&state, &mut cache).unwrap();
                let c = Ai::new(3)
                    .with_options(SearchOptions {
                        null_move,
                        reductions,
                    })
                    .choose(&game, &state, &legal, Budget { depth: 5, time: None }, &mut cache)
                    .unwrap();
                assert_eq!(
                    game.action_name(&state, &legal[c.index]),
                    best,
                    "{fen} with null_move {null_move}, reductions {reductions}"
                );
            }
        }
    }
}

/// The shortcuts are on where the file says nothing, null moves off in a
/// game won by a pattern, and a `search` line turns either off.
#[test]
fn rule_files_switch_search_shortcuts() {
    let on = SearchOptions {
        null_move: true,
        reductions: true,
    };
    assert_eq!(chess().search_options(), on);
    let connect4 = game_of("rules/connect4.alg");
    assert!(!connect4.search_options().null_move);
    let checkers = game_of("rules/checkers.alg");
    assert_eq!(
        checkers.search_options(),
        SearchOptions {
            null_move: false,
            reductions: true
        }
    );
}

#[test]
fn the_ai_answers_within_its_time() {
    let game = chess();
    let mut cache = Cache::new();
    let state = game.initial();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let started = Instant::now();
    let budget = Budget {
        depth: 50,
        time: Some(Duration::from_millis(300)),
    };
    let c = Ai::new(7)
        .choose(&game, &state, &legal, budget, &mut cache)
        .unwrap();
    let took = started.elapsed();
    // Far below what depth 50 would take; loose enough for a loaded machine.
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(c.depth >= 1);
}

/// Runs `chessalg` with `input` on stdin.
fn chessalg_with(args: &[&str], input: &str) -> (i32, String) {
    let out = common::run(args, input.as_bytes());
    (out.status.code().unwrap_or(-1), common::text(&out.stdout))
}

#[test]
fn a_game_on_a_clock_shows_the_clocks_and_refuses_a_bad_one() {
    let (code, out) = chessalg_with(
        &[
            "play",
            "rules/tictactoe.alg",
            "--white",
            "ai",
            "--black",
            "ai",
            "--line",
            "--clock",
            "0.05+0.01",
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Game over"), "{out}");
    // 3 s each at the start: the clock line shows both players' time.
    assert!(
        out.lines()
            .any(|l| l.starts_with("crosses 0:0") && l.contains("  noughts 0:0")),
        "{out}"
    );
    let bad = common::run(&["play", "rules/tictactoe.alg", "--clock", "five"], b"");
    assert!(!bad.status.success());
    let err = common::text(&bad.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--clock: `five` is not a clock"), "{err}");
}

#[test]
fn line_mode_through_a_pipe() {
    let dir = std::env::temp_dir().join(format!("chessalg-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("game.pgn");
    let input = "e4\nmoves\ne2e5\nNf6\nundo\nd4\nquit\n";
    let (code, out) = chessalg_with(
        &[
            "play",
            "rules/chess.alg",
            "--depth",
            "1",
            "--seed",
            "5",
            "--pgn",
            pgn.to_str().unwrap(),
        ],
        input,
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(" 1 ♖♘♗♕♔♗♘♖\n   abcdefgh\nwhite to move\n"), "{out}");
    assert!(out.contains("1. white plays e4"), "{out}");
    assert!(out.contains("1... black plays "), "{out}");
    // the legal moves in SAN
    assert!(out.contains("Nf3") && out.contains("Ke2"), "{out}");
    // refused, and the prompt comes back
    assert!(out.contains("`e2e5` is not a legal move"), "{out}");
    assert!(
        out.contains("`Nf6` is not a legal move; legal: Na3 Nc3 Ne2 Nf3 Nh3\nwhite> "),
        "{out}"
    );
    assert!(out.contains("took back 2 moves"), "{out}");
    assert!(out.contains("1. white plays d4"), "{out}");
    let written = std::fs::read_to_string(&pgn).unwrap();
    assert!(written.contains("[White \"Human (white)\"]"), "{written}");
    assert!(written.contains("\n1. d4 "), "{written}");
    assert!(written.contains("{abandoned} *"), "{written}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn line_mode_ends_at_end_of_input_and_announces_mate() {
    let (code, out) = chessalg_with(
        &["play", "rules/chess.alg", "--white", "human", "--black", "human"],
        "f3\ne5\ng4\nQh4\n",
    );
    assert_eq!(code, 0);
    assert!(out.contains("2... black plays Qh4#"), "{out}");
    assert!(out.contains("Game over: black wins"), "{out}");
    assert!(out.contains("0-1"), "{out}");
}

/// Plays the depth-2 AI against the random player on `rules`, the AI on
/// `side` (`white` or `black`), once per seed; returns the AI's wins and
/// fails if it ever loses.
fn ai_against_random(rules: &str, side: &str, seeds: std::ops::RangeInclusive<u32>) -> usize {
    let (white, black, loss) = match side {
        "white" => ("ai", "random", "black wins"),
        _ => ("random", "ai", "white wins"),
    };
    let mut wins = 0;
    for seed in seeds {
        let seed = seed.to_string();
        let (code, out) = chessalg_with(
            &[
                "play",
                rules,
                "--white",
                white,
                "--black",
                black,
                "--depth",
                "2",
                "--seed",
                &seed,
                "--max-plies",
                "200",
                "--quiet",
            ],
            "",
        );
        assert_eq!(code, 0, "{out}");
        assert!(!out.contains(loss), "seed {seed}: {out}");
        if out.contains(&format!("{side} wins")) {
            wins += 1;
        }
    }
    wins
}

#[test]
fn ai_beats_the_random_player() {
    let wins = ai_against_random("rules/chess.alg", "white", 1..=4);
    assert!(wins >= 3, "the AI won {wins} of 4");
}

#[test]
fn ai_beats_the_random_player_at_irreversible_chess() {
    // Over seeds 1-100 the depth-2 AI won 100 of 100 games as white and 98 as black.
    let white = ai_against_random("rules/irreversible.alg", "white", 1..=5);
    let black = ai_against_random("rules/irreversible.alg", "black", 1..=5);
    assert!(
        white + black >= 9,
        "the AI won {white} of 5 as white, {black} of 5 as black"
    );
}

#[test]
fn match_plays_many_games_and_counts_them() {
    let dir = std::env::temp_dir().join(format!("chessalg-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("games.pgn");
    let pgn = pgn.to_str().unwrap();
    let (code, out) = chessalg_with(
        &[
            "match",
            "rules/irreversible.alg",
            "--games",
            "3",
            "--depth",
            "2",
            "--seed",
            "11",
            "--pgn",
            pgn,
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    for seed in 11..=13 {
        assert!(out.contains(&format!("seed {seed}: white wins")), "{out}");
    }
    assert!(
        out.contains("3 games: white (chessalg AI) won 3, black (Random mover) won 0, 0 drawn, 0 unfinished"),
        "{out}"
    );
    let text = std::fs::read_to_string(pgn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 3);
    assert_eq!(text.matches("[Result \"1-0\"]").count(), 3);
    // Random against random at tic-tac-toe: every game is counted once.
    let (code, out) = chessalg_with(
        &[
            "match",
            "rules/tictactoe.alg",
            "--white",
            "random",
            "--games",
            "30",
            "--jobs",
            "3",
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("seed ")).count(), 30);
    let tally = out.lines().last().unwrap();
    let numbers: Vec<u32> = tally
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(numbers[0], 30, "{tally}");
    assert_eq!(numbers[1..].iter().sum::<u32>(), 30, "{tally}");
    // Nobody types in a match.
    let (code, _) = chessalg_with(&["match", "rules/chess.alg", "--black", "human"], "");
    assert_eq!(code, 1);
    std::fs::remove_dir_all(&dir).ok();
}

/// Players are chosen by the names the rule file gives them: `--player
/// NAME=WHO`, and `--white`/`--black` name the players called so (in
/// checkers black moves first), else the first and second.
#[test]
fn players_are_chosen_by_their_names() {
    let (code, out) = chessalg_with(
        &[
            "play",
            "rules/connect4.alg",
            "--player",
            "red=random",
            "--player",
            "yellow=random",
            "--quiet",
            "--max-plies",
            "2",
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("1. Red plays") && out.contains("1... Yellow plays"),
        "{out}"
    );
    // `--white random` in checkers seats white, the second player: black,
    // a human by default, is asked for a move and the input ends.
    let (_, out) = chessalg_with(
        &[
            "play",
            "rules/checkers.alg",
            "--white",
            "random",
            "--line",
            "--quiet",
        ],
        "",
    );
    assert!(out.contains("black>"), "{out}");
    let out = common::run(&["play", "rules/connect4.alg", "--player", "blue=ai"], b"");
    assert!(!out.status.success());
    assert_eq!(
        common::text(&out.stderr).trim(),
        "error: --player blue=ai: `blue` is not a player of this game (its players: red, yellow)"
    );
}

/// Every game of `rules/` (the prelude, a file of definitions only, is none).
fn rule_games() -> Vec<(std::path::PathBuf, Game)> {
    let mut files: Vec<_> = std::fs::read_dir("rules")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "alg"))
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let source = chessalg::source::Source::new(path.display().to_string(), text);
            let (spec, _) = chessalg::decl::Spec::load(&source).ok()?;
            Some((path, Game::new(&spec).ok()?))
        })
        .collect()
}

/// In every game of `rules/`, however wide (Amazons has 2176 moves at the
/// start), the AI answers within its time: the first iteration is timed
/// too, and what it searched before the time ran out is its answer.
#[test]
fn the_ai_answers_within_its_time_in_every_game() {
    let mut played = 0;
    for (path, game) in rule_games() {
        let mut cache = Cache::new();
        let state = game.initial();
        let legal = game.legal_actions(&state, &mut cache).unwrap();
        // What each piece can still do is worked out once per game, before the clock starts.
        let _ = game.prospects(&mut cache);
        let started = Instant::now();
        let budget = Budget {
            depth: 50,
            time: Some(Duration::from_millis(200)),
        };
        let c = Ai::new(3)
            .choose(&game, &state, &legal, budget, &mut cache)
            .unwrap();
        let took = started.elapsed();
        // Far below a search to depth 50; loose enough for a loaded machine.
        assert!(
            took < Duration::from_secs(10),
            "{}: took {took:?}",
            path.display()
        );
        assert!(c.index < legal.len());
        played += 1;
    }
    assert!(played >= 8, "only {played} games");
}

/// In random games of every file of `rules/`, every legal move has a name
/// of its own, and reading that name (as `play` does) gives that move.
#[test]
fn every_legal_move_has_a_name_that_reads_back() {
    let mut positions = 0;
    for (path, game) in rule_games() {
        let mut cache = Cache::new();
        for seed in 1..=3u64 {
            let mut rng = chessalg::core::Rng::new(seed);
            let mut state = game.initial();
            for _ in 0..40 {
                let legal = game.legal_actions(&state, &mut cache).unwrap();
                if legal.is_empty() || game.ending(&state, &legal, &mut cache).unwrap().is_some() {
                    break;
                }
                let names = game.move_names(&state, &legal);
                let distinct: std::collections::HashSet<&String> = names.iter().collect();
                assert_eq!(distinct.len(), names.len(), "{}: {names:?}", path.display());
                // Reading is slower than naming: a sample in wide positions.
                let step = (legal.len() / 40).max(1);
                for i in (0..legal.len()).step_by(step) {
                    assert_eq!(
                        game.read_move(&state, &legal, &names[i]),
                        Ok(i),
                        "{}: `{}`",
                        path.display(),
                        names[i]
                    );
                }
                positions += 1;
                state = game.play(&state, &legal[rng.below(legal.len())]);
            }
        }
    }
    assert!(positions > 500, "{positions}");
}

#[test]
fn a_variant_names_itself_in_its_pgn() {
    let dir = std::env::temp_dir().join(format!("chessalg-variant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("horde.pgn");
    let pgn = pgn.to_str().unwrap();
    let (code, out) = chessalg_with(
        &[
            "match",
            "rules/horde.alg",
            "--white",
            "random",
            "--black",
            "random",
            "--games",
            "1",
            "--max-plies",
            "6",
            "--pgn",
            pgn,
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    let text = std::fs::read_to_string(pgn).unwrap();
    assert!(text.contains("[Variant \"Horde\"]"), "{text}");
    // Chess itself has no Variant tag.
    let (code, out) = chessalg_with(
        &[
            "match",
            "rules/chess.alg",
            "--white",
            "random",
            "--black",
            "random",
            "--games",
            "1",
            "--max-plies",
            "2",
            "--pgn",
            pgn,
        ],
        "",
    );
    assert_eq!(code, 0, "{out}");
    assert!(!std::fs::read_to_string(pgn).unwrap().contains("[Variant"));
}

/// In Duck chess every capture comes with some sixty places for the duck;
/// the quiescence search plays each exchange once, not once per duck
/// square (the duck belongs to nobody), so a depth-1 search stays small
/// and still sees the pawn that takes back on d5.
#[test]
fn the_quiescence_search_plays_an_exchange_once_whatever_the_duck_does() {
    let game = game_of("rules/duck.alg");
    let mut cache = Cache::new();
    let state = game.from_fen("4k3/8/4p3/3p4/8/8/8/3QK2* w - - 0 1").unwrap();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let c = Ai::new(1)
        .choose(&game, &state, &legal, Budget { depth: 1, time: None }, &mut cache)
        .unwrap();
    assert!(!game.action_name(&state, &legal[c.index]).starts_with("d1d5"));
    assert!(c.nodes < 20_000, "{} positions searched", c.nodes);
}
