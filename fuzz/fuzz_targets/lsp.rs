//! The language server on the fuzzer's bytes as its input stream (transport
//! and server loop, in memory): never a panic, whatever the bytes, and
//! everything it writes is well-framed JSON-RPC.
//!
//! The first byte picks how the rest is read: even, as the stream itself
//! (headers, lengths and all); odd, as messages separated by NUL bytes,
//! each framed with its own length after an `initialize`, so that
//! mutations reach the server's handling of messages rather than stopping
//! at the framing.
#![no_main]

use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};

use chessalg::lsp::LspError;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// What the server wrote.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("not poisoned").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `body` with its header.
fn frame(out: &mut Vec<u8>, body: &[u8]) {
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
}

/// The messages of `bytes` (NUL-separated) framed, after a handshake.
fn framed(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    frame(
        &mut out,
        br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}}"#,
    );
    frame(
        &mut out,
        br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    );
    for body in bytes.split(|&b| b == 0) {
        frame(&mut out, body);
    }
    out
}

/// Every message in `bytes`, which must be framed JSON-RPC 2.0 throughout.
fn check(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        let end = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a header's end");
        let header = std::str::from_utf8(&bytes[..end]).expect("an ASCII header");
        let length: usize = header
            .strip_prefix("Content-Length: ")
            .and_then(|n| n.parse().ok())
            .expect("a Content-Length header");
        let body = bytes.get(end + 4..end + 4 + length).expect("a whole body");
        let message: Value = serde_json::from_slice(body).expect("a JSON body");
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        let is_response = message.get("id").is_some()
            && (message.get("result").is_some() != message.get("error").is_some());
        let is_notification = message["method"].is_string() && message.get("id").is_none();
        assert!(is_response || is_notification, "{message}");
        bytes = &bytes[end + 4 + length..];
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let input = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        framed(rest)
    };
    let output = Output::default();
    match chessalg::lsp::serve_on(Cursor::new(input), output.clone()) {
        Ok(()) | Err(LspError::ExitBeforeShutdown) => {}
        Err(e) => panic!("the server failed in memory: {e}"),
    }
    let written = output.0.lock().expect("not poisoned").clone();
    check(&written);
});
