//! `diff`: where two move generators disagree. The positions reachable from
//! a start are walked (every one to a depth, then random games deeper);
//! at each, both lists of legal moves are compared by name, a position
//! where the game is over counting as having none. The first positions
//! (fewest plies) where they differ are reported.

use std::collections::{BTreeSet, HashSet};

use super::engine_client::{EngineClient, EngineClientError};
use crate::core::Rng;
use crate::engine::Cache;
use crate::game::{Action, Game, PlayError, State};

/// What the first game is compared with.
pub enum Other<'g> {
    /// Another rule file's game, which must read the first game's FENs.
    Rules(&'g Game),
    /// A UCI engine, asked `go perft 1` after the moves from the start FEN.
    Engine(EngineClient),
}

/// How far `diff` looks.
#[derive(Clone, Copy, Debug)]
pub struct DiffOptions {
    /// Every position up to this many plies is compared.
    pub depth: usize,
    /// Random games played on from the start (among the moves both have).
    pub games: u64,
    /// A random game stops after this many plies.
    pub max_plies: usize,
    /// The seed of the first random game.
    pub seed: u64,
    /// At most this many differences are kept (at the fewest plies).
    pub keep: usize,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            depth: 3,
            games: 100,
            max_plies: 200,
            seed: 1,
            keep: 3,
        }
    }
}

/// A position where the two lists of legal moves differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The moves from the start (the first game's names).
    pub path: Vec<String>,
    /// The same moves in the first game's SAN.
    pub san: Vec<String>,
    /// The position, in the first game's FEN.
    pub fen: String,
    /// The position as the first game draws it.
    pub board: String,
    /// The moves only the first has.
    pub only_first: Vec<String>,
    /// The moves only the other has.
    pub only_other: Vec<String>,
    /// Whether the first, and the other, judged the game over there
    /// (`None` for an engine, which is not asked).
    pub over: (bool, Option<bool>),
}

/// What `diff` found.
#[derive(Clone, Debug, Default)]
pub struct DiffReport {
    /// Positions compared.
    pub compared: u64,
    /// The deepest ply compared.
    pub deepest: usize,
    /// The differences at the fewest plies (at most `keep`).
    pub differences: Vec<Difference>,
    /// How many positions at that ply differ (of those compared).
    pub at_first_ply: u64,
    /// Positions where the first game is over, which an engine was not
    /// asked about (its perft does not judge endings).
    pub over_unasked: u64,
}

/// Why `diff` stopped.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum DiffError {
    /// A search gave up.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Play(#[from] PlayError),
    /// The engine failed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Engine(#[from] EngineClientError),
    /// The other game cannot read a position of the first.
    #[error("the second file cannot read the position {fen} (after {path}): {reason}")]
    #[diagnostic(
        code = "chessalg::inspect::fen",
        help("both games must write positions alike; start from a position both read with `--fen`")
    )]
    Fen {
        /// The position.
        fen: String,
        /// The moves to it.
        path: String,
        /// Why.
        reason: String,
    },
}

/// A position of the walk: the first game's state, the other's (for a rule
/// file), and the moves to it.
#[derive(Clone)]
struct Node {
    first: State,
    other: Option<State>,
    path: Vec<String>,
}

/// The legal moves of each side at a node, by name.
struct Compared {
    first: Vec<String>,
    other: BTreeSet<String>,
    over: (bool, Option<bool>),
    /// The first game's moves in the order of `first`, and the other
    /// game's (a rule file's) by name: what the walk plays on.
    first_moves: Vec<Action>,
    other_moves: Vec<(String, Action)>,
}

/// The walk's state.
struct Walk<'a, 'g> {
    game: &'a Game,
    start: State,
    other: Other<'g>,
    start_fen: String,
    cache: Cache,
    other_cache: Cache,
    report: DiffReport,
    opts: DiffOptions,
    progress: &'a dyn Fn(u64),
}

/// Compares `game` from `start` with `other` (see the module); `progress`
/// is told how many positions have been compared, every so often.
pub fn diff(
    game: &Game,
    start: &State,
    other: Other<'_>,
    opts: DiffOptions,
    progress: &dyn Fn(u64),
) -> Result<DiffReport, DiffError> {
    let mut walk = Walk {
        game,
        start: start.clone(),
        start_fen: game.to_fen(start),
        other,
        cache: Cache::new(),
        other_cache: Cache::new(),
        report: DiffReport::default(),
        opts,
        progress,
    };
    let root = Node {
        first: start.clone(),
        other: match &walk.other {
            Other::Rules(b) => Some(b.from_fen(&walk.start_fen).map_err(|e| DiffError::Fen {
                fen: walk.start_fen.clone(),
                path: "no move".into(),
                reason: e.to_string(),
            })?),
            Other::Engine(_) => None,
        },
        path: Vec::new(),
    };
    // Every position, ply by ply, up to the depth.
    let mut layer = vec![root.clone()];
    let mut seen: HashSet<String> = HashSet::new();
    for ply in 0..=opts.depth {
        let mut next = Vec::new();
        for node in &layer {
            let c = walk.compare(node)?;
            if walk.differs(node, &c, ply) || ply == opts.depth {
                continue;
            }
            for name in c.first.iter().filter(|n| c.other.contains(*n)) {
                let child = walk.child(node, &c, name);
                if seen.insert(game.to_fen(&child.first)) {
                    next.push(child);
                }
            }
        }
        if !walk.report.differences.is_empty() {
            return Ok(walk.report);
        }
        layer = next;
    }
    // Random games deeper, each to its first difference.
    for g in 0..opts.games {
        let mut rng = Rng::new(opts.seed.wrapping_add(g));
        let mut node = root.clone();
        for ply in 0..=opts.max_plies {
            let c = walk.compare(&node)?;
            if walk.differs(&node, &c, ply) {
                break;
            }
            let common: Vec<&String> = c.first.iter().filter(|n| c.other.contains(*n)).collect();
            if common.is_empty() || ply == opts.max_plies {
                break;
            }
            let name = common[rng.below(common.len())].clone();
            node = walk.child(&node, &c, &name);
        }
    }
    Ok(walk.report)
}

impl Walk<'_, '_> {
    /// Both lists of legal moves at `node`.
    fn compare(&mut self, node: &Node) -> Result<Compared, DiffError> {
        self.report.compared += 1;
        if self.report.compared.is_multiple_of(64) {
            (self.progress)(self.report.compared);
        }
        self.report.deepest = self.report.deepest.max(node.path.len());
        let first = legal(self.game, &node.first, &mut self.cache)?;
        let over_first = first.is_none();
        let mut other_moves = Vec::new();
        let (other, over_other) = match (&mut self.other, &node.other) {
            (Other::Rules(b), Some(state)) => {
                let found = legal(b, state, &mut self.other_cache)?;
                let over = found.is_none();
                let (moves, names) = found.unwrap_or_default();
                other_moves = names.iter().cloned().zip(moves).collect();
                (names.into_iter().collect(), Some(over))
            }
            // An engine's perft does not judge endings (a repetition, a
            // king on the hill): where the file says the game is over, the
            // engine is not asked.
            (Other::Engine(_), _) if over_first => {
                self.report.over_unasked += 1;
                (BTreeSet::new(), None)
            }
            (Other::Engine(engine), _) => (engine.legal_moves(&self.start_fen, &node.path)?, None),
            (Other::Rules(_), None) => (BTreeSet::new(), Some(true)),
        };
        let (first_moves, first) = first.unwrap_or_default();
        Ok(Compared {
            first,
            other,
            over: (over_first, over_other),
            first_moves,
            other_moves,
        })
    }

    /// Records a difference at `node` if the lists differ; says whether they did.
    fn differs(&mut self, node: &Node, c: &Compared, ply: usize) -> bool {
        let first: BTreeSet<&String> = c.first.iter().collect();
        let only_first: Vec<String> = c
            .first
            .iter()
            .filter(|n| !c.other.contains(*n))
            .cloned()
            .collect();
        let only_other: Vec<String> = c.other.iter().filter(|n| !first.contains(n)).cloned().collect();
        if only_first.is_empty() && only_other.is_empty() {
            return false;
        }
        let r = &mut self.report;
        let fewest = r.differences.first().map(|d| d.path.len());
        if fewest.is_some_and(|f| ply > f) {
            return true;
        }
        if fewest.is_some_and(|f| ply < f) {
            r.differences.clear();
            r.at_first_ply = 0;
        }
        r.at_first_ply += 1;
        if r.differences.len() < self.opts.keep {
            let san = self.san(&node.path);
            let r = &mut self.report;
            r.differences.push(Difference {
                path: node.path.clone(),
                san,
                fen: self.game.to_fen(&node.first),
                board: self.game.board_text(&node.first),
                only_first,
                only_other,
                over: c.over,
            });
        }
        true
    }

    /// The SAN of the moves of `path` from the start.
    fn san(&mut self, path: &[String]) -> Vec<String> {
        let (game, mut state) = (self.game, self.start.clone());
        let mut out = Vec::new();
        for name in path {
            let Ok(legal) = game.legal_actions(&state, &mut self.cache) else {
                break;
            };
            let names = game.move_names(&state, &legal);
            let Some(i) = names.iter().position(|n| n == name) else {
                break;
            };
            out.push(
                game.san(&state, &legal[i], &legal, &mut self.cache)
                    .unwrap_or_else(|_| name.clone()),
            );
            state = game.play(&state, &legal[i]);
        }
        out
    }

    /// The node after move `name` (which both sides have), played from
    /// the moves `c` found at `node`.
    fn child(&self, node: &Node, c: &Compared, name: &str) -> Node {
        let first = match c.first.iter().position(|n| n == name) {
            Some(i) => self.game.play(&node.first, &c.first_moves[i]),
            None => node.first.clone(),
        };
        let other = match (&self.other, &node.other) {
            (Other::Rules(b), Some(state)) => Some(match c.other_moves.iter().find(|(n, _)| n == name) {
                Some((_, action)) => b.play(state, action),
                None => state.clone(),
            }),
            _ => None,
        };
        let mut path = node.path.clone();
        path.push(name.to_string());
        Node { first, other, path }
    }
}

/// Legal moves with their names (in the same order).
type Named = (Vec<Action>, Vec<String>);

/// The legal moves at `state` and their names, or `None` when the game is
/// over there.
fn legal(game: &Game, state: &State, cache: &mut Cache) -> Result<Option<Named>, PlayError> {
    let moves = game.legal_actions(state, cache)?;
    if game.ending_reason(state, &moves, cache)?.is_some() {
        return Ok(None);
    }
    let names = game.move_names(state, &moves);
    Ok(Some((moves, names)))
}
