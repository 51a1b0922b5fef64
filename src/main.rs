//! The `chessalg` command: parse the arguments, run, map errors to exit codes.

mod cli;

fn main() -> std::process::ExitCode {
    end_quietly_when_the_reader_goes_away();
    cli::main()
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
