//! The policies a rule file declares for its game, with their defaults:
//! which moves are legal and how the turn passes.

use crate::core::PlayerId;

use super::Game;

/// Which of a player's moves are legal (`legality` in a rule file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legality {
    /// Every move the rules give (`legality free`; the default without royal pieces).
    Free,
    /// The moves after which no royal piece of the mover stands where an
    /// opponent's move could change its square (`legality royal_safe`; the
    /// default when the file declares a royal piece).
    RoyalSafe,
}

/// How the turn passes (`turns` in a rule file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnOrder {
    /// The players move one after another in `players` order (the default).
    Alternate,
    /// As `Alternate`, and a player with no legal move passes as long as
    /// another player has one (`turns alternate passing`, as in Othello).
    AlternatePassing,
}

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
