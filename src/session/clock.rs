//! A game clock: each player's time left, spent while it is their turn and
//! topped up by an increment after each of their moves, and how much of it
//! the AI spends on one move.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::core::PlayerId;

/// A clock's setting: each player's time at the start and what a move adds
/// (`5+3`: five minutes, three seconds a move).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeControl {
    /// Each player's time at the start.
    pub base: Duration,
    /// The time added after each of a player's moves.
    pub increment: Duration,
}

/// Why a time control does not read.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("`{text}` is not a clock: write MINUTES+INCREMENT in seconds, e.g. `5+3` or `0.5+0`")]
pub struct TimeControlError {
    text: String,
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let bad = || TimeControlError {
            text: text.to_string(),
        };
        let (minutes, seconds) = text.split_once('+').unwrap_or((text, "0"));
        let number = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0 && *v < 1e7)
                .ok_or_else(bad)
        };
        let (minutes, seconds) = (number(minutes)?, number(seconds)?);
        if minutes == 0.0 {
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

/// The running clocks of a game.
#[derive(Clone, Debug)]
pub struct Clock {
    control: TimeControl,
    left: Vec<Duration>,
    since: Instant,
    flagged: Option<PlayerId>,
}

impl Clock {
    /// Clocks for `players` players, each with the control's base time; the
    /// first player's starts now.
    pub fn new(control: TimeControl, players: usize) -> Clock {
        Clock {
            control,
            left: vec![control.base; players],
            since: Instant::now(),
            flagged: None,
        }
    }

    /// The setting.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// The time `player` has left; `to_move`'s clock is running.
    pub fn left(&self, player: PlayerId, to_move: PlayerId) -> Duration {
        let left = self.left.get(player.index()).copied().unwrap_or_default();
        if player == to_move {
            left.saturating_sub(self.since.elapsed())
        } else {
            left
        }
    }

    /// How long the AI may think on `player`'s move: an even share of the
    /// time left over the moves still to come, plus most of the increment,
    /// never more than half of what is left.
    pub fn allowance(&self, player: PlayerId) -> Duration {
        let left = self.left(player, player);
        let share = left / MOVES_TO_GO + self.control.increment.mul_f64(0.75);
        share.min(left / 2).max(Duration::from_millis(1))
    }

    /// Stops `player`'s clock after their move and starts the next one's:
    /// the time spent is taken off and the increment added. A player who
    /// spent more than they had has lost on time.
    pub fn moved(&mut self, player: PlayerId) {
        let spent = self.since.elapsed();
        if let Some(left) = self.left.get_mut(player.index()) {
            if spent > *left && self.flagged.is_none() {
                self.flagged = Some(player);
            }
            *left = left.saturating_sub(spent) + self.control.increment;
        }
        self.since = Instant::now();
    }

    /// Starts the running clock afresh (after an undo, nobody's time runs meanwhile).
    pub fn restart(&mut self) {
        self.since = Instant::now();
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

    #[test]
    fn time_controls_read_minutes_and_increment() {
        let c: TimeControl = "5+3".parse().unwrap();
        assert_eq!(c.base, Duration::from_secs(300));
        assert_eq!(c.increment, Duration::from_secs(3));
        let c: TimeControl = "0.5".parse().unwrap();
        assert_eq!(c.base, Duration::from_secs(30));
        assert_eq!(c.increment, Duration::ZERO);
        assert_eq!(c.to_string(), "30+0");
        for bad in ["", "x+1", "5+", "-1+0", "0+2", "inf+0", "5+3+1"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_ai_spends_a_share_and_never_more_than_half() {
        let c = Clock::new("1+2".parse().unwrap(), 2);
        let a = c.allowance(PlayerId::FIRST);
        // 60 s / 30 + 1.5 s = 3.5 s
        assert!(
            a > Duration::from_millis(3400) && a <= Duration::from_millis(3500),
            "{a:?}"
        );
        let c = Clock::new("0.01+30".parse().unwrap(), 2);
        assert!(c.allowance(PlayerId::FIRST) <= Duration::from_millis(300));
    }

    #[test]
    fn a_move_takes_its_time_off_and_adds_the_increment() {
        let mut c = Clock::new("1+2".parse().unwrap(), 2);
        c.moved(PlayerId::FIRST);
        let left = c.left(PlayerId::FIRST, PlayerId::new(1));
        assert!(
            left > Duration::from_secs(61) && left <= Duration::from_secs(62),
            "{left:?}"
        );
        assert_eq!(c.flagged(), None);
        assert_eq!(clock_text(Duration::from_millis(299_340)), "4:59.3");
    }

    #[test]
    fn a_player_who_spends_more_than_is_left_has_lost() {
        // 0.0001 minutes: 6 ms.
        let mut c = Clock::new("0.0001+0".parse().unwrap(), 2);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(c.left(PlayerId::FIRST, PlayerId::FIRST), Duration::ZERO);
        c.moved(PlayerId::FIRST);
        assert_eq!(c.flagged(), Some(PlayerId::FIRST));
    }
}
