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

    /// The shortcuts the AI's search may take here: what the file says
    /// (`search`), else reductions on, and null-move pruning on unless the
    /// game is won by completing a pattern, where the threat that passing
    /// ignores is the whole game.
    pub fn search_options(&self) -> SearchOptions {
        let file = self.spec.search;
        SearchOptions {
            null_move: file.null_move.unwrap_or(!self.wins_by_pattern()),
            reductions: file.reductions.unwrap_or(true),
        }
    }
}

/// The shortcuts the AI's search may take in a game (see [`Game::search_options`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Null-move pruning: a position where passing would already refute the
    /// opponent's last move is not searched further.
    pub null_move: bool,
    /// Late-move reductions: quiet moves ordered late are searched a ply
    /// less deep, and again at full depth if they turn out better.
    pub reductions: bool,
}
