//! What the fuzz targets share: games built once, small limits.

use std::sync::{Arc, OnceLock};

use chessalg::decl::Spec;
use chessalg::engine::{EngineChoice, Limits};
use chessalg::game::Game;
use chessalg::source::Source;

/// The bounds a fuzzed search runs under: small, so that each input is quick.
pub fn limits() -> Limits {
    Limits {
        max_states: 20_000,
        ..Limits::default()
    }
}

/// The bundled games the position and record targets read into.
pub const GAMES: [&str; 10] = [
    "chess",
    "crazyhouse",
    "shogi",
    "xiangqi",
    "checkers",
    "othello",
    "hex",
    "seirawan",
    "amazons",
    "atomic",
];

/// Bundled game number `index` of [`GAMES`] (modulo their number), built
/// once per process.
pub fn bundled(index: usize) -> Arc<Game> {
    static BUILT: OnceLock<Vec<Arc<Game>>> = OnceLock::new();
    let games = BUILT.get_or_init(|| {
        GAMES
            .iter()
            .map(|name| {
                let source = chessalg::bundled::lookup(name).expect("a bundled game");
                let (spec, _) = Spec::load(&source).expect("a bundled game loads");
                Arc::new(
                    Game::with_engine(&spec, EngineChoice::all())
                        .expect("a bundled game builds")
                        .with_limits(limits()),
                )
            })
            .collect()
    });
    games[index % games.len()].clone()
}

/// The rule file `text` as a game on `engine` under [`limits`], if it is a
/// playable game. It is read as a bundled file, so that its imports and
/// weights files are the bundled ones and nothing is read from the disk (a
/// fuzzer must not wander the file system).
pub fn game_of(text: &str, engine: EngineChoice) -> Option<(Spec, Game)> {
    if text.len() > 8192 {
        return None;
    }
    let name = format!("{}/fuzz.alg", chessalg::bundled::DIR);
    let (spec, _) = Spec::load(&Source::new(name, text)).ok()?;
    let game = Game::with_engine(&spec, engine).ok()?.with_limits(limits());
    Some((spec, game))
}

/// The strategies the engine differential compares with the backtracker:
/// all of them, and each alone (the backtracker answering what it does not)
/// and with the walk under it.
pub fn strategy_choices() -> Vec<EngineChoice> {
    let mut out = vec![EngineChoice::all()];
    for name in chessalg::engine::STRATEGY_NAMES {
        if name == "backtrack" {
            continue;
        }
        out.push(name.parse().expect("a strategy's name"));
        if name != "walk" {
            out.push(format!("{name},walk").parse().expect("strategies' names"));
        }
    }
    out
}
