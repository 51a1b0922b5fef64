//! The piece symbols a rule file declares, and their colour partners.

use std::fmt;

/// A declared piece symbol, numbered in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceId(pub(crate) u16);

impl PieceId {
    /// The piece declared `index`th (from 0).
    pub const fn new(index: u16) -> PieceId {
        PieceId(index)
    }

    /// The id as an index into per-piece tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A set of piece marks (`°`, `ᵉ`, ...), one bit per declared mark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Marks(pub(crate) u8);

impl Marks {
    /// No marks.
    pub const NONE: Marks = Marks(0);

    /// Whether there are no marks.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every mark of `other` is here too.
    pub fn contains(self, other: Marks) -> bool {
        self.0 & other.0 == other.0
    }

    /// The marks of both.
    pub fn union(self, other: Marks) -> Marks {
        Marks(self.0 | other.0)
    }

    /// The marks in both.
    pub fn meet(self, other: Marks) -> Marks {
        Marks(self.0 & other.0)
    }

    /// These marks less those of `other`.
    pub fn without(self, other: Marks) -> Marks {
        Marks(self.0 & !other.0)
    }
}

/// The most marks a file may declare.
pub const MAX_MARKS: usize = 4;

/// Every piece symbol in scope, with the partner `colour_swapped` maps it
/// to, and the marks pieces may carry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PieceTable {
    symbols: Vec<char>,
    partners: Vec<Option<PieceId>>,
    marks: Vec<char>,
    boxes: Vec<String>,
    regions: Vec<(String, Vec<(u32, u32)>)>,
    players: Vec<String>,
    /// The board's rectangle (files, ranks) and the places in it that are
    /// no squares, as (file, rank) from 0: places (`@b3`) are found from
    /// them on a board with holes.
    shape: (u32, u32, Vec<(u32, u32)>),
}

/// A box: a named place off the board holding any number of pieces (a hand
/// of captured pieces, a count of checks still to give).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoxId(pub(crate) u16);

impl BoxId {
    /// Its index in declaration order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl PieceTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares `symbol` (if new) and returns its id.
    pub fn declare(&mut self, symbol: char) -> PieceId {
        if let Some(id) = self.lookup(symbol) {
            return id;
        }
        self.symbols.push(symbol);
        self.partners.push(None);
        PieceId((self.symbols.len() - 1) as u16)
    }

    /// Makes `a` and `b` each other's colour partner.
    pub fn pair(&mut self, a: PieceId, b: PieceId) {
        self.partners[a.index()] = Some(b);
        self.partners[b.index()] = Some(a);
    }

    /// The side of a piece within its colour pair: 0 for the first symbol of
    /// a `piece` line (the first player's), 1 for the second; `None` unpaired.
    pub fn side(&self, id: PieceId) -> Option<usize> {
        self.partner(id).map(|p| usize::from(p.index() < id.index()))
    }

    /// Declares a region: a name for a set of squares, as (file, rank) from 0.
    pub fn declare_region(&mut self, name: &str, squares: Vec<(u32, u32)>) {
        match self.regions.iter_mut().find(|(n, _)| n == name) {
            Some(r) => r.1 = squares,
            None => self.regions.push((name.to_string(), squares)),
        }
    }

    /// The squares of a declared region.
    pub fn region(&self, name: &str) -> Option<&[(u32, u32)]> {
        self.regions
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.as_slice())
    }

    /// Declares the board's shape: its rectangle and the places in it that
    /// are no squares.
    pub fn declare_shape(&mut self, files: u32, ranks: u32, holes: Vec<(u32, u32)>) {
        self.shape = (files, ranks, holes);
    }

    /// Whether the board declared has places in its rectangle that are no squares.
    pub fn has_holes(&self) -> bool {
        !self.shape.2.is_empty()
    }

    /// The board's rectangle: files and ranks.
    pub fn rectangle(&self) -> (u32, u32) {
        (self.shape.0, self.shape.1)
    }

    /// Whether (file, rank), counted from 0, is a square of the board declared.
    pub fn is_square(&self, file: i64, rank: i64) -> bool {
        let (files, ranks, holes) = &self.shape;
        (0..*files as i64).contains(&file)
            && (0..*ranks as i64).contains(&rank)
            && !holes.contains(&(file as u32, rank as u32))
    }

    /// Names the players in turn order (`pieces(white)` looks them up).
    pub fn declare_players(&mut self, names: Vec<String>) {
        self.players = names;
    }

    /// The turn-order index of a player's name.
    pub fn player(&self, name: &str) -> Option<usize> {
        self.players.iter().position(|p| p == name)
    }

    /// The id of a declared symbol.
    pub fn lookup(&self, symbol: char) -> Option<PieceId> {
        self.symbols
            .iter()
            .position(|&s| s == symbol)
            .map(|i| PieceId(i as u16))
    }

    /// The symbol of a piece.
    pub fn symbol(&self, id: PieceId) -> char {
        self.symbols[id.index()]
    }

    /// The colour partner of a piece, if it has one.
    pub fn partner(&self, id: PieceId) -> Option<PieceId> {
        self.partners[id.index()]
    }

    /// What `colour_swapped` makes of a piece: its partner, or itself.
    pub fn colour_swapped(&self, id: PieceId) -> PieceId {
        self.partner(id).unwrap_or(id)
    }

    /// Declares a mark (if new) and returns it as a one-mark set; `None` past [`MAX_MARKS`].
    pub fn declare_mark(&mut self, symbol: char) -> Option<Marks> {
        if let Some(m) = self.mark(symbol) {
            return Some(m);
        }
        if self.marks.len() >= MAX_MARKS {
            return None;
        }
        self.marks.push(symbol);
        Some(Marks(1 << (self.marks.len() - 1)))
    }

    /// The one-mark set of a declared mark symbol.
    pub fn mark(&self, symbol: char) -> Option<Marks> {
        self.marks
            .iter()
            .position(|&m| m == symbol)
            .map(|i| Marks(1 << i))
    }

    /// The symbols of a set of marks, in declaration order.
    pub fn mark_symbols(&self, marks: Marks) -> String {
        self.marks
            .iter()
            .enumerate()
            .filter(|(i, _)| marks.0 & (1 << i) != 0)
            .map(|(_, c)| *c)
            .collect()
    }

    /// How many marks are declared.
    pub fn mark_count(&self) -> usize {
        self.marks.len()
    }

    /// How many pieces are declared.
    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    /// Whether no piece is declared.
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }

    /// Declares a box named `name` (if new) and returns its id.
    pub fn declare_box(&mut self, name: &str) -> BoxId {
        if let Some(b) = self.box_named(name) {
            return b;
        }
        self.boxes.push(name.to_string());
        BoxId((self.boxes.len() - 1) as u16)
    }

    /// The box declared with this name.
    pub fn box_named(&self, name: &str) -> Option<BoxId> {
        self.boxes.iter().position(|b| b == name).map(|i| BoxId(i as u16))
    }

    /// The name of a box.
    pub fn box_name(&self, b: BoxId) -> &str {
        &self.boxes[b.index()]
    }

    /// How many boxes are declared.
    pub fn box_count(&self) -> usize {
        self.boxes.len()
    }

    /// The tally slot counting `piece` in box `b` (see [`Coord::tally`]).
    ///
    /// [`Coord::tally`]: crate::core::Coord::tally
    pub fn slot(&self, b: BoxId, piece: PieceId) -> usize {
        b.index() * self.symbols.len() + piece.index()
    }

    /// The box and piece a tally slot counts.
    pub fn slot_of(&self, slot: usize) -> (BoxId, PieceId) {
        let n = self.symbols.len().max(1);
        (BoxId((slot / n) as u16), PieceId((slot % n) as u16))
    }

    /// All declared pieces in declaration order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = PieceId> + '_ {
        (0..self.symbols.len()).map(|i| PieceId(i as u16))
    }
}

impl fmt::Display for PieceTable {
    /// One `piece` declaration per pair or single symbol, as a rule file writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in &self.marks {
            writeln!(f, "mark {m}")?;
        }
        for b in &self.boxes {
            writeln!(f, "box {b}")?;
        }
        for id in self.ids() {
            match self.partner(id) {
                Some(p) if p < id => continue,
                Some(p) if p != id => writeln!(f, "piece {} {}", self.symbol(id), self.symbol(p))?,
                _ => writeln!(f, "piece {}", self.symbol(id))?,
            }
        }
        Ok(())
    }
}
