//! The game layer on `rules/chess.alg`: FEN in and out, outcomes, and the
//! `moves`, `perft` and `show` commands.

use chessalg::core::Coord;
use chessalg::core::PlayerId;
use chessalg::engine::Cache;
use chessalg::game::{Candidates, Ending, Game, Reason, State};
use chessalg::source::Source;

mod common;
use common::{chess, game as game_of};

fn ending(game: &Game, state: &State) -> Option<Ending> {
    let mut cache = Cache::new();
    let legal = game.legal_actions(state, &mut cache).unwrap();
    game.ending(state, &legal, &mut cache).unwrap()
}

/// Plays moves given in coordinate notation.
fn play(game: &Game, mut state: State, moves: &[&str]) -> State {
    let mut cache = Cache::new();
    for m in moves {
        let legal = game.legal_actions(&state, &mut cache).unwrap();
        let action = legal
            .iter()
            .find(|a| game.action_name(&state, a) == *m)
            .unwrap_or_else(|| panic!("{m} is not legal"));
        state = game.play(&state, action);
    }
    state
}

const FENS: [&str; 7] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
];

#[test]
fn fen_round_trips() {
    let game = chess();
    for fen in FENS {
        assert_eq!(game.to_fen(&game.from_fen(fen).unwrap()), fen);
    }
    assert_eq!(game.to_fen(&game.initial()), FENS[0]);
}

#[test]
fn en_passant_square_comes_and_goes() {
    let game = chess();
    let after = play(&game, game.initial(), &["e2e4"]);
    assert_eq!(
        game.to_fen(&after),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    let later = play(&game, after, &["g8f6"]);
    assert_eq!(
        game.to_fen(&later),
        "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"
    );
    let ep = play(
        &game,
        game.from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1").unwrap(),
        &["e5d6"],
    );
    assert_eq!(game.to_fen(&ep), "4k3/8/3P4/8/8/8/8/4K3 b - - 0 1");
}

#[test]
fn castling_moves_the_rook_and_loses_the_rights() {
    let game = chess();
    let state = game.from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let short = play(&game, state.clone(), &["e1g1"]);
    assert_eq!(game.to_fen(&short), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    let long = play(&game, state, &["e1c1", "h8h1"]);
    assert_eq!(game.to_fen(&long), "r3k3/8/8/8/8/8/8/2KR3r w q - 0 2");
    // Through an attacked square: no castling.
    let attacked = game.from_fen("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1").unwrap();
    let mut cache = Cache::new();
    let names: Vec<String> = game
        .legal_actions(&attacked, &mut cache)
        .unwrap()
        .iter()
        .map(|a| game.action_name(&attacked, a))
        .collect();
    assert!(
        !names.contains(&"e1g1".to_string()) && names.contains(&"e1c1".to_string()),
        "{names:?}"
    );
}

#[test]
fn checkmate_is_a_loss_and_stalemate_a_draw() {
    let game = chess();
    let mate = play(&game, game.initial(), &["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert_eq!(ending(&game, &mate), Some(Ending::Win(PlayerId::new(1))));
    let stalemate = game.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    assert_eq!(ending(&game, &stalemate), Some(Ending::Draw));
    assert_eq!(ending(&game, &game.initial()), None);
}

#[test]
fn draws_by_material_fifty_moves_and_repetition() {
    let game = chess();
    for fen in [
        "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
        "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",
        "8/2b5/4k3/8/8/3KB3/8/8 w - - 0 1",
    ] {
        assert_eq!(
            ending(&game, &game.from_fen(fen).unwrap()),
            Some(Ending::Draw),
            "{fen}"
        );
    }
    // Bishops on squares of both colours, or a pawn: play on.
    for fen in [
        "8/3b4/4k3/8/8/3KB3/8/8 w - - 0 1",
        "8/8/4k3/8/8/3KP3/8/8 w - - 0 1",
    ] {
        assert_eq!(ending(&game, &game.from_fen(fen).unwrap()), None, "{fen}");
    }
    let fifty = game.from_fen("8/8/4k3/8/8/3KR3/8/8 w - - 100 80").unwrap();
    assert_eq!(ending(&game, &fifty), Some(Ending::Draw));
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    let twice = play(&game, game.initial(), &shuffle);
    assert_eq!(ending(&game, &twice), None);
    let thrice = play(&game, twice, &shuffle);
    assert_eq!(ending(&game, &thrice), Some(Ending::Draw));
}

#[test]
fn bad_fens_say_which_field_is_wrong() {
    let game = chess();
    for (fen, field) in [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "board"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
            "board",
        ),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "board",
        ),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "turn"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1",
            "rights",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1",
            "target square",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
            "halfmove",
        ),
        ("", "board"),
    ] {
        let err = game.from_fen(fen).unwrap_err().to_string();
        assert!(err.contains(field), "{fen}: {err}");
    }
}

fn chessalg(args: &[&str]) -> (i32, String, String) {
    let out = common::run(args, b"");
    (
        out.status.code().unwrap_or(-1),
        common::text(&out.stdout),
        common::text(&out.stderr),
    )
}

#[test]
fn moves_lists_the_legal_moves() {
    let (code, out, _) = chessalg(&["moves", "rules/chess.alg"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 20);
    assert!(out.lines().any(|l| l == "e2e4") && out.lines().any(|l| l == "g1f3"));
    // A game that is over has none: white has no stones left in Ataxx.
    let (code, out, _) = chessalg(&["moves", "rules/ataxx.alg", "--fen", "x6/7/7/7/7/7/7 o 0 1"]);
    assert_eq!((code, out.as_str()), (0, ""));
}

#[test]
fn perft_divides_like_stockfish() {
    let (code, out, _) = chessalg(&["perft", "rules/chess.alg", "--depth", "2", "--divide"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("a2a3: 20\n"), "{out}");
    assert!(out.ends_with("\n\nNodes searched: 400\n"), "{out}");
    let (code, out, _) = chessalg(&["perft", "rules/chess.alg", "--depth", "3"]);
    assert_eq!((code, out.as_str()), (0, "8902\n"));
}

#[test]
fn show_draws_the_board_and_the_state() {
    let (code, out, _) = chessalg(&[
        "show",
        "rules/chess.alg",
        "--fen",
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
}

#[test]
fn a_bad_fen_is_one_line_and_a_failure() {
    let (code, out, err) = chessalg(&["moves", "rules/chess.alg", "--fen", "8/8/8 w - - 0 1"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: bad FEN: board field"), "{err}");
}

/// Tic-tac-toe: nothing in the engine is about chess.
#[test]
fn tic_tac_toe() {
    let text = std::fs::read_to_string("rules/tictactoe.alg").unwrap();
    let (rules, _) = chessalg::decl::Spec::load(&Source::new("rules/tictactoe.alg", text)).unwrap();
    let game = Game::new(&rules).unwrap();
    let mut cache = Cache::new();
    // No row of three before the fifth move: 9 * 8 * 7 * ... sequences.
    let counts: Vec<u64> = (1..=5)
        .map(|d| chessalg::game::perft(&game, &game.initial(), d, &mut cache).unwrap())
        .collect();
    assert_eq!(counts, [9, 72, 504, 3024, 15120]);
    // Crosses on a1, b1, c1: crosses win as soon as the row is complete.
    let won = play(&game, game.initial(), &["a1", "a2", "b1", "b2", "c1"]);
    assert_eq!(ending(&game, &won), Some(Ending::Win(PlayerId::new(0))));
    let going = play(&game, game.initial(), &["a1", "a2", "b1", "b2"]);
    assert_eq!(ending(&game, &going), None);
}

/// The square named like `e4` (file letter, rank number from 1).
fn square(game: &Game, name: &str) -> Coord {
    let b = name.as_bytes();
    game.square_at(u32::from(b[0] - b'a'), u32::from(b[1] - b'1'))
}

#[test]
fn in_chess_every_piece_keeps_its_whole_scope_everywhere() {
    let game = chess();
    let mut cache = Cache::new();
    let prospects = game.prospects(&mut cache);
    let squares: Vec<Coord> = game.initial().position().squares().map(|(at, _)| at).collect();
    for symbol in "♔♕♖♗♘♙♚♛♜♝♞♟".chars() {
        let piece = game.pieces().lookup(symbol).unwrap();
        let full = prospects.full_scope(piece);
        let expected = if "♗♝".contains(symbol) { 32 } else { 64 };
        assert_eq!(full, expected, "{symbol}");
        for &at in &squares {
            // Pawns never stand on the first or last rank: nothing to check there.
            let is_pawn = "♙♟".contains(symbol);
            if !(is_pawn && (at.y == 0 || at.y == 7)) {
                assert_eq!(prospects.scope(&game, piece, at), full, "{symbol} on {at:?}");
            }
        }
    }
}

#[test]
fn in_irreversible_chess_pieces_lose_scope_as_they_advance() {
    let game = game_of("rules/irreversible.alg");
    let mut cache = Cache::new();
    let prospects = game.prospects(&mut cache);
    let scope = |symbol: char, at: &str| {
        prospects.scope(&game, game.pieces().lookup(symbol).unwrap(), square(&game, at))
    };
    // A rook only goes straight ahead: the seven squares of its file.
    assert_eq!(scope('♖', "a1"), 7);
    assert_eq!(scope('♖', "a5"), 3);
    assert_eq!(scope('♜', "a8"), 7);
    // On the last rank nothing moves any more.
    assert_eq!(scope('♕', "e8"), 0);
    assert_eq!(scope('♛', "e1"), 0);
    // One step from the end, the queen can take on the three squares ahead.
    assert_eq!(scope('♕', "e7"), 3);
    // Her home squares are her best; every step forward loses some scope.
    assert_eq!(
        prospects.full_scope(game.pieces().lookup('♕').unwrap()),
        scope('♕', "e1")
    );
    assert!(scope('♕', "e2") < scope('♕', "e1"));
    assert!(scope('♘', "b1") > scope('♘', "b5"));
}

#[test]
fn a_win_one_move_past_the_end_is_found() {
    let game = chess();
    let mut cache = Cache::new();
    let mated = game.from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").unwrap();
    let moves = game.candidate_actions(&mated, &mut cache).unwrap();
    assert!(!moves.tested, "chess's candidates are tested one by one");
    let i = game.winning_move(&mated, &moves, &mut cache).unwrap().unwrap();
    assert_eq!(game.action_name(&mated, &moves.actions[i]), "a1a8");
    // A check that is not mate is not a win.
    let escapes = game.from_fen("6k1/5pp1/8/8/8/8/8/R5K1 w - - 0 1").unwrap();
    let moves = game.candidate_actions(&escapes, &mut cache).unwrap();
    assert_eq!(game.winning_move(&escapes, &moves, &mut cache).unwrap(), None);
    // A mate by a pinned rook is not a move: no win.
    let pinned = game.from_fen("4k2b/3ppp2/8/8/8/8/1R6/K7 w - - 0 1").unwrap();
    let moves = game.candidate_actions(&pinned, &mut cache).unwrap();
    assert!(
        moves
            .actions
            .iter()
            .any(|a| game.action_name(&pinned, a) == "b2b8")
    );
    assert_eq!(game.winning_move(&pinned, &moves, &mut cache).unwrap(), None);
    // Tic-tac-toe: the third cross of a row wins at once.
    let ttt = game_of("rules/tictactoe.alg");
    let two = play(&ttt, ttt.initial(), &["a1", "a2", "b1", "b2"]);
    let legal = Candidates::legal(ttt.legal_actions(&two, &mut cache).unwrap());
    let i = ttt.winning_move(&two, &legal, &mut cache).unwrap().unwrap();
    assert_eq!(ttt.action_name(&two, &legal.actions[i]), "c1");
}

fn names(game: &Game, state: &State) -> Vec<String> {
    let mut cache = Cache::new();
    let legal = game.legal_actions(state, &mut cache).unwrap();
    let mut out: Vec<String> = legal.iter().map(|a| game.action_name(state, a)).collect();
    out.sort();
    out
}

/// `turns alternate passing`: a player with no move passes while the other
/// can move; when neither can, `no_moves` ends the game.
#[test]
fn a_player_without_a_move_passes_while_the_other_has_one() {
    let game = game_of("tests/data/games/passing.alg");
    let mut cache = Cache::new();
    let perft: Vec<u64> = (1..=4)
        .map(|d| chessalg::game::perft(&game, &game.initial(), d, &mut cache).unwrap())
        .collect();
    assert_eq!(perft, [1, 1, 1, 0]);
    let state = play(&game, game.initial(), &["a1b1"]);
    assert_eq!(names(&game, &state), ["pass"]);
    let state = play(&game, state, &["pass", "b1c1"]);
    assert!(names(&game, &state).is_empty(), "nobody can move: no pass");
    assert_eq!(ending(&game, &state), Some(Ending::Draw));
}

/// Without `turns alternate passing` the same position has no move and ends.
#[test]
fn without_passing_a_player_without_a_move_is_stuck() {
    let text = std::fs::read_to_string("tests/data/games/passing.alg")
        .unwrap()
        .replace("turns alternate passing\n", "");
    let (spec, _) = chessalg::decl::Spec::load(&Source::new("stuck.alg", text)).unwrap();
    let game = Game::new(&spec).unwrap();
    let state = play(&game, game.initial(), &["a1b1"]);
    assert!(names(&game, &state).is_empty());
    assert_eq!(ending(&game, &state), Some(Ending::Draw));
}

/// `legality free` lets a move leave the royal piece attacked; the default
/// for a file with a royal piece is royal-safe.
#[test]
fn legality_is_declared_or_follows_the_royal_pieces() {
    let fen = "4k3/8/8/8/8/8/8/4K2r w - - 0 1";
    let safe = chess();
    assert_eq!(
        names(&safe, &safe.from_fen(fen).unwrap()),
        ["e1d2", "e1e2", "e1f2"]
    );
    let free = game_of("tests/data/games/free_chess.alg");
    assert_eq!(
        names(&free, &free.from_fen(fen).unwrap()),
        ["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]
    );
}

/// `majority X O`: the player who owns more of the counted pieces wins, a tie draws.
#[test]
fn the_player_with_the_majority_wins() {
    let game = game_of("tests/data/games/majority.alg");
    let full = play(&game, game.initial(), &["a1", "b1", "c1"]);
    assert!(names(&game, &full).is_empty());
    assert_eq!(ending(&game, &full), Some(Ending::Win(PlayerId::new(0))));
    let text = std::fs::read_to_string("tests/data/games/majority.alg")
        .unwrap()
        .replace("    ...\n", "    ..\n");
    let (spec, _) = chessalg::decl::Spec::load(&Source::new("tie.alg", text)).unwrap();
    let two = Game::new(&spec).unwrap();
    let tie = play(&two, two.initial(), &["a1", "b1"]);
    assert_eq!(ending(&two, &tie), Some(Ending::Draw));
}

/// `outcome quiet N automatic`: the count ends the game in perft too; a
/// `gain` (the mover has more pieces) restarts it.
#[test]
fn an_automatic_quiet_count_ends_the_tree() {
    let game = game_of("tests/data/games/quiet_ends.alg");
    let mut cache = Cache::new();
    let perft = |g: &Game| -> Vec<u64> {
        (1..=3)
            .map(|d| chessalg::game::perft(g, &g.initial(), d, &mut Cache::new()).unwrap())
            .collect()
    };
    // After two shuffles the count is 2 and the game is over; after a new
    // stone and a shuffle it is 1 and goes on.
    assert_eq!(perft(&game), [2, 2, 2]);
    let shuffled = play(&game, game.initial(), &["a1b1", "d1c1"]);
    assert_eq!(shuffled.quiet_plies(), 2);
    let legal = game.legal_actions(&shuffled, &mut cache).unwrap();
    assert_eq!(
        game.ending(&shuffled, &legal, &mut cache).unwrap(),
        Some(Ending::Draw)
    );
    let grown = play(&game, game.initial(), &["a2", "d1c1"]);
    assert_eq!(grown.quiet_plies(), 1);
    // Without `automatic`, play still ends there but perft counts on.
    let text = std::fs::read_to_string("tests/data/games/quiet_ends.alg")
        .unwrap()
        .replace(" automatic", "");
    let (spec, _) = chessalg::decl::Spec::load(&Source::new("claim.alg", text)).unwrap();
    let claimed = Game::new(&spec).unwrap();
    assert_eq!(perft(&claimed), [2, 2, 4]);
    let shuffled = play(&claimed, claimed.initial(), &["a1b1", "d1c1"]);
    assert_eq!(ending(&claimed, &shuffled), Some(Ending::Draw));
}

/// A perft table keys counts by the quiet count where an automatic `quiet`
/// outcome reads it, and is not used where an automatic `repetition`
/// outcome reads the history: the counts are those without a table.
#[test]
fn a_perft_table_keeps_counts_that_depend_on_counters() {
    let text = std::fs::read_to_string("tests/data/games/quiet_ends.alg").unwrap();
    for rules in [
        text.clone(),
        text.replace("outcome quiet 2 automatic", "outcome quiet 5 automatic"),
        text.replace("outcome quiet 2 automatic", "outcome repetition 2 automatic"),
    ] {
        let (spec, _) = chessalg::decl::Spec::load(&Source::new("table.alg", rules)).unwrap();
        let g = Game::new(&spec).unwrap();
        let table = chessalg::game::PerftTable::with_megabytes(1).unwrap();
        for d in 1..=9 {
            let plain = chessalg::game::perft(&g, &g.initial(), d, &mut Cache::new()).unwrap();
            let tabled =
                chessalg::game::perft_with(&g, &g.initial(), d, &mut Cache::new(), Some(&table)).unwrap();
            assert_eq!(tabled, plain, "depth {d}");
        }
    }
}

/// `fen turn`: the turn letters a file declares; a FEN whose third field is
/// a number has no rights or target fields, as a game declaring neither
/// writes it.
#[test]
fn fen_turn_letters_and_the_short_layout() {
    let game = game_of("tests/data/games/quiet_ends.alg");
    assert_eq!(game.to_fen(&game.initial()), "4/X2O f 0 1");
    let s = game.from_fen("4/X2O s 7 3").unwrap();
    assert_eq!(game.player_name(s.turn()), "second");
    assert_eq!((s.quiet_plies(), s.fullmove()), (7, 3));
    assert_eq!(game.to_fen(&s), "4/X2O s 7 3");
    let e = game.from_fen("4/X2O w 0 1").unwrap_err().to_string();
    assert_eq!(
        e,
        "bad FEN: turn field: `w` is not a turn letter of this game (`f`, `s`)"
    );
    // Chess keeps its six fields.
    let chess = chess();
    assert_eq!(chess.to_fen(&chess.initial()), FENS[0]);
}

/// Every legal move has a name of its own: moves that leave and reach the
/// same squares are told apart by the other squares they change, and those
/// names read back; a pass is `pass` or UCI's `0000`.
#[test]
fn every_move_has_a_name_of_its_own() {
    let game = game_of("tests/data/games/arrows.alg");
    let mut cache = Cache::new();
    let state = game.initial();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    assert_eq!(game.move_names(&state, &legal), ["a1b1/b2", "a1b1/a2"]);
    for (i, name) in ["a1b1/b2", "a1b1/a2"].iter().enumerate() {
        assert_eq!(game.read_move(&state, &legal, name), Ok(i));
    }
    assert!(matches!(
        game.read_move(&state, &legal, "a1b1"),
        Err(chessalg::game::MoveInputError::Ambiguous { .. })
    ));
    // A placement is named by its square; a pass reads as `pass` or `0000`.
    let passing = game_of("tests/data/games/passing.alg");
    let stuck = play(&passing, passing.initial(), &["a1b1"]);
    let legal = passing.legal_actions(&stuck, &mut cache).unwrap();
    assert_eq!(passing.move_names(&stuck, &legal), ["pass"]);
    assert_eq!(passing.read_move(&stuck, &legal, "0000"), Ok(0));
    let ttt = game_of("rules/tictactoe.alg");
    let first = ttt.legal_actions(&ttt.initial(), &mut cache).unwrap();
    let names = ttt.move_names(&ttt.initial(), &first);
    let i = names.iter().position(|n| n == "b2").unwrap();
    assert_eq!(ttt.read_move(&ttt.initial(), &first, "b2=X"), Ok(i));
}

/// `turns alternate ... starting PLAYER`: the board says who moves first.
#[test]
fn the_board_can_say_who_moves_first() {
    let text = std::fs::read_to_string("tests/data/games/passing.alg")
        .unwrap()
        .replace(
            "turns alternate passing\n",
            "turns alternate passing starting second\n",
        );
    let (spec, _) = chessalg::decl::Spec::load(&Source::new("second.alg", text)).unwrap();
    let game = Game::new(&spec).unwrap();
    assert_eq!(game.player_name(game.initial().turn()), "second");
}

#[test]
fn an_importing_file_redeclares_a_piece() {
    let plain = game_of("tests/data/games/plain_king.alg");
    let chess = chess();
    let fen = "4k3/8/8/8/8/8/8/r3K3 w - - 0 1";
    let names = |game: &Game| legal_names(game, fen);
    // On the first rank the rook attacks f1 and d1: a royal king may not go there.
    assert_eq!(names(&chess), ["e1d2", "e1e2", "e1f2"]);
    assert_eq!(names(&plain), ["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]);
}

#[test]
fn attacked_asks_about_the_owner_of_the_piece_of_interest() {
    let game = game_of("tests/data/games/no_checks.alg");
    let state = game.from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").unwrap();
    let mut cache = Cache::new();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let names: Vec<String> = legal.iter().map(|a| game.action_name(&state, a)).collect();
    // Ra8 would give check; every other rook move is there.
    assert!(!names.contains(&"a1a8".to_string()), "{names:?}");
    for m in ["a1a7", "a1d1", "e1e2"] {
        assert!(names.contains(&m.to_string()), "{m} in {names:?}");
    }
    assert_eq!(names.len(), 6 + 3 + 5);
}

#[test]
fn pieces_go_into_a_box_and_are_dropped_from_it() {
    let game = game_of("tests/data/games/drops.alg");
    let mut cache = Cache::new();
    // FEN carries the box after the board, and marks by their FEN character.
    let fen = "4k3/8/8/8/3n4/8/4N3/4K2Q~[NP] w - - 0 1";
    let state = game.from_fen(fen).unwrap();
    assert_eq!(game.to_fen(&state), fen);
    assert!(game.board_text(&state).contains("hand: ♘ ♙"));
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let names: Vec<String> = legal.iter().map(|a| game.action_name(&state, a)).collect();
    // 59 empty squares for each of the two pieces in hand.
    assert_eq!(names.iter().filter(|n| n.starts_with("N@")).count(), 59);
    assert_eq!(names.iter().filter(|n| n.starts_with("P@")).count(), 59);
    let drop = legal
        .iter()
        .position(|a| game.action_name(&state, a) == "N@f3")
        .unwrap();
    assert_eq!(game.san_core(&state, &legal[drop], &legal), "N@f3");
    let after = game.play(&state, &legal[drop]);
    assert_eq!(game.to_fen(&after), "4k3/8/8/8/3n4/5N2/4N3/4K2Q~[P] b - - 1 1");
    // Taking the knight puts a white knight in the hand.
    let after = play(&game, state, &["e2d4"]);
    assert_eq!(game.to_fen(&after), "4k3/8/8/8/3N4/8/8/4K2Q~[NNP] b - - 0 1");
    // A bad box is one clear error.
    assert!(game.from_fen("4k3/8/8/8/8/8/8/4K3[Z] w - - 0 1").is_err());
}

#[test]
fn a_box_changed_inside_an_ordered_choice_stays_changed() {
    let game = game_of("tests/data/games/box_ordered.alg");
    let state = game.initial();
    assert!(game.board_text(&state).contains("pot: X X"));
    // A cross placed while the pot holds one is a drop from the pot.
    let state = play(&game, state, &["X@a1"]);
    assert!(
        game.board_text(&state).contains("pot: X\n"),
        "{}",
        game.board_text(&state)
    );
    let state = play(&game, state, &["b1", "X@c1", "a2"]);
    // The pot is empty: the next cross is placed and nothing more.
    assert!(!game.board_text(&state).contains("pot:"));
    let mut cache = Cache::new();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let names: Vec<String> = legal.iter().map(|a| game.action_name(&state, a)).collect();
    assert_eq!(names, ["b2", "c2", "a3", "b3", "c3"]);
}

#[test]
fn castling_is_o_o_however_far_the_king_goes() {
    let game = game_of("rules/chess960.alg");
    let mut cache = Cache::new();
    for (fen, san) in [
        ("4k3/8/8/8/8/8/8/6KR w H - 0 1", "O-O"),
        ("4k3/8/8/8/8/8/8/5K1R w H - 0 1", "O-O"),
        ("4k3/8/8/8/8/8/8/RK6 w A - 0 1", "O-O-O"),
        ("4k3/8/8/8/8/8/8/2RK4 w C - 0 1", "O-O-O"),
        ("4k3/8/8/8/8/8/8/1KR5 w C - 0 1", "O-O"),
    ] {
        let state = game.from_fen(fen).unwrap();
        let legal = game.legal_actions(&state, &mut cache).unwrap();
        let sans: Vec<String> = legal.iter().map(|a| game.san_core(&state, a, &legal)).collect();
        assert_eq!(
            sans.iter().filter(|s| s.starts_with("O-O")).count(),
            1,
            "{fen}: {sans:?}"
        );
        assert!(sans.contains(&san.to_string()), "{fen}: {sans:?}");
        // Typed, it is that move.
        let i = game.read_move(&state, &legal, san).unwrap();
        assert_eq!(sans[i], san);
    }
}

#[test]
fn chess960_reads_x_fen_castling_letters() {
    let game = game_of("rules/chess960.alg");
    let text = std::fs::read_to_string("tests/data/fen/chess960_xfen.txt").unwrap();
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (x_fen, shredder) = line.split_once(" ; ").unwrap();
        let state = game.from_fen(x_fen).unwrap_or_else(|e| panic!("{x_fen}: {e}"));
        assert_eq!(game.to_fen(&state), shredder, "read from {x_fen}");
        checked += 1;
    }
    assert_eq!(checked, 42);
}

#[test]
fn moves_that_leave_one_board_are_each_a_move() {
    let game = game_of("rules/atomic.alg");
    let mut cache = Cache::new();
    // A pawn taking onto the last rank promotes and explodes: four moves,
    // named by what it became, as python-chess names them.
    let state = game.from_fen("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let names = game.move_names(&state, &legal);
    for n in ["a7b8q", "a7b8r", "a7b8b", "a7b8n"] {
        assert!(names.contains(&n.to_string()), "{n}: {names:?}");
    }
    let sans: Vec<String> = legal.iter().map(|a| game.san_core(&state, a, &legal)).collect();
    assert!(sans.contains(&"axb8=N".to_string()), "{sans:?}");
    let boards: std::collections::BTreeSet<String> = legal
        .iter()
        .filter(|a| game.action_name(&state, a).starts_with("a7b8"))
        .map(|a| game.to_fen(&game.play(&state, a)))
        .collect();
    assert_eq!(boards.len(), 1);
    // Bishop and queen side by side: within three plies either can take on
    // a square next to both, and the two captures leave one board. Counted
    // as moves, as python-chess counts (5780 as positions).
    let state = game.from_fen("4k3/8/8/3p4/8/2BQ4/8/4K3 w - - 0 1").unwrap();
    assert_eq!(chessalg::game::perft(&game, &state, 3, &mut cache).unwrap(), 5787);
}

#[test]
fn chess960_names_castling_as_the_king_taking_its_rook() {
    let game = game_of("rules/chess960.alg");
    let mut cache = Cache::new();
    // Each name as python-chess's `Move.uci()` writes it in Chess960.
    for (fen, name) in [
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            None,
        ),
        ("4k3/8/8/8/8/8/8/6KR w H - 0 1", Some("g1h1")),
        ("4k3/8/8/8/8/8/8/5K1R w H - 0 1", Some("f1h1")),
        ("4k3/8/8/8/8/8/8/RK6 w A - 0 1", Some("b1a1")),
        ("4k3/8/8/8/8/8/8/1KR5 w C - 0 1", Some("b1c1")),
        ("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1", Some("e1h1")),
        ("r3k2r/8/8/8/8/8/8/R3K2R b HAha - 0 1", Some("e8a8")),
    ] {
        let state = game.from_fen(fen).unwrap();
        let legal = game.legal_actions(&state, &mut cache).unwrap();
        let names = game.move_names(&state, &legal);
        let sans: Vec<String> = legal.iter().map(|a| game.san_core(&state, a, &legal)).collect();
        let castles: Vec<&String> = names
            .iter()
            .zip(&sans)
            .filter(|(_, s)| s.starts_with("O-O"))
            .map(|(n, _)| n)
            .collect();
        match name {
            None => assert!(castles.is_empty(), "{fen}: {castles:?}"),
            Some(n) => {
                assert!(castles.contains(&&n.to_string()), "{fen}: {castles:?}");
                // Typed, the name is that move.
                let i = game.read_move(&state, &legal, n).unwrap();
                assert!(sans[i].starts_with("O-O"));
            }
        }
    }
}

/// The names of the legal moves of `fen`, sorted.
fn legal_names(game: &Game, fen: &str) -> Vec<String> {
    let state = game.from_fen(fen).unwrap();
    let mut cache = Cache::new();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let mut names: Vec<String> = legal.iter().map(|a| game.action_name(&state, a)).collect();
    names.sort();
    names
}

/// `region home d1-f2 h8` with `?{% + @home}` keeps the king on those
/// squares; `pieces()` is a hurdle of either colour, left as it was.
#[test]
fn regions_any_piece_and_looking_guards() {
    let game = game_of("tests/data/games/regions.alg");
    // From e1 the king may go to d1, f1, d2, e2 and f2: all in the region.
    assert_eq!(
        legal_names(&game, "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        ["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]
    );
    // From e2 only the squares of ranks 1 and 2 remain.
    assert_eq!(
        legal_names(&game, "4k3/8/8/8/8/8/4K3/8 w - - 0 1"),
        ["e2d1", "e2d2", "e2e1", "e2f1", "e2f2"]
    );
    // The queen hops over a piece of either colour to the empty square behind it.
    for fen in [
        "k7/8/8/8/3P4/3Q4/8/7K w - - 0 1",
        "k7/8/8/8/3p4/3Q4/8/7K w - - 0 1",
    ] {
        let state = game.from_fen(fen).unwrap();
        let after = play(&game, state.clone(), &["d3d5"]);
        let hurdle = state.position().get(Coord::new(3, 3));
        assert_eq!(after.position().get(Coord::new(3, 3)), hurdle, "{fen}");
    }
    // Black's region is white's turned half round (c7-e8 and a1): from e8
    // the king may not go to f7 or f8.
    assert_eq!(
        legal_names(&game, "4k3/8/8/8/8/8/8/7K b - - 0 1"),
        ["e8d7", "e8d8", "e8e7"]
    );
}

/// `no_reply` refuses a check that leaves no legal reply; other checks and
/// moves stay.
#[test]
fn no_reply_refuses_a_mating_move() {
    let game = game_of("tests/data/games/no_mate.alg");
    let chess = chess();
    let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
    let names = legal_names(&game, fen);
    assert!(!names.contains(&"a1a8".to_string()), "Ra8 mates");
    assert!(legal_names(&chess, fen).contains(&"a1a8".to_string()));
    assert_eq!(names.len() + 1, legal_names(&chess, fen).len());
    // A check with a reply stays: Ra8+ when the king can step to h7... here g7 is free.
    let escape = "6k1/5p1p/8/8/8/8/8/R5K1 w - - 0 1";
    assert!(legal_names(&game, escape).contains(&"a1a8".to_string()));
}

/// `outcome extinct` and `outcome bare` judge the player who ran out, the
/// player who just moved first.
#[test]
fn extinct_and_bare_judge_the_player_who_ran_out() {
    let extinction = game_of("rules/extinction.alg");
    // Black (to move) has no queen: black has lost.
    let s = extinction
        .from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1")
        .unwrap();
    assert_eq!(ending(&extinction, &s), Some(Ending::Win(PlayerId::new(0))));
    // White (who just moved) has no pawn left: white has lost.
    let s = extinction
        .from_fen("rnbqkbnr/pppppppp/8/8/8/8/8/RNBQKBNR b KQkq - 0 1")
        .unwrap();
    assert_eq!(ending(&extinction, &s), Some(Ending::Win(PlayerId::new(1))));
    let shatranj = game_of("rules/shatranj.alg");
    // A bare black king to move against two white pieces beyond the king may not bare white in return: lost.
    let s = shatranj.from_fen("4k3/8/8/8/8/8/8/RR2K3 b - - 0 1").unwrap();
    assert_eq!(ending(&shatranj, &s), Some(Ending::Win(PlayerId::new(0))));
    // Against one, it plays on (it may take it and bare white in return).
    let s = shatranj.from_fen("4k3/8/8/8/8/8/8/R3K3 b - - 0 1").unwrap();
    assert_eq!(ending(&shatranj, &s), None);
    // White, having just moved, is bare against a black rook: white has lost.
    let s = shatranj.from_fen("4k3/r7/8/8/8/8/8/4K3 b - - 0 1").unwrap();
    assert_eq!(ending(&shatranj, &s), Some(Ending::Win(PlayerId::new(1))));
}

/// Berolina's two-square en passant field (`c5d6`: the square crossed and
/// the pawn's own) is read in either order and written a1 first.
#[test]
fn a_two_square_en_passant_field_round_trips() {
    let game = game_of("rules/berolina.alg");
    let fen = "rnbqkbnr/pp1p1ppp/8/2pPp3/8/8/PP1PPPPP/RNBQKBNR w KQkq c5d6 0 1";
    let state = game.from_fen(&fen.replace("c5d6", "d6c5")).unwrap();
    assert_eq!(game.to_fen(&state), fen);
    // Only the c5 pawn may be taken en passant (the e5 pawn crossed nothing).
    assert!(legal_names(&game, fen).contains(&"d5d6".to_string()));
}

/// `%from:` makes the square the piece left the piece of interest: a gate
/// fills it from the hand, and the move is named by the gated piece's
/// letter (`b1c3q`), as Fairy-Stockfish names gating.
#[test]
fn a_piece_is_put_on_the_square_another_left() {
    let game = game_of("tests/data/games/gating.alg");
    let fen = "4k3/8/8/8/8/8/8/1N2K3[Qq] w - - 0 1";
    let names = legal_names(&game, fen);
    for m in ["b1a3", "b1a3q", "b1c3", "b1c3q", "b1d2", "b1d2q"] {
        assert!(names.contains(&m.to_string()), "{m} in {names:?}");
    }
    let after = play(&game, game.from_fen(fen).unwrap(), &["b1c3q"]);
    assert_eq!(game.to_fen(&after), "4k3/8/8/8/8/2N5/8/1Q2K3[q] b - - 1 1");
    // Without a queen in the hand there is nothing to gate.
    let names = legal_names(&game, "4k3/8/8/8/8/8/8/1N2K3[q] w - - 0 1");
    assert!(!names.iter().any(|n| n.ends_with('q')), "{names:?}");
    // `%from:` outside a `%p:` is refused when the file is checked.
    let text = "import \"../../../rules/chess.alg\"\nmoves white = %from: nil\n";
    let source = Source::new("tests/data/games/bad_from.alg", text);
    assert!(chessalg::decl::Spec::load(&source).is_err());
}

/// `fen layout full` writes the empty rights and target fields, as
/// Fairy-Stockfish writes every FEN; the short form still reads.
#[test]
fn a_full_fen_layout_writes_empty_fields() {
    let game = game_of("rules/xiangqi.alg");
    let full = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    assert_eq!(game.to_fen(&game.initial()), full);
    let short = game
        .from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w 0 1")
        .unwrap();
    assert_eq!(game.to_fen(&short), full);
}

/// Seirawan: gating names as Fairy-Stockfish writes them (`b1c3h`, castling
/// gated on the king's square `e1g1h`, on the rook's `h1e1h`), and a rights
/// letter that says nothing new is left out of the FEN (`E` after `K`).
#[test]
fn seirawan_gates_are_named_and_written_as_fairy_stockfish_does() {
    let game = game_of("rules/seirawan.alg");
    let names = legal_names(&game, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[HEhe] w KQkq - 0 1");
    for m in ["e1g1", "e1g1h", "e1c1e", "h1e1h", "a1e1e", "h1f1h", "a1b1"] {
        assert!(names.contains(&m.to_string()), "{m} in {names:?}");
    }
    // 47 moves, as Fairy-Stockfish's `go perft 1` lists them.
    assert_eq!(names.len(), 47);
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1";
    let fen = game.to_fen(&game.from_fen(start).unwrap());
    assert!(fen.contains(" w KQBCDFGkqbcdfg - 0 1"), "{fen}");
}

/// S-house: a knight that takes a hawk (which goes to black's hand) and
/// gates a hawk from it leaves the hand's count as it was, and is still
/// named as a gate, `b8a6h`, as Fairy-Stockfish names it; the same capture
/// without a gate is `b8a6` (the list is Fairy-Stockfish's `go perft 1`).
#[test]
fn a_gate_of_the_kind_just_taken_is_named_as_a_gate() {
    let game = game_of("rules/shouse.alg");
    let names = legal_names(
        &game,
        "rnbqkbnr/pppppppp/H7/8/8/8/PPPPPPPP/RNBQKBNR[Ehe] b KQBCDFGkqbcdfg - 0 1",
    );
    let knight: Vec<&String> = names.iter().filter(|n| n.starts_with("b8")).collect();
    assert_eq!(knight, ["b8a6", "b8a6e", "b8a6h", "b8c6", "b8c6e", "b8c6h"]);
    // A knight that takes a knight and gates one (of the two in the hand).
    let names = legal_names(
        &game,
        "1rb2ber/pppkqppp/4p2n/3rPp2/8/P3PK1n/pP1P1PP1/hhBQ1BNR[Ne] w CDFGHcfh - 0 17",
    );
    let knight: Vec<&String> = names.iter().filter(|n| n.starts_with("g1h3")).collect();
    assert_eq!(knight, ["g1h3", "g1h3n"]);
}

#[test]
fn a_piece_in_a_box_is_worth_its_value_to_its_owner() {
    let game = game_of("rules/crazyhouse.alg");
    let mut cache = Cache::new();
    let prospects = game.prospects(&mut cache).clone();
    let material = |fen: &str| chessalg::ai::material(&game, &prospects, &game.from_fen(fen).unwrap());
    let bare = "4k3/8/8/8/8/8/8/4K3[] w - - 0 1";
    // A white knight in the hand is worth its 3 to white, -3 to black.
    assert_eq!(material("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1") - material(bare), 300);
    assert_eq!(
        material("4k3/8/8/8/8/8/8/4K3[N] b - - 0 1") - material("4k3/8/8/8/8/8/8/4K3[] b - - 0 1"),
        -300
    );
    // A black rook in it is worth 5 to black.
    assert_eq!(
        material("4k3/8/8/8/8/8/8/4K3[r] w - - 0 1") - material(bare),
        -500
    );
    // Dropping the knight changes the balance by the scope it keeps at most
    // (half its value), not by the whole knight.
    let held = material("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1");
    let dropped = -material("4k3/8/8/8/3N4/8/8/4K3[] b - - 0 1");
    assert!((dropped - held).abs() <= 150, "held {held}, dropped {dropped}");
}

/// A square a rewrite's left side only looks at (`@2`, a region) and its
/// right side leaves out stays as it was, on both engines: the knight drops
/// into the region only, and the king below a pawn's double step stays.
#[test]
fn looked_at_squares_left_out_on_the_right_stay() {
    let fen = "4k3/8/8/8/8/8/4P3/4K3[N] w - - 0 1";
    for engine in ["fast", "backtrack"] {
        let (code, out, err) = chessalg(&[
            "--engine",
            engine,
            "moves",
            "tests/data/games/region_drops.alg",
            "--fen",
            fen,
        ]);
        assert_eq!(code, 0, "{err}");
        let drops: Vec<&str> = out.lines().filter(|m| m.starts_with("N@")).collect();
        assert_eq!(drops.len(), 22, "{engine}: {drops:?}");
        assert!(
            drops.iter().all(|m| m.ends_with(['1', '2', '3'])),
            "{engine}: {drops:?}"
        );
        assert!(out.lines().any(|m| m == "e2e4"), "{engine}: {out}");
    }
    let game = game_of("tests/data/games/region_drops.alg");
    let after = play(&game, game.from_fen(fen).unwrap(), &["e2e4"]);
    assert_eq!(game.to_fen(&after), "4k3/8/8/8/4P3/8/8/4K3[N] b - - 0 1");
}

/// FEN writes a place that is no square as `*` and reads it back, as
/// Fairy-Stockfish writes walls; `*` on a square is the piece whose FEN
/// letter is `*`, and a game without one says what `*` is for.
#[test]
fn walls_and_a_piece_written_star() {
    let game = game_of("tests/data/games/walls.alg");
    let start = game.to_fen(&game.initial());
    assert_eq!(
        start,
        "1rnbqkbnr1/*pppppppp*/*8*/*8*/*8*/*8*/*PPPPPPPP*/1RNBQKBNR1 w - - 0 1"
    );
    let with_block = "1rnbqkbnr1/*pppppppp*/*8*/*3*4*/*8*/*8*/*PPPPPPPP*/1RNBQKBNR1 w - - 0 1";
    let state = game.from_fen(with_block).unwrap();
    assert_eq!(game.to_fen(&state), with_block);
    // The block on e5 stops the pawn that reached e4.
    let after = play(&game, state, &["e2e4", "b7b6"]);
    let names = legal_names(&game, &game.to_fen(&after));
    assert!(names.iter().any(|n| n == "d2d4"), "{names:?}");
    assert!(!names.iter().any(|n| n == "e4e5"), "{names:?}");
    // Runs of empty squares may still cover the walls, as before.
    let digits = game
        .from_fen("10/1pppppppp1/10/10/10/10/*PPPPPPPP*/1RNBQKBNR1 w - - 0 1")
        .unwrap();
    assert_eq!(
        game.to_fen(&digits),
        "10/*pppppppp*/*8*/*8*/*8*/*8*/*PPPPPPPP*/1RNBQKBNR1 w - - 0 1"
    );
    let chess = chess();
    let err = chess
        .from_fen("rnbqkbnr/pppppppp/8/3*4/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        .unwrap_err();
    assert!(
        err.to_string().contains("`*` marks a place that is no square"),
        "{err}"
    );
}

/// `fewer(X, n)` counts the pieces on the board, on both engines: a pawn
/// becomes a queen only while its side has none and a rook only while it
/// has fewer than two; a side left with one king has lost.
#[test]
fn fewer_counts_the_pieces_on_the_board() {
    let promotions = |engine: &str, fen: &str| -> Vec<String> {
        let (code, out, err) = chessalg(&[
            "--engine",
            engine,
            "moves",
            "tests/data/games/fewer.alg",
            "--fen",
            fen,
        ]);
        assert_eq!(code, 0, "{err}");
        out.lines()
            .filter(|m| m.starts_with("e7"))
            .map(str::to_string)
            .collect()
    };
    for engine in ["fast", "backtrack"] {
        assert_eq!(
            promotions(engine, "k1k5/4P3/8/8/8/8/8/K1K5 w - - 0 1"),
            ["e7e8q", "e7e8r"]
        );
        assert_eq!(
            promotions(engine, "k1k5/4P3/8/8/8/8/8/K1KQR3 w - - 0 1"),
            ["e7e8r"]
        );
        assert_eq!(
            promotions(engine, "k1k5/4P3/8/8/8/8/8/KRKQR3 w - - 0 1"),
            ["e7e8"]
        );
    }
    let game = game_of("tests/data/games/fewer.alg");
    let state = game.from_fen("k1k5/8/8/8/8/8/8/K1K4q b - - 0 1").unwrap();
    assert_eq!(ending(&game, &state), None);
    let after = play(&game, state, &["h1c1"]);
    assert_eq!(ending(&game, &after), Some(Ending::Win(PlayerId::new(1))));
}

/// A piece that becomes another where it stands is named as a move onto its
/// own square (`b3b3q`, Fairy-Stockfish's `g7g7f` in sittuyin); a `+N`
/// that becomes an `N` again is named with `-` (Kyoto shogi's `a1a2-`), and
/// both names are read back.
#[test]
fn changes_in_place_and_back_are_named_as_fairy_stockfish_names_them() {
    let game = game_of("tests/data/games/in_place.alg");
    let names = legal_names(&game, "4k3/8/8/8/8/1P6/8/1N2K3 w - - 0 1");
    assert!(names.iter().any(|n| n == "b3b3q"), "{names:?}");
    assert!(names.iter().any(|n| n == "b1c3+"), "{names:?}");
    let names = legal_names(&game, "4k3/8/8/8/8/1P6/8/1+N2K3 w - - 0 1");
    assert!(names.iter().any(|n| n == "b1c3-"), "{names:?}");
    let state = game.from_fen("4k3/8/8/8/8/1P6/8/1+N2K3 w - - 0 1").unwrap();
    let after = play(&game, state, &["b3b3q", "e8d8", "b1c3-"]);
    assert_eq!(game.to_fen(&after), "3k4/8/8/8/8/1QN5/8/4K3 b - - 2 2");
}

/// On a board with walls, a place is still the square it names: the pawns
/// on b2 and d2, with walls below them, step twice from `@2`, on both
/// engines (a wall reads as off the board, so counting squares down to the
/// edge would put them on the first rank).
#[test]
fn places_on_a_board_with_walls_are_the_squares_they_name() {
    assert_start_moves_on_both_engines(
        "tests/data/games/walled_places.alg",
        &["b2b3", "b2b4", "c1c2", "d2d3", "d2d4"],
    );
}

/// `chessalg moves FILE` lists exactly `expected` on the strategies and on
/// the backtracker.
fn assert_start_moves_on_both_engines(file: &str, expected: &[&str]) {
    for engine in ["fast", "backtrack"] {
        let (code, out, err) = chessalg(&["--engine", engine, "moves", file]);
        assert_eq!(code, 0, "{err}");
        let moves: Vec<&str> = out.lines().collect();
        assert_eq!(moves, expected, "{file} on {engine}");
    }
}

/// A pawn from the hand put down either face up is named as
/// Fairy-Stockfish names Kyoto shogi's drops (`P@a2`, `+P@a2`), and a
/// promoted piece that moves turns back with `-`.
#[test]
fn kyoto_shogi_drops_and_turns_are_named_as_fairy_stockfish_names_them() {
    let game = game_of("rules/kyotoshogi.alg");
    let names = legal_names(&game, "p+nks+l/5/5/5/+LSK+NP[P] w - - 0 1");
    for name in ["P@a2", "+P@a2", "a1a2-"] {
        assert!(names.iter().any(|n| n == name), "{name}: {names:?}");
    }
    let names = legal_names(&game, "p+nks+l/5/5/5/+LSK+NP[p] b - - 0 1");
    assert!(names.iter().any(|n| n == "+P@a4"), "{names:?}");
}

/// Under `notation coordinates walls` a move that also puts a piece
/// elsewhere is named as Fairy-Stockfish names its walls: the move, a
/// comma, its landing square and the square of the piece put (the duck);
/// castling names the king's move and promotion its piece before the comma.
/// The duck must move: no move puts it back where it stood. Names read back.
#[test]
fn duck_moves_are_named_as_fairy_stockfish_names_walls() {
    let game = game_of("rules/duck.alg");
    let state = game.from_fen("r3k2r/1P6/8/3*4/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let legal = game.legal_actions(&state, &mut Cache::new()).unwrap();
    let names = game.move_names(&state, &legal);
    assert_eq!(names.len(), 1910);
    for name in ["e1g1,g1h1", "e1c1,c1b1", "b7b8q,b8b7", "a1a2,a2d4"] {
        assert!(names.iter().any(|n| n == name), "{name}: {names:?}");
    }
    assert!(!names.iter().any(|n| n.ends_with("d5")), "{names:?}");
    assert!(!names.iter().any(|n| n.contains('/')), "{names:?}");
    let mut after = state;
    for m in ["e1c1,c1b1", "e8g8,g8e8"] {
        let legal = game.legal_actions(&after, &mut Cache::new()).unwrap();
        let i = game.read_move(&after, &legal, m).unwrap();
        after = game.play(&after, &legal[i]);
    }
    assert_eq!(game.to_fen(&after), "r3*rk1/1P6/8/8/8/8/8/2KR3R w - - 2 2");
}

/// `region dark colour a1` is every square of a1's colour, and `colour b1`
/// after squares keeps those of b1's colour: the king steps onto dark
/// squares off rank 1 and onto b1 or d1 on it, on both engines.
#[test]
fn a_region_of_a_colour_is_the_squares_of_that_colour() {
    assert_start_moves_on_both_engines("tests/data/games/colours.alg", &["c1b1", "c1b2", "c1d1", "c1d2"]);
}

/// Janggi's ends: two passes in a row (`outcome passes 2`) and the
/// generals facing in two positions in a row (`outcome when facing for 2`),
/// decided by the pieces' values with black given 1.5 (`points black 1.5`).
/// A pass is named by the general's square twice, as Fairy-Stockfish names
/// it, and reads as `pass` and `0000` too.
#[test]
fn passes_and_a_pattern_held_over_a_move_end_the_game_by_points() {
    let game = game_of("rules/janggi.alg");
    let mut cache = Cache::new();
    let (white, black) = (PlayerId::new(0), PlayerId::new(1));
    let start = game.initial();
    let legal = game.legal_actions(&start, &mut cache).unwrap();
    let pass = game.read_move(&start, &legal, "e2e2").unwrap();
    assert_eq!(game.move_names(&start, &legal)[pass], "e2e2");
    assert_eq!(game.read_move(&start, &legal, "pass"), Ok(pass));
    assert_eq!(game.read_move(&start, &legal, "0000"), Ok(pass));
    assert_eq!(
        game.san(&start, &legal[pass], &legal, &mut cache).unwrap(),
        "pass"
    );

    // One pass goes on; a second in a row ends the game, black ahead by 1.5.
    let once = play(&game, start.clone(), &["e2e2"]);
    assert_eq!(ending(&game, &once), None);
    let twice = play(&game, once, &["e9e9"]);
    let legal = game.legal_actions(&twice, &mut cache).unwrap();
    assert_eq!(
        game.ending_reason(&twice, &legal, &mut cache).unwrap(),
        Some((Ending::Win(black), Reason::Passes(2)))
    );
    // A move between two passes starts the count again.
    let apart = play(&game, start, &["e2e2", "a7a6", "e2e2"]);
    assert_eq!(ending(&game, &apart), None);

    // Bikjang: facing at the start of the record does not end the game;
    // facing still after a pass does, white's chariot (13) against 1.5.
    let facing = game.from_fen("4k4/9/9/9/9/9/9/9/9/R3K4 w - - 0 1").unwrap();
    assert_eq!(ending(&game, &facing), None);
    let held = play(&game, facing.clone(), &["e1e1"]);
    let legal = game.legal_actions(&held, &mut cache).unwrap();
    assert_eq!(
        game.ending_reason(&held, &legal, &mut cache).unwrap(),
        Some((Ending::Win(white), Reason::When("facing for 2 positions".into())))
    );
    // Breaking the facing goes on.
    let broken = play(&game, facing, &["e1d1"]);
    assert_eq!(ending(&game, &broken), None);
    // Without the chariot black's 1.5 wins; in check the pass stays legal.
    let bare = game.from_fen("3k5/9/9/9/9/9/9/9/9/3K3r1 w - - 0 1").unwrap();
    assert_eq!(names(&game, &bare), ["d1d1", "d1e2"]);
    let held = play(&game, bare, &["d1d1"]);
    assert_eq!(ending(&game, &held), Some(Ending::Win(black)));
}

/// Shogi's uchifuzume as Fairy-Stockfish plays it: a pawn drop that mates
/// is a legal move after which the player who dropped it has lost; the
/// pawn carries a mark that FEN writes (`P!`), so the finished position
/// reads back as the foul it is. A pawn that mates by moving wins.
#[test]
fn a_pawn_drop_that_mates_is_played_and_loses() {
    let game = game_of("rules/shogi.alg");
    let start = game.from_fen("3rkr3/9/3G1G3/9/9/9/9/9/4K4[P] w 0 1").unwrap();
    let fouled = play(&game, start, &["P@e8"]);
    assert_eq!(ending(&game, &fouled), Some(Ending::Win(PlayerId::new(1))));
    let fen = game.to_fen(&fouled);
    assert!(fen.starts_with("3rkr3/4P!4/"), "{fen}");
    let again = game.from_fen(&fen).unwrap();
    assert_eq!(ending(&game, &again), Some(Ending::Win(PlayerId::new(1))));
    // The same pawn stepping there mates.
    let start = game.from_fen("3rkr3/9/3GPG3/9/9/9/9/9/4K4[-] w 0 1").unwrap();
    let mated = play(&game, start, &["e7e8"]);
    assert_eq!(ending(&game, &mated), Some(Ending::Win(PlayerId::new(0))));
}
