//! Tools for people who write rule files: `diff` compares the legal moves
//! of two rule files (or a rule file and a UCI engine) over the positions
//! reachable from a start, `explain` derives a move (or says why it is not
//! legal) in the file's own words, and `stats` measures a game from many games
//! played out (length, branching, how games end, balance).

pub mod diff;
pub mod engine_client;
pub mod explain;
pub mod stats;

pub use diff::{DiffError, DiffOptions, DiffReport, Difference, Other, diff};
pub use engine_client::{EngineClient, EngineClientError};
pub use explain::{ExplainError, Explanation, Verdict, explain, public_place};
pub use stats::{GameStats, StatsOptions, stats};
