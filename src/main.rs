//! The `chessalg` command: parse the arguments, run, map errors to exit codes.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
