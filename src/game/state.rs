//! The state of a game, and moves made on it in place and taken back.
//!
//! A [`State`] is the position, whose turn it is, and the counters the
//! outcome rules and FEN need, with the keys of the positions so far (for
//! repetitions). [`Game::make`] changes a state in place and returns the
//! [`Undo`] that [`Game::unmake`] takes back, so a search walks one state
//! down and up instead of copying it per node; [`Game::play`] is the copying
//! form for callers that keep both states.

use crate::core::{Change, Code, Content, PlayerId};
use crate::engine::{Changes, Position, Version};

use super::{Action, Candidates, Game, PlayError};
use crate::engine::Cache;

/// The state of a game: the position, whose turn, and the counters outcomes need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    position: Position,
    turn: PlayerId,
    quiet_plies: u32,
    fullmove: u32,
    /// How many moves in a row, the last one included, changed nothing on
    /// the board (for `outcome passes N`).
    passes: u32,
    /// Per `outcome when EXPR for N` (in the file's order), in how many
    /// positions in a row, this one included, EXPR had a result.
    runs: Vec<u32>,
    /// The keys of the positions since the game began, this one last.
    history: Vec<u64>,
}

impl State {
    /// A state with no history yet (the game records the position when the turn begins).
    pub(crate) fn new(position: Position, turn: PlayerId, quiet_plies: u32, fullmove: u32) -> State {
        State {
            position,
            turn,
            quiet_plies,
            fullmove,
            passes: 0,
            runs: Vec::new(),
            history: Vec::new(),
        }
    }

    /// How many moves in a row, the last one included, changed nothing on
    /// the board.
    pub fn passes(&self) -> u32 {
        self.passes
    }

    /// Per `outcome when EXPR for N` line (in the file's order), in how many
    /// positions in a row, this one included, EXPR had a result.
    pub fn runs(&self) -> &[u32] {
        &self.runs
    }

    /// The board.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The player to move.
    pub fn turn(&self) -> PlayerId {
        self.turn
    }

    /// Plies since the last move that resets the quiet count (`quiet resets`).
    pub fn quiet_plies(&self) -> u32 {
        self.quiet_plies
    }

    /// The move number, from 1, increased after the last player moves.
    pub fn fullmove(&self) -> u32 {
        self.fullmove
    }

    /// The keys of the positions since the game began (see [`State::key`]), this one last.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// The hash that identifies this position with its player to move.
    pub fn key(&self) -> u64 {
        self.position.content_hash() ^ (self.turn.index() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// A hash of the counters that `outcome passes N` and `outcome when
    /// EXPR for N` read (0 while they are all 0): what a search table adds
    /// to [`State::key`], since the same position may end sooner or later
    /// by them.
    pub fn counters_key(&self) -> u64 {
        let mut key = u64::from(self.passes).wrapping_mul(0x9FB2_1C65_1E98_DF25);
        for (i, &run) in self.runs.iter().enumerate().filter(|&(_, &run)| run > 0) {
            key ^= (u64::from(run) << 8 | i as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        }
        key
    }

    /// Adds this position to the history.
    fn record(&mut self) {
        let key = self.key();
        self.history.push(key);
    }

    /// How often this position (with this player to move) has occurred.
    pub fn occurrences(&self) -> usize {
        let key = self.key();
        self.history.iter().filter(|&&k| k == key).count()
    }
}

thread_local! {
    /// The scratch space of the searches that [`Game::make`] runs for
    /// `outcome when EXPR for N` (which has no cache of the caller's).
    static RUNS_CACHE: std::cell::RefCell<Cache> = std::cell::RefCell::new(Cache::new());
}

/// A move's changes made on the board, before the turn passes.
struct BoardChange {
    /// What the changes replaced.
    moved: Changes,
    /// Whether the move restarts the quiet count.
    reset: bool,
    /// Whether the board is another (else the move was a pass).
    changed: bool,
    /// The position's version before the move.
    version: Version,
}

/// What [`Game::make`] changed, for [`Game::unmake`] to take back.
#[derive(Clone, Debug)]
pub struct Undo {
    /// What the changed squares held before (applied last to first wins).
    restore: Changes,
    /// The position's version before the move.
    version: Version,
    turn: PlayerId,
    quiet_plies: u32,
    fullmove: u32,
    passes: u32,
    runs: Vec<u32>,
    history: usize,
}

impl Game {
    /// Makes `action` on `state`: the board changes, the turn passes, the
    /// counters move on, the next player's expiring marks are cleared and
    /// the position is recorded.
    pub fn make(&self, state: &mut State, action: &Action) -> Undo {
        let made = self.change_board(state, action);
        self.pass_turn(state, made)
    }

    /// Makes `action`'s changes on the board alone (the turn does not pass).
    fn change_board(&self, state: &mut State, action: &Action) -> BoardChange {
        let reset = self.resets_quiet(state, action);
        let version = state.position.version;
        let hash = state.position.content_hash();
        let moved = state.position.apply(action.changes());
        BoardChange {
            changed: state.position.content_hash() != hash,
            moved,
            reset,
            version,
        }
    }

    /// Makes `action`, one of `candidates`, on `state` if it is legal there
    /// and returns how to take it back; leaves `state` as it was and returns
    /// `None` if it is not (a royal piece of the mover left where another
    /// player's move could change its square). The test is the one
    /// [`Game::legal_actions`] applies, made on the board before the turn passes.
    pub fn try_make(
        &self,
        state: &mut State,
        action: &Action,
        candidates: &Candidates,
        cache: &mut Cache,
    ) -> Result<Option<Undo>, PlayError> {
        if candidates.tested {
            return Ok(Some(self.make(state, action)));
        }
        let made = self.change_board(state, action);
        match self.royal_attacked(&state.position, state.turn, cache) {
            Ok(false) => Ok(Some(self.pass_turn(state, made))),
            other => {
                state.position.undo(&made.moved, made.version);
                other.map(|_| None)
            }
        }
    }

    /// Whether `action`'s changes leave no royal piece of the player to move
    /// where another player's move could change its square (the board is
    /// changed to test it and changed back; the turn does not pass).
    pub(super) fn leaves_royal_safe(
        &self,
        state: &mut State,
        action: &Action,
        cache: &mut Cache,
    ) -> Result<bool, PlayError> {
        let version = state.position.version;
        let moved = state.position.apply(action.changes());
        let attacked = self.royal_attacked(&state.position, state.turn, cache);
        state.position.undo(&moved, version);
        Ok(!attacked?)
    }

    /// The rest of a move once its changes are made: the turn passes, the
    /// counters move on, the next player's expiring marks are cleared and
    /// the position is recorded.
    fn pass_turn(&self, state: &mut State, made: BoardChange) -> Undo {
        let BoardChange {
            moved,
            reset,
            changed,
            version,
        } = made;
        let (turn, quiet_plies, fullmove, passes, history) = (
            state.turn,
            state.quiet_plies,
            state.fullmove,
            state.passes,
            state.history.len(),
        );
        let next = self.next_turn(state.turn);
        state.quiet_plies = if reset { 0 } else { state.quiet_plies + 1 };
        state.passes = if changed { 0 } else { state.passes + 1 };
        if next.index() == 0 {
            state.fullmove += 1;
        }
        state.turn = next;
        // Undoing applies the expiry's list first and the move's last, so
        // that a square both touched gets back what it held before the move.
        let mut expired = self.expire_marks(state);
        let restore = if expired.is_empty() {
            moved
        } else {
            expired.extend(moved);
            expired
        };
        let runs = self.count_runs(state);
        state.record();
        Undo {
            restore,
            version,
            turn,
            quiet_plies,
            fullmove,
            passes,
            runs,
            history,
        }
    }

    /// Takes back the move [`Game::make`] made.
    pub fn unmake(&self, state: &mut State, undo: Undo) {
        state.position.undo(&undo.restore, undo.version);
        state.turn = undo.turn;
        state.quiet_plies = undo.quiet_plies;
        state.fullmove = undo.fullmove;
        state.passes = undo.passes;
        state.runs = undo.runs;
        state.history.truncate(undo.history);
    }

    /// The state after `action` (a copy; see [`Game::make`]).
    pub fn play(&self, state: &State, action: &Action) -> State {
        let mut next = state.clone();
        self.make(&mut next, action);
        next
    }

    /// Clears the expiring marks of the player about to move and records the
    /// position: how the first turn begins.
    pub(super) fn begin(&self, state: &mut State) {
        self.expire_marks(state);
        state.runs = vec![0; self.when_for_patterns.len()];
        self.count_runs(state);
        state.record();
    }

    /// Moves on the runs of `outcome when EXPR for N` (see [`State::runs`])
    /// to the position now on the board; returns the runs before. A search
    /// whose limits stop it counts as no result (the pattern is a guard's
    /// test of one position, far below any limit a game sets).
    fn count_runs(&self, state: &mut State) -> Vec<u32> {
        if self.when_for_patterns.is_empty() {
            return Vec::new();
        }
        let before = state.runs.clone();
        RUNS_CACHE.with_borrow_mut(|cache| {
            for (run, &pattern) in state.runs.iter_mut().zip(&self.when_for_patterns) {
                let holds = (self.engine)
                    .pattern_holds(pattern, state.turn.index(), &state.position, cache, &self.limits)
                    .unwrap_or(false);
                *run = if holds { *run + 1 } else { 0 };
            }
        });
        before
    }

    /// Clears the expiring marks of the pieces of the player to move;
    /// returns what the changed squares held.
    fn expire_marks(&self, state: &mut State) -> Changes {
        let expiring = self.expiring;
        let carries = |c: &Code| crate::core::as_piece(*c).is_some_and(|(_, m)| !m.meet(expiring).is_empty());
        if expiring.is_empty() || !state.position.cells.iter().any(carries) {
            return Changes::new();
        }
        let changes: Vec<Change> = state
            .position
            .squares()
            .filter_map(|(at, content)| match content {
                Content::Piece(p, m)
                    if self.info[p.index()].owner == Some(state.turn)
                        && !m.meet(self.expiring).is_empty() =>
                {
                    Some(Change {
                        at,
                        content: Content::Piece(p, m.without(self.expiring)),
                    })
                }
                _ => None,
            })
            .collect();
        if changes.is_empty() {
            return Changes::new();
        }
        state.position.apply(&changes)
    }

    /// Whether `action` restarts the quiet count: it moves a piece `quiet
    /// resets` names, or (`capture`) leaves an opponent fewer pieces. Only the
    /// changed squares can tell, so only they are looked at.
    fn resets_quiet(&self, state: &State, action: &Action) -> bool {
        let r = &self.quiet_resets;
        if let Some(from) = action.from()
            && let Content::Piece(p, _) = state.position.get(from)
            && r.pieces.contains(&p)
        {
            return true;
        }
        // How many of the changed squares hold a piece `counts` before and after.
        let count = |counts: &dyn Fn(PlayerId) -> bool| {
            let of = |c: Content| matches!(c, Content::Piece(p, _) if self.info[p.index()].owner.is_some_and(counts));
            let before = action
                .changes()
                .iter()
                .filter(|c| of(state.position.get(c.at)))
                .count();
            let after = action.changes().iter().filter(|c| of(c.content)).count();
            (before, after)
        };
        if r.capture {
            let (before, after) = count(&|o| o != state.turn);
            if after < before {
                return true;
            }
        }
        if r.gain {
            let (before, after) = count(&|o| o == state.turn);
            if after > before {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use crate::decl::Spec;
    use crate::engine::Cache;
    use crate::game::Game;
    use crate::source::Source;

    fn game(path: &str) -> Game {
        let text = std::fs::read_to_string(path).unwrap();
        let (spec, _) = Spec::load(&Source::new(path, text)).unwrap();
        Game::new(&spec).unwrap()
    }

    /// Random games made move by move in place, then taken back one by one:
    /// every state on the way back equals the one recorded on the way in.
    #[test]
    fn make_then_unmake_restores_every_state() {
        for path in ["rules/chess.alg", "rules/irreversible.alg", "rules/tictactoe.alg"] {
            let game = game(path);
            let mut cache = Cache::new();
            for seed in 1..=4 {
                let mut rng: u64 = seed;
                let mut state = game.initial();
                let mut trail = Vec::new();
                for _ in 0..80 {
                    let legal = game.legal_actions(&state, &mut cache).unwrap();
                    if legal.is_empty() {
                        break;
                    }
                    rng = rng
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let action = legal[(rng >> 33) as usize % legal.len()].clone();
                    let before = state.clone();
                    let undo = game.make(&mut state, &action);
                    assert_eq!(state.history().len(), before.history().len() + 1);
                    trail.push((before, undo));
                }
                while let Some((before, undo)) = trail.pop() {
                    game.unmake(&mut state, undo);
                    assert_eq!(state, before, "{path}: unmake did not restore the state");
                }
                assert_eq!(state, game.initial());
            }
        }
    }

    /// The candidates a search tests one by one are the legal moves: along
    /// random games of royal-safe variants, those that `try_make` accepts
    /// are exactly `legal_actions`, in the same order, and `any_legal` agrees.
    #[test]
    fn candidates_that_try_make_accepts_are_the_legal_moves() {
        for path in [
            "rules/chess.alg",
            "rules/irreversible.alg",
            "rules/crazyhouse.alg",
            "rules/racingkings.alg",
            "rules/horde.alg",
        ] {
            let game = game(path);
            let mut cache = Cache::new();
            let mut rng: u64 = 7;
            let mut state = game.initial();
            for _ in 0..60 {
                let legal = game.legal_actions(&state, &mut cache).unwrap();
                let moves = game.candidate_actions(&state, &mut cache).unwrap();
                let before = state.clone();
                let mut accepted = Vec::new();
                for a in &moves.actions {
                    if let Some(undo) = game.try_make(&mut state, a, &moves, &mut cache).unwrap() {
                        game.unmake(&mut state, undo);
                        accepted.push(a.clone());
                    }
                    assert_eq!(state, before, "{path}: a tested move left the state changed");
                }
                assert_eq!(accepted, legal, "{path}: at {}", game.to_fen(&state));
                assert_eq!(
                    game.any_legal(&mut state, &moves, &mut cache).unwrap(),
                    !legal.is_empty()
                );
                if legal.is_empty() {
                    break;
                }
                rng = rng
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                state = game.play(&state, &legal[(rng >> 33) as usize % legal.len()]);
            }
        }
    }

    /// The quiet count restarts on a capture or a pawn move and grows otherwise,
    /// as `quiet resets capture ♙ ♟` in rules/chess.alg says.
    #[test]
    fn the_quiet_count_follows_the_rule_file() {
        let game = game("rules/chess.alg");
        let mut cache = Cache::new();
        let state = game.from_fen("4k3/8/8/3p4/4P3/8/8/4K2R w K - 7 30").unwrap();
        let legal = game.legal_actions(&state, &mut cache).unwrap();
        let after = |name: &str| {
            let a = legal
                .iter()
                .find(|a| game.action_name(&state, a) == name)
                .unwrap();
            game.play(&state, a).quiet_plies()
        };
        assert_eq!(after("e4d5"), 0, "a capture");
        assert_eq!(after("e4e5"), 0, "a pawn move");
        assert_eq!(after("h1h5"), 8, "a quiet rook move");
    }
}
