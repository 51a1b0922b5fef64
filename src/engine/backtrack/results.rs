//! The results of a search: change lists deduplicated exactly, in the order
//! found, and [`Successors`], the view of them a caller gets.

use rustc_hash::FxHashMap;

use super::frame::{NONE, Poi, Trace};
use crate::core::{self as code, Change, Coord};
use crate::engine::successor::Successor;

/// One result: a change list and what it is known by.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) key: u64,
    /// The next entry with the same key (`NONE`: last).
    pub(super) next: u32,
    /// The piece of interest at the end (sub-programs only).
    pub(super) poi: Option<Poi>,
    pub(super) trace: Trace,
    /// Where its traced path starts in [`Results::paths`] (`trace.path` squares).
    pub(super) path: u32,
}

/// A set of results, deduplicated exactly, in the order they were found.
#[derive(Clone, Debug, Default)]
pub(super) struct Results {
    pub(super) changes: Vec<Change>,
    pub(super) entries: Vec<Entry>,
    pub(super) index: FxHashMap<u64, u32>,
    /// The traced paths of the entries, one after another.
    pub(super) paths: Vec<Coord>,
}

impl Results {
    #[inline]
    pub(super) fn clear(&mut self) {
        self.changes.clear();
        self.entries.clear();
        self.paths.clear();
        if !self.index.is_empty() {
            self.index.clear();
        }
    }

    #[inline]
    pub(super) fn changes(&self, e: &Entry) -> &[Change] {
        &self.changes[e.start as usize..e.end as usize]
    }

    /// The traced path of an entry (empty when paths were not traced).
    #[inline]
    pub(super) fn path(&self, e: &Entry) -> &[Coord] {
        self.paths
            .get(e.path as usize..(e.path + e.trace.path) as usize)
            .unwrap_or(&[])
    }

    /// Adds a result unless an equal one is there already: the same changes,
    /// piece of interest and move (see [`Trace::same_move`]).
    #[inline]
    pub(super) fn insert(
        &mut self,
        key: u64,
        changes: &[Change],
        poi: Option<Poi>,
        trace: Trace,
        path: &[Coord],
    ) {
        let head = self.index.get(&key).copied().unwrap_or(NONE);
        let mut i = head;
        while i != NONE {
            let e = self.entries[i as usize];
            if e.poi == poi && e.trace.same_move(&trace) && self.changes(&e) == changes {
                return;
            }
            i = e.next;
        }
        let start = self.changes.len() as u32;
        self.changes.extend_from_slice(changes);
        let path_start = self.paths.len() as u32;
        self.paths.extend_from_slice(path);
        self.entries.push(Entry {
            start,
            end: self.changes.len() as u32,
            key,
            next: head,
            poi,
            trace: Trace {
                path: path.len() as u32,
                ..trace
            },
            path: path_start,
        });
        self.index.insert(key, (self.entries.len() - 1) as u32);
    }
}

/// The results of one search, borrowed from the cache, in the order found
/// (deterministic for a given program and position).
#[derive(Clone, Copy, Debug)]
pub struct Successors<'c> {
    pub(super) results: &'c Results,
    pub(super) states: u64,
}

impl<'c> Successors<'c> {
    /// How many distinct positions the search found.
    pub fn len(&self) -> usize {
        self.results.entries.len()
    }

    /// Whether the search found none.
    pub fn is_empty(&self) -> bool {
        self.results.entries.is_empty()
    }

    /// How many states the search reached (each charged against
    /// [`crate::engine::Limits::max_states`]).
    pub fn states(&self) -> u64 {
        self.states
    }

    /// The `i`th result.
    pub fn get(&self, i: usize) -> Option<Successor<'c>> {
        let results = self.results;
        results.entries.get(i).map(|e| Successor {
            changes: results.changes(e),
            poi_from: e.trace.id.from,
            poi_to: e.trace.id.to,
            became: e.trace.id.became.and_then(code::as_piece).map(|(p, _)| p),
            path: results.path(e),
            // A top-level key is the position's hash and the move's.
            hash: e.key ^ e.trace.key,
            cells: &[],
        })
    }

    /// Every result in the order found.
    pub fn iter(&self) -> impl Iterator<Item = Successor<'c>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}
