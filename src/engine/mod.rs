//! Positions, and the engines that run programs on them.
//!
//! A [`Position`] is a finite set of squares at integer coordinates, each
//! empty or holding a piece. An [`Engine`] holds the moves of every side of a
//! game, prepared for boards of the game's size, and answers the questions
//! the game layer asks: each move of a side (optionally only those that
//! leave its protected pieces where no other side can change their squares),
//! whether a program has a result, and whether another side can change a
//! square. [`prepare`] picks the engine for each program, the way
//! `regex-automata`'s meta regex picks a strategy: the [`Backtracker`] runs
//! every program and stays the reference; the square-set strategies (a
//! choice of rewrites, the walker and its shortcuts) run the programs they
//! can and decline the others, in the order `strategy` writes down.
//!
//! [`search`] and [`apply`] run one program alone (nothing is `attacked`),
//! for `chessalg apply` and analyses. Every search keeps its scratch in a
//! [`Cache`] and is bounded by [`Limits`]: a runaway rule ends in an
//! [`EngineError`], never a hang. A cache may also carry a deadline
//! ([`Cache::set_deadline`]): every search made with it stops with
//! [`EngineError::OutOfTime`] once the deadline has passed.

mod alone;
mod backtrack;
mod bulk;
mod cache;
mod chain;
mod choice;
mod hash;
mod legal;
mod meter;
mod placed;
mod position;
mod questions;
mod reach;
mod scratch;
mod side;
mod squares;
mod strategy;
mod successor;
mod walk;

pub use alone::{apply, search};
pub use backtrack::{Backtracker, Successors};
pub use cache::Cache;
pub use choice::perft::{SetPerft, Stopped};
pub(crate) use hash::mix as mix_key;
pub use meter::{EngineError, Limits};
pub(crate) use position::{CellWrite, Version};
pub use position::{Changes, DiagramError, Position};
pub use questions::{Engine, EngineReport, prepare};
pub(crate) use reach::{move_offsets, placements};
pub use side::Side;
pub use strategy::{EngineChoice, STRATEGY_NAMES, UnknownEngine};
pub use successor::Successor;

#[cfg(test)]
mod tests;
