//! The vocabulary the square-set strategies share: a set of squares (one
//! bit each), the scratch holding a position's sets, and the reasons a
//! strategy declines a program ([`Decline`]).

mod keys;

use thiserror::Error;

pub(crate) use keys::KeySet;

use super::position::{Position, Version};
use crate::core::{Change, Code};

/// A set of squares, one bit each.
pub(crate) type Squares = u128;

/// The most squares a board may have for the square-set strategies (one bit each).
pub const MAX_SQUARES: u32 = Squares::BITS;

/// Where a walk keeps tally slot `s` (how many of one piece one box holds):
/// at index `TALLY_BASE + s` of its cells and its changes, past every
/// square of any board a square set holds. A change there holds the count.
pub(crate) const TALLY_BASE: u32 = MAX_SQUARES;

/// Why a strategy declines a program (the square-set strategies, the
/// walker and the shortcuts attached to it): the program goes on to the
/// next strategy, and reports name the reason.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Decline {
    /// The backtracker alone was chosen (`--engine backtrack`).
    #[error("the backtracker was chosen")]
    NotChosen,
    /// The board has more squares than a square set holds.
    #[error("the board has more than {MAX_SQUARES} squares")]
    BoardTooLarge,
    /// The program does more than choose one rewrite (a `%p:`, a sequence,
    /// a loop, a guard or an ordered choice).
    #[error("it does more than choose one rewrite ({0})")]
    NotAChoice(&'static str),
    /// A rewrite reads or writes a box.
    #[error("a rewrite uses a box")]
    Boxes,
    /// A rewrite could write where there is no square, or remove one.
    #[error("a rewrite could create or remove a square")]
    ChangesTheBoard,
    /// A left side has no square that must hold something.
    #[error("a left side has no square to start from")]
    NoAnchor,
    /// A square of a left side may hold the piece of interest or other
    /// contents (`(% | x)`): the rewrite may match away from the piece,
    /// which the fast strategies, anchoring it at the piece, do not try.
    #[error("a left side's square may hold the piece of interest or something else")]
    PieceOrOther,
    /// Not a choice of alternatives from its start that square sets can
    /// follow (a jump back into the choice, an alternative reached twice).
    #[error("it is not a choice of alternatives from its start")]
    NotAChoiceOfAlternatives,
    /// No alternative binds a group of pieces and moves them by rays or by
    /// rules that square sets run (the choice among pieces).
    #[error("no alternative moves a group of pieces by rays or rules")]
    NoGroup,
    /// Not a choice among pieces each making a first rewrite and then a
    /// chain of them (the chains).
    #[error("it is not a choice among pieces each making a chain")]
    NotChains,
    /// A rewrite of a chain does not have one alternative with one choice,
    /// made at the piece of interest.
    #[error("a rewrite of a chain is not one alternative made at the piece of interest")]
    ChainRewrite,
    /// More pieces making chains, or classes of contents their first
    /// rewrites read, than a search keeps.
    #[error("more pieces or classes of contents than the chains keep")]
    TooManyChains,
    /// Not a placement counted by square sets: the reason.
    #[error("not a placement counted by square sets ({0})")]
    NotACountedPlacement(&'static str),
    /// Some path of the program does something before it binds a piece.
    #[error("some path does something before it binds a piece")]
    NotBoundFirst,
    /// The program's pieces make no first rewrite that square sets test.
    #[error("its pieces make no first rewrite that square sets test")]
    NoFirstRewrite,
    /// The program is not one guard on a test that square sets answer.
    #[error("it is not one guard on a test that square sets answer")]
    NotAGuard,
    /// The walker of the alternatives left to walk declined them.
    #[error("the rest of the choice cannot be walked: {0}")]
    Rest(Box<Decline>),
}

/// Scratch for the square-set strategies: the square sets of the position
/// last loaded, and which patterns were found not to hold where.
#[derive(Clone, Debug, Default)]
pub(crate) struct SetScratch {
    /// Per content code: the squares holding it.
    pub(crate) occupied: Vec<Squares>,
    /// The position those sets are of: its version and cells.
    loaded: Option<Loaded>,
    /// Per pattern of the game: the last positions it did not hold on.
    pub(crate) unmet: Vec<Unmet>,
}

/// Where a choice of rewrites on square sets puts the results it gives,
/// and the results a search that deduplicates has given: buffers kept
/// between searches.
#[derive(Clone, Debug, Default)]
pub(crate) struct PlanOutput {
    /// One result's changes.
    pub(crate) changes: Vec<Change>,
    /// The resulting hashes of the results given so far (deduplicating searches).
    seen: KeySet,
    /// Those results: hash and range of [`PlanOutput::kept_changes`].
    kept: Vec<(u64, u32, u32)>,
    kept_changes: Vec<Change>,
    /// Whether searches trace the squares the outermost piece of interest
    /// moves to.
    pub(crate) tracing: bool,
    /// Whether searches give moves as cell writes where they can
    /// ([`Successor::cells`](crate::engine::Successor::cells)).
    pub(crate) cells: bool,
    /// A move's cell writes.
    pub(crate) cell_writes: Vec<crate::engine::position::CellWrite>,
}

impl PlanOutput {
    /// Forgets the results given so far (a new deduplicating search).
    pub(crate) fn forget(&mut self) {
        self.seen.clear();
        self.kept.clear();
        self.kept_changes.clear();
    }

    /// Whether the result with resulting hash `hash` and `changes` is new
    /// (then it is kept); changes are compared in full when hashes meet.
    pub(crate) fn keep(&mut self, hash: u64, changes: &[Change]) -> bool {
        if !self.seen.insert(hash) {
            let kept = &self.kept_changes;
            let same = self
                .kept
                .iter()
                .any(|&(h, s, e)| h == hash && &kept[s as usize..e as usize] == changes);
            if same {
                return false;
            }
        }
        let start = self.kept_changes.len() as u32;
        self.kept_changes.extend_from_slice(changes);
        self.kept.push((hash, start, self.kept_changes.len() as u32));
        true
    }
}

/// Makes cell `i` of a loaded position, holding `*old`, hold `new`, and
/// the square sets `occupied` say so.
#[inline]
pub(crate) fn move_cell(occupied: &mut [Squares], old: &mut Code, new: Code, i: usize) {
    if *old != new {
        let bit: Squares = 1 << i;
        if let Some(set) = occupied.get_mut(*old as usize) {
            *set &= !bit;
        }
        if let Some(set) = occupied.get_mut(new as usize) {
            *set |= bit;
        }
        *old = new;
    }
}

/// The squares holding one of `codes` (each of which `holds` accepts) on a
/// position whose square sets are `occupied`, with the writes `overlay` made.
#[inline]
pub(crate) fn on_board(
    codes: &[Code],
    holds: impl Fn(Code) -> bool,
    occupied: &[Squares],
    overlay: &[(u32, Code)],
) -> Squares {
    let mut on = (codes.iter()).fold(0, |s: Squares, &c| {
        s | occupied.get(c as usize).copied().unwrap_or(0)
    });
    for &(s, c) in overlay {
        if s >= TALLY_BASE {
            continue;
        }
        if holds(c) {
            on |= 1 << s;
        } else {
            on &= !(1 << s);
        }
    }
    on
}

/// The position a [`SetScratch`]'s square sets are of.
#[derive(Clone, Debug)]
struct Loaded {
    version: Version,
    /// Its [`Position::came_from`].
    came_from: Option<(Version, u128)>,
    cells: Vec<Code>,
}

/// The last few positions (by version) a pattern did not hold on: a
/// search that makes and takes back moves comes back to them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unmet {
    versions: [Version; 8],
    next: usize,
}

impl Default for Unmet {
    fn default() -> Unmet {
        Unmet {
            versions: [Version::NEVER; 8],
            next: 0,
        }
    }
}

impl Unmet {
    pub(crate) fn has(&self, v: Version) -> bool {
        self.versions.contains(&v)
    }

    pub(crate) fn add(&mut self, v: Version) {
        self.versions[self.next] = v;
        self.next = (self.next + 1) % self.versions.len();
    }
}

impl SetScratch {
    /// Makes the square sets those of `position` (kept if it is loaded already).
    pub(crate) fn load(&mut self, position: &Position, codes: usize) {
        if self.occupied.len() >= codes
            && let Some(loaded) = &mut self.loaded
            && loaded.cells.len() == position.cells.len()
        {
            if loaded.version == position.version {
                return;
            }
            // The cells that may differ, when the two positions are one
            // change in place apart, or two from a common one.
            let near = match (position.came_from, loaded.came_from) {
                (Some((from, touched)), _) if from == loaded.version => Some(touched),
                (_, Some((from, touched))) if from == position.version => Some(touched),
                (Some((a, here)), Some((b, there))) if a == b => Some(here | there),
                _ => None,
            };
            loaded.version = position.version;
            loaded.came_from = position.came_from;
            if let Some(mut touched) = near {
                while touched != 0 {
                    let i = touched.trailing_zeros() as usize;
                    touched &= touched - 1;
                    move_cell(&mut self.occupied, &mut loaded.cells[i], position.cells[i], i);
                }
                return;
            }
            // Else update the sets where the cells differ, sixteen at a
            // time (compared without an early exit, so that many cells go
            // at once).
            let differ = |a: &[Code], b: &[Code]| a.iter().zip(b).fold(0, |d, (x, y)| d | (x ^ y)) != 0;
            for (k, (old, new)) in loaded
                .cells
                .chunks_mut(16)
                .zip(position.cells.chunks(16))
                .enumerate()
            {
                if !differ(old, new) {
                    continue;
                }
                for (j, (o, &n)) in old.iter_mut().zip(new).enumerate() {
                    move_cell(&mut self.occupied, o, n, k * 16 + j);
                }
            }
            return;
        }
        let size = codes.max(self.occupied.len());
        self.occupied.clear();
        self.occupied.resize(size, 0);
        for (i, &c) in position.cells.iter().enumerate() {
            if let Some(set) = self.occupied.get_mut(c as usize) {
                *set |= 1 << i;
            }
        }
        let mut cells = self.loaded.take().map(|l| l.cells).unwrap_or_default();
        cells.clear();
        cells.extend_from_slice(&position.cells);
        self.loaded = Some(Loaded {
            version: position.version,
            came_from: position.came_from,
            cells,
        });
    }
}
