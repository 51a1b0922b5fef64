//! The engine's seam: the strategies that answer questions on a program,
//! one trait ([`Strategy`]) that each implements in a file of its own, and
//! the ordered list of them prepared for each program ([`Strategies`]),
//! built in one place ([`strategies_of`]), as `regex-automata`'s meta regex
//! chooses its strategy per regex.
//!
//! Each strategy is built by a constructor that takes the program and
//! returns the strategy or a typed reason it declines ([`Decline`]). A
//! question goes down the list: the first strategy that takes it and
//! answers on the position answers it; a strategy that owns a fallback
//! (the choice among pieces owns the list of the alternatives it leaves,
//! the ordered parts own a list per part) asks it, so ownership runs one
//! way, down. The walk, last in every list of a program with pieces of
//! interest, answers every question; a list without it may leave one
//! unanswered, and the backtracker ([`super::backtrack`]) answers then.
//!
//! A new strategy is one file here and one line in [`strategies_of`].

mod absent;
mod chains;
mod choice;
mod entry;
mod guard;
mod parts;
mod pieces;
mod placed;
mod traced;
mod walk;

use std::fmt;
use std::ops::ControlFlow;
use std::str::FromStr;

use smallvec::SmallVec;

use super::choice::Plan;
use super::position::Position;
use super::squares::{Decline, Squares};
use super::walk::{ChangeQuery, Keep, Query, TooLong, Walker};
use crate::engine::successor::Successor;
use crate::program::{Inst, Program};

/// The questions a strategy may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Question {
    /// Each result, each once ([`Strategy::each`]).
    Each,
    /// How many results ([`Strategy::count`] with no filter).
    Count,
    /// How many results a legality filter keeps ([`Strategy::count`] with one).
    CountKept,
    /// Whether there is a result ([`Strategy::holds`]).
    Holds,
    /// Whether some result changes a square ([`Strategy::changes_at`]).
    ChangesAt,
}

impl Question {
    /// Every question, in the order of [`Question::index`].
    const ALL: [Question; 5] = [
        Question::Each,
        Question::Count,
        Question::CountKept,
        Question::Holds,
        Question::ChangesAt,
    ];

    /// Its place in [`Question::ALL`].
    fn index(self) -> usize {
        self as usize
    }
}

/// A way to answer questions on one program, prepared for boards of one
/// size. A method answers `None` when the strategy does not answer the
/// question on this position (then it has not called `found`): the next
/// strategy of the list is asked.
pub(crate) trait Strategy: fmt::Debug + Send + Sync {
    /// Its name, as `--engine` and the reports write it.
    fn name(&self) -> &'static str;

    /// Whether it may answer `question` (on some positions).
    fn takes(&self, question: Question) -> bool;

    /// One more than the largest code its square sets read.
    fn codes(&self) -> usize;

    /// Calls `found` with each result, each once, until it says to stop.
    fn each(
        &self,
        query: &mut Query<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        let _ = (query, found);
        None
    }

    /// How many results there are that `keep` (if any) keeps, given each
    /// one's changes as (square, content) in square order.
    fn count(&self, query: &mut Query<'_>, keep: Option<&mut Keep<'_>>) -> Option<Result<u64, TooLong>> {
        let _ = (query, keep);
        None
    }

    /// Whether there is a result.
    fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        let _ = query;
        None
    }

    /// Whether some result changes the query's square, and the squares the
    /// answer read (see [`Walker::changes_at`]).
    fn changes_at(&self, query: &mut ChangeQuery<'_>) -> Option<Result<(bool, Squares), TooLong>> {
        let _ = query;
        None
    }

    /// The square sets that answer every question it takes, on every
    /// position, when it is a choice of rewrites (for the perft on square
    /// sets and the patterns' memory of where they do not hold).
    fn plan(&self) -> Option<&Plan> {
        None
    }

    /// The walker, when it is the walk.
    fn walker(&self) -> Option<&Walker> {
        None
    }

    /// The shapes it runs on square sets, for reports (its own name aside).
    fn shapes(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// The lists it owns and asks, each with a label (`1`, `2` for ordered
    /// parts; `rest` for the alternatives the choice among pieces leaves).
    fn owned(&self) -> Vec<(String, &Strategies)> {
        Vec::new()
    }
}

/// The strategies a game may prepare: all of them (the default), or
/// only those named (`--engine walk,backtrack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineChoice {
    /// Per strategy of [`STRATEGY_NAMES`], by its place: whether it may be prepared.
    chosen: u16,
}

/// Every strategy's name, as `--engine` takes them: the square-set and
/// walk strategies in the order a list tries them, then the perft on square
/// sets and the backtracker.
pub const STRATEGY_NAMES: [&str; 12] = [
    "choice",
    "traced-plan",
    "parts",
    "pieces",
    "chains",
    "absent-pieces",
    "first-rewrite",
    "placement-count",
    "square-set-guard",
    "walk",
    "set-perft",
    "backtrack",
];

impl Default for EngineChoice {
    fn default() -> EngineChoice {
        EngineChoice::all()
    }
}

impl EngineChoice {
    /// Every strategy: the fastest that takes each program.
    pub const fn all() -> EngineChoice {
        EngineChoice {
            chosen: (1 << STRATEGY_NAMES.len()) - 1,
        }
    }

    /// The backtracker alone: the reference, for every program.
    pub fn backtrack() -> EngineChoice {
        EngineChoice { chosen: 0 }.with("backtrack")
    }

    /// This choice and strategy `name` (one of [`STRATEGY_NAMES`]; another
    /// name adds nothing).
    fn with(self, name: &str) -> EngineChoice {
        let bit = STRATEGY_NAMES
            .iter()
            .position(|&n| n == name)
            .map_or(0, |i| 1 << i);
        EngineChoice {
            chosen: self.chosen | bit,
        }
    }

    /// Whether strategy `name` may be prepared.
    pub(crate) fn allows(&self, name: &str) -> bool {
        (STRATEGY_NAMES.iter().position(|&n| n == name)).is_some_and(|i| self.chosen >> i & 1 == 1)
    }

    /// Whether every strategy may be prepared.
    pub fn is_all(&self) -> bool {
        *self == EngineChoice::all()
    }
}

impl FromStr for EngineChoice {
    type Err = UnknownEngine;

    /// `all` (or `fast`: every strategy), or a comma-separated list of
    /// strategy names; the backtracker answers what the chosen do not, so
    /// `walk` means `walk,backtrack`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "fast" || s == "all" {
            return Ok(EngineChoice::all());
        }
        let mut choice = EngineChoice::backtrack();
        for word in s.split(',').map(str::trim) {
            if !STRATEGY_NAMES.contains(&word) {
                return Err(UnknownEngine(word.to_string()));
            }
            choice = choice.with(word);
        }
        Ok(choice)
    }
}

impl fmt::Display for EngineChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_all() {
            return f.write_str("all");
        }
        let chosen: Vec<&str> = (STRATEGY_NAMES.iter().copied())
            .filter(|n| self.allows(n))
            .collect();
        f.write_str(&chosen.join(","))
    }
}

/// A strategy name `--engine` does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is no strategy: the strategies are `all` and {names}", names = STRATEGY_NAMES.map(|n| format!("`{n}`")).join(", "))]
pub struct UnknownEngine(pub String);

/// The strategies prepared for one program, in the order they are asked.
#[derive(Debug)]
pub(crate) struct Strategies {
    list: Vec<Box<dyn Strategy>>,
    /// Per question ([`Question::index`]): the strategies that take it, by
    /// their place in `list`, in order.
    takers: [SmallVec<[u8; 6]>; 5],
    /// Per question: whether the first strategy that takes it is a plan on
    /// square sets ([`Strategy::plan`]), so that asking for it costs
    /// nothing where it is not.
    planned: [bool; 5],
    /// The strategies that declined the program, named, with the reason.
    declined: Vec<(&'static str, Decline)>,
    /// The walk's place in `list`, if the program is walked.
    walk: Option<usize>,
    /// Whether the program runs `attacked` (and so needs the other sides).
    attacks: bool,
    width: u32,
    height: u32,
    /// One more than the largest code a strategy's square sets read.
    codes: usize,
}

/// What [`strategies_of`] builds the strategies for: a program on boards of one
/// size, and the strategies chosen.
#[derive(Clone, Copy)]
struct Preparing<'p> {
    program: &'p Program,
    width: u32,
    height: u32,
    choice: &'p EngineChoice,
}

impl Preparing<'_> {
    /// The same for another program (an ordered part, the alternatives a
    /// strategy leaves).
    fn of<'q>(&'q self, program: &'q Program) -> Preparing<'q> {
        Preparing { program, ..*self }
    }
}

/// The list being built: strategies added in order, declines noted.
struct Building {
    list: Vec<Box<dyn Strategy>>,
    declined: Vec<(&'static str, Decline)>,
}

impl Building {
    /// Whether the strategy `name` is in the list.
    fn has(&self, name: &str) -> bool {
        self.list.iter().any(|s| s.name() == name)
    }

    /// Adds what constructor `name` built, if `choice` allows it, or notes
    /// why it declined.
    fn add<S: Strategy + 'static>(
        &mut self,
        name: &'static str,
        choice: &EngineChoice,
        build: impl FnOnce() -> Result<S, Decline>,
    ) {
        if !choice.allows(name) {
            return;
        }
        match build() {
            Ok(s) => self.list.push(Box::new(s)),
            Err(why) => self.declined.push((name, why)),
        }
    }
}

/// Prepares `program` for boards of `width` by `height`: the strategies
/// `choice` allows that take it, in the order they are asked, or why none
/// of the square-set strategies can (then the backtracker runs it).
pub(crate) fn strategies_of(
    program: &Program,
    width: u32,
    height: u32,
    choice: &EngineChoice,
) -> Result<Strategies, Decline> {
    let alternatives = program.rewrites.iter().flat_map(|rw| rw.alternatives.iter());
    if alternatives
        .flat_map(|a| a.checks.iter())
        .any(|c| c.poi && !c.accepts.is_empty())
    {
        return Err(Decline::PieceOrOther);
    }
    let p = Preparing {
        program,
        width,
        height,
        choice,
    };
    match super::choice::plan(program, width, height) {
        Ok(plan) if choice.allows("choice") => {
            let list: Vec<Box<dyn Strategy>> = vec![Box::new(choice::ChoiceOfRewrites::new(plan))];
            Ok(Strategies::new(list, Vec::new(), &p))
        }
        Ok(_) => Err(Decline::NotChosen),
        Err(Decline::NotAChoice(_)) => prepare_walked(&p),
        Err(e) => Err(e),
    }
}

/// The list of a program with pieces of interest: each strategy that
/// takes it, the walk last.
fn prepare_walked(p: &Preparing<'_>) -> Result<Strategies, Decline> {
    let walker = Walker::new(p.program, p.width, p.height)?;
    super::choice::compile::follow(p.program, p.program.start)?;
    let mut b = Building {
        list: Vec::new(),
        declined: Vec::new(),
    };
    b.add("traced-plan", p.choice, || {
        traced::TracedPlan::new(p.program, p.width, p.height)
    });
    let parts = parts::OrderedParts::of(p.program);
    match parts {
        Some(programs) => {
            // Its alternatives apart: the strategies of each run inside its list.
            let parts = (programs.iter())
                .map(|part| prepare_walked(&p.of(part)))
                .collect::<Result<Vec<_>, _>>()?;
            b.add("parts", p.choice, || Ok(parts::OrderedParts::new(parts)));
        }
        None => {
            b.add("pieces", p.choice, || {
                let (bulk, rest) = pieces::split(&walker, p.width, p.height)?;
                let rest = match rest {
                    Some(rest) => Some(prepare_walked(&p.of(&rest)).map_err(|e| Decline::Rest(Box::new(e)))?),
                    None => None,
                };
                Ok(pieces::Pieces::new(bulk, rest))
            });
            if !b.has("pieces") {
                b.add("chains", p.choice, || {
                    chains::ChainsOfPieces::new(&walker, p.width, p.height)
                });
            }
        }
    }
    b.add("first-rewrite", p.choice, || entry::FirstRewrite::new(&walker));
    // Where no piece the first binds name stands, no first rewrite is
    // possible either: the first rewrite answers whatever this would.
    if !b.has("first-rewrite") {
        b.add("absent-pieces", p.choice, || absent::AbsentPieces::new(p.program));
    }
    b.add("placement-count", p.choice, || placed::Placed::new(&walker));
    b.add("square-set-guard", p.choice, || {
        guard::SquareSetGuard::new(&walker)
    });
    if p.choice.allows("walk") {
        b.list.push(Box::new(walker));
    }
    if b.list.is_empty() {
        return Err(Decline::NotChosen);
    }
    Ok(Strategies::new(b.list, b.declined, p))
}

/// The instruction a program's path reaches from `pc` through jumps
/// (`pc` itself when the jumps go round in a loop).
fn through_jumps(program: &Program, pc: crate::program::Pc) -> crate::program::Pc {
    super::choice::compile::follow(program, pc).unwrap_or(pc)
}

impl Strategies {
    /// The list `list` for `p`'s program, the declines met building it.
    fn new(
        list: Vec<Box<dyn Strategy>>,
        declined: Vec<(&'static str, Decline)>,
        p: &Preparing<'_>,
    ) -> Strategies {
        let takers: [SmallVec<[u8; 6]>; 5] = Question::ALL.map(|q| {
            (list.iter().enumerate())
                .filter(|(_, s)| s.takes(q))
                .map(|(i, _)| i as u8)
                .collect()
        });
        let attacks =
            (p.program.insts.iter()).any(|i| matches!(i, Inst::Attacked { .. } | Inst::NoReply { .. }));
        let codes = list.iter().map(|s| s.codes()).max().unwrap_or(1);
        let planned = takers
            .each_ref()
            .map(|t| t.first().is_some_and(|&i| list[i as usize].plan().is_some()));
        Strategies {
            planned,
            walk: list.iter().position(|s| s.walker().is_some()),
            list,
            takers,
            declined,
            attacks,
            width: p.width,
            height: p.height,
            codes,
        }
    }

    /// The strategies that take `question`, in order.
    fn takers(&self, question: Question) -> impl Iterator<Item = &dyn Strategy> {
        self.takers[question.index()]
            .iter()
            .map(|&i| &*self.list[i as usize])
    }

    /// Calls `found` with each result on the query's position, each once,
    /// until it says to stop; `None` when no strategy of the list answers.
    pub(crate) fn each(
        &self,
        query: &mut Query<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        self.takers(Question::Each).find_map(|s| s.each(query, found))
    }

    /// How many results there are that `keep` (if any) keeps; `None` when
    /// no strategy of the list answers.
    pub(crate) fn count(
        &self,
        query: &mut Query<'_>,
        mut keep: Option<&mut Keep<'_>>,
    ) -> Option<Result<u64, TooLong>> {
        let question = if keep.is_some() {
            Question::CountKept
        } else {
            Question::Count
        };
        self.takers(question)
            .find_map(|s| s.count(query, keep.as_deref_mut()))
    }

    /// Whether there is a result; `None` when no strategy of the list answers.
    pub(crate) fn holds(&self, query: &mut Query<'_>) -> Option<Result<bool, TooLong>> {
        self.takers(Question::Holds).find_map(|s| s.holds(query))
    }

    /// Whether some result changes the query's square, and the squares the
    /// answer read; `None` when no strategy of the list answers.
    pub(crate) fn changes_at(&self, query: &mut ChangeQuery<'_>) -> Option<Result<(bool, Squares), TooLong>> {
        let mut takers = self.takers(Question::ChangesAt).peekable();
        // The walk knows where its pieces reach: when none is near, no
        // result changes the square, whoever else would have answered.
        if let Some(w) = self.walker()
            && takers.peek().is_some_and(|s| s.walker().is_none())
            && w.nothing_near(query)
        {
            return Some(Ok((false, 0)));
        }
        takers.find_map(|s| s.changes_at(query))
    }

    /// The square sets that answer `question` alone on every position, if
    /// the first strategy that takes it is a choice of rewrites.
    pub(crate) fn plan_for(&self, question: Question) -> Option<&Plan> {
        if !self.planned[question.index()] {
            return None;
        }
        self.takers(question).next()?.plan()
    }

    /// The walk, when the program is walked (it answers every question).
    pub(crate) fn walker(&self) -> Option<&Walker> {
        self.list[self.walk?].walker()
    }

    /// Whether the strategies were prepared for `position`'s grid.
    pub(crate) fn fits(&self, position: &Position) -> bool {
        position.x0 == 0 && position.y0 == 0 && position.width == self.width && position.height == self.height
    }

    /// Whether the program runs `attacked` (and so needs the other sides).
    pub(crate) fn attacks(&self) -> bool {
        self.attacks
    }

    /// One more than the largest code the strategies' square sets read.
    pub(crate) fn codes(&self) -> usize {
        self.codes
    }

    /// The strategies' names, in the order they are asked, each followed
    /// by the lists it owns in brackets (`parts [1: chains, walk; 2: walk]`).
    pub(crate) fn names(&self) -> Vec<String> {
        (self.list.iter())
            .map(|s| {
                let owned: Vec<String> = (s.owned().into_iter())
                    .map(|(label, list)| format!("{label}: {}", list.names().join(", ")))
                    .collect();
                match owned[..] {
                    [] => s.name().to_string(),
                    _ => format!("{} [{}]", s.name(), owned.join("; ")),
                }
            })
            .collect()
    }

    /// The shapes the strategies, and those of the lists they own, run on
    /// square sets, each once, in alphabetical order (for reports and tests).
    pub(crate) fn shapes(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for s in &self.list {
            out.extend(s.shapes());
            out.extend(s.owned().iter().flat_map(|(_, list)| list.shapes()));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The strategies that declined the program, each named with the
    /// reason, then those of the lists its strategies own, named with the
    /// list's label (`part 2: chains`, `rest: walk`).
    pub(crate) fn declined(&self) -> Vec<(String, Decline)> {
        let mut out: Vec<(String, Decline)> = (self.declined.iter())
            .map(|(name, why)| (name.to_string(), why.clone()))
            .collect();
        for s in &self.list {
            for (label, list) in s.owned() {
                let label = if label.starts_with(|c: char| c.is_ascii_digit()) {
                    format!("part {label}")
                } else {
                    label
                };
                out.extend(
                    (list.declined().into_iter()).map(|(name, why)| (format!("{label}: {name}"), why)),
                );
            }
        }
        out
    }
}
