//! Content hashes: a position's hash is the XOR of a mixed key per square,
//! so one changed square updates it in two XORs.

use crate::core::Code;

/// The splitmix64 finaliser: a fast bijective mixer with good avalanche.
#[inline]
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The key of the square `(x, y)` holding `code` (never called for non-squares).
#[inline]
pub(crate) fn square(x: i32, y: i32, code: Code) -> u64 {
    square_with(place(x, y), code)
}

/// The part of [`square`]'s input that names the square `(x, y)`: worked
/// out once per square by those that key many contents there.
#[inline]
pub(crate) fn place(x: i32, y: i32) -> u64 {
    // Coordinates in the low 40 bits (20 each, so distinct for coordinates
    // within ±524,288), the code above: one bijective mix of a distinct input
    // per (square, code).
    (x as u32 as u64 & 0xF_FFFF) | ((y as u32 as u64 & 0xF_FFFF) << 20)
}

/// [`square`] of the square whose [`place`] is `place`.
#[inline(always)]
pub(crate) fn square_with(place: u64, code: Code) -> u64 {
    mix(place | ((code as u64) << 40))
}

/// The key of tally slot `slot` holding `count` (0 has no key: an empty
/// box adds nothing to a position's hash).
#[inline]
pub(crate) fn tally(slot: usize, count: u16) -> u64 {
    if count == 0 {
        0
    } else {
        mix(0xA24B_AED4_963E_E407 ^ ((slot as u64) << 16) ^ count as u64)
    }
}

/// The key of the piece of interest at stack depth `depth`.
#[inline]
pub(crate) fn poi(depth: usize, x: i32, y: i32, code: Code) -> u64 {
    mix(square(x, y, code) ^ (depth as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93))
}

/// The key of a program counter, for the visited set.
#[inline]
pub(crate) fn pc(pc: u32) -> u64 {
    mix(pc as u64 ^ 0x5851_F42D_4C95_7F2D)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_for_nearby_squares_and_contents() {
        let mut seen = std::collections::HashSet::new();
        for x in -8..8 {
            for y in -8..8 {
                for c in 1..16 {
                    assert!(seen.insert(square(x, y, c)));
                }
            }
        }
    }
}
