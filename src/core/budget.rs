//! The time one job may take, shared by every stage that works for it.
//!
//! A job that must end in time (a rule text from a browser checked: read,
//! parsed, expanded, compiled, analysed and its moves listed) runs
//! [`within`] a deadline. Every stage asks [`passed`] at points it reaches
//! often, and stops with its own error, placed where it stopped, once the
//! deadline is past: the job ends near its deadline whichever stage it is
//! in, and the thread that ran it is free again. Outside such a job there
//! is no deadline and [`passed`] is always `false`.
//!
//! The deadline belongs to the thread that runs the job (the stages run
//! on it, one after the other), so nothing has to carry it through every
//! signature between them.

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Puts back the deadline a job found when it started, however it ends.
struct Restore(Option<Instant>);

impl Drop for Restore {
    fn drop(&mut self) {
        DEADLINE.with(|d| d.set(self.0));
    }
}

/// Runs `job` with `deadline` as this thread's deadline (the earlier one
/// if the thread already works under one), restoring the one before
/// after it.
pub fn within<R>(deadline: Instant, job: impl FnOnce() -> R) -> R {
    let before = DEADLINE.with(Cell::get);
    let _restore = Restore(before);
    let sooner = before.map_or(deadline, |b| b.min(deadline));
    DEADLINE.with(|d| d.set(Some(sooner)));
    job()
}

/// This thread's deadline, if it works under one.
pub fn deadline() -> Option<Instant> {
    DEADLINE.with(Cell::get)
}

/// Whether this thread works under a deadline that has passed.
pub fn passed() -> bool {
    deadline().is_some_and(|d| Instant::now() >= d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_deadline_holds_within_its_job_and_is_gone_after() {
        assert!(!passed() && deadline().is_none());
        let soon = Instant::now() + Duration::from_secs(60);
        within(soon, || {
            assert_eq!(deadline(), Some(soon));
            assert!(!passed());
            // A nested job keeps the sooner deadline.
            within(soon + Duration::from_secs(5), || {
                assert_eq!(deadline(), Some(soon))
            });
            within(Instant::now(), || assert!(passed()));
            assert_eq!(deadline(), Some(soon));
        });
        assert!(deadline().is_none());
        // A job that panics leaves no deadline behind.
        let _ = std::panic::catch_unwind(|| within(Instant::now(), || panic!("a bug")));
        assert!(deadline().is_none());
    }
}
