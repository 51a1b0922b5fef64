//! The policies a rule file declares for its game (`legality`, `turns`;
//! see `decl/`), with their defaults: which moves are legal and how the turn
//! passes.

use crate::core::PlayerId;

use super::Game;

pub use crate::decl::{Legality, TurnOrder};

impl Game {
    /// The player who moves after `player`.
    pub(super) fn next_turn(&self, player: PlayerId) -> PlayerId {
        player.next(self.players.len())
    }

    /// How the turn passes.
    pub fn turn_order(&self) -> TurnOrder {
        self.turn_order
    }

    /// Which moves are legal.
    pub fn legality(&self) -> Legality {
        self.legality
    }
}
