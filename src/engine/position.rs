//! Positions: finite sets of squares at integer coordinates, each empty or
//! holding one piece, read from and written as the seed's text diagrams.

use std::cmp::{Ordering, Reverse};
use std::hash::{Hash, Hasher};

use miette::Diagnostic;
use thiserror::Error;

use crate::core::{Change, Code, Content, Coord, OFF};
use crate::core::{Marks, PieceId, PieceTable};
use crate::core::{Movement, Offset};

use crate::engine::hash;

/// Why a text diagram is not a position.
#[derive(Clone, Debug, PartialEq, Eq, Error, Diagnostic)]
pub enum DiagramError {
    /// A character that is neither `.`, a space nor a declared piece.
    #[error(
        "line {line}, column {column}: `{symbol}` is not a declared piece, `.` (an empty square) or a space (no square)"
    )]
    #[diagnostic(
        code = "chessalg::engine::unknown_symbol",
        help("declare the piece in the rule file, or use `.` for an empty square")
    )]
    UnknownSymbol {
        /// 1-based line of the diagram text.
        line: usize,
        /// 1-based column, counted in characters.
        column: usize,
        /// The character found.
        symbol: char,
    },
    /// The text holds no square at all.
    #[error("the diagram has no squares")]
    #[diagnostic(
        code = "chessalg::engine::empty_board",
        help("a board diagram has one line per row, top row first, `.` for an empty square")
    )]
    Empty,
}

/// A position: the board's squares and what each holds. Equality, hashing
/// and ordering are by content, whatever grid the squares were stored in.
#[derive(Clone, Debug)]
pub struct Position {
    pub(crate) x0: i32,
    pub(crate) y0: i32,
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// Row-major from the bottom row, `width * height` codes. The grid is
    /// always trimmed to the bounding box of the squares.
    pub(crate) cells: Vec<Code>,
    /// How many of each piece each box holds, by tally slot (see
    /// [`Coord::tally`]); no zeros at the end.
    pub(crate) tallies: Vec<u16>,
    pub(crate) hash: u64,
    /// Which content this is: a copy keeps it, every change takes a new one
    /// (see [`Version`]); not part of equality.
    pub(crate) version: Version,
    /// The version this content was made from by one change of square
    /// contents in place, with the cells that change touched (bit `i` for
    /// cell `i`); none after any other change, or on grids of more than 128
    /// cells. Caches of the earlier version update from it.
    pub(crate) came_from: Option<(Version, u128)>,
}

/// A few changes, kept without allocating (a move's, or what it replaced).
pub type Changes = smallvec::SmallVec<[Change; 4]>;

/// A change of one cell of the grid: its index and the code written.
pub(crate) type CellWrite = (u32, Code);

/// A few cell writes, kept without allocating (what a move replaced).
pub(crate) type CellWrites = smallvec::SmallVec<[CellWrite; 4]>;

/// An identity for a position's content: two positions with the same
/// version hold the same squares (so a cache of a position's square sets
/// knows it holds them without comparing them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Version(u64);

impl Version {
    /// A version no position ever has (for empty slots of a cache).
    pub(crate) const NEVER: Version = Version(u64::MAX);

    /// A version no position has had before (process-wide; each thread
    /// takes them from a block of its own).
    fn fresh() -> Version {
        use std::cell::Cell;
        use std::sync::atomic::{AtomicU64, Ordering};
        const BLOCK: u64 = 1 << 20;
        static NEXT_BLOCK: AtomicU64 = AtomicU64::new(0);
        thread_local! {
            static RANGE: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
        }
        RANGE.with(|r| {
            let (mut next, mut end) = r.get();
            if next == end {
                next = NEXT_BLOCK.fetch_add(1, Ordering::Relaxed) * BLOCK;
                end = next + BLOCK;
            }
            r.set((next + 1, end));
            Version(next)
        })
    }
}

/// Variation selectors some fonts attach to chess symbols; not part of a square.
fn is_selector(c: char) -> bool {
    matches!(c, '\u{FE0E}' | '\u{FE0F}')
}

impl Position {
    /// Reads a diagram: rows top to bottom, `.` an empty square, a piece
    /// symbol, a space where there is no square. Blank lines at the start and
    /// end are ignored; the bottom row is y = 0 and the first column x = 0.
    pub fn from_diagram(text: &str, pieces: &PieceTable) -> Result<Position, DiagramError> {
        let lines: Vec<(usize, &str)> = text
            .lines()
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .enumerate()
            .collect();
        let first = lines.iter().position(|(_, l)| !l.trim().is_empty());
        let last = lines.iter().rposition(|(_, l)| !l.trim().is_empty());
        let (Some(first), Some(last)) = (first, last) else {
            return Err(DiagramError::Empty);
        };
        let rows = &lines[first..=last];
        let mut squares = Vec::new();
        for (r, (line_no, line)) in rows.iter().enumerate() {
            let y = (rows.len() - 1 - r) as i32;
            let mut x = 0i32;
            for (col, ch) in line.chars().enumerate() {
                if is_selector(ch) {
                    continue;
                }
                if let Some(m) = pieces.mark(ch)
                    && let Some((at, Content::Piece(_, marks))) = squares.last_mut()
                    && *at == Coord::new(x - 1, y)
                {
                    *marks = marks.union(m);
                    continue;
                }
                let content = match ch {
                    ' ' => None,
                    '.' => Some(Content::Empty),
                    c => match pieces.lookup(c) {
                        Some(p) => Some(Content::Piece(p, Marks::NONE)),
                        None => {
                            return Err(DiagramError::UnknownSymbol {
                                line: line_no + 1,
                                column: col + 1,
                                symbol: c,
                            });
                        }
                    },
                };
                if let Some(content) = content {
                    squares.push((Coord::new(x, y), content));
                }
                x += 1;
            }
        }
        if squares.is_empty() {
            return Err(DiagramError::Empty);
        }
        Ok(Position::from_squares(squares))
    }

    /// The position with exactly these squares (a later entry for the same
    /// coordinates wins; [`Content::NoSquare`] entries remove a square).
    pub fn from_squares(squares: impl IntoIterator<Item = (Coord, Content)>) -> Position {
        let squares: Vec<(Coord, Content)> = squares.into_iter().collect();
        Position::build(std::iter::empty(), squares.iter().copied())
    }

    /// A grid holding `base` then `over` (later entries win), trimmed.
    fn build(
        base: impl Iterator<Item = (Coord, Code)> + Clone,
        over: impl Iterator<Item = (Coord, Content)> + Clone,
    ) -> Position {
        let all = base.clone().chain(over.clone().map(|(c, k)| (c, k.code())));
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for (c, _) in all.clone() {
            x0 = x0.min(c.x);
            y0 = y0.min(c.y);
            x1 = x1.max(c.x);
            y1 = y1.max(c.y);
        }
        if x0 > x1 {
            return Position::empty();
        }
        let width = (x1 as i64 - x0 as i64 + 1) as u32;
        let height = (y1 as i64 - y0 as i64 + 1) as u32;
        let mut cells = vec![OFF; width as usize * height as usize];
        for (c, code) in all {
            let i = (c.y - y0) as usize * width as usize + (c.x - x0) as usize;
            cells[i] = code;
        }
        Position::trimmed(x0, y0, width, height, cells)
    }

    /// The position with no squares.
    fn empty() -> Position {
        Position {
            x0: 0,
            y0: 0,
            width: 0,
            height: 0,
            cells: Vec::new(),
            tallies: Vec::new(),
            hash: 0,
            version: Version::fresh(),
            came_from: None,
        }
    }

    /// A position from a grid, trimmed to the bounding box of its squares.
    pub(crate) fn trimmed(x0: i32, y0: i32, width: u32, height: u32, cells: Vec<Code>) -> Position {
        let w = width as usize;
        let (mut cx0, mut cy0, mut cx1, mut cy1) = (usize::MAX, usize::MAX, 0usize, 0usize);
        for (i, &c) in cells.iter().enumerate() {
            if c != OFF {
                let (cx, cy) = (i % w, i / w);
                cx0 = cx0.min(cx);
                cy0 = cy0.min(cy);
                cx1 = cx1.max(cx);
                cy1 = cy1.max(cy);
            }
        }
        if cx0 == usize::MAX {
            return Position::empty();
        }
        let (nw, nh) = (cx1 - cx0 + 1, cy1 - cy0 + 1);
        let cells = if nw == w && nh == height as usize {
            cells
        } else {
            let mut out = Vec::with_capacity(nw * nh);
            for row in cy0..=cy1 {
                out.extend_from_slice(&cells[row * w + cx0..row * w + cx1 + 1]);
            }
            out
        };
        let mut p = Position {
            x0: x0 + cx0 as i32,
            y0: y0 + cy0 as i32,
            width: nw as u32,
            height: nh as u32,
            cells,
            tallies: Vec::new(),
            hash: 0,
            version: Version::fresh(),
            came_from: None,
        };
        p.hash = p
            .raw_squares()
            .fold(0, |h, (c, code)| h ^ hash::square(c.x, c.y, code));
        p
    }

    /// Every square with its code, bottom row first.
    fn raw_squares(&self) -> impl Iterator<Item = (Coord, Code)> + Clone + '_ {
        let w = self.width.max(1) as usize;
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != OFF)
            .map(move |(i, &c)| {
                let at = Coord::new(self.x0 + (i % w) as i32, self.y0 + (i / w) as i32);
                (at, c)
            })
    }

    /// Every square and what it holds, in reading order: top row first, each
    /// row left to right.
    pub fn squares(&self) -> impl Iterator<Item = (Coord, Content)> + '_ {
        let w = self.width as usize;
        (0..self.height as usize).rev().flat_map(move |row| {
            (0..w).filter_map(move |col| {
                let code = self.cells[row * w + col];
                (code != OFF).then(|| {
                    let at = Coord::new(self.x0 + col as i32, self.y0 + row as i32);
                    (at, Content::from_code(code))
                })
            })
        })
    }

    pub(crate) fn code_at(&self, x: i32, y: i32) -> Code {
        let cx = x.wrapping_sub(self.x0) as u32;
        let cy = y.wrapping_sub(self.y0) as u32;
        if cx < self.width && cy < self.height {
            self.cells[(cy * self.width + cx) as usize]
        } else {
            OFF
        }
    }

    /// What the coordinates `at` hold.
    pub fn get(&self, at: Coord) -> Content {
        match at.tally_slot() {
            Some(slot) => Content::Count(self.tally(slot)),
            None => Content::from_code(self.code_at(at.x, at.y)),
        }
    }

    /// How many of one piece one box holds: tally slot `slot`.
    pub fn tally(&self, slot: usize) -> u16 {
        self.tallies.get(slot).copied().unwrap_or(0)
    }

    /// The tally slots that are not zero, with their counts.
    pub fn tallies(&self) -> impl Iterator<Item = (usize, u16)> + '_ {
        self.tallies.iter().copied().enumerate().filter(|&(_, n)| n > 0)
    }

    /// Sets tally slot `slot` to `count`.
    pub fn set_tally(&mut self, slot: usize, count: u16) {
        let old = self.tally(slot);
        if old == count {
            return;
        }
        self.hash ^= hash::tally(slot, old) ^ hash::tally(slot, count);
        self.version = Version::fresh();
        self.came_from = None;
        if self.tallies.len() <= slot {
            self.tallies.resize(slot + 1, 0);
        }
        self.tallies[slot] = count;
        while self.tallies.last() == Some(&0) {
            self.tallies.pop();
        }
    }

    /// How many squares the position has.
    pub fn len(&self) -> usize {
        self.cells.iter().filter(|&&c| c != OFF).count()
    }

    /// Whether the position has no square at all.
    pub fn is_empty(&self) -> bool {
        self.cells.iter().all(|&c| c == OFF)
    }

    /// A hash of the content (the same for equal positions), kept up to date
    /// square by square while the engine edits a position.
    pub fn content_hash(&self) -> u64 {
        self.hash
    }

    /// The position after `changes` (in order; a later change to the same
    /// square wins).
    pub fn with_changes(&self, changes: &[Change]) -> Position {
        let mut next = self.clone();
        next.apply(changes);
        next
    }

    /// Makes `changes` here and returns what they replaced, in the same
    /// order: applying that list undoes them. Squares that appear or vanish
    /// rebuild the grid; otherwise the cells and hash change in place.
    pub fn apply(&mut self, changes: &[Change]) -> Changes {
        self.apply_hashed(changes, None)
    }

    /// [`Position::apply`], where the hash after the changes is known to be
    /// `hash` if given (a successor's, [`super::Successor::hash`]): changes
    /// made in place then set it instead of hashing each square.
    pub(crate) fn apply_hashed(&mut self, changes: &[Change], hash: Option<u64>) -> Changes {
        if changes.iter().all(|c| c.at.tally_slot().is_none()) {
            let mut before = Changes::new();
            if self.change_in_place(changes.iter(), Some(&mut before), Version::fresh(), hash) {
                return before;
            }
        }
        let before: Changes = changes
            .iter()
            .map(|c| Change {
                at: c.at,
                content: self.get(c.at),
            })
            .collect();
        let squares = || changes.iter().filter(|c| c.at.tally_slot().is_none());
        if !self.change_in_place(squares(), None, Version::fresh(), None) {
            let tallies = std::mem::take(&mut self.tallies);
            *self = Position::build(self.raw_squares(), squares().map(|c| (c.at, c.content)));
            for (slot, n) in tallies.into_iter().enumerate() {
                self.set_tally(slot, n);
            }
        }
        for c in changes {
            if let (Some(slot), Content::Count(n)) = (c.at.tally_slot(), c.content) {
                self.set_tally(slot, n);
            }
        }
        before
    }

    /// The cell change `c` writes and its code, when it changes the
    /// contents of a square of the grid (not a box, a hole, or whether a
    /// square is there): a move made of such changes can be made with
    /// [`Position::write_cells`].
    #[inline]
    pub(crate) fn cell_write(&self, c: &Change) -> Option<CellWrite> {
        if c.content == Content::NoSquare || c.at.tally_slot().is_some() {
            return None;
        }
        let i = self.index(c.at)?;
        (self.cells[i] != OFF).then(|| (i as u32, c.content.code()))
    }

    /// Makes `writes` (each from [`Position::cell_write`] on this grid, in
    /// order), the hash becoming `hash`, a fresh version; gives what the
    /// cells held, for [`Position::unwrite_cells`].
    #[inline]
    pub(crate) fn write_cells(&mut self, writes: &[CellWrite], hash: u64) -> CellWrites {
        let mut before = CellWrites::new();
        let mut touched = 0u128;
        for &(i, code) in writes {
            let old = std::mem::replace(&mut self.cells[i as usize], code);
            before.push((i, old));
            touched |= 1u128.checked_shl(i).unwrap_or(0);
        }
        let from = std::mem::replace(&mut self.version, Version::fresh());
        self.hash = hash;
        self.came_from = (self.cells.len() <= 128).then_some((from, touched));
        before
    }

    /// Takes back [`Position::write_cells`], given what it returned: the
    /// position is again the one of version `version` and hash `hash`.
    #[inline]
    pub(crate) fn unwrite_cells(&mut self, before: &[CellWrite], version: Version, hash: u64) {
        let mut touched = 0u128;
        for &(i, old) in before.iter().rev() {
            self.cells[i as usize] = old;
            touched |= 1u128.checked_shl(i).unwrap_or(0);
        }
        let from = std::mem::replace(&mut self.version, version);
        self.hash = hash;
        self.came_from = (self.cells.len() <= 128).then_some((from, touched));
    }

    /// Takes back a change [`Position::apply`] made to the position whose
    /// version was `version`, given what it returned: the content is that
    /// position's again, and so is the version (caches of it hold again).
    pub(crate) fn undo(&mut self, restore: &[Change], version: Version) {
        self.undo_hashed(restore, version, None);
    }

    /// [`Position::undo`], where the hash of the position taken back to is
    /// known to be `hash` if given.
    pub(crate) fn undo_hashed(&mut self, restore: &[Change], version: Version, hash: Option<u64>) {
        // Squares that stay on the grid get their contents back in place,
        // without noting what they held; anything else as any change.
        let in_place = restore.iter().all(|c| c.at.tally_slot().is_none())
            && self.change_in_place(restore.iter(), None, version, hash);
        if !in_place {
            self.apply(restore);
            self.version = version;
        }
    }

    /// The common case of a change: squares change contents, none appears
    /// or vanishes, so the grid stays and the hash is updated in place.
    /// Changes nothing and says `false` when that is not the case. Adds
    /// what each changed square held to `before`, if given; the changed
    /// position's version is `version` (a fresh one, or the one a change
    /// taken back returns to), its hash `hash` where that is known.
    #[inline]
    fn change_in_place<'c>(
        &mut self,
        changes: impl Iterator<Item = &'c Change> + Clone,
        mut before: Option<&mut Changes>,
        version: Version,
        hash: Option<u64>,
    ) -> bool {
        // What each square held before any of the changes (a square changed
        // twice gets back what it held first).
        let in_place = changes.clone().all(|c| {
            let Some(i) = self
                .index(c.at)
                .filter(|&i| c.content != Content::NoSquare && self.cells[i] != OFF)
            else {
                return false;
            };
            if let Some(before) = before.as_deref_mut() {
                before.push(Change {
                    at: c.at,
                    content: Content::from_code(self.cells[i]),
                });
            }
            true
        });
        if in_place {
            let mut touched = (self.cells.len() <= 128).then_some(0u128);
            let from = std::mem::replace(&mut self.version, version);
            for c in changes {
                let i = self.index(c.at).expect("checked above");
                if let Some(t) = &mut touched {
                    *t |= 1 << i;
                }
                let code = c.content.code();
                if hash.is_none() {
                    self.hash ^=
                        hash::square(c.at.x, c.at.y, self.cells[i]) ^ hash::square(c.at.x, c.at.y, code);
                }
                self.cells[i] = code;
            }
            if let Some(h) = hash {
                self.hash = h;
            }
            self.came_from = touched.map(|t| (from, t));
        }
        in_place
    }

    /// The grid index of `at`, if it is inside the grid.
    fn index(&self, at: Coord) -> Option<usize> {
        let cx = at.x.wrapping_sub(self.x0) as u32;
        let cy = at.y.wrapping_sub(self.y0) as u32;
        (cx < self.width && cy < self.height).then(|| cy as usize * self.width as usize + cx as usize)
    }

    /// The position with every square moved by `m` (for instance `R`, a
    /// quarter turn about the middle of square (0, 0)).
    pub fn moved(&self, m: Movement) -> Position {
        Position::from_squares(self.squares().map(|(c, k)| {
            let o = m.apply(Offset::new(c.x, c.y));
            (Coord::new(o.x, o.y), k)
        }))
    }

    /// The position with every piece replaced by `f(piece)`.
    pub fn map_pieces(&self, f: impl Fn(PieceId) -> PieceId) -> Position {
        Position::from_squares(self.squares().map(|(c, k)| match k {
            Content::Piece(p, m) => (c, Content::Piece(f(p), m)),
            other => (c, other),
        }))
    }

    /// The diagram of the position: its bounding box, top row first, one line
    /// per row ending in a newline, `.` for an empty square, a space where
    /// there is no square, trailing spaces trimmed. The empty position is "".
    pub fn diagram(&self, pieces: &PieceTable) -> String {
        let mut out = String::new();
        let w = self.width as usize;
        for row in (0..self.height as usize).rev() {
            let start = out.len();
            for col in 0..w {
                match Content::from_code(self.cells[row * w + col]) {
                    Content::NoSquare => out.push(' '),
                    Content::Empty => out.push('.'),
                    Content::Piece(p, m) if p.index() < pieces.len() => {
                        out.push(pieces.symbol(p));
                        out.push_str(&pieces.mark_symbols(m));
                    }
                    Content::Piece(..) | Content::Count(_) => out.push('?'),
                }
            }
            let trimmed = out[start..].trim_end_matches(' ').len();
            out.truncate(start + trimmed);
            out.push('\n');
        }
        out
    }

    /// The sort key of one square: reading order, then content.
    fn key((c, k): (Coord, Content)) -> (Reverse<i32>, i32, Content) {
        (Reverse(c.y), c.x, k)
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        // Positions are always trimmed, so equal contents means equal grids.
        self.hash == other.hash
            && self.x0 == other.x0
            && self.y0 == other.y0
            && self.width == other.width
            && self.height == other.height
            && self.cells == other.cells
            && self.tallies == other.tallies
    }
}

impl Eq for Position {}

impl Hash for Position {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl Ord for Position {
    /// Square by square in reading order: the top-left-most difference decides.
    fn cmp(&self, other: &Self) -> Ordering {
        self.squares()
            .map(Position::key)
            .cmp(other.squares().map(Position::key))
            .then_with(|| self.tallies.cmp(&other.tallies))
    }
}

impl PartialOrd for Position {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chess() -> PieceTable {
        let mut t = PieceTable::new();
        for (a, b) in [
            ('♙', '♟'),
            ('♔', '♚'),
            ('♕', '♛'),
            ('♗', '♝'),
            ('♘', '♞'),
            ('♖', '♜'),
        ] {
            let a = t.declare(a);
            let b = t.declare(b);
            t.pair(a, b);
        }
        t
    }

    #[test]
    fn diagrams_round_trip() {
        let t = chess();
        for text in [".......\n..♙.♙..\n", "♜♞\n♙.\n", " .\n. .\n", ".\n\n.\n", "  ♖\n"] {
            let p = Position::from_diagram(text, &t).unwrap();
            let expected = text.trim_start_matches('\n');
            // Leading columns with no square at all are trimmed away.
            let expected = if text == "  ♖\n" { "♖\n" } else { expected };
            assert_eq!(p.diagram(&t), expected, "{text:?}");
        }
    }

    #[test]
    fn coordinates_start_bottom_left() {
        let t = chess();
        let p = Position::from_diagram("♜.\n♙ \n", &t).unwrap();
        assert_eq!(
            p.get(Coord::new(0, 0)),
            Content::Piece(t.lookup('♙').unwrap(), Marks::NONE)
        );
        assert_eq!(p.get(Coord::new(1, 0)), Content::NoSquare);
        assert_eq!(p.get(Coord::new(1, 1)), Content::Empty);
        assert_eq!(
            p.get(Coord::new(0, 1)),
            Content::Piece(t.lookup('♜').unwrap(), Marks::NONE)
        );
        assert_eq!(p.get(Coord::new(5, 5)), Content::NoSquare);
        assert_eq!(p.len(), 3);
    }

    #[test]
    fn errors_name_line_and_column() {
        let t = chess();
        assert_eq!(
            Position::from_diagram("..\n.x\n", &t),
            Err(DiagramError::UnknownSymbol {
                line: 2,
                column: 2,
                symbol: 'x'
            })
        );
        assert_eq!(Position::from_diagram("\n  \n", &t), Err(DiagramError::Empty));
        assert_eq!(Position::from_diagram("", &t), Err(DiagramError::Empty));
    }

    #[test]
    fn equality_ignores_the_grid() {
        let t = chess();
        let a = Position::from_diagram("..\n..\n", &t).unwrap();
        // Remove a square and put it back: same content, same position.
        let removed = a.with_changes(&[Change {
            at: Coord::new(1, 1),
            content: Content::NoSquare,
        }]);
        assert_ne!(removed, a);
        let back = removed.with_changes(&[Change {
            at: Coord::new(1, 1),
            content: Content::Empty,
        }]);
        assert_eq!(back, a);
        assert_eq!(back.content_hash(), a.content_hash());
        assert_eq!(back.cmp(&a), Ordering::Equal);
    }

    #[test]
    fn moving_turns_about_the_origin_square() {
        let t = chess();
        let p = Position::from_diagram("♙.\n", &t).unwrap();
        let turned = p.moved(Movement::TURN);
        assert_eq!(turned.diagram(&t), ".\n♙\n");
        assert_eq!(turned.get(Coord::new(0, 1)), Content::Empty);
        let back = turned
            .moved(Movement::TURN)
            .moved(Movement::TURN)
            .moved(Movement::TURN);
        assert_eq!(back, p);
    }

    #[test]
    fn variation_selectors_are_ignored() {
        let t = chess();
        let p = Position::from_diagram("♟\u{FE0F}.\n", &t).unwrap();
        assert_eq!(p.diagram(&t), "♟.\n");
    }

    #[test]
    fn a_copy_keeps_its_version_and_a_change_takes_a_new_one() {
        let t = chess();
        let mut p = Position::from_diagram("♙.\n", &t).unwrap();
        let copy = p.clone();
        assert_eq!(copy.version, p.version);
        let undo = p.apply(&[Change {
            at: Coord::new(1, 0),
            content: Content::Piece(t.lookup('♙').unwrap(), Default::default()),
        }]);
        assert_ne!(p.version, copy.version);
        let changed = p.version;
        p.apply(&undo);
        // The same content as the copy again, under a version of its own.
        assert_eq!(p, copy);
        assert!(p.version != changed && p.version != copy.version);
        p.set_tally(0, 3);
        assert_ne!(p.version, copy.version);
        // Another thread's versions are its own.
        let there = std::thread::spawn(Version::fresh).join().unwrap();
        assert_ne!(there, Version::fresh());
    }

    #[test]
    fn a_change_says_where_it_came_from_and_an_undo_takes_back_the_version() {
        let t = chess();
        let pawn = Content::Piece(t.lookup('♙').unwrap(), Default::default());
        let mut p = Position::from_diagram("♙..\n", &t).unwrap();
        let start = p.clone();
        // One square changed twice: the undo gives back what it held first.
        let at = |x| Coord::new(x, 0);
        let changes = [
            Change {
                at: at(0),
                content: Content::Empty,
            },
            Change {
                at: at(2),
                content: pawn,
            },
            Change {
                at: at(0),
                content: pawn,
            },
        ];
        let undo = p.apply(&changes);
        assert_eq!(p.diagram(&t), "♙.♙\n");
        assert_eq!(p.came_from, Some((start.version, 0b101)));
        let after = p.version;
        p.undo(&undo, start.version);
        assert_eq!(p, start);
        assert_eq!(p.version, start.version);
        assert_eq!(p.came_from, Some((after, 0b101)));
        // A change that rebuilds the grid says nothing of where it came from.
        p.apply(&[Change {
            at: at(3),
            content: pawn,
        }]);
        assert_eq!(p.came_from, None);
    }
}
