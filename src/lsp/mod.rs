//! `chessalg lsp`: a language server for rule files over stdio (the
//! Language Server Protocol, through `lsp-server` and `lsp-types`).
//!
//! On open and on every change, the text in the editor (saved or not) is
//! checked as `check` checks a file, and its diagnostics are published;
//! files open in the editor that import it are checked again, and imports
//! are read from the editor's texts before the disk. Hover, go to
//! definition, references, completion, document symbols and formatting
//! (`fmt`) answer from the last check ([`Analysis`]).
//!
//! Edits that come faster than they are checked are coalesced: the
//! messages already waiting are taken together, each changed document is
//! checked once with its newest text, and then the requests among them are
//! answered, in order, from that check. The stream itself is read by
//! [`transport`]: a message past [`transport::MAX_MESSAGE_BYTES`], one that
//! is not JSON and a malformed header are answered with JSON-RPC errors,
//! and the server goes on.

pub(crate) mod analysis;
mod text;
pub mod transport;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Component, Path, PathBuf};

use crossbeam_channel::Receiver;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Exit,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, Initialize, References,
    Request as _, Shutdown,
};
use lsp_types::{
    CompletionOptions, CompletionResponse, DocumentSymbolResponse, GotoDefinitionResponse, Hover,
    HoverContents, HoverProviderCapability, Location, MarkupContent, MarkupKind, OneOf,
    PublishDiagnosticsParams, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit,
    Url,
};

pub use analysis::Analysis;
pub use text::LineIndex;

use crate::source::{Source, Span};

/// Why the server stopped other than by `shutdown` and `exit`, or the end
/// of its input.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// The connection broke or the client broke the protocol.
    #[error("language server protocol: {0}")]
    Protocol(String),
    /// Reading or writing the stream failed.
    #[error("language server connection: {0}")]
    Io(#[from] std::io::Error),
    /// The client said `exit` without `shutdown` first (the protocol has
    /// the server end with an error then).
    #[error("the client said exit before shutdown")]
    ExitBeforeShutdown,
}

impl From<lsp_server::ProtocolError> for LspError {
    fn from(e: lsp_server::ProtocolError) -> Self {
        LspError::Protocol(e.to_string())
    }
}

impl<T> From<crossbeam_channel::SendError<T>> for LspError {
    fn from(e: crossbeam_channel::SendError<T>) -> Self {
        LspError::Protocol(e.to_string())
    }
}

/// The most messages taken together off the queue before they are handled
/// (see the module's documentation).
const BATCH: usize = 4 * transport::QUEUE;

/// The documents open in the editor and what was found in each.
#[derive(Default)]
struct Server {
    /// Per open document: its path (or URI, for an unsaved buffer) and text.
    texts: HashMap<Url, (String, String)>,
    /// The version the editor gave each open document's text.
    versions: HashMap<Url, i32>,
    /// The last check of each open document.
    analyses: HashMap<Url, Analysis>,
}

/// What a notification did to the open documents.
enum Update {
    /// This document is to be checked (opened, changed or saved).
    Changed(Url),
    /// This document was closed.
    Closed(Url),
}

/// Serves the protocol on stdin and stdout until the client says `exit` or
/// stdin ends.
pub fn serve() -> Result<(), LspError> {
    serve_on(std::io::stdin(), std::io::stdout())
}

/// Serves the protocol on any byte streams: messages read from `input`,
/// answers written to `output`, until the client says `exit` or `input`
/// ends. Whatever the bytes, it does not panic (tests and the fuzz target
/// run it in memory). An error when `exit` comes without `shutdown`, or a
/// stream fails.
pub fn serve_on<R, W>(input: R, output: W) -> Result<(), LspError>
where
    R: std::io::Read + Send + 'static,
    W: std::io::Write + Send + 'static,
{
    let (connection, threads) = transport::spawn(input, output)?;
    let served = run(&connection);
    drop(connection);
    let io = threads.join();
    served?;
    Ok(io?)
}

/// What the server can do.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["@".into()]),
            ..CompletionOptions::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// Runs the server on `connection`: the handshake, then every message
/// until `exit` (or the end of the messages). Requests before `initialize`
/// are answered with an error, and those after `shutdown` too.
pub fn run(connection: &Connection) -> Result<(), LspError> {
    let send = |message: Message| connection.sender.send(message);
    // The handshake: `initialize` (its `initialized` is not waited for).
    loop {
        let Ok(message) = connection.receiver.recv() else {
            return Ok(());
        };
        match message {
            Message::Request(request) if request.method == Initialize::METHOD => {
                let caps = to_json(capabilities()).map_err(LspError::Protocol)?;
                send(Response::new_ok(request.id, serde_json::json!({ "capabilities": caps })).into())?;
                break;
            }
            Message::Request(request) => {
                let why = format!("{} before initialize", request.method);
                send(failure(request.id, ErrorCode::ServerNotInitialized, why).into())?;
            }
            Message::Notification(n) if n.method == Exit::METHOD => return Err(LspError::ExitBeforeShutdown),
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
    let mut server = Server::default();
    let mut shut_down = false;
    while let Ok(first) = connection.receiver.recv() {
        let batch = waiting(first, &connection.receiver);
        // Text changes first: each changed document is checked once, with
        // its newest text.
        let mut changed: Vec<Url> = Vec::new();
        let mut requests = Vec::new();
        let mut exit = false;
        for message in batch {
            match message {
                Message::Notification(n) if n.method == Exit::METHOD => exit = true,
                Message::Notification(_) if shut_down => {}
                Message::Notification(n) => match server.update(n) {
                    Some(Update::Changed(uri)) if !changed.contains(&uri) => changed.push(uri),
                    Some(Update::Closed(uri)) => {
                        changed.retain(|u| *u != uri);
                        send(publish(&uri, Vec::new(), None).into())?;
                    }
                    Some(Update::Changed(_)) | None => {}
                },
                Message::Request(request) => requests.push(request),
                Message::Response(_) => {}
            }
        }
        for published in server.check(&changed) {
            send(published.into())?;
        }
        // Then the requests, in order, from the newest check.
        for request in requests {
            let response = if shut_down {
                let why = format!("{} after shutdown", request.method);
                failure(request.id, ErrorCode::InvalidRequest, why)
            } else if request.method == Shutdown::METHOD {
                shut_down = true;
                Response::new_ok(request.id, ())
            } else {
                server.answer(request)
            };
            send(response.into())?;
        }
        if exit {
            return if shut_down {
                Ok(())
            } else {
                Err(LspError::ExitBeforeShutdown)
            };
        }
    }
    Ok(())
}

/// `first` and the messages waiting behind it, up to [`BATCH`] of them and
/// up to a `shutdown` request or an `exit` notification (the last of a
/// batch, so that nothing after it is handled before it).
fn waiting(first: Message, receiver: &Receiver<Message>) -> Vec<Message> {
    let ends = |m: &Message| match m {
        Message::Request(r) => r.method == Shutdown::METHOD,
        Message::Notification(n) => n.method == Exit::METHOD,
        Message::Response(_) => false,
    };
    let mut batch = vec![first];
    while batch.len() < BATCH && !batch.last().is_some_and(ends) {
        match receiver.try_recv() {
            Ok(message) => batch.push(message),
            Err(_) => break,
        }
    }
    batch
}

impl Server {
    /// Takes a notification's news about the open documents: which one is
    /// to be checked, or was closed.
    fn update(&mut self, n: Notification) -> Option<Update> {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let p = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params).ok()?;
                let uri = p.text_document.uri;
                self.texts
                    .insert(uri.clone(), (path_of(&uri), p.text_document.text));
                self.versions.insert(uri.clone(), p.text_document.version);
                Some(Update::Changed(uri))
            }
            DidChangeTextDocument::METHOD => {
                let p = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params).ok()?;
                let uri = p.text_document.uri;
                // Full sync: the last change holds the whole text.
                let change = p.content_changes.into_iter().last()?;
                self.texts.insert(uri.clone(), (path_of(&uri), change.text));
                self.versions.insert(uri.clone(), p.text_document.version);
                Some(Update::Changed(uri))
            }
            DidSaveTextDocument::METHOD => {
                let p = serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(n.params).ok()?;
                Some(Update::Changed(p.text_document.uri))
            }
            DidCloseTextDocument::METHOD => {
                let p = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params).ok()?;
                let uri = p.text_document.uri;
                self.texts.remove(&uri);
                self.versions.remove(&uri);
                self.analyses.remove(&uri);
                Some(Update::Closed(uri))
            }
            _ => None,
        }
    }

    /// Checks the open documents of `changed` again, then every open
    /// document that imports one of them; returns their diagnostics.
    fn check(&mut self, changed: &[Url]) -> Vec<Notification> {
        let mut todo: Vec<Url> = Vec::new();
        let mut paths = Vec::new();
        for uri in changed {
            if let Some((path, _)) = self.texts.get(uri) {
                todo.push(uri.clone());
                paths.push(normal(Path::new(path)));
            }
        }
        let mut importers: Vec<&Url> = (self.analyses.iter())
            .filter(|(other, analysis)| {
                !todo.contains(other)
                    && (analysis.imports().iter()).any(|i| paths.contains(&normal(Path::new(i))))
            })
            .map(|(other, _)| other)
            .collect();
        importers.sort();
        todo.extend(importers.into_iter().cloned());
        let mut out = Vec::new();
        for uri in todo {
            let Some((path, text)) = self.texts.get(&uri) else {
                continue;
            };
            let source = Source::new(path.clone(), text.clone());
            // A bug met on some text must not end the server (and the
            // editor's session with it): the text gets one error instead.
            let checked = std::panic::catch_unwind(AssertUnwindSafe(|| {
                Analysis::new(source.clone(), &|p: &str| self.read(p))
            }));
            let analysis = checked.unwrap_or_else(|panic| {
                let why = panic_message(panic.as_ref());
                Analysis::unchecked(
                    source,
                    format!("chessalg failed on this text (a bug, please report it): {why}"),
                )
            });
            let version = self.versions.get(&uri).copied();
            out.push(publish(&uri, analysis.diagnostics.clone(), version));
            self.analyses.insert(uri, analysis);
        }
        out
    }

    /// An imported file: the editor's text when it is open, else the disk's
    /// (or the bundled file).
    fn read(&self, path: &str) -> std::io::Result<Source> {
        let wanted = normal(Path::new(path));
        for (p, text) in self.texts.values() {
            if normal(Path::new(p)) == wanted {
                return Ok(Source::new(path, text.clone()));
            }
        }
        crate::bundled::read(path)
    }

    /// Answers a request (an internal error, not the end of the server, if
    /// answering it fails on a bug).
    fn answer(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        match std::panic::catch_unwind(AssertUnwindSafe(|| self.answer_request(request))) {
            Ok(response) => response,
            Err(panic) => failure(id, ErrorCode::InternalError, panic_message(panic.as_ref())),
        }
    }

    fn answer_request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let result = match request.method.as_str() {
            HoverRequest::METHOD => self.hover(request),
            GotoDefinition::METHOD => self.definition(request),
            References::METHOD => self.references(request),
            Completion::METHOD => self.completion(request),
            DocumentSymbolRequest::METHOD => self.symbols(request),
            Formatting::METHOD => self.formatting(request),
            other => return failure(id, ErrorCode::MethodNotFound, format!("no method {other}")),
        };
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err(message) => failure(id, ErrorCode::InvalidParams, message),
        }
    }

    /// The analysis of a document and the byte offset of a position in it.
    fn at(&self, doc: &lsp_types::TextDocumentPositionParams) -> Result<(&Analysis, usize), String> {
        let analysis = self
            .analyses
            .get(&doc.text_document.uri)
            .ok_or_else(|| format!("{} is not open", doc.text_document.uri))?;
        let offset = LineIndex::new(&analysis.source.text).offset(doc.position);
        Ok((analysis, offset))
    }

    fn hover(&self, request: Request) -> Result<serde_json::Value, String> {
        let p: lsp_types::HoverParams = params(request)?;
        let (analysis, offset) = self.at(&p.text_document_position_params)?;
        let hover = analysis.hover(offset).map(|(text, span)| Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text,
            }),
            range: Some(LineIndex::new(&analysis.source.text).range(span)),
        });
        to_json(hover)
    }

    fn definition(&self, request: Request) -> Result<serde_json::Value, String> {
        let p: lsp_types::GotoDefinitionParams = params(request)?;
        let (analysis, offset) = self.at(&p.text_document_position_params)?;
        let found = analysis
            .definition(offset)
            .and_then(|(source, span)| self.location(analysis, &source, span));
        to_json(found.map(GotoDefinitionResponse::Scalar))
    }

    fn references(&self, request: Request) -> Result<serde_json::Value, String> {
        let p: lsp_types::ReferenceParams = params(request)?;
        let (analysis, offset) = self.at(&p.text_document_position)?;
        let found: Vec<Location> = analysis
            .references(offset, p.context.include_declaration)
            .into_iter()
            .filter_map(|(source, span)| self.location(analysis, &source, span))
            .collect();
        to_json(found)
    }

    fn completion(&self, request: Request) -> Result<serde_json::Value, String> {
        let p: lsp_types::CompletionParams = params(request)?;
        let (analysis, _) = self.at(&p.text_document_position)?;
        to_json(CompletionResponse::Array(analysis.completions()))
    }

    fn symbols(&self, request: Request) -> Result<serde_json::Value, String> {
        let p: lsp_types::DocumentSymbolParams = params(request)?;
        let analysis = self
            .analyses
            .get(&p.text_document.uri)
            .ok_or_else(|| format!("{} is not open", p.text_document.uri))?;
        to_json(DocumentSymbolResponse::Nested(analysis.symbols()))
    }

    fn formatting(&self, request: Request) -> Result<serde_json::Value, String> {
        let p: lsp_types::DocumentFormattingParams = params(request)?;
        let (_, text) = self
            .texts
            .get(&p.text_document.uri)
            .ok_or_else(|| format!("{} is not open", p.text_document.uri))?;
        // A file that does not parse is left alone (its errors are shown),
        // as is one beyond the size limit.
        if text.len() as u64 > crate::file::MAX_RULES_BYTES {
            return to_json(None::<Vec<TextEdit>>);
        }
        let Ok(formatted) = crate::syntax::format_file(text) else {
            return to_json(None::<Vec<TextEdit>>);
        };
        if formatted == *text {
            return to_json(Vec::<TextEdit>::new());
        }
        let edit = TextEdit::new(LineIndex::new(text).whole(), formatted);
        to_json(vec![edit])
    }

    /// The location of `span` in the source named `name`: this document,
    /// another file on disk, or a bundled file (written out to the cache so
    /// the editor can open it).
    fn location(&self, analysis: &Analysis, name: &str, span: Span) -> Option<Location> {
        let text = if name == analysis.source.name {
            analysis.source.text.clone()
        } else {
            analysis
                .rules()?
                .sources()
                .iter()
                .find(|s| s.name == name)?
                .text
                .clone()
        };
        let range = LineIndex::new(&text).range(span);
        if name == analysis.source.name {
            let uri = self
                .texts
                .iter()
                .find(|(_, (p, _))| *p == name)
                .map(|(u, _)| u.clone())?;
            return Some(Location::new(uri, range));
        }
        let path = match name.strip_prefix(crate::bundled::DIR) {
            Some(rest) => bundled_copy(rest.trim_start_matches('/'), &text)?,
            None => std::path::absolute(name).ok()?,
        };
        Some(Location::new(Url::from_file_path(path).ok()?, range))
    }
}

/// A bundled rule file written out (once per text) where an editor can open
/// it: `$CHESSALG_DATA_DIR/bundled/NAME` or the user's data directory's.
fn bundled_copy(name: &str, text: &str) -> Option<PathBuf> {
    let dir = crate::session::journal::data_dir().ok()?.join("bundled");
    let path = dir.join(name);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
        std::fs::create_dir_all(&dir).ok()?;
        crate::file::write(&path, text.as_bytes()).ok()?;
    }
    Some(path)
}

/// A document's path: its file path, or the URI itself when it has none.
fn path_of(uri: &Url) -> String {
    uri.to_file_path()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| uri.to_string())
}

/// `path` with `.` and `..` taken out (no file system access: the files
/// may exist only in the editor).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// What a caught panic said.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    (panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// The diagnostics of version `version` of document `uri`.
fn publish(uri: &Url, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) -> Notification {
    Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        PublishDiagnosticsParams::new(uri.clone(), diagnostics, version),
    )
}

fn params<P: serde::de::DeserializeOwned>(request: Request) -> Result<P, String> {
    serde_json::from_value(request.params).map_err(|e| format!("bad parameters for {}: {e}", request.method))
}

fn to_json<T: serde::Serialize>(value: T) -> Result<serde_json::Value, String> {
    serde_json::to_value(value).map_err(|e| e.to_string())
}

fn failure(id: RequestId, code: ErrorCode, message: String) -> Response {
    Response::new_err(id, code as i32, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn paths_are_normalised_without_the_disk() {
        assert_eq!(normal(Path::new("/a/b/../c/./d.alg")), Path::new("/a/c/d.alg"));
    }

    fn request(id: i32, method: &str, params: Value) -> Message {
        Request::new(id.into(), method.into(), params).into()
    }

    fn notification(method: &str, params: Value) -> Message {
        Notification::new(method.into(), params).into()
    }

    /// The server run on `messages`, all waiting before it starts: what
    /// it sent, and how it ended.
    fn served(messages: Vec<Message>) -> (Vec<Value>, Result<(), LspError>) {
        let (server, client) = Connection::memory();
        for m in messages {
            client.sender.send(m).unwrap();
        }
        drop(client.sender);
        let ended = run(&server);
        drop(server);
        let sent = client
            .receiver
            .iter()
            .map(|m| serde_json::to_value(m).unwrap())
            .collect();
        (sent, ended)
    }

    #[test]
    fn edits_waiting_together_are_checked_once_and_requests_answered_after() {
        let uri = "untitled:game.alg";
        let text = |i: usize| format!("import \"chess.alg\"\nmoves white = piece_moves\nunused_{i} = nil\n");
        let mut messages = vec![
            request(1, "initialize", json!({"capabilities": {}})),
            notification("initialized", json!({})),
            notification(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": uri, "languageId": "chessalg", "version": 1, "text": text(1)}}),
            ),
        ];
        for i in 2..=20 {
            messages.push(notification(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": i}, "contentChanges": [{"text": text(i)}]}),
            ));
            if i == 10 {
                messages.push(request(
                    2,
                    "textDocument/documentSymbol",
                    json!({"textDocument": {"uri": uri}}),
                ));
            }
        }
        messages.push(request(3, "shutdown", Value::Null));
        messages.push(request(
            4,
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        ));
        messages.push(notification("exit", Value::Null));
        let (sent, ended) = served(messages);
        assert!(ended.is_ok(), "{ended:?}");
        // The handshake, one check (of the newest text), then the requests
        // in order: the symbols of the newest text; after shutdown, an error.
        assert_eq!(sent.len(), 5, "{sent:#?}");
        assert_eq!(sent[0]["id"], 1);
        assert_eq!(sent[1]["method"], "textDocument/publishDiagnostics");
        assert_eq!(sent[1]["params"]["version"], 20);
        let message = sent[1]["params"]["diagnostics"][0]["message"].as_str().unwrap();
        assert!(message.contains("unused_20"), "{message}");
        assert_eq!(sent[2]["id"], 2);
        let names: Vec<&str> = (sent[2]["result"].as_array().unwrap().iter())
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["moves white", "unused_20"]);
        assert_eq!(sent[3], json!({"id": 3, "result": null}));
        assert_eq!(sent[4]["id"], 4);
        assert_eq!(sent[4]["error"]["code"], ErrorCode::InvalidRequest as i32);
    }

    #[test]
    fn requests_before_initialize_get_errors_and_exit_without_shutdown_is_one() {
        let (sent, ended) = served(vec![
            request(1, "textDocument/hover", json!({})),
            notification("textDocument/didOpen", json!({})),
            request(2, "initialize", json!({"capabilities": {}})),
            request(3, "textDocument/hover", json!({"bad": "params"})),
            notification("exit", Value::Null),
        ]);
        assert_eq!(
            sent[0]["error"]["code"],
            ErrorCode::ServerNotInitialized as i32,
            "{sent:?}"
        );
        assert!(sent[1]["result"]["capabilities"].is_object(), "{sent:?}");
        assert_eq!(
            sent[2]["error"]["code"],
            ErrorCode::InvalidParams as i32,
            "{sent:?}"
        );
        assert_eq!(sent.len(), 3);
        assert!(matches!(ended, Err(LspError::ExitBeforeShutdown)), "{ended:?}");
        // The end of the messages ends the server quietly.
        let (sent, ended) = served(vec![request(1, "initialize", json!({"capabilities": {}}))]);
        assert_eq!(sent.len(), 1);
        assert!(ended.is_ok());
    }

    #[test]
    fn serve_on_bytes_answers_and_ends() {
        let frame = |m: Value| {
            let body = m.to_string();
            format!("Content-Length: {}\r\n\r\n{body}", body.len())
        };
        let mut input = frame(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}));
        input.push_str("Content-Length: 3\r\n\r\n{[}");
        input.push_str(&frame(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})));
        input.push_str(&frame(json!({"jsonrpc": "2.0", "method": "exit"})));
        let output = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        struct Out(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Out {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        serve_on(std::io::Cursor::new(input.into_bytes()), Out(output.clone())).unwrap();
        let written = String::from_utf8(output.lock().unwrap().clone()).unwrap();
        assert_eq!(written.matches("Content-Length: ").count(), 3, "{written}");
        assert!(
            written.contains(r#""id":null"#) && written.contains("-32700"),
            "{written}"
        );
        assert!(
            written.contains(r#""id":2,"jsonrpc":"2.0","result":null"#),
            "{written}"
        );
    }
}
