//! Legality: the moves of the player to move that the game's legality
//! policy allows (under royal-safe legality, those that leave none of their
//! royal pieces where an opponent's move could change its square), and the
//! `attacked` test.

use std::ops::ControlFlow;

use crate::core::{Content, Coord, PieceId};
use crate::engine::{Cache, Position, Successor};

use super::{Action, Game, Legality, PlayError, State, TurnOrder};
use crate::core::PlayerId;

impl Game {
    /// Every legal move of the player to move, in a deterministic order.
    pub fn legal_actions(&self, state: &State, cache: &mut Cache) -> Result<Vec<Action>, PlayError> {
        // Room for a usual position's moves, so that the list grows once.
        let mut legal = Vec::with_capacity(32);
        // A notation that writes every landing square needs the paths.
        cache.trace_paths(self.is_numbered());
        let result = self.each_legal(state, cache, |o| {
            legal.push(match o {
                Some(o) => Action::found(o),
                None => Action::pass(),
            });
            ControlFlow::Continue(())
        });
        cache.trace_paths(false);
        result?;
        Ok(legal)
    }

    /// The moves a search tries at `state`, cheaper than [`Game::legal_actions`]
    /// where it can be: under royal-safe legality (and a turn order without
    /// passes) every move the rules give, untested, for [`Game::try_make`] to
    /// test one by one as the search reaches it; otherwise the legal moves.
    pub fn candidate_actions(&self, state: &State, cache: &mut Cache) -> Result<Candidates, PlayError> {
        if self.legality != Legality::RoyalSafe || self.turn_order == TurnOrder::AlternatePassing {
            return Ok(Candidates {
                actions: self.legal_actions(state, cache)?,
                tested: true,
            });
        }
        let mut actions = Vec::with_capacity(64);
        self.engine.each_move(
            state.turn().index(),
            state.position(),
            false,
            cache,
            &self.limits,
            &mut |o| {
                actions.push(Action::found(o));
                ControlFlow::Continue(())
            },
        )?;
        Ok(Candidates {
            actions,
            tested: false,
        })
    }

    /// Every move the rules give the player to move, before the legality
    /// policy (under royal-safe legality, also those that leave a royal
    /// piece attacked).
    pub fn generated_actions(&self, state: &State, cache: &mut Cache) -> Result<Vec<Action>, PlayError> {
        traced_actions(cache, |cache, found| {
            (self.engine).each_move(
                state.turn().index(),
                state.position(),
                false,
                cache,
                &self.limits,
                found,
            )
        })
    }

    /// The results of `program` (part of a player's moves, compiled for
    /// this game) run for the player to move at `state`, as moves.
    pub fn program_actions(
        &self,
        program: &crate::program::Program,
        state: &State,
        cache: &mut Cache,
    ) -> Result<Vec<Action>, PlayError> {
        traced_actions(cache, |cache, found| {
            let side = state.turn().index();
            (self.engine).each_result(program, side, state.position(), cache, &self.limits, found)
        })
    }

    /// The moves of players other than `player` that change square `at` of
    /// `position` (what makes a piece there attacked), with their movers.
    pub fn moves_changing(
        &self,
        position: &Position,
        at: Coord,
        player: PlayerId,
        cache: &mut Cache,
    ) -> Result<Vec<(PlayerId, Action)>, PlayError> {
        let mut out = Vec::new();
        for side in (0..self.engine.sides()).filter(|&s| s != player.index()) {
            self.engine
                .each_move(side, position, false, cache, &self.limits, &mut |o| {
                    if o.changes.iter().any(|c| c.at == at) {
                        out.push((PlayerId::new(side), Action::found(o)));
                    }
                    ControlFlow::Continue(())
                })?;
        }
        Ok(out)
    }

    /// How many legal moves the player to move has (what perft counts at its
    /// last ply), without building them.
    pub fn count_legal(&self, state: &State, cache: &mut Cache) -> Result<u64, PlayError> {
        let safe = self.legality == Legality::RoyalSafe;
        let n = self
            .engine
            .count_moves(state.turn().index(), state.position(), safe, cache, &self.limits)?;
        if n == 0
            && self.turn_order == TurnOrder::AlternatePassing
            && self.another_can_move(state.position(), state.turn(), cache)?
        {
            // The only legal move is a pass.
            return Ok(1);
        }
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
    /// until it says to stop; `None` is a pass. Under royal-safe legality the
    /// engine keeps only the moves after which no royal piece of the mover
    /// can be taken; under a passing turn order a player without a move
    /// passes while another player has one.
    fn each_legal(
        &self,
        state: &State,
        cache: &mut Cache,
        mut found: impl FnMut(Option<&Successor<'_>>) -> ControlFlow<()>,
    ) -> Result<(), PlayError> {
        let mut any = false;
        self.each_move(state.turn(), state.position(), cache, &mut |s| {
            any = true;
            found(Some(s))
        })?;
        if !any
            && self.turn_order == TurnOrder::AlternatePassing
            && self.another_can_move(state.position(), state.turn(), cache)?
        {
            let _ = found(None);
        }
        Ok(())
    }

    /// Calls `found` with each move of `player` on `position` that the legality policy allows.
    fn each_move(
        &self,
        player: PlayerId,
        position: &Position,
        cache: &mut Cache,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), PlayError> {
        let safe = self.legality == Legality::RoyalSafe;
        self.engine
            .each_move(player.index(), position, safe, cache, &self.limits, found)?;
        Ok(())
    }

    /// Whether a player other than `mover` has a legal move on `position`
    /// (under a passing turn order, whether `mover` without a move passes).
    pub(super) fn another_can_move(
        &self,
        position: &Position,
        mover: PlayerId,
        cache: &mut Cache,
    ) -> Result<bool, PlayError> {
        for q in (0..self.players.len()).map(PlayerId::new) {
            if q == mover {
                continue;
            }
            let mut any = false;
            self.each_move(q, position, cache, &mut |_| {
                any = true;
                ControlFlow::Break(())
            })?;
            if any {
                return Ok(true);
            }
        }
        Ok(false)
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

    /// The squares of `player`'s royal pieces that an opponent's move could
    /// change (a king in check), as boards mark them.
    pub fn attacked_royals(
        &self,
        position: &Position,
        player: PlayerId,
        cache: &mut Cache,
    ) -> Result<Vec<Coord>, PlayError> {
        let mut attacked = Vec::new();
        for at in self.royal_squares(position, player) {
            if self.attacked(position, at, player, cache)? {
                attacked.push(at);
            }
        }
        Ok(attacked)
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
            .can_change(player.index(), position, at, cache, &self.limits)?)
    }
}

/// The results a search gives its callback, as moves with their paths.
fn traced_actions(
    cache: &mut Cache,
    search: impl FnOnce(
        &mut Cache,
        &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Result<(), crate::engine::EngineError>,
) -> Result<Vec<Action>, PlayError> {
    let mut actions = Vec::new();
    cache.trace_paths(true);
    let result = search(cache, &mut |o| {
        actions.push(Action::found(o));
        ControlFlow::Continue(())
    });
    cache.trace_paths(false);
    result?;
    Ok(actions)
}

/// The moves a search tries at one position (see [`Game::candidate_actions`]).
#[derive(Clone, Debug)]
pub struct Candidates {
    /// The moves, in the engine's order.
    pub actions: Vec<Action>,
    /// Whether they are known to be legal; if not, [`Game::try_make`] tests each.
    pub tested: bool,
}

impl Candidates {
    /// Moves known to be legal (from [`Game::legal_actions`]).
    pub fn legal(actions: Vec<Action>) -> Candidates {
        Candidates {
            actions,
            tested: true,
        }
    }
}

impl Game {
    /// Whether one of `candidates` is legal at `state` (tested in order, up to the first legal one).
    pub fn any_legal(
        &self,
        state: &mut State,
        candidates: &Candidates,
        cache: &mut Cache,
    ) -> Result<bool, PlayError> {
        if candidates.tested {
            return Ok(!candidates.actions.is_empty());
        }
        for a in &candidates.actions {
            if self.leaves_royal_safe(state, a, cache)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
