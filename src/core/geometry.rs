//! Movements: rigid motions of the square grid, normalised to a rotation about
//! the middle of the origin square followed by a translation.

use std::fmt;

/// The largest translation a movement may have in either direction; larger
/// ones are rejected by the expander instead of overflowing.
pub const MAX_TRANSLATION: i64 = 1 << 20;

/// A square's coordinates relative to a fragment's centre: x grows to the
/// right (`r`), y grows upwards (`u`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Offset {
    /// Columns to the right (negative: to the left).
    pub x: i32,
    /// Rows upwards (negative: downwards).
    pub y: i32,
}

impl Offset {
    /// The offset `(x, y)`.
    pub const fn new(x: i32, y: i32) -> Self {
        Offset { x, y }
    }
}

impl PartialOrd for Offset {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Offset {
    /// Bottom row first, then left to right: the order canonical text uses.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.y, self.x).cmp(&(other.y, other.x))
    }
}

/// A movement in normal form: turn `quarter_turns` times 90 degrees
/// counter-clockwise about the middle of the origin square, then shift by
/// `(dx, dy)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Movement {
    /// Shift to the right after turning.
    pub dx: i32,
    /// Shift upwards after turning.
    pub dy: i32,
    /// Counter-clockwise quarter turns, 0 to 3.
    pub quarter_turns: u8,
}

/// A movement whose translation left the supported range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MovementOverflow;

fn turn(quarter_turns: u8, x: i64, y: i64) -> (i64, i64) {
    match quarter_turns % 4 {
        0 => (x, y),
        1 => (-y, x),
        2 => (-x, -y),
        _ => (y, -x),
    }
}

fn checked(dx: i64, dy: i64, quarter_turns: u8) -> Result<Movement, MovementOverflow> {
    if dx.abs() > MAX_TRANSLATION || dy.abs() > MAX_TRANSLATION {
        return Err(MovementOverflow);
    }
    Ok(Movement {
        dx: dx as i32,
        dy: dy as i32,
        quarter_turns: quarter_turns % 4,
    })
}

impl Movement {
    /// `1`: no movement at all.
    pub const IDENTITY: Movement = Movement {
        dx: 0,
        dy: 0,
        quarter_turns: 0,
    };
    /// `u`: one square up.
    pub const UP: Movement = Movement::translation(0, 1);
    /// `d`: one square down.
    pub const DOWN: Movement = Movement::translation(0, -1);
    /// `l`: one square left.
    pub const LEFT: Movement = Movement::translation(-1, 0);
    /// `r`: one square right.
    pub const RIGHT: Movement = Movement::translation(1, 0);
    /// `R`: a quarter turn counter-clockwise.
    pub const TURN: Movement = Movement {
        dx: 0,
        dy: 0,
        quarter_turns: 1,
    };

    /// A pure translation by `(dx, dy)`.
    pub const fn translation(dx: i32, dy: i32) -> Self {
        Movement {
            dx,
            dy,
            quarter_turns: 0,
        }
    }

    /// The basic movement a letter of `u d l r R` names.
    pub fn from_letter(letter: char) -> Option<Self> {
        Some(match letter {
            'u' => Self::UP,
            'd' => Self::DOWN,
            'l' => Self::LEFT,
            'r' => Self::RIGHT,
            'R' => Self::TURN,
            _ => return None,
        })
    }

    /// Whether this movement is `1`.
    pub fn is_identity(self) -> bool {
        self == Self::IDENTITY
    }

    /// Where this movement takes the square at `at`.
    pub fn apply(self, at: Offset) -> Offset {
        let (x, y) = turn(self.quarter_turns, at.x as i64, at.y as i64);
        Offset::new((x + self.dx as i64) as i32, (y + self.dy as i64) as i32)
    }

    /// Where this movement takes the square at `at`, or `None` if the result
    /// leaves the supported range.
    pub fn try_apply(self, at: Offset) -> Option<Offset> {
        let (x, y) = turn(self.quarter_turns, at.x as i64, at.y as i64);
        let m = checked(x + self.dx as i64, y + self.dy as i64, 0).ok()?;
        Some(Offset::new(m.dx, m.dy))
    }

    /// `self other`: first `other`, then `self` (juxtaposition, as in `R u.`).
    pub fn compose(self, other: Movement) -> Result<Movement, MovementOverflow> {
        let (x, y) = turn(self.quarter_turns, other.dx as i64, other.dy as i64);
        checked(
            x + self.dx as i64,
            y + self.dy as i64,
            self.quarter_turns + other.quarter_turns,
        )
    }

    /// `m⁻¹`: the movement that undoes this one.
    pub fn inverse(self) -> Movement {
        let back = (4 - self.quarter_turns) % 4;
        let (x, y) = turn(back, -(self.dx as i64), -(self.dy as i64));
        Movement {
            dx: x as i32,
            dy: y as i32,
            quarter_turns: back,
        }
    }

    /// `m^i` for any integer `i`, negative meaning powers of the inverse.
    pub fn pow(self, exponent: i64) -> Result<Movement, MovementOverflow> {
        let base = if exponent < 0 { self.inverse() } else { self };
        let mut n = exponent.unsigned_abs();
        if base.quarter_turns != 0 {
            // A turned movement has period 4 at most: m⁴ is a translation by
            // the sum of the four turned shifts, which is zero.
            n %= 4;
        } else {
            let dx = base.dx as i128 * n as i128;
            let dy = base.dy as i128 * n as i128;
            if dx.abs() > MAX_TRANSLATION as i128 || dy.abs() > MAX_TRANSLATION as i128 {
                return Err(MovementOverflow);
            }
            return checked(dx as i64, dy as i64, 0);
        }
        let mut result = Movement::IDENTITY;
        for _ in 0..n {
            result = result.compose(base)?;
        }
        Ok(result)
    }
}

/// Writes `count` steps of a translation letter pair in canonical text:
/// letters repeated up to three times, a superscript power beyond.
pub(crate) fn write_steps(f: &mut impl fmt::Write, count: i32, pos: char, neg: char) -> fmt::Result {
    let letter = if count >= 0 { pos } else { neg };
    let n = count.unsigned_abs();
    match n {
        0 => Ok(()),
        1..=3 => (0..n).try_for_each(|_| f.write_char(letter)),
        _ => write!(f, "{letter}{}", superscript(n as i64)),
    }
}

/// The superscript spelling of an integer (`-1` becomes `⁻¹`).
pub fn superscript(n: i64) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::new();
    if n < 0 {
        s.push('⁻');
    }
    for c in n.unsigned_abs().to_string().chars() {
        s.push(DIGITS[c.to_digit(10).unwrap_or(0) as usize]);
    }
    s
}

impl fmt::Display for Movement {
    /// Canonical text: the shift as `u d l r` letters, then the turn (`R`,
    /// `R²`, `R³`), which is applied first; `1` for the identity.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_identity() {
            return f.write_str("1");
        }
        write_steps(f, self.dy, 'u', 'd')?;
        write_steps(f, self.dx, 'r', 'l')?;
        match self.quarter_turns {
            0 => Ok(()),
            1 => f.write_str("R"),
            k => write!(f, "R{}", superscript(k as i64)),
        }
    }
}

/// A square's coordinates: x grows to the right, y upwards; the bottom-left
/// corner of a diagram's bounding box is (0, 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    /// Column, from the left.
    pub x: i32,
    /// Row, from the bottom.
    pub y: i32,
}

/// The column of the coordinates that stand for tally slots, never a square.
const TALLY_X: i32 = i32::MIN;

impl Coord {
    /// The coordinates `(x, y)`.
    pub const fn new(x: i32, y: i32) -> Self {
        Coord { x, y }
    }

    /// The coordinates that stand for tally slot `slot` (how many of one
    /// piece one box holds) in a [`crate::core::Change`]; never a square.
    pub const fn tally(slot: usize) -> Self {
        Coord {
            x: TALLY_X,
            y: slot as i32,
        }
    }

    /// The tally slot these coordinates stand for, if they stand for one.
    pub const fn tally_slot(self) -> Option<usize> {
        if self.x == TALLY_X {
            Some(self.y as usize)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Movement {
        s.chars().rev().fold(Movement::IDENTITY, |acc, c| {
            Movement::from_letter(c).unwrap().compose(acc).unwrap()
        })
    }

    #[test]
    fn four_turns_are_the_identity() {
        assert_eq!(Movement::TURN.pow(4).unwrap(), Movement::IDENTITY);
        assert_eq!(m("RRRR"), Movement::IDENTITY);
        assert_ne!(m("RRR"), Movement::IDENTITY);
    }

    #[test]
    fn translations_commute() {
        assert_eq!(m("ur"), m("ru"));
        assert_eq!(m("uurd"), m("ru"));
    }

    #[test]
    fn inverse_cancels() {
        let u = Movement::UP;
        assert_eq!(u.pow(-1).unwrap().compose(u).unwrap(), Movement::IDENTITY);
        let x = m("urRuR");
        assert_eq!(x.compose(x.inverse()).unwrap(), Movement::IDENTITY);
        assert_eq!(x.inverse().compose(x).unwrap(), Movement::IDENTITY);
    }

    #[test]
    fn turning_is_about_the_middle_of_the_origin_square() {
        let origin = Offset::new(0, 0);
        // R. is .
        assert_eq!(Movement::TURN.apply(origin), origin);
        // R u. is l.
        assert_eq!(m("Ru").apply(origin), Offset::new(-1, 0));
        // R r. is u.
        assert_eq!(m("Rr").apply(origin), Offset::new(0, 1));
        // R² u. is d.
        assert_eq!(m("RRu").apply(origin), Offset::new(0, -1));
    }

    #[test]
    fn powers() {
        assert_eq!(Movement::UP.pow(3).unwrap(), Movement::translation(0, 3));
        assert_eq!(Movement::UP.pow(-2).unwrap(), Movement::translation(0, -2));
        assert_eq!(m("Ru").pow(4).unwrap(), Movement::IDENTITY);
        assert_eq!(Movement::TURN.pow(-1).unwrap(), m("RRR"));
        assert_eq!(Movement::UP.pow(1 << 40), Err(MovementOverflow));
        assert_eq!(m("Ru").pow(i64::MIN).unwrap(), Movement::IDENTITY);
    }

    #[test]
    fn canonical_text() {
        assert_eq!(m("ur").to_string(), "ur");
        assert_eq!(m("rrrrdd").to_string(), "ddr⁴");
        assert_eq!(Movement::IDENTITY.to_string(), "1");
        assert_eq!(m("RR").to_string(), "R²");
        assert_eq!(m("uR").to_string(), "uR");
    }
}
