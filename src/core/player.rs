//! Players, by their place in the turn order.

use std::fmt;

/// A player: their place in the `players` declaration, from 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlayerId(u16);

impl PlayerId {
    /// The first player.
    pub const FIRST: PlayerId = PlayerId(0);

    /// The player at `index` in the turn order.
    pub fn new(index: usize) -> PlayerId {
        PlayerId(u16::try_from(index).expect("fewer than 65536 players"))
    }

    /// The place in the turn order, as an index into per-player tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The player after this one among `count` players, cyclically.
    pub fn next(self, count: usize) -> PlayerId {
        PlayerId::new((self.index() + 1) % count.max(1))
    }
}

impl fmt::Display for PlayerId {
    /// `player 1` for the first player.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "player {}", self.0 + 1)
    }
}

impl<T> std::ops::Index<PlayerId> for [T] {
    type Output = T;
    fn index(&self, p: PlayerId) -> &T {
        &self[p.index()]
    }
}

impl<T> std::ops::Index<PlayerId> for Vec<T> {
    type Output = T;
    fn index(&self, p: PlayerId) -> &T {
        &self[p.index()]
    }
}

impl<T> std::ops::IndexMut<PlayerId> for Vec<T> {
    fn index_mut(&mut self, p: PlayerId) -> &mut T {
        &mut self[p.index()]
    }
}
