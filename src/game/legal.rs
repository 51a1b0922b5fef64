//! Legality: the moves of the player to move that leave none of their royal
//! pieces where an opponent's move could change its square, and the
//! `attacked` test the engine asks the game to answer.

use crate::core::{Content, Coord};
use std::ops::ControlFlow;

use crate::core::PieceId;
use crate::engine::{self, BoardView, Cache, EngineError, Oracle, Position};
use crate::program::Program;

use super::{Action, Game, PlayError, PlayerId, State};

impl Game {
    /// Every legal move of the player to move, in a deterministic order.
    pub fn legal_actions(&self, state: &State, cache: &mut Cache) -> Result<Vec<Action>, PlayError> {
        let mut legal = Vec::new();
        self.each_legal(state, cache, |o| {
            legal.push(Action {
                changes: o.changes.to_vec(),
                from: o.poi_from,
                to: o.poi_to,
            });
            ControlFlow::Continue(())
        })?;
        Ok(legal)
    }

    /// How many legal moves the player to move has (what perft counts at its
    /// last ply), without building them.
    pub fn count_legal(&self, state: &State, cache: &mut Cache) -> Result<u64, PlayError> {
        let mut n = 0;
        self.each_legal(state, cache, |_| {
            n += 1;
            ControlFlow::Continue(())
        })?;
        Ok(n)
    }

    /// Whether the player to move has a legal move; stops at the first one.
    pub fn has_legal(&self, state: &State, cache: &mut Cache) -> Result<bool, PlayError> {
        let mut any = false;
        self.each_legal(state, cache, |_| {
            any = true;
            ControlFlow::Break(())
        })?;
        Ok(any)
    }

    /// Calls `found` with each legal move, in the order the engine found them,
    /// until it says to stop.
    ///
    /// Each pseudo-legal move is made on a second board, the mover's royal
    /// pieces tested there, and taken back: no position is built for the
    /// test. Which opponent pieces could reach a royal square that does not
    /// move is worked out once per position (`Suspects`), not per move.
    fn each_legal(
        &self,
        state: &State,
        cache: &mut Cache,
        mut found: impl FnMut(&engine::Outcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), PlayError> {
        let oracle = Attacks::new(self, state.turn);
        let mut aux = cache.take_aux();
        let result = (|| {
            let royals = self.royal_squares(&state.position, state.turn);
            aux.load(&state.position, &self.programs[state.turn]);
            let opponents: Vec<&Program> = (0..self.programs.len())
                .filter(|&q| q != state.turn)
                .map(|q| &self.programs[q])
                .collect();
            let fixed: Vec<Vec<engine::Suspects>> = royals
                .iter()
                .map(|&r| opponents.iter().map(|p| engine::suspects(p, &aux, r)).collect())
                .collect();
            let outcomes = engine::search_with(
                &self.programs[state.turn],
                &state.position,
                cache,
                &self.limits,
                &oracle,
            )?;
            let mut tests: Vec<(Coord, Option<usize>)> = Vec::new();
            let mut written: Vec<Coord> = Vec::new();
            for o in outcomes.iter() {
                tests.clear();
                for (i, &r) in royals.iter().enumerate() {
                    if !o.changes.iter().any(|c| c.at == r) {
                        tests.push((r, Some(i)));
                    }
                }
                for c in o.changes {
                    if matches!(c.content, Content::Piece(p, _) if self.is_royal_of(p, state.turn)) {
                        tests.push((c.at, None));
                    }
                }
                if tests.is_empty() {
                    if found(&o).is_break() {
                        return Ok(());
                    }
                    continue;
                }
                // Opponent pieces this move writes could be new attackers.
                written.clear();
                written.extend(
                    o.changes
                        .iter()
                        .filter(|c| self.is_opponent_piece(c.content, state.turn))
                        .map(|c| c.at),
                );
                let mark = aux.apply(o.changes, &self.limits)?;
                let mut safe = true;
                'test: for &(r, known) in &tests {
                    for (k, program) in opponents.iter().enumerate() {
                        let mut who = match known {
                            Some(i) if written.is_empty() => std::borrow::Cow::Borrowed(&fixed[i][k]),
                            Some(i) => std::borrow::Cow::Owned(fixed[i][k].clone()),
                            None => std::borrow::Cow::Owned(engine::suspects(program, &aux, r)),
                        };
                        for &w in &written {
                            who.to_mut().add_square(program, &aux, w, r);
                        }
                        if engine::search_changes_loaded(
                            program,
                            &mut aux,
                            &self.limits,
                            &engine::NoAttacks,
                            r,
                            &who,
                        )? {
                            safe = false;
                            break 'test;
                        }
                    }
                }
                aux.undo(mark);
                if safe && found(&o).is_break() {
                    return Ok(());
                }
            }
            Ok(())
        })();
        cache.put_aux(aux);
        result
    }

    fn is_opponent_piece(&self, content: Content, player: PlayerId) -> bool {
        matches!(content, Content::Piece(p, _) if self.info[p.index()].owner.is_some_and(|o| o != player))
    }

    fn is_royal_of(&self, piece: PieceId, player: PlayerId) -> bool {
        let info = &self.info[piece.index()];
        info.royal && info.owner == Some(player)
    }

    /// The squares of `player`'s royal pieces.
    fn royal_squares(&self, position: &Position, player: PlayerId) -> Vec<Coord> {
        position
            .squares()
            .filter_map(|(at, c)| match c {
                Content::Piece(p, _) if self.is_royal_of(p, player) => Some(at),
                _ => None,
            })
            .collect()
    }

    /// Whether a royal piece of `player` stands where an opponent's move could change its square.
    pub fn royal_attacked(
        &self,
        position: &Position,
        player: PlayerId,
        cache: &mut Cache,
    ) -> Result<bool, PlayError> {
        let royals = self.royal_squares(position, player);
        for at in royals {
            if self.attacked(position, at, player, cache)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether some opponent of `player` has a move that changes square `at`.
    /// (Inside this test, `attacked` in the opponents' rules is false.)
    pub fn attacked(
        &self,
        position: &Position,
        at: Coord,
        player: PlayerId,
        cache: &mut Cache,
    ) -> Result<bool, PlayError> {
        self.attacked_with(|cache, program| cache.load(position, program), at, player, cache)
    }

    /// [`Game::attacked`] on the board another search is at.
    fn attacked_on(
        &self,
        view: BoardView<'_>,
        at: Coord,
        player: PlayerId,
        cache: &mut Cache,
    ) -> Result<bool, PlayError> {
        self.attacked_with(|cache, program| cache.load_view(view, program), at, player, cache)
    }

    /// Whether an opponent of `player` has a move that changes `at`, on the
    /// position `load` puts in the cache for each opponent's program.
    fn attacked_with(
        &self,
        load: impl Fn(&mut Cache, &Program),
        at: Coord,
        player: PlayerId,
        cache: &mut Cache,
    ) -> Result<bool, PlayError> {
        for (q, program) in self.programs.iter().enumerate() {
            if q == player {
                continue;
            }
            load(cache, program);
            let who = engine::suspects(program, cache, at);
            if engine::search_changes_loaded(program, cache, &self.limits, &engine::NoAttacks, at, &who)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The `attacked` test of the engine, answered with the opponents' moves.
pub(super) struct Attacks<'g> {
    game: &'g Game,
    attacker_of: PlayerId,
}

impl<'g> Attacks<'g> {
    /// The oracle for searches of `attacker_of`'s moves in `game`.
    pub(super) fn new(game: &'g Game, attacker_of: PlayerId) -> Self {
        Attacks { game, attacker_of }
    }
}

thread_local! {
    /// Scratch for `attacked` tests made in the middle of another search.
    static ORACLE_CACHE: std::cell::RefCell<Cache> = std::cell::RefCell::new(Cache::new());
}

impl Oracle for Attacks<'_> {
    fn attacked(&self, view: BoardView<'_>, at: Coord) -> Result<bool, EngineError> {
        ORACLE_CACHE.with(|cache| {
            // Attack tests never nest (inside one, `attacked` is false), so
            // the cache is free; a fresh one serves if it ever is not.
            match cache.try_borrow_mut() {
                Ok(mut c) => self.game.attacked_on(view, at, self.attacker_of, &mut c),
                Err(_) => self
                    .game
                    .attacked_on(view, at, self.attacker_of, &mut Cache::new()),
            }
            .map_err(|PlayError::Engine(e)| e)
        })
    }
}
