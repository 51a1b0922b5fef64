//! The `chessalg` command: parse the arguments, run, map errors to exit codes.

mod cli;

fn main() -> std::process::ExitCode {
    end_quietly_when_the_reader_goes_away();
    chessalg::core::memory::count_with(counting::taken_here);
    cli::main()
}

/// The program's allocator: the system's, counting per thread the bytes
/// allocated and not freed (what `chessalg::core::memory` reads, and the
/// web playground charges rule sets with).
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static TAKEN: Cell<i64> = const { Cell::new(0) };
    }

    /// Adds `bytes` to this thread's count (nothing while the thread ends).
    fn add(bytes: i64) {
        let _ = TAKEN.try_with(|t| t.set(t.get() + bytes));
    }

    /// The bytes this thread has allocated and not freed.
    pub fn taken_here() -> i64 {
        TAKEN.try_with(Cell::get).unwrap_or(0)
    }

    struct Counting;

    // SAFETY: every call is passed to the system allocator unchanged; the
    // count is a thread-local integer, initialised without allocating.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: as the caller promised for `layout`.
            let p = unsafe { System.alloc(layout) };
            if !p.is_null() {
                add(layout.size() as i64);
            }
            p
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            // SAFETY: as the caller promised for `layout`.
            let p = unsafe { System.alloc_zeroed(layout) };
            if !p.is_null() {
                add(layout.size() as i64);
            }
            p
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            add(-(layout.size() as i64));
            // SAFETY: `ptr` was allocated by this allocator with `layout`.
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: as the caller promised for `ptr`, `layout` and `new_size`.
            let p = unsafe { System.realloc(ptr, layout, new_size) };
            if !p.is_null() {
                add(new_size as i64 - layout.size() as i64);
            }
            p
        }
    }

    #[global_allocator]
    static ALLOCATOR: Counting = Counting;
}

/// Rust programs ignore SIGPIPE, so writing to a closed pipe
/// (`chessalg show FILE | head -1`) is an error that `println!` turns into a
/// panic. Unix tools instead end quietly when their reader goes away: this
/// gives SIGPIPE its default action back, as `cat` and `grep` have it.
#[cfg(unix)]
fn end_quietly_when_the_reader_goes_away() {
    // SAFETY: `signal` with `SIG_DFL` only restores the default action; it
    // runs first thing in `main`, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_when_the_reader_goes_away() {}
