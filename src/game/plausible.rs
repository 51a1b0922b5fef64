//! Whether a position could arise in a game, as far as its rule file tells:
//! the checks `--fen` makes before it loads a position (`--lenient` skips
//! them).

use crate::core::{Content, PieceId};
use crate::engine::Cache;

use super::{Game, Prospects, State};

impl Game {
    /// What makes `state`'s board one the game could not reach: more of a
    /// royal piece than the initial position has, or a piece on a square
    /// where no move could have put it and where it does not start. Each
    /// reason is one line; none when nothing was found.
    pub fn implausible(&self, state: &State, cache: &mut Cache) -> Vec<String> {
        let mut doubts = Vec::new();
        let board = state.position();
        let initial = self.initial.position();
        let count = |p: PieceId, squares: &mut dyn Iterator<Item = Content>| {
            squares
                .filter(|c| matches!(c, Content::Piece(q, _) if *q == p))
                .count()
        };
        for (i, info) in self.info.iter().enumerate() {
            let p = PieceId(i as u16);
            if !info.royal {
                continue;
            }
            let (now, start) = (
                count(p, &mut board.squares().map(|(_, c)| c)),
                count(p, &mut initial.squares().map(|(_, c)| c)),
            );
            if now > start {
                doubts.push(format!(
                    "{now} of the royal piece {} where the game starts with {start}",
                    self.pieces.symbol(p)
                ));
            }
        }
        // Where moves leave pieces, with every capture tried at once (a
        // search per square: fast on any board).
        let Ok(prospects) = Prospects::build(self, cache, false) else {
            return doubts;
        };
        for (at, content) in board.squares() {
            let Content::Piece(p, _) = content else { continue };
            let starts_there = matches!(initial.get(at), Content::Piece(q, _) if q == p);
            if !starts_there && prospects.arrives(self, p, at) == Some(false) {
                doubts.push(format!(
                    "{} on {}: no move of the game leaves it there, and it does not start there",
                    self.pieces.symbol(p),
                    self.square_label(at)
                ));
            }
        }
        doubts
    }
}
