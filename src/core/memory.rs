//! The memory a thread has taken, where the program counts it: what the
//! web playground charges a rule set built from a browser's text against
//! its bound in bytes.
//!
//! The library cannot count allocations itself (that takes a global
//! allocator, which belongs to the program): the `chessalg` program
//! installs a counting allocator and registers its meter here with
//! [`count_with`]. Without one (the library used alone), nothing is
//! counted and [`taken_here`] says so.

use std::sync::OnceLock;

static METER: OnceLock<fn() -> i64> = OnceLock::new();

/// Makes [`taken_here`] read `meter`: the bytes the calling thread has
/// allocated and not freed so far. The first meter registered stays.
pub fn count_with(meter: fn() -> i64) {
    let _ = METER.set(meter);
}

/// The bytes this thread has allocated and not freed so far (memory freed
/// here that another thread allocated counts against it), if the program
/// counts them.
pub fn taken_here() -> Option<i64> {
    METER.get().map(|meter| meter())
}

/// The bytes `work` takes on this thread and keeps after it ends, with its
/// result; `None` for the bytes if the program does not count them.
pub fn measured<R>(work: impl FnOnce() -> R) -> (R, Option<usize>) {
    let before = taken_here();
    let result = work();
    let taken = before
        .zip(taken_here())
        .map(|(before, after)| usize::try_from(after - before).unwrap_or(0));
    (result, taken)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_meter_nothing_is_counted() {
        // (Unit tests run without the program's allocator.)
        if METER.get().is_none() {
            assert_eq!(taken_here(), None);
            assert_eq!(measured(|| vec![0u8; 1000]).1, None);
        }
    }
}
