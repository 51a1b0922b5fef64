//! Pruning for "can any move change this square?": the pieces of interest
//! whose reach covers the square (`Suspects`), from the reach analysis.

use super::Compiled;
use super::search::Scratch;
use crate::core::Coord;
use crate::program::BindId;

/// The pieces of interest that could change square `at` of the loaded
/// board: each `%p:` of `program` with a square it binds whose piece can
/// reach `at` (by the reach analysis of [`super::reach`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Suspects {
    pub(super) binds: Vec<(BindId, Coord)>,
}

impl Suspects {
    /// Adds the pieces of interest that could change `at` from `square` (a
    /// square that a move wrote a piece on).
    pub(crate) fn add_square(&mut self, program: Compiled<'_>, cache: &Scratch, square: Coord, at: Coord) {
        let code = cache.board.get(square.x, square.y);
        for (id, codes) in program.prog.binds.iter().enumerate() {
            let reaches = program
                .reach
                .get(id)
                .is_none_or(|r| r.contains(at.x - square.x, at.y - square.y));
            if reaches && codes.contains(&code) && !self.binds.contains(&(BindId(id as u32), square)) {
                self.binds.push((BindId(id as u32), square));
            }
        }
    }
}

/// The suspects for square `at` on the board loaded in `cache`.
pub(crate) fn suspects(program: Compiled<'_>, cache: &Scratch, at: Coord) -> Suspects {
    let board = &cache.board;
    let mut out = Suspects::default();
    for (id, codes) in program.prog.binds.iter().enumerate() {
        let reach = program.reach.get(id);
        for &code in codes.iter() {
            let mut after = None;
            while let Some(cell) = board.next_with(code, after) {
                after = Some(cell);
                let (x, y) = board.coords(cell);
                if reach.is_none_or(|r| r.contains(at.x - x, at.y - y)) {
                    out.binds.push((BindId(id as u32), Coord::new(x, y)));
                }
            }
        }
    }
    out
}
