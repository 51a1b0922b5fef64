//! The engine's working copy of a position: a grid edited in place with an
//! undo log, a bit set and a count per content so the search finds the
//! squares holding a piece without scanning, and an incremental hash.

use crate::core::{Code, OFF};

use crate::core::{Change, Content, Coord};
use crate::engine::hash;
use crate::engine::position::Position;

/// The flag of an undo-log entry that restores a tally slot, not a cell.
const TALLY: u32 = 1 << 31;

/// One undo-log entry: the cell (or `TALLY | slot`), what it held, and the hash before.
#[derive(Clone, Copy, Debug)]
struct Undo {
    cell: u32,
    old: Code,
    hash: u64,
}

/// A write left the largest grid the limits allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooLarge;

/// A position being searched.
#[derive(Clone, Debug, Default)]
pub(crate) struct Board {
    x0: i32,
    y0: i32,
    width: u32,
    height: u32,
    cells: Vec<Code>,
    /// How many `u64` words one content's bit set takes.
    words: usize,
    /// One bit set per content code, `words` words each (code 0 unused).
    bits: Vec<u64>,
    counts: Vec<u32>,
    /// How many of each piece each box holds, by tally slot.
    tallies: Vec<u16>,
    codes: usize,
    /// The content hash, as [`Position::content_hash`].
    pub(crate) hash: u64,
    log: Vec<Undo>,
    /// Scratch for [`Board::diff`]: a generation stamp per cell.
    stamps: Vec<u32>,
    generation: u32,
    firsts: Vec<(u32, Code)>,
}

impl Board {
    /// The grid's width and height (at least the bounding box of its squares).
    pub(crate) fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Loads `pos`, ready for a program mentioning codes below `codes`.
    pub(crate) fn load(&mut self, pos: &Position, codes: usize) {
        self.x0 = pos.x0;
        self.y0 = pos.y0;
        self.width = pos.width;
        self.height = pos.height;
        self.cells.clear();
        self.cells.extend_from_slice(&pos.cells);
        self.tallies.clear();
        self.tallies.extend_from_slice(&pos.tallies);
        let top = pos.cells.iter().copied().max().unwrap_or(0) as usize;
        self.codes = codes.max(top + 1);
        self.hash = pos.hash;
        self.log.clear();
        self.index();
    }

    /// Becomes a copy of `other` (without its undo log), ready for a program
    /// mentioning codes below `codes`: what [`Board::load`] does with
    /// `other`'s position, without building that position or re-indexing it.
    pub(crate) fn copy_from(&mut self, other: &Board, codes: usize) {
        if codes > other.codes {
            self.load(&other.position(), codes);
            return;
        }
        self.x0 = other.x0;
        self.y0 = other.y0;
        self.width = other.width;
        self.height = other.height;
        self.cells.clone_from(&other.cells);
        self.words = other.words;
        self.bits.clone_from(&other.bits);
        self.counts.clone_from(&other.counts);
        self.tallies.clone_from(&other.tallies);
        self.codes = other.codes;
        self.hash = other.hash;
        self.log.clear();
        // Stamps older than the generation mean nothing; they only need the right length.
        if self.stamps.len() != self.cells.len() {
            self.stamps.clear();
            self.stamps.resize(self.cells.len(), 0);
            self.generation = 0;
        }
    }

    /// Rebuilds bit sets, counts and stamps from the cells.
    fn index(&mut self) {
        let n = self.cells.len();
        self.words = n.div_ceil(64);
        self.bits.clear();
        self.bits.resize(self.codes * self.words, 0);
        self.counts.clear();
        self.counts.resize(self.codes, 0);
        for (i, &c) in self.cells.iter().enumerate() {
            if c != OFF {
                self.bits[c as usize * self.words + i / 64] |= 1 << (i % 64);
                self.counts[c as usize] += 1;
            }
        }
        self.stamps.clear();
        self.stamps.resize(n, 0);
        self.generation = 0;
    }

    /// The cell index of `(x, y)`, if it is inside the grid.
    #[inline]
    pub(crate) fn cell(&self, x: i32, y: i32) -> Option<usize> {
        let cx = x.wrapping_sub(self.x0) as u32;
        let cy = y.wrapping_sub(self.y0) as u32;
        (cx < self.width && cy < self.height).then(|| cy as usize * self.width as usize + cx as usize)
    }

    /// The coordinates of a cell.
    #[inline]
    pub(crate) fn coords(&self, cell: usize) -> (i32, i32) {
        let w = self.width as usize;
        (self.x0 + (cell % w) as i32, self.y0 + (cell / w) as i32)
    }

    /// What `(x, y)` holds.
    #[inline]
    pub(crate) fn get(&self, x: i32, y: i32) -> Code {
        match self.cell(x, y) {
            Some(i) => self.cells[i],
            None => OFF,
        }
    }

    /// How many squares hold `code`.
    #[inline]
    pub(crate) fn count(&self, code: Code) -> u32 {
        self.counts.get(code as usize).copied().unwrap_or(0)
    }

    /// The first cell after `after` (or from the start) holding `code`.
    #[inline]
    pub(crate) fn next_with(&self, code: Code, after: Option<usize>) -> Option<usize> {
        if code as usize >= self.codes || code == OFF {
            return None;
        }
        let start = after.map_or(0, |i| i + 1);
        let mut w = start / 64;
        if w >= self.words {
            return None;
        }
        let base = code as usize * self.words;
        let mut word = self.bits[base + w] & (!0u64 << (start % 64));
        loop {
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
            w += 1;
            if w >= self.words {
                return None;
            }
            word = self.bits[base + w];
        }
    }

    /// How many of one piece one box holds: tally slot `slot`.
    #[inline]
    pub(crate) fn tally(&self, slot: u32) -> u16 {
        self.tallies.get(slot as usize).copied().unwrap_or(0)
    }

    /// Adds `delta` to tally slot `slot` (never below 0 nor above `u16::MAX`).
    pub(crate) fn add_tally(&mut self, slot: u32, delta: i32) {
        let new = (self.tally(slot) as i32 + delta).clamp(0, u16::MAX as i32) as u16;
        self.set_tally(slot, new);
    }

    /// Sets tally slot `slot` to `new`, logged for [`Board::undo_to`].
    fn set_tally(&mut self, slot: u32, new: u16) {
        let old = self.tally(slot);
        if new == old {
            return;
        }
        self.log.push(Undo {
            cell: TALLY | slot,
            old,
            hash: self.hash,
        });
        let i = slot as usize;
        if self.tallies.len() <= i {
            self.tallies.resize(i + 1, 0);
        }
        self.tallies[i] = new;
        self.hash ^= hash::tally(i, old) ^ hash::tally(i, new);
    }

    /// Makes one change of a change list: a square's new contents, or a
    /// tally slot's new count.
    #[inline]
    pub(crate) fn write(&mut self, c: &Change, max_cells: usize) -> Result<(), TooLarge> {
        if let (Some(slot), Content::Count(n)) = (c.at.tally_slot(), c.content) {
            self.set_tally(slot as u32, n);
            return Ok(());
        }
        self.set(c.at.x, c.at.y, c.content.code(), max_cells)
    }

    /// How long the undo log is: a mark to undo back to.
    #[inline]
    pub(crate) fn mark(&self) -> usize {
        self.log.len()
    }

    /// Writes `code` at `(x, y)`, growing the grid (up to `max_cells`) if
    /// that creates a square outside it.
    #[inline]
    pub(crate) fn set(&mut self, x: i32, y: i32, code: Code, max_cells: usize) -> Result<(), TooLarge> {
        let i = match self.cell(x, y) {
            Some(i) => i,
            None if code == OFF => return Ok(()),
            None => {
                self.grow(x, y, max_cells)?;
                self.cell(x, y).expect("the grid was grown to hold the square")
            }
        };
        let old = self.cells[i];
        if old == code {
            return Ok(());
        }
        self.log.push(Undo {
            cell: i as u32,
            old,
            hash: self.hash,
        });
        self.cells[i] = code;
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        if old != OFF {
            self.bits[old as usize * self.words + word] &= !bit;
            self.counts[old as usize] -= 1;
            self.hash ^= hash::square(x, y, old);
        }
        if code != OFF {
            self.bits[code as usize * self.words + word] |= bit;
            self.counts[code as usize] += 1;
            self.hash ^= hash::square(x, y, code);
        }
        Ok(())
    }

    /// Undoes every write made since `mark`.
    #[inline]
    pub(crate) fn undo_to(&mut self, mark: usize) {
        while self.log.len() > mark {
            let u = self.log.pop().expect("log longer than mark");
            if u.cell & TALLY != 0 {
                self.tallies[(u.cell & !TALLY) as usize] = u.old;
                self.hash = u.hash;
                continue;
            }
            let i = u.cell as usize;
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            let cur = self.cells[i];
            if cur != OFF {
                self.bits[cur as usize * self.words + word] &= !bit;
                self.counts[cur as usize] -= 1;
            }
            if u.old != OFF {
                self.bits[u.old as usize * self.words + word] |= bit;
                self.counts[u.old as usize] += 1;
            }
            self.cells[i] = u.old;
            self.hash = u.hash;
        }
    }

    /// Enlarges the grid so that `(x, y)` is inside it, with room to spare
    /// on that side; refuses to exceed `max_cells`.
    #[cold]
    fn grow(&mut self, x: i32, y: i32, max_cells: usize) -> Result<(), TooLarge> {
        let (w, h) = (self.width as i64, self.height as i64);
        let (mut x0, mut y0) = (self.x0 as i64, self.y0 as i64);
        let (mut x1, mut y1) = (x0 + w - 1, y0 + h - 1);
        if w == 0 || h == 0 {
            (x0, y0, x1, y1) = (x as i64, y as i64, x as i64, y as i64);
        }
        let pad_x = (w / 2).max(2);
        let pad_y = (h / 2).max(2);
        let (x, y) = (x as i64, y as i64);
        if x < x0 {
            x0 = x - pad_x;
        }
        if x > x1 {
            x1 = x + pad_x;
        }
        if y < y0 {
            y0 = y - pad_y;
        }
        if y > y1 {
            y1 = y + pad_y;
        }
        let (nw, nh) = (x1 - x0 + 1, y1 - y0 + 1);
        let fits_i32 = [x0, y0, x1, y1].iter().all(|v| i32::try_from(*v).is_ok());
        if !fits_i32 || nw.saturating_mul(nh) > max_cells as i64 {
            return Err(TooLarge);
        }
        let (nw, nh) = (nw as usize, nh as usize);
        let mut cells = vec![OFF; nw * nh];
        let (dx, dy) = ((self.x0 as i64 - x0) as usize, (self.y0 as i64 - y0) as usize);
        let old_w = self.width as usize;
        if old_w > 0 {
            for row in 0..self.height as usize {
                let from = &self.cells[row * old_w..(row + 1) * old_w];
                let to = (row + dy) * nw + dx;
                cells[to..to + old_w].copy_from_slice(from);
            }
        }
        for u in self.log.iter_mut().filter(|u| u.cell & TALLY == 0) {
            let (cx, cy) = (u.cell as usize % old_w.max(1), u.cell as usize / old_w.max(1));
            u.cell = ((cy + dy) * nw + cx + dx) as u32;
        }
        self.x0 = x0 as i32;
        self.y0 = y0 as i32;
        self.width = nw as u32;
        self.height = nh as u32;
        self.cells = cells;
        self.index();
        Ok(())
    }

    /// The net changes since `mark` (squares whose contents differ from what
    /// they held at the mark), into `out`, in reading order.
    pub(crate) fn diff(&mut self, mark: usize, out: &mut Vec<Change>) {
        out.clear();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamps.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
        self.firsts.clear();
        let mut tallies: Vec<(u32, u16)> = Vec::new();
        for u in &self.log[mark..] {
            if u.cell & TALLY != 0 {
                if !tallies.iter().any(|&(s, _)| s == u.cell) {
                    tallies.push((u.cell, u.old));
                }
                continue;
            }
            let stamp = &mut self.stamps[u.cell as usize];
            if *stamp != self.generation {
                *stamp = self.generation;
                self.firsts.push((u.cell, u.old));
            }
        }
        for &(cell, old) in &self.firsts {
            let now = self.cells[cell as usize];
            if now != old {
                let (x, y) = self.coords(cell as usize);
                out.push(Change {
                    at: Coord::new(x, y),
                    content: Content::from_code(now),
                });
            }
        }
        out.sort_unstable_by_key(|c| (std::cmp::Reverse(c.at.y), c.at.x));
        // Tallies last, by slot.
        tallies.sort_unstable();
        for (cell, old) in tallies {
            let slot = cell & !TALLY;
            let now = self.tally(slot);
            if now != old {
                out.push(Change {
                    at: Coord::tally(slot as usize),
                    content: Content::Count(now),
                });
            }
        }
    }

    /// The current contents as a position.
    pub(crate) fn position(&self) -> Position {
        let mut p = Position::trimmed(self.x0, self.y0, self.width, self.height, self.cells.clone());
        for (slot, &n) in self.tallies.iter().enumerate() {
            p.set_tally(slot, n);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::EMPTY;
    use crate::core::PieceTable;

    fn board(text: &str) -> (Board, Position) {
        let mut t = PieceTable::new();
        t.declare('♖');
        let p = Position::from_diagram(text, &t).unwrap();
        let mut b = Board::default();
        b.load(&p, 3);
        (b, p)
    }

    #[test]
    fn edits_undo_exactly() {
        let (mut b, p) = board("..\n♖.\n");
        let m = b.mark();
        b.set(0, 0, EMPTY, 1 << 20).unwrap();
        b.set(1, 1, 2, 1 << 20).unwrap();
        b.set(0, 1, OFF, 1 << 20).unwrap();
        assert_ne!(b.position(), p);
        assert_eq!(b.hash, b.position().content_hash());
        assert_eq!(b.count(2), 1);
        assert_eq!(b.next_with(2, None), b.cell(1, 1));
        b.undo_to(m);
        assert_eq!(b.position(), p);
        assert_eq!(b.hash, p.content_hash());
        assert_eq!(b.next_with(2, None), Some(0));
        assert_eq!(b.next_with(2, Some(0)), None);
    }

    #[test]
    fn growing_keeps_contents_and_the_undo_log() {
        let (mut b, p) = board("♖.\n");
        let m = b.mark();
        b.set(1, 0, 2, 1 << 20).unwrap();
        b.set(-3, 5, EMPTY, 1 << 20).unwrap();
        b.set(7, -2, EMPTY, 1 << 20).unwrap();
        assert_eq!(b.hash, b.position().content_hash());
        assert_eq!(b.count(EMPTY), 2);
        assert_eq!(b.count(2), 2);
        let mut diff = Vec::new();
        b.diff(m, &mut diff);
        assert_eq!(diff.len(), 3);
        assert_eq!(diff[0].at, Coord::new(-3, 5));
        b.undo_to(m);
        assert_eq!(b.position(), p);
        assert_eq!(b.set(1 << 30, 0, EMPTY, 1 << 20), Err(TooLarge));
    }

    #[test]
    fn diff_leaves_out_squares_changed_back() {
        let (mut b, _) = board("♖.\n");
        let m = b.mark();
        b.set(0, 0, EMPTY, 100).unwrap();
        b.set(1, 0, 2, 100).unwrap();
        b.set(0, 0, 2, 100).unwrap();
        let mut diff = Vec::new();
        b.diff(m, &mut diff);
        assert_eq!(
            diff,
            vec![Change {
                at: Coord::new(1, 0),
                content: Content::Piece(crate::core::PieceId(0), crate::core::Marks::NONE)
            }]
        );
    }
}
