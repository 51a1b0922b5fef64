//! `chessalg lsp`: the language server for editors, on stdin and stdout.

use crate::cli::Failure;

/// Runs `chessalg lsp` until the editor ends it.
pub fn run() -> Result<(), Failure> {
    chessalg::lsp::serve().map_err(|e| Failure::Message(e.to_string()))
}
