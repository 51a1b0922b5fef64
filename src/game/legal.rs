//! Legality: the moves of the player to move that the game's legality
//! policy allows (under royal-safe legality, those that leave none of their
//! royal pieces where an opponent's move could change its square), and the
//! `attacked` test.

use std::ops::ControlFlow;

use crate::core::{Content, Coord, PieceId};
use crate::engine::{Cache, Outcome, Position};

use super::{Action, Game, Legality, PlayError, PlayerId, State};

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
    /// until it says to stop. Under royal-safe legality the engine keeps only
    /// the moves after which no royal piece of the mover can be taken.
    fn each_legal(
        &self,
        state: &State,
        cache: &mut Cache,
        mut found: impl FnMut(&Outcome<'_>) -> ControlFlow<()>,
    ) -> Result<(), PlayError> {
        let turn = state.turn;
        let safe = self.legality == Legality::RoyalSafe;
        self.engine
            .each_move(turn, &state.position, safe, cache, &self.limits, &mut found)?;
        Ok(())
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
        Ok(self
            .engine
            .can_change(player, position, at, cache, &self.limits)?)
    }
}
