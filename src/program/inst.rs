//! The matcher program: instructions, compiled rewrites and their offset lists.
//!
//! A program is immutable once built; the engine keeps all scratch state in
//! its own cache, so one program can serve many searches at once.

use std::fmt;

use crate::core::Marks;
use crate::core::{Code, CodeSet};

/// An index into [`Program`]'s instructions.
pub(crate) type Pc = u32;

/// Typed indices into the program's side tables, so that an instruction's
/// operand cannot be used to index the wrong one.
macro_rules! table_id {
    ($($name:ident: $doc:literal,)*) => {$(
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) struct $name(pub(crate) u32);

        impl $name {
            /// The index into its table.
            #[inline]
            pub(crate) fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    )*};
}

table_id! {
    RewriteId: "A compiled rewrite, an index into [`Program::rewrites`].",
    BindId: "The piece codes of a `%p:`, an index into [`Program::binds`].",
    SubId: "A sub-program (a guard body or an ordered alternative), an index into [`Program::subs`].",
    ListId: "The alternatives of an ordered choice, an index into [`Program::ordered`].",
}

/// One instruction of the matcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Inst {
    /// For every match of rewrite `id` and every choice of its replacement:
    /// make the change, continue at `next`, undo.
    Rewrite {
        /// The rewrite.
        id: RewriteId,
        /// Where to continue.
        next: Pc,
    },
    /// Continue at `first`, then (on the same state) at `second`.
    Split {
        /// Explored first.
        first: Pc,
        /// Explored second.
        second: Pc,
    },
    /// Continue at `to` (resolved away by the compiler; never executed).
    Jump {
        /// The target.
        to: Pc,
    },
    /// For every square holding one of the codes of bind `id`: push it as the
    /// piece of interest, continue at `next`, pop.
    Bind {
        /// The piece codes.
        id: BindId,
        /// Where to continue.
        next: Pc,
    },
    /// Pop the piece of interest (the outer one is back), continue at `next`.
    Unbind {
        /// Where to continue.
        next: Pc,
    },
    /// Run sub-program `sub`; continue at `next` when it has a result
    /// (`holds`) or has none (not `holds`).
    Guard {
        /// Whether the sub-program must have a result.
        holds: bool,
        /// The sub-program.
        sub: SubId,
        /// Where to continue.
        next: Pc,
    },
    /// Run the sub-programs of list `id` in order until one has results;
    /// continue at `next` from each of them.
    Ordered {
        /// The list of sub-programs.
        id: ListId,
        /// Where to continue.
        next: Pc,
    },
    /// A guard on one rewrite: continue at `next` when rewrite `id`'s left
    /// side matches somewhere (`holds`) or nowhere (not `holds`).
    Test {
        /// Whether the left side must match.
        holds: bool,
        /// The rewrite.
        id: RewriteId,
        /// Where to continue.
        next: Pc,
    },
    /// `attacked`: continue at `next` when an opponent could change the
    /// square of the piece of interest (the search's oracle decides).
    Attacked {
        /// Where to continue.
        next: Pc,
    },
    /// `no_reply`: continue at `next` when the next side would have no
    /// legal move in the position reached (the search's oracle decides).
    NoReply {
        /// Where to continue.
        next: Pc,
    },
    /// `%from:`: the square the piece of interest started on becomes the
    /// piece of interest (whatever it holds), until the next `Unbind`.
    Origin {
        /// Where to continue.
        next: Pc,
    },
    /// A result: the current position (and piece of interest, in a sub-program).
    Match,
}

impl Inst {
    /// The instructions a search may go to next from this one (within its
    /// own sub-program: a guard's or an ordered choice's body starts one of
    /// its own).
    pub(crate) fn successors(&self) -> impl Iterator<Item = Pc> {
        let (a, b) = match *self {
            Inst::Split { first, second } => (Some(first), Some(second)),
            Inst::Jump { to } => (Some(to), None),
            Inst::Rewrite { next, .. }
            | Inst::Bind { next, .. }
            | Inst::Unbind { next }
            | Inst::Guard { next, .. }
            | Inst::Ordered { next, .. }
            | Inst::Test { next, .. }
            | Inst::Attacked { next }
            | Inst::NoReply { next }
            | Inst::Origin { next } => (Some(next), None),
            Inst::Match => (None, None),
        };
        a.into_iter().chain(b)
    }
}

/// One square of a left side: where it is and what it may hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Check {
    /// Offset from the pattern's centre, x to the right.
    pub(crate) dx: i32,
    /// Offset from the pattern's centre, y upwards.
    pub(crate) dy: i32,
    /// Accepted contents.
    pub(crate) accepts: CodeSet,
    /// Also accepted: the square of the piece of interest, holding it.
    pub(crate) poi: bool,
    /// Marks the piece of interest must carry there (for `%°`).
    pub(crate) poi_marks: Marks,
    /// Whether the check asks only where the board is: `Some(true)` for
    /// `_` (any square on the board), `Some(false)` for `#` (off it),
    /// `None` when it asks what a square holds.
    pub(crate) on_board: Option<bool>,
}

/// A square of a left side the search may start from, and where to find
/// the squares it may match: the piece of interest and per-content lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Anchor {
    /// The check it anchors, an index into [`Alternative::checks`].
    pub(crate) check: u32,
    /// Whether the square of the piece of interest is a candidate.
    pub(crate) poi: bool,
    /// The contents whose squares are candidates.
    pub(crate) codes: Box<[Code]>,
}

/// What a change writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Write {
    /// These contents ([`crate::core::OFF`] removes the square).
    Code(Code),
    /// The piece of interest with exactly these marks, which moves there.
    Poi(Marks),
}

/// One square a replacement writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SquareWrite {
    /// Offset from the pattern's centre, x to the right.
    pub(crate) dx: i32,
    /// Offset from the pattern's centre, y upwards.
    pub(crate) dy: i32,
    /// What is written.
    pub(crate) write: Write,
}

/// One alternative of a left side, with every replacement it can lead to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Alternative {
    /// The squares to check, most selective first.
    pub(crate) checks: Box<[Check]>,
    /// The checks the search may start from; the engine picks the one with
    /// the fewest candidate squares in the position at hand.
    pub(crate) anchors: Box<[Anchor]>,
    /// One change list per choice of the replacement.
    pub(crate) choices: Box<[Box<[SquareWrite]>]>,
    /// What the boxes must hold for the left side to match.
    pub(crate) tally_checks: Box<[TallyCheck]>,
    /// Per choice of the replacement: how it changes the boxes.
    pub(crate) tally_writes: Box<[Box<[TallyWrite]>]>,
}

impl Alternative {
    /// Whether it reads or writes a box.
    pub(crate) fn uses_boxes(&self) -> bool {
        !self.tally_checks.is_empty() || self.tally_writes.iter().any(|w| !w.is_empty())
    }
}

impl CompiledRewrite {
    /// Whether one of its alternatives reads or writes a box.
    pub(crate) fn uses_boxes(&self) -> bool {
        self.alternatives.iter().any(Alternative::uses_boxes)
    }

    /// Its alternatives, unless one reads or writes a box: what the
    /// shapes a strategy recognises look at, none of which moves pieces
    /// in or out of boxes.
    pub(crate) fn boxless(&self) -> Option<&[Alternative]> {
        (!self.uses_boxes()).then_some(&self.alternatives[..])
    }
}

/// A box a left side takes pieces from: its tally slot must hold at least `at_least`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TallyCheck {
    /// The tally slot (box and piece).
    pub(crate) slot: u32,
    /// How many the box must hold.
    pub(crate) at_least: u16,
}

/// How one replacement changes one tally slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TallyWrite {
    /// The tally slot (box and piece).
    pub(crate) slot: u32,
    /// What is added (negative: taken out).
    pub(crate) delta: i32,
}

/// A compiled `f -> g`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CompiledRewrite {
    /// The alternatives of the left side (its `|` multiplied out).
    pub(crate) alternatives: Box<[Alternative]>,
}

/// One square relative to the piece of interest and what it must hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EntryCheck {
    /// Offset from the piece of interest, x to the right.
    pub(crate) dx: i32,
    /// Offset from the piece of interest, y upwards.
    pub(crate) dy: i32,
    /// What the square must hold.
    pub(crate) accepts: CodeSet,
}

/// At a `Split` that starts a chain of alternatives: the checks the first
/// few alternatives all need, and where the chain goes on past them (`past`;
/// `None`: nowhere, the whole chain needs them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Skip {
    /// What the skipped alternatives all check first.
    pub(crate) checks: Box<[EntryCheck]>,
    /// Where to continue when the checks fail.
    pub(crate) past: Option<Pc>,
}

/// What a search does at a `Split`, given whether the squares around the
/// piece of interest hold what its run of alternatives checks first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SplitEntry {
    /// Try its branches.
    Enter,
    /// No alternative of the run can start: continue here, past it.
    Past(Pc),
    /// No alternative of the chain can start: the path ends.
    Dead,
}

/// A compiled move: what [`crate::engine`] runs against positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub(crate) insts: Vec<Inst>,
    /// Per instruction: whether arriving there consults the visited set
    /// (loop heads, joins, and after steps that can merge states).
    pub(crate) visit: Vec<bool>,
    /// Per instruction: whether it is a loop head (a `Split` that an
    /// instruction after it comes back to).
    pub(crate) loop_heads: Vec<bool>,
    pub(crate) rewrites: Vec<CompiledRewrite>,
    pub(crate) binds: Vec<Box<[Code]>>,
    /// Start of each sub-program (guard bodies and ordered alternatives).
    pub(crate) subs: Vec<Pc>,
    pub(crate) ordered: Vec<Box<[SubId]>>,
    pub(crate) start: Pc,
    /// One more than the largest content code the program mentions.
    pub(crate) codes: usize,
    /// How deeply sub-programs nest (0: none).
    pub(crate) depth: usize,
    /// Per instruction: squares around the piece of interest that every
    /// path from it checks first (see [`super::entry`]).
    pub(crate) entry: Vec<Box<[EntryCheck]>>,
    /// Per `Split`: the run of alternatives one failed check skips.
    pub(crate) skip: Vec<Option<Skip>>,
    /// Whether some rewrite runs outside every `%p:` (and so may write
    /// anywhere, whatever the pieces of interest can reach).
    pub(crate) unbound_writes: bool,
}

impl Program {
    /// How many instructions the program has.
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    /// Whether the program has no instructions (never: it ends in a match).
    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }

    /// Where the search goes at `Split` `pc`, `holds` telling whether checks
    /// around the piece of interest hold (see [`Skip`]).
    #[inline]
    pub(crate) fn split_entry(&self, pc: Pc, holds: impl FnOnce(&[EntryCheck]) -> bool) -> SplitEntry {
        match &self.skip[pc as usize] {
            Some(skip) if !holds(&skip.checks) => skip.past.map_or(SplitEntry::Dead, SplitEntry::Past),
            _ => SplitEntry::Enter,
        }
    }

    /// How deeply guards and ordered choices nest in this program.
    pub fn nesting(&self) -> usize {
        self.depth
    }
}

impl fmt::Display for Program {
    /// A listing, one instruction a line, for debugging.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "start {}", self.start)?;
        for (pc, inst) in self.insts.iter().enumerate() {
            let mark = if self.visit[pc] { "*" } else { " " };
            write!(f, "{pc:4}{mark} ")?;
            match inst {
                Inst::Rewrite { id, next } => {
                    let rw = &self.rewrites[id.index()];
                    write!(
                        f,
                        "rewrite {id} ({} alternatives) -> {next}",
                        rw.alternatives.len()
                    )?
                }
                Inst::Split { first, second } => write!(f, "split {first}, {second}")?,
                Inst::Jump { to } => write!(f, "jump {to}")?,
                Inst::Bind { id, next } => write!(f, "bind {:?} -> {next}", self.binds[id.index()])?,
                Inst::Unbind { next } => write!(f, "unbind -> {next}")?,
                Inst::Guard { holds, sub, next } => {
                    let start = self.subs[sub.index()];
                    let kind = if *holds { "?" } else { "!" };
                    write!(f, "guard {kind}{{{start}}} -> {next}")?
                }
                Inst::Ordered { id, next } => {
                    let starts: Vec<Pc> = self.ordered[id.index()]
                        .iter()
                        .map(|s| self.subs[s.index()])
                        .collect();
                    write!(f, "ordered {starts:?} -> {next}")?
                }
                Inst::Attacked { next } => write!(f, "attacked -> {next}")?,
                Inst::NoReply { next } => write!(f, "no_reply -> {next}")?,
                Inst::Origin { next } => write!(f, "origin -> {next}")?,
                Inst::Test { holds, id, next } => {
                    let kind = if *holds { "?" } else { "!" };
                    write!(f, "test {kind}rewrite {id} -> {next}")?
                }
                Inst::Match => write!(f, "match")?,
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
