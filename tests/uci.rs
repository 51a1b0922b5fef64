//! `chessalg uci` driven as a GUI drives it: the binary on pipes, whole
//! games checked move by move against the library's legal moves.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use chessalg::decl::Spec;
use chessalg::engine::Cache;
use chessalg::game::{Game, State, divide};
use chessalg::source::Source;

/// The engine on pipes.
struct Engine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Engine {
    fn start(rules: &str) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chessalg"))
            .args(["uci", rules])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Engine { child, input, output }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    /// The lines up to and including the first that starts with `last`.
    fn until(&mut self, last: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "the engine ended; got {lines:?}"
            );
            let line = line.trim_end().to_string();
            let done = line.starts_with(last);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// The lines up to `bestmove`, and the move it names.
    fn best(&mut self) -> (Vec<String>, String) {
        let lines = self.until("bestmove");
        let best = lines
            .last()
            .and_then(|l| l.strip_prefix("bestmove "))
            .unwrap()
            .to_string();
        (lines, best)
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "exit status {status}");
    }
}

fn game(path: &str) -> Game {
    let text = std::fs::read_to_string(path).unwrap();
    let (spec, _) = Spec::load(&Source::new(path, text)).unwrap();
    Game::new(&spec).unwrap()
}

/// The state after the legal move named `name`.
fn after(game: &Game, state: &State, name: &str, cache: &mut Cache) -> State {
    let legal = game.legal_actions(state, cache).unwrap();
    let i = game
        .move_names(state, &legal)
        .iter()
        .position(|n| n == name)
        .unwrap();
    game.play(state, &legal[i])
}

/// The legal moves of `state` by name.
fn names(game: &Game, state: &State, cache: &mut Cache) -> Vec<String> {
    let legal = game.legal_actions(state, cache).unwrap();
    game.move_names(state, &legal)
}

#[test]
fn the_engine_says_who_it_is_and_answers_isready() {
    let mut e = Engine::start("rules/chess.alg");
    e.send("uci");
    let lines = e.until("uciok");
    assert!(
        lines[0].starts_with("id name chessalg ") && lines[0].ends_with("(Chess)"),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("option name Hash type spin")));
    assert!(lines.iter().any(
        |l| l.starts_with("option name UCI_Variant type combo default chess")
            && l.contains(" var irreversible")
    ));
    e.send("isready");
    assert_eq!(e.until("readyok"), ["readyok"]);
    e.quit();
}

#[test]
fn go_perft_divides_as_chessalg_perft_does() {
    let chess = game("rules/chess.alg");
    let mut cache = Cache::new();
    let after_e4 = after(&chess, &chess.initial(), "e2e4", &mut cache);
    let rows = divide(&chess, &after_e4, 3, &mut cache).unwrap();
    let total: u64 = rows.iter().map(|r| r.1).sum();
    let mut want: Vec<String> = rows.into_iter().map(|(name, n)| format!("{name}: {n}")).collect();
    want.push(String::new());
    want.push(format!("Nodes searched: {total}"));
    let mut e = Engine::start("rules/chess.alg");
    e.send("position startpos moves e2e4");
    e.send("go perft 3");
    assert_eq!(e.until("Nodes searched"), want);
    e.quit();
}

/// Plays a game of `rules` against itself through the protocol, each
/// `bestmove` checked against the legal moves, until the engine says the
/// game is over (`bestmove (none)`, which must be so) or `plies` are played.
fn self_play(rules: &str, plies: usize) -> usize {
    let game = game(rules);
    let mut cache = Cache::new();
    let mut e = Engine::start(rules);
    e.send("uci");
    e.until("uciok");
    e.send("ucinewgame");
    let (mut state, mut played) = (game.initial(), Vec::new());
    for _ in 0..plies {
        let position = match played.is_empty() {
            true => "position startpos".to_string(),
            false => format!("position startpos moves {}", played.join(" ")),
        };
        e.send(&position);
        e.send("go depth 2");
        let (lines, best) = e.best();
        let legal = game.legal_actions(&state, &mut cache).unwrap();
        let over = legal.is_empty() || game.ending(&state, &legal, &mut cache).unwrap().is_some();
        if best == "(none)" {
            assert!(over, "{rules}: (none) with the game going on after {played:?}");
            break;
        }
        assert!(!over, "{rules}: a move after the game ended, after {played:?}");
        assert!(lines.iter().any(|l| l.starts_with("info depth ")), "{lines:?}");
        let names = game.move_names(&state, &legal);
        let i = names.iter().position(|n| *n == best);
        let i = i.unwrap_or_else(|| panic!("{rules}: {best} is not legal after {played:?}: {names:?}"));
        state = game.play(&state, &legal[i]);
        played.push(best);
    }
    e.quit();
    played.len()
}

#[test]
fn whole_games_of_chess_and_irreversible_chess_are_played_through_the_protocol() {
    assert!(self_play("rules/chess.alg", 200) >= 10);
    assert!(self_play("rules/irreversible.alg", 200) >= 10);
}

#[test]
fn bad_input_gets_an_info_string_and_changes_nothing_after_it() {
    let chess = game("rules/chess.alg");
    let mut e = Engine::start("rules/chess.alg");
    // An illegal move: the position stops before it.
    e.send("position startpos moves e2e4 e7e4 d2d4");
    e.send("go perft 1");
    let lines = e.until("Nodes searched");
    assert!(lines[0].starts_with("info string illegal move e7e4"), "{lines:?}");
    let mut cache = Cache::new();
    let after_e4 = after(&chess, &chess.initial(), "e2e4", &mut cache);
    let want = names(&chess, &after_e4, &mut cache).len();
    assert_eq!(lines.last().unwrap(), &format!("Nodes searched: {want}"));
    for (bad, says) in [
        ("sideways", "info string unknown command: sideways"),
        ("position fen 8/8/8 w - - 0 1", "info string bad FEN"),
        ("position", "info string position needs"),
        ("go depth x", "info string go depth: `x` is not a number"),
        (
            "setoption name Colour value red",
            "info string unknown option: Colour",
        ),
        (
            "setoption name Hash value 0",
            "info string Hash must be 1 to 4096",
        ),
        (
            "setoption name UCI_Variant value nowhere",
            "info string no variant named nowhere",
        ),
        (
            "setoption name RulesFile value /no/such.alg",
            "info string cannot read /no/such.alg",
        ),
    ] {
        e.send(bad);
        e.send("isready");
        let lines = e.until("readyok");
        assert!(lines[0].starts_with(says), "{bad}: {lines:?}");
    }
    // Bytes that are not text: an unknown command, and the engine goes on.
    e.input.write_all(b"\xff\xfe go\n").unwrap();
    e.send("isready");
    let lines = e.until("readyok");
    assert!(lines[0].starts_with("info string unknown command"), "{lines:?}");
    // The game is still chess, at the start.
    e.send("position startpos");
    e.send("go perft 1");
    assert_eq!(e.until("Nodes searched").last().unwrap(), "Nodes searched: 20");
    e.quit();
}

#[test]
fn stop_ends_an_infinite_search_with_a_legal_move_and_variants_switch_games() {
    let mut e = Engine::start("rules/chess.alg");
    e.send("position startpos moves d2d4");
    e.send("go infinite");
    std::thread::sleep(std::time::Duration::from_millis(300));
    e.send("stop");
    let (_, best) = e.best();
    let chess = game("rules/chess.alg");
    let mut cache = Cache::new();
    let after = chess
        .from_fen("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1")
        .unwrap();
    assert!(names(&chess, &after, &mut cache).contains(&best), "{best}");
    e.send("setoption name UCI_Variant value tictactoe");
    e.send("uci");
    assert!(e.until("uciok")[0].ends_with("(Tic-tac-toe)"));
    e.send("position startpos");
    e.send("go perft 2");
    assert_eq!(e.until("Nodes searched").last().unwrap(), "Nodes searched: 72");
    e.quit();
}

/// python-chess's engine module drives the binary through a whole game of
/// chess, every move checked legal by python-chess, and `go perft` agrees
/// with python-chess's count (`scripts/uci_selfplay.py`). Needs python3
/// with python-chess (`.ci/run` installs it); without it the test says so
/// and checks nothing else.
#[test]
fn python_chess_drives_whole_games_of_chess_and_irreversible_chess() {
    let has = Command::new("python3")
        .args(["-c", "import chess.engine"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        eprintln!("python-chess is not installed: its games through `chessalg uci` are not run");
        return;
    }
    // Chess, judged by python-chess; Irreversible Chess, relayed by
    // python-chess and judged by `chessalg moves`.
    for (rules, extra, says) in [
        ("rules/chess.alg", None, "go perft 3"),
        ("rules/irreversible.alg", Some("--own-rules"), "every move legal"),
    ] {
        let out = Command::new("python3")
            .args([
                "scripts/uci_selfplay.py",
                "--binary",
                env!("CARGO_BIN_EXE_chessalg"),
            ])
            .args(["--rules", rules, "--games", "1", "--time", "0.02"])
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{rules}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains(says) && stdout.contains("game 1: "),
            "{rules}: {stdout}"
        );
    }
}

/// Fairy-Stockfish's command, where it is installed (Debian's package puts
/// it in /usr/games).
fn fairy_stockfish() -> Option<String> {
    ["fairy-stockfish", "/usr/games/fairy-stockfish"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .stdin(std::process::Stdio::null())
                .output()
                .is_ok()
        })
        .map(str::to_string)
}

/// `chessalg uci` against Fairy-Stockfish on its own variants
/// (`scripts/fairy_compare.py`): at every ply both list the same legal
/// moves, drops, promotions and gates named alike. Needs python3 and Fairy-Stockfish
/// (`apt-get install fairy-stockfish`); without them the test says so and
/// checks nothing else.
#[test]
fn fairy_stockfish_and_chessalg_list_the_same_moves_in_its_variants() {
    let Some(fsf) = fairy_stockfish() else {
        eprintln!("Fairy-Stockfish is not installed: its games against `chessalg uci` are not run");
        return;
    };
    for variant in ["xiangqi", "minishogi", "makruk", "seirawan"] {
        let rules = format!("rules/{variant}.alg");
        let out = Command::new("python3")
            .args([
                "scripts/fairy_compare.py",
                "--binary",
                env!("CARGO_BIN_EXE_chessalg"),
            ])
            .args(["--fsf", &fsf, "--rules", &rules, "--variant", variant])
            .args(["--games", "1", "--plies", "30"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{variant}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("0 disagreements"), "{variant}: {stdout}");
    }
}

/// `chessalg diff --uci` with an option that adds variants to the engine's
/// list (Fairy-Stockfish's `VariantPath`): the variant is checked against
/// the list as it stands once the option is set, and the comparison runs.
/// Without Fairy-Stockfish the test says so and checks nothing else.
#[test]
fn diff_takes_a_variant_that_variant_path_loads() {
    let Some(fsf) = fairy_stockfish() else {
        eprintln!("Fairy-Stockfish is not installed: `diff --option VariantPath=...` is not run");
        return;
    };
    let ini = std::fs::canonicalize("tests/data/fsf/renamed.ini").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_chessalg"))
        .args([
            "diff",
            "rules/chess.alg",
            "--uci",
            &fsf,
            "--variant",
            "renamedchess",
        ])
        .arg(format!("--option=VariantPath={}", ini.display()))
        .args(["--depth", "2", "--games", "2"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("no difference"), "{said}");
}

#[test]
fn isready_and_stop_are_answered_during_go_perft() {
    let mut e = Engine::start("rules/chess.alg");
    e.send("uci");
    e.until("uciok");
    // Perft 7 of chess takes hours: the engine must answer meanwhile.
    e.send("go perft 7");
    let asked = std::time::Instant::now();
    e.send("isready");
    assert_eq!(e.until("readyok"), ["readyok"]);
    e.send("stop");
    e.send("isready");
    let lines = e.until("readyok");
    assert_eq!(lines, ["info string perft stopped", "readyok"]);
    assert!(
        asked.elapsed().as_secs() < 20,
        "answered in {:?}",
        asked.elapsed()
    );
    // The engine goes on as before: a small perft still counts.
    e.send("go perft 2");
    assert_eq!(e.until("Nodes searched").last().unwrap(), "Nodes searched: 400");
    // `quit` after a perft waits for its count, as Fairy-Stockfish does
    // (`go perft 3` then `quit`, piped in, prints the count)...
    e.send("go perft 3");
    e.send("quit");
    assert_eq!(e.until("Nodes searched").last().unwrap(), "Nodes searched: 8902");
    // ...and `stop` then `quit` ends a long one at once.
    let mut e = Engine::start("rules/chess.alg");
    e.send("go perft 7");
    e.send("stop");
    e.quit();
}

#[test]
fn a_rules_file_without_an_end_is_refused_unread() {
    let mut e = Engine::start("rules/chess.alg");
    e.send("setoption name RulesFile value /dev/zero");
    e.send("isready");
    let lines = e.until("readyok");
    assert!(
        lines[0].starts_with("info string") && lines[0].contains("not a regular file"),
        "{lines:?}"
    );
    // The game is still chess.
    e.send("go perft 1");
    assert_eq!(e.until("Nodes searched").last().unwrap(), "Nodes searched: 20");
    e.quit();
}
