//! Helpers the integration tests share: a rule file loaded as a game, and
//! the `chessalg` binary run as a user runs it.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

pub mod served;

use chessalg::decl::Spec;
use chessalg::engine::Cache;
use chessalg::game::{Action, Game, State};
use chessalg::source::Source;

/// The game of the rule file at `path` (relative to the repository).
pub fn game(path: &str) -> Game {
    let text = std::fs::read_to_string(path).unwrap();
    let (rules, _) = Spec::load(&Source::new(path, text)).unwrap();
    Game::new(&rules).unwrap()
}

/// Plays `moves` (typed as SAN or coordinates) from `state`: the state
/// after them, the SAN written for each, and the moves.
pub fn play(game: &Game, mut state: State, moves: &[&str]) -> (State, Vec<String>, Vec<Action>) {
    let mut cache = Cache::new();
    let mut written = Vec::new();
    let mut actions = Vec::new();
    for m in moves {
        let legal = game.legal_actions(&state, &mut cache).unwrap();
        let i = game
            .read_move(&state, &legal, m)
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        written.push(game.san(&state, &legal[i], &legal, &mut cache).unwrap());
        actions.push(legal[i].clone());
        state = game.play(&state, &legal[i]);
    }
    (state, written, actions)
}

/// The games of `rules/` (every rule file but `prelude.alg`, the library
/// they share), by path, sorted.
pub fn games() -> Vec<(String, Game)> {
    let mut paths: Vec<String> = std::fs::read_dir("rules")
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path().display().to_string())
        .filter(|p| p.ends_with(".alg") && !p.ends_with("prelude.alg"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let g = game(&p);
            (p, g)
        })
        .collect()
}

/// `rules/chess.alg`.
pub fn chess() -> Game {
    game("rules/chess.alg")
}

/// The data directory the tests' runs of `chessalg` keep their games in
/// (not the user's own).
pub fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("chessalg-data")
}

/// The `chessalg` binary as the tests run it: colours off, games kept in
/// [`data_dir`].
pub fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessalg"));
    command.env("NO_COLOR", "1").env("CHESSALG_DATA_DIR", data_dir());
    command
}

/// Runs the `chessalg` binary with `args`, `stdin` piped in, colours off.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chessalg");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("wait for chessalg")
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The legal moves of `state` in `game`, as sorted (name, key of the
/// position it leads to) pairs: what two engines must agree on; `None` if
/// the search hit its limit.
pub fn moves_at(
    game: &Game,
    state: &chessalg::game::State,
    cache: &mut chessalg::engine::Cache,
) -> Option<Vec<(String, u64)>> {
    let actions = game.legal_actions(state, cache).ok()?;
    Some(named(game, state, &actions))
}

/// `actions` of `state` as sorted (name, key of the position it leads to) pairs.
pub fn named(
    game: &Game,
    state: &chessalg::game::State,
    actions: &[chessalg::game::Action],
) -> Vec<(String, u64)> {
    let mut named: Vec<(String, u64)> = (game.move_names(state, actions).into_iter())
        .zip(actions.iter().map(|a| game.play(state, a).key()))
        .collect();
    named.sort();
    named
}
