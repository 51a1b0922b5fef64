//! A game clock: each player's time left, spent while it is their turn and
//! topped up by an increment after each of their moves, and how much of it
//! the AI spends on one move. One clock for every front end: `play` in the
//! terminal and the games `serve` keeps. Times are milliseconds of the
//! wall clock ([`now_ms`]), so a clock written down (a served game's
//! database row) reads back running where it was.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use thiserror::Error;

use crate::core::PlayerId;

/// Milliseconds since the Unix epoch, now: the time every clock reads.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A clock's setting: each player's time at the start and what a move adds
/// (`5+3`: five minutes, three seconds a move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each player's time at the start.
    pub base: Duration,
    /// The time added after each of a player's moves.
    pub increment: Duration,
}

/// The most minutes a clock may start with.
const MAX_MINUTES: f64 = 10_000.0;

/// The most seconds a move may add.
const MAX_INCREMENT: f64 = 3_600.0;

/// Why a time control does not read.
#[derive(Clone, Debug, Error, PartialEq)]
#[error(
    "`{text}` is not a clock: write MINUTES+SECONDS (`5+3`: five minutes each, three seconds added a move; `0.5+0`), minutes above 0 and at most 10000, seconds at most 3600"
)]
pub struct TimeControlError {
    text: String,
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// `MINUTES+SECONDS` (`5+3`), or `MINUTES` alone (no increment).
    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let bad = || TimeControlError {
            text: text.to_string(),
        };
        let (minutes, seconds) = text.split_once('+').unwrap_or((text, "0"));
        let number = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(bad)
        };
        let (minutes, seconds) = (number(minutes)?, number(seconds)?);
        if minutes == 0.0 || minutes > MAX_MINUTES || seconds > MAX_INCREMENT {
            return Err(bad());
        }
        Ok(TimeControl {
            base: Duration::from_secs_f64(minutes * 60.0),
            increment: Duration::from_secs_f64(seconds),
        })
    }
}

impl fmt::Display for TimeControl {
    /// PGN's `TimeControl` form: seconds, `+` the increment in seconds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.base.as_secs_f64(), self.increment.as_secs_f64())
    }
}

/// How many more moves the AI plans its time for.
const MOVES_TO_GO: u32 = 30;

/// The clocks of a game: each player's time left when their clock last
/// stopped, and since when the running one (the player to move's) runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    /// Per player, in turn order, milliseconds.
    left: Vec<u64>,
    /// When the player to move's clock started; none while no clock runs
    /// (a served game's first move is not timed).
    since: Option<u64>,
    flagged: Option<PlayerId>,
}

impl Clock {
    /// Clocks for `players` players, each with the control's base time;
    /// none runs until [`Clock::start`] or the first move.
    pub fn new(control: TimeControl, players: usize) -> Clock {
        Clock {
            control,
            left: vec![control.base.as_millis() as u64; players],
            since: None,
            flagged: None,
        }
    }

    /// The player to move's clock runs from `now`.
    pub fn start(&mut self, now: u64) {
        self.since = Some(now);
    }

    /// The setting.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// Each player's time left at `now` in milliseconds, with `to_move`
    /// to move.
    pub fn left_at(&self, to_move: PlayerId, now: u64) -> Vec<u64> {
        let mut left = self.left.clone();
        if let (Some(since), Some(t)) = (self.since, left.get_mut(to_move.index())) {
            *t = t.saturating_sub(now.saturating_sub(since));
        }
        left
    }

    /// The time `player` has left at `now`; `to_move`'s clock is running.
    pub fn left(&self, player: PlayerId, to_move: PlayerId, now: u64) -> Duration {
        let left = self.left_at(to_move, now);
        Duration::from_millis(left.get(player.index()).copied().unwrap_or(0))
    }

    /// Whether a clock is running.
    pub fn running(&self) -> bool {
        self.since.is_some()
    }

    /// When `to_move`'s time runs out, if their clock runs.
    pub fn deadline(&self, to_move: PlayerId) -> Option<u64> {
        Some(self.since? + self.left.get(to_move.index())?)
    }

    /// Whether `to_move`'s time has run out at `now` (and nobody's had
    /// before).
    pub fn out_of_time(&self, to_move: PlayerId, now: u64) -> bool {
        self.flagged.is_none() && self.deadline(to_move).is_some_and(|d| now >= d)
    }

    /// How long the AI may think on `player`'s move at `now`: an even share
    /// of the time left over the moves still to come, plus most of the
    /// increment, never more than half of what is left.
    pub fn allowance(&self, player: PlayerId, now: u64) -> Duration {
        let left = self.left(player, player, now);
        let share = left / MOVES_TO_GO + self.control.increment.mul_f64(0.75);
        share.min(left / 2).max(Duration::from_millis(1))
    }

    /// `mover` moved at `now`: the time they spent is taken off and the
    /// increment added, and the next player's clock starts. A player who
    /// spent more than they had has lost on time ([`Clock::flagged`]).
    pub fn moved(&mut self, mover: PlayerId, now: u64) {
        let left = self.left_at(mover, now);
        let overran = match (self.since, self.left.get(mover.index())) {
            (Some(since), Some(&had)) => now.saturating_sub(since) >= had,
            _ => false,
        };
        if overran && self.flagged.is_none() {
            self.flagged = Some(mover);
        }
        self.left = left;
        if let Some(t) = self.left.get_mut(mover.index()) {
            *t += self.control.increment.as_millis() as u64;
        }
        self.since = Some(now);
    }

    /// The player to move's clock starts again at `now` (after a take-back,
    /// nobody's time runs meanwhile), if a clock runs.
    pub fn restart(&mut self, now: u64) {
        if self.since.is_some() {
            self.since = Some(now);
        }
    }

    /// The clocks as a record left them: each player's time after the
    /// last move (`None`: every player's base time), running since `since`
    /// (`None`: not running); nobody out of time.
    pub fn restore(&mut self, left: Option<&[u64]>, since: Option<u64>) {
        let base = self.control.base.as_millis() as u64;
        let players = self.left.len();
        self.left = match left {
            Some(left) if left.len() == players => left.to_vec(),
            _ => vec![base; players],
        };
        self.since = since;
        self.flagged = None;
    }

    /// Each player's time left when their clock last stopped, in
    /// milliseconds (what a record keeps after a move).
    pub fn times(&self) -> &[u64] {
        &self.left
    }

    /// `player`'s time ran out.
    pub fn flag(&mut self, player: PlayerId) {
        self.flagged.get_or_insert(player);
    }

    /// The player whose time ran out, if one did.
    pub fn flagged(&self) -> Option<PlayerId> {
        self.flagged
    }
}

/// A duration as a clock shows it: `4:59.3`.
pub fn clock_text(d: Duration) -> String {
    let tenths = d.as_millis() / 100;
    format!("{}:{:02}.{}", tenths / 600, (tenths / 10) % 60, tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: PlayerId = PlayerId::FIRST;

    fn black() -> PlayerId {
        PlayerId::new(1)
    }

    #[test]
    fn time_controls_read_minutes_and_increment() {
        let c: TimeControl = "5+3".parse().unwrap();
        assert_eq!(c.base, Duration::from_secs(300));
        assert_eq!(c.increment, Duration::from_secs(3));
        let c: TimeControl = " 0.5 + 0 ".parse().unwrap();
        assert_eq!(c.base, Duration::from_secs(30));
        let c: TimeControl = "0.5".parse().unwrap();
        assert_eq!(c.base, Duration::from_secs(30));
        assert_eq!(c.increment, Duration::ZERO);
        assert_eq!(c.to_string(), "30+0");
        for bad in [
            "", "x+1", "5+", "+3", "-1+0", "0+2", "inf+0", "NaN+1", "5+3+1", "5+-1", "5+99999", "10001+0",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_ai_spends_a_share_and_never_more_than_half() {
        let mut c = Clock::new("1+2".parse().unwrap(), 2);
        c.start(0);
        let a = c.allowance(WHITE, 0);
        // 60 s / 30 + 1.5 s = 3.5 s
        assert_eq!(a, Duration::from_millis(3500));
        let c = Clock::new("0.01+30".parse().unwrap(), 2);
        assert!(c.allowance(WHITE, 0) <= Duration::from_millis(300));
    }

    #[test]
    fn a_clock_charges_the_mover_adds_the_increment_and_runs_out() {
        let mut c = Clock::new("0.1+1".parse().unwrap(), 2); // 6 s, +1 s
        // Not running until the first move: it is not timed.
        assert_eq!(c.deadline(WHITE), None);
        c.moved(WHITE, 1_000);
        assert_eq!(c.times(), [7_000, 6_000]);
        assert_eq!(c.deadline(black()), Some(7_000));
        assert_eq!(c.left_at(black(), 3_000), vec![7_000, 4_000]);
        assert!(!c.out_of_time(black(), 6_999));
        assert!(c.out_of_time(black(), 7_000));
        c.moved(black(), 3_000);
        assert_eq!(c.times(), [7_000, 5_000]);
        assert_eq!(c.flagged(), None);
        // White takes longer than they have: they lost on time.
        c.moved(WHITE, 3_000 + 7_001);
        assert_eq!(c.flagged(), Some(WHITE));
        assert_eq!(clock_text(Duration::from_millis(299_340)), "4:59.3");
    }

    #[test]
    fn a_restored_clock_runs_on_from_its_record() {
        let mut c = Clock::new("1+0".parse().unwrap(), 2);
        c.moved(WHITE, 500);
        c.flag(black());
        c.restore(Some(&[60_000, 12_000]), Some(10_000));
        assert_eq!(c.flagged(), None);
        assert_eq!(c.deadline(black()), Some(22_000));
        c.restore(None, None);
        assert_eq!((c.times(), c.running()), (&[60_000, 60_000][..], false));
        c.restore(Some(&[1, 2, 3]), None);
        assert_eq!(
            c.times(),
            [60_000, 60_000],
            "a record for another number of players"
        );
    }
}
