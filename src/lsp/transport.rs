//! The protocol's framing over any byte stream, made to survive what a
//! client (or anything else writing to the server's stdin) may send.
//!
//! A message is a header block (`Content-Length: N`, other headers
//! ignored, each line ended by `\r\n` or `\n`), a blank line, then a body
//! of N bytes holding one JSON-RPC message. What is not that gets the
//! answer JSON-RPC 2.0 prescribes, with `id` null when the message's id
//! could not be read, and reading goes on with the next message:
//!
//! - a body past [`MAX_MESSAGE_BYTES`]: Invalid Request (-32600), answered
//!   as soon as its header is read; its bytes are skipped unread (never
//!   held in memory);
//! - a body that is not UTF-8 or not JSON: Parse error (-32700);
//! - JSON that is no message (no method, a batch): Invalid Request, with
//!   the message's id when it has one;
//! - a header block without a valid `Content-Length`, or lines that are no
//!   header: Parse error, once; the body's end is then unknown, so what
//!   follows is read as headers until a `Content-Length` header turns up
//!   again (also glued to the end of a line, where a body without a newline
//!   left it).
//!
//! Header lines are bounded too ([`MAX_HEADER_LINE`]): a longer one is
//! junk, of which only the end is kept. A stream that ends mid-message
//! ends the connection, as the end of the stream does.
//!
//! [`Reader`] reads a stream, [`spawn`] runs a reader and a writer on
//! threads behind an [`lsp_server::Connection`]; neither is tied to stdio,
//! so tests and the fuzz target drive them in memory.

use std::io::{BufRead, BufReader, Read, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Select, Sender, bounded};
use lsp_server::{Connection, ErrorCode, Message};
use serde_json::{Value, json};

/// The largest message body read, in bytes: 16 MiB, room for a rule file of
/// [`crate::file::MAX_RULES_BYTES`] (4 MiB) in a JSON string, escapes and
/// all. A larger body is refused with an error and skipped unread.
pub const MAX_MESSAGE_BYTES: u64 = 16 << 20;

/// The most bytes of one header line kept (`Content-Length: 16777216` is
/// 24); the rest of a longer line is read and dropped.
pub const MAX_HEADER_LINE: usize = 1024;

/// How many messages read ahead wait for the server at most: enough that
/// a burst of edits is read, and coalesced, while one is being checked.
/// (The reader waits while the queue is full; so the queue holds at most
/// this many messages of [`MAX_MESSAGE_BYTES`].)
pub const QUEUE: usize = 256;

/// What the reader found in the stream: a message for the server, or bytes
/// that were none and the error they are answered with.
#[derive(Debug)]
pub enum Incoming {
    /// A request, notification or response.
    Message(Message),
    /// Bytes that were no message.
    Refused(Refusal),
}

/// The error response owed for bytes that were no message: a JSON-RPC
/// error whose id is the message's when it could be read, else null.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message} (JSON-RPC error {code})")]
pub struct Refusal {
    /// The message's id (a number or a string), or null when unknown.
    pub id: Value,
    /// The JSON-RPC error code: -32700 (Parse error) or -32600 (Invalid
    /// Request).
    pub code: i32,
    /// What was wrong.
    pub message: String,
}

impl Refusal {
    /// A Parse error (-32700), id null.
    fn parse_error(message: String) -> Refusal {
        Refusal {
            id: Value::Null,
            code: ErrorCode::ParseError as i32,
            message,
        }
    }

    /// An Invalid Request (-32600) for the message with `id`.
    fn invalid(id: Value, message: String) -> Refusal {
        Refusal {
            id,
            code: ErrorCode::InvalidRequest as i32,
            message,
        }
    }

    /// The response as JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
    }
}

/// One header line, as kept.
struct Line {
    /// The line without its `\r\n`: its last [`MAX_HEADER_LINE`] bytes
    /// when it was longer.
    bytes: Vec<u8>,
    /// Whether the line was longer than that.
    cut: bool,
}

/// What a header line says.
#[derive(Debug, PartialEq)]
enum Header {
    /// The blank line that ends a header block.
    Blank,
    /// `Content-Length` with a number.
    Length(u64),
    /// `Content-Length` with something else.
    BadLength(String),
    /// Another header (`Content-Type`), ignored.
    Other,
    /// Not a header; `glued` when a `Content-Length` header ends it.
    Junk { glued: Option<Box<Header>> },
}

/// Reads messages from a byte stream (see the module's documentation).
pub struct Reader<R> {
    input: R,
    /// Since an unreadable header block: what follows is read as headers
    /// until a block with a length, and not reported again.
    resyncing: bool,
    /// A body still to be read (its length), after junk was reported.
    body: Option<u64>,
    /// Bytes still to be skipped: the body of a refused message.
    skip: u64,
}

impl<R: BufRead> Reader<R> {
    /// A reader of `input`.
    pub fn new(input: R) -> Reader<R> {
        Reader {
            input,
            resyncing: false,
            body: None,
            skip: 0,
        }
    }

    /// The next message or refusal; `None` at the end of the stream (also
    /// when it ends within a message). An error only when the stream does.
    pub fn read(&mut self) -> std::io::Result<Option<Incoming>> {
        if self.skip > 0 {
            let wanted = std::mem::take(&mut self.skip);
            if self.skip_bytes(wanted)? < wanted {
                return Ok(None);
            }
        }
        if let Some(length) = self.body.take() {
            return self.body_of(length);
        }
        loop {
            let mut length = None;
            let mut bad_length = None;
            let mut junk = false;
            let mut lines = 0;
            loop {
                let Some(line) = self.line()? else {
                    return Ok(None);
                };
                let mut header = parse_header(&line);
                if let Header::Junk { glued } = header {
                    junk = true;
                    header = glued.map_or(Header::Other, |h| *h);
                }
                match header {
                    Header::Blank => break,
                    Header::Length(n) => (length, bad_length) = (Some(n), None),
                    Header::BadLength(text) => (length, bad_length) = (None, Some(text)),
                    Header::Other | Header::Junk { .. } => {}
                }
                lines += 1;
            }
            if lines == 0 {
                // A blank line between messages.
                continue;
            }
            let Some(length) = length else {
                // The body's end is unknown: read on as headers.
                if std::mem::replace(&mut self.resyncing, true) {
                    continue;
                }
                let why = match bad_length {
                    Some(text) => {
                        format!("malformed message header: Content-Length {text:?} is not a number")
                    }
                    None if junk => "malformed message header: a line that is no header".to_string(),
                    None => "malformed message header: no Content-Length".to_string(),
                };
                return Ok(Some(Incoming::Refused(Refusal::parse_error(why))));
            };
            if junk && !std::mem::replace(&mut self.resyncing, false) {
                // The junk is reported now, the message next time.
                self.body = Some(length);
                let why = "malformed message header: a line that is no header".to_string();
                return Ok(Some(Incoming::Refused(Refusal::parse_error(why))));
            }
            self.resyncing = false;
            return self.body_of(length);
        }
    }

    /// The message in the next `length` bytes, or the refusal of them.
    fn body_of(&mut self, length: u64) -> std::io::Result<Option<Incoming>> {
        if length > MAX_MESSAGE_BYTES {
            // Answered before its bytes are read (a client may wait for the
            // answer); they are skipped on the next read.
            self.skip = length;
            return Ok(Some(Incoming::Refused(Refusal::invalid(
                Value::Null,
                format!(
                    "a message of {length} bytes is larger than {MAX_MESSAGE_BYTES}, the most the server reads; \
                     it is skipped"
                ),
            ))));
        }
        let mut body = Vec::new();
        (&mut self.input).take(length).read_to_end(&mut body)?;
        if (body.len() as u64) < length {
            return Ok(None);
        }
        Ok(Some(parse_body(&body)))
    }

    /// The buffered bytes, waiting for more when there are none (empty at
    /// the end of the stream).
    fn fill(&mut self) -> std::io::Result<&[u8]> {
        loop {
            match self.input.fill_buf() {
                Ok(_) => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.input.fill_buf()
    }

    /// Reads and drops up to `n` bytes; how many there were.
    fn skip_bytes(&mut self, n: u64) -> std::io::Result<u64> {
        let mut skipped = 0;
        while skipped < n {
            let available = self.fill()?.len() as u64;
            if available == 0 {
                break;
            }
            let k = available.min(n - skipped);
            self.input.consume(k as usize);
            skipped += k;
        }
        Ok(skipped)
    }

    /// The next line (its end kept when it is long); `None` at the end of
    /// the stream, also within a line.
    fn line(&mut self) -> std::io::Result<Option<Line>> {
        let mut line = Line {
            bytes: Vec::new(),
            cut: false,
        };
        loop {
            let buffer = self.fill()?;
            if buffer.is_empty() {
                return Ok(None);
            }
            let (chunk, ended) = match buffer.iter().position(|&b| b == b'\n') {
                Some(i) => (&buffer[..i], true),
                None => (buffer, false),
            };
            if chunk.len() >= MAX_HEADER_LINE {
                line.bytes.clear();
                line.bytes
                    .extend_from_slice(&chunk[chunk.len() - MAX_HEADER_LINE..]);
                line.cut = true;
            } else {
                line.bytes.extend_from_slice(chunk);
                if line.bytes.len() > MAX_HEADER_LINE {
                    line.bytes.drain(..line.bytes.len() - MAX_HEADER_LINE);
                    line.cut = true;
                }
            }
            let used = chunk.len() + usize::from(ended);
            self.input.consume(used);
            if ended {
                if line.bytes.last() == Some(&b'\r') {
                    line.bytes.pop();
                }
                return Ok(Some(line));
            }
        }
    }
}

/// What header line `line` says.
fn parse_header(line: &Line) -> Header {
    let bytes = line.bytes.as_slice();
    if bytes.is_empty() && !line.cut {
        return Header::Blank;
    }
    if !line.cut
        && let Some(colon) = bytes.iter().position(|&b| b == b':')
    {
        let (name, value) = (&bytes[..colon], &bytes[colon + 1..]);
        if !name.is_empty() && name.iter().all(|&b| is_token(b)) {
            if !name.eq_ignore_ascii_case(b"content-length") {
                return Header::Other;
            }
            let value = String::from_utf8_lossy(value.trim_ascii());
            let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
            return match value.parse::<u64>() {
                Ok(n) if digits => Header::Length(n),
                _ => Header::BadLength(value.into_owned()),
            };
        }
    }
    // Junk, perhaps with a header glued to its end (after a body that had
    // no newline): the last `Content-Length:` in it.
    const NAME: &[u8] = b"content-length:";
    let glued = (0..bytes.len().saturating_sub(NAME.len() - 1))
        .rev()
        .find(|&i| bytes[i..i + NAME.len()].eq_ignore_ascii_case(NAME))
        .map(|i| {
            let rest = Line {
                bytes: bytes[i..].to_vec(),
                cut: false,
            };
            Box::new(parse_header(&rest))
        });
    Header::Junk { glued }
}

/// Whether `b` may be in a header's name (an HTTP token character).
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The message in `body`, or the refusal of it.
fn parse_body(body: &[u8]) -> Incoming {
    let Ok(text) = std::str::from_utf8(body) else {
        return Incoming::Refused(Refusal::parse_error("the message is not UTF-8".into()));
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return Incoming::Refused(Refusal::parse_error(format!("the message is not JSON: {e}"))),
    };
    // The id to answer with when it is no message: a number or a string.
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    let has_id = value.get("id").is_some();
    match serde_json::from_value::<Message>(value) {
        // An id the server cannot answer to (not an integer of 32 bits or a
        // string) made a request read as a notification.
        Ok(Message::Notification(_)) if has_id => Incoming::Refused(Refusal::invalid(
            id,
            "a request's id must be an integer (of 32 bits) or a string".into(),
        )),
        Ok(message) => Incoming::Message(message),
        Err(e) => Incoming::Refused(Refusal::invalid(
            id,
            format!("not a JSON-RPC request, notification or response: {e}"),
        )),
    }
}

/// Writes `message` framed: its `Content-Length` header, then its JSON.
pub fn write_frame(output: &mut impl Write, message: &Value) -> std::io::Result<()> {
    let text = message.to_string();
    write!(output, "Content-Length: {}\r\n\r\n", text.len())?;
    output.write_all(text.as_bytes())?;
    output.flush()
}

/// The threads behind a connection from [`spawn`].
pub struct Threads {
    reader: JoinHandle<std::io::Result<()>>,
    writer: JoinHandle<std::io::Result<()>>,
}

impl Threads {
    /// Waits for both threads: the reader ends at the end of its stream,
    /// after an `exit` notification, or when the connection's receiver is
    /// gone; the writer when the connection's sender and the reader are
    /// gone, having written all they sent. The first error either met.
    pub fn join(self) -> std::io::Result<()> {
        let reader = self.reader.join();
        let writer = self.writer.join();
        let panicked = || std::io::Error::other("a thread of the language server's connection panicked");
        reader.map_err(|_| panicked())??;
        writer.map_err(|_| panicked())?
    }
}

/// A connection over `input` and `output`: a thread reads messages into
/// its receiver (at most [`QUEUE`] ahead of the server), answering what was
/// no message itself; another writes what is sent on its sender. A failed
/// write does not stop the writer taking messages (the server ends when
/// the client's stream does).
pub fn spawn<R, W>(input: R, output: W) -> std::io::Result<(Connection, Threads)>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let (to_server, receiver) = bounded::<Message>(QUEUE);
    let (sender, from_server) = bounded::<Message>(QUEUE);
    let (refuse, refusals) = bounded::<Refusal>(QUEUE);
    let writer = std::thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || write_all(output, &from_server, &refusals))?;
    let reader = std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || read_all(input, &to_server, &refuse))?;
    Ok((Connection { sender, receiver }, Threads { reader, writer }))
}

/// The reader thread: messages to the server, refusals to the writer.
fn read_all(input: impl Read, to_server: &Sender<Message>, refuse: &Sender<Refusal>) -> std::io::Result<()> {
    let mut reader = Reader::new(BufReader::with_capacity(64 << 10, input));
    while let Some(incoming) = reader.read()? {
        match incoming {
            Incoming::Message(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if to_server.send(message).is_err() || exit {
                    break;
                }
            }
            Incoming::Refused(refusal) => {
                if refuse.send(refusal).is_err() {
                    break;
                }
            }
        }
    }
    Ok(())
}

/// The writer thread: everything sent, until both senders are gone. After a
/// failed write, messages are taken and dropped (so no sender waits); the
/// first error is returned at the end.
fn write_all(
    mut output: impl Write,
    from_server: &Receiver<Message>,
    refusals: &Receiver<Refusal>,
) -> std::io::Result<()> {
    let mut failed: Option<std::io::Error> = None;
    let mut select = Select::new();
    let server = select.recv(from_server);
    select.recv(refusals);
    let mut open = 2;
    while open > 0 {
        let operation = select.select();
        let index = operation.index();
        let json = if index == server {
            operation.recv(from_server).ok().map(|m| message_json(&m))
        } else {
            operation.recv(refusals).ok().map(|r| r.to_json())
        };
        let Some(json) = json else {
            select.remove(index);
            open -= 1;
            continue;
        };
        if failed.is_none()
            && let Err(e) = write_frame(&mut output, &json)
        {
            failed = Some(e);
        }
    }
    failed.map_or(Ok(()), Err)
}

/// A message as JSON-RPC 2.0 JSON.
fn message_json(message: &Message) -> Value {
    let mut json = serde_json::to_value(message).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut json {
        fields.insert("jsonrpc".into(), "2.0".into());
    }
    json
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything read from `bytes`: messages as JSON, refusals as
    /// `(code, id)`.
    fn read(bytes: &[u8]) -> Vec<Result<Value, (i32, Value)>> {
        let mut reader = Reader::new(bytes);
        let mut out = Vec::new();
        while let Some(incoming) = reader.read().unwrap() {
            out.push(match incoming {
                Incoming::Message(m) => Ok(serde_json::to_value(m).unwrap()),
                Incoming::Refused(r) => Err((r.code, r.id)),
            });
        }
        out
    }

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        out
    }

    fn request(id: i32) -> Vec<u8> {
        frame(
            json!({"jsonrpc": "2.0", "id": id, "method": "m"})
                .to_string()
                .as_bytes(),
        )
    }

    fn answered(id: i32) -> Result<Value, (i32, Value)> {
        Ok(json!({"id": id, "method": "m"}))
    }

    const PARSE: i32 = -32700;
    const INVALID: i32 = -32600;

    #[test]
    fn good_messages_are_read_in_order() {
        let mut bytes = request(1);
        bytes.extend(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n");
        bytes.extend(request(2));
        bytes.extend(b"\r\n\n");
        bytes.extend(request(3).iter().filter(|&&b| b != b'\r'));
        bytes.extend(frame(br#"{"jsonrpc": "2.0", "method": "exit"}"#));
        let got = read(&bytes);
        assert_eq!(got[..3], [answered(1), answered(2), answered(3)]);
        assert_eq!(got[3], Ok(json!({"method": "exit"})));
        assert_eq!(got.len(), 4);
    }

    #[test]
    fn a_huge_length_is_refused_at_once_and_skipped() {
        let length = MAX_MESSAGE_BYTES + 1;
        let mut bytes = format!("Content-Length: {length}\r\n\r\n").into_bytes();
        bytes.extend(std::iter::repeat_n(b'x', length as usize));
        bytes.extend(request(2));
        assert_eq!(read(&bytes), [Err((INVALID, Value::Null)), answered(2)]);
        // The refusal comes before a byte of the body is there.
        let mut reader = Reader::new(&b"Content-Length: 18446744073709551615\r\n\r\n{"[..]);
        let Some(Incoming::Refused(r)) = reader.read().unwrap() else {
            panic!("not refused");
        };
        assert!(r.message.contains("18446744073709551615"), "{r}");
        // Then the stream ends within the body.
        assert!(reader.read().unwrap().is_none());
        // At the bound, a message is read.
        let mut body = br#"{"id": 4, "method": "m"}"#.to_vec();
        body.resize(MAX_MESSAGE_BYTES as usize, b' ');
        assert_eq!(read(&frame(&body)), [answered(4)]);
    }

    #[test]
    fn a_body_not_utf8_or_not_json_gets_a_parse_error() {
        let mut bytes = frame(b"{\"id\": 1, \"method\": \"\xff\"}");
        bytes.extend(frame(b"\xc3\x28"));
        bytes.extend(frame(b"not json"));
        bytes.extend(frame(b"{\"id\": 1,"));
        bytes.extend(request(5));
        let got = read(&bytes);
        let null = Value::Null;
        assert_eq!(
            got,
            [
                Err((PARSE, null.clone())),
                Err((PARSE, null.clone())),
                Err((PARSE, null.clone())),
                Err((PARSE, null)),
                answered(5)
            ]
        );
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_with_its_id() {
        let mut bytes = frame(b"[1, 2]");
        bytes.extend(frame(br#"{"id": "seven", "method": 7}"#));
        bytes.extend(frame(br#"{"id": 1.5}"#));
        bytes.extend(frame(br#"{"id": {}, "method": "m"}"#));
        bytes.extend(frame(br#"{"id": 3000000000, "method": "m"}"#));
        bytes.extend(request(6));
        assert_eq!(
            read(&bytes),
            [
                Err((INVALID, Value::Null)),
                Err((INVALID, json!("seven"))),
                Err((INVALID, json!(1.5))),
                Err((INVALID, Value::Null)),
                Err((INVALID, json!(3_000_000_000_u64))),
                answered(6)
            ]
        );
    }

    #[test]
    fn a_malformed_header_is_reported_once_and_the_next_message_found() {
        // No number: the body's end is unknown; the next header is glued
        // to it.
        let mut bytes = b"Content-Length: twelve\r\n\r\n{\"id\": 1}".to_vec();
        bytes.extend(request(2));
        assert_eq!(read(&bytes), [Err((PARSE, Value::Null)), answered(2)]);
        // A line that is no header, then several blocks without a length:
        // one error.
        let mut bytes = b"hello\r\n\r\nContent-Type: x\r\n\r\n{}\r\n\r\n".to_vec();
        bytes.extend(request(3));
        assert_eq!(read(&bytes), [Err((PARSE, Value::Null)), answered(3)]);
        // Junk before a good header: reported, and the message read.
        let mut bytes = b"a log line\n".to_vec();
        bytes.extend(request(4));
        bytes.extend(request(5));
        assert_eq!(
            read(&bytes),
            [Err((PARSE, Value::Null)), answered(4), answered(5)]
        );
        // `+5`, a negative length, one past u64: not numbers.
        for bad in ["+5", "-5", "18446744073709551616", ""] {
            let mut bytes = format!("Content-Length: {bad}\r\n\r\n").into_bytes();
            bytes.extend(request(6));
            assert_eq!(read(&bytes), [Err((PARSE, Value::Null)), answered(6)], "{bad}");
        }
    }

    #[test]
    fn a_long_line_is_kept_short_and_its_glued_header_found() {
        let mut bytes = vec![b'{'; 10 * MAX_HEADER_LINE];
        bytes.extend(request(1));
        assert_eq!(read(&bytes), [Err((PARSE, Value::Null)), answered(1)]);
        // A line without an end: nothing, then the end of the stream.
        assert_eq!(read(&vec![b'x'; 1 << 20]), []);
    }

    #[test]
    fn a_stream_cut_short_ends_quietly() {
        let whole = request(1);
        for end in 0..whole.len() {
            assert_eq!(read(&whole[..end]), [], "cut at {end}");
        }
        let mut bytes = request(1);
        bytes.extend(b"Content-Length: 50\r\n\r\n{\"id\"");
        assert_eq!(read(&bytes), [answered(1)]);
    }

    /// A writer whose bytes can be looked at after its thread is done.
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_connection_passes_messages_and_answers_what_was_none() {
        let mut input = request(1);
        input.extend(frame(b"nonsense"));
        input.extend(frame(br#"{"jsonrpc": "2.0", "method": "exit"}"#));
        input.extend(request(2));
        let output = Shared::default();
        let (connection, threads) = spawn(std::io::Cursor::new(input), output.clone()).unwrap();
        let mut got = Vec::new();
        for message in &connection.receiver {
            got.push(serde_json::to_value(&message).unwrap());
        }
        // The reader stops after `exit`.
        assert_eq!(got, [json!({"id": 1, "method": "m"}), json!({"method": "exit"})]);
        let response = lsp_server::Response::new_ok(1.into(), "done");
        connection.sender.send(response.into()).unwrap();
        drop(connection);
        threads.join().unwrap();
        let written = output.0.lock().unwrap().clone();
        let answers: Vec<Value> = read_frames(&written);
        assert!(
            answers.contains(&json!({"jsonrpc": "2.0", "id": 1, "result": "done"})),
            "{answers:?}"
        );
        assert!(
            answers
                .iter()
                .any(|a| a["id"].is_null() && a["error"]["code"] == PARSE),
            "{answers:?}"
        );
        assert_eq!(answers.len(), 2);
    }

    /// The JSON of each frame in `bytes`, which must all be well formed.
    fn read_frames(bytes: &[u8]) -> Vec<Value> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let text = std::str::from_utf8(rest).unwrap();
            let (header, body) = text.split_once("\r\n\r\n").unwrap();
            let n: usize = header.strip_prefix("Content-Length: ").unwrap().parse().unwrap();
            out.push(serde_json::from_str(&body[..n]).unwrap());
            rest = &rest[header.len() + 4 + n..];
        }
        out
    }

    #[test]
    fn a_failed_write_leaves_no_sender_waiting() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("gone"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let (connection, threads) = spawn(std::io::empty(), Broken).unwrap();
        for i in 0..2 * QUEUE as i32 {
            let response = lsp_server::Response::new_ok(i.into(), ());
            connection.sender.send(response.into()).unwrap();
        }
        drop(connection);
        assert!(threads.join().is_err());
    }
}
