//! `chessalg lsp`: a language server for rule files over stdio (the
//! Language Server Protocol, through `lsp-server` and `lsp-types`).
//!
//! On open and on every change, the text in the editor (saved or not) is
//! checked as `check` checks a file, and its diagnostics are published;
//! files open in the editor that import it are checked again, and imports
//! are read from the editor's texts before the disk. Hover, go to
//! definition, references, completion, document symbols and formatting
//! (`fmt`) answer from the last check ([`Analysis`]).

pub(crate) mod analysis;
mod text;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Component, Path, PathBuf};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, References, Request as _,
};
use lsp_types::{
    CompletionOptions, CompletionResponse, DocumentSymbolResponse, GotoDefinitionResponse, Hover,
    HoverContents, HoverProviderCapability, Location, MarkupContent, MarkupKind, OneOf,
    PublishDiagnosticsParams, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit,
    Url,
};

pub use analysis::{Analysis, BUILTINS};
pub use text::LineIndex;

use crate::source::{Source, Span};

/// Why the server stopped other than by `shutdown` and `exit`.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// The connection broke or the client broke the protocol.
    #[error("language server protocol: {0}")]
    Protocol(String),
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

/// The documents open in the editor and what was found in each.
#[derive(Default)]
struct Server {
    /// Per open document: its path (or URI, for an unsaved buffer) and text.
    texts: HashMap<Url, (String, String)>,
    /// The last check of each open document.
    analyses: HashMap<Url, Analysis>,
}

/// Serves the protocol on stdin and stdout until the client says `exit`.
pub fn serve() -> Result<(), LspError> {
    let (connection, io_threads) = Connection::stdio();
    run(&connection)?;
    drop(connection);
    io_threads.join().map_err(|e| LspError::Protocol(e.to_string()))?;
    Ok(())
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
/// until `shutdown`.
pub fn run(connection: &Connection) -> Result<(), LspError> {
    let caps = serde_json::to_value(capabilities()).map_err(|e| LspError::Protocol(e.to_string()))?;
    connection.initialize(caps)?;
    let mut server = Server::default();
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request)? {
                    return Ok(());
                }
                let response = server.answer(request);
                connection.sender.send(Message::Response(response))?;
            }
            Message::Notification(n) => {
                for published in server.notice(n) {
                    connection.sender.send(Message::Notification(published))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

impl Server {
    /// Handles a notification; returns the diagnostics to publish.
    fn notice(&mut self, n: Notification) -> Vec<Notification> {
        let changed = match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let uri = p.text_document.uri;
                self.texts
                    .insert(uri.clone(), (path_of(&uri), p.text_document.text));
                uri
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let uri = p.text_document.uri;
                // Full sync: the last change holds the whole text.
                let Some(change) = p.content_changes.into_iter().last() else {
                    return Vec::new();
                };
                self.texts.insert(uri.clone(), (path_of(&uri), change.text));
                uri
            }
            DidSaveTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                p.text_document.uri
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let uri = p.text_document.uri;
                self.texts.remove(&uri);
                self.analyses.remove(&uri);
                return vec![publish(&uri, Vec::new())];
            }
            _ => return Vec::new(),
        };
        self.check(&changed)
    }

    /// Checks `uri` again, then every open document that imports it;
    /// returns their diagnostics.
    fn check(&mut self, uri: &Url) -> Vec<Notification> {
        let Some((path, _)) = self.texts.get(uri) else {
            return Vec::new();
        };
        let changed = normal(Path::new(path));
        let mut todo = vec![uri.clone()];
        for (other, analysis) in &self.analyses {
            if other != uri && analysis.imports().iter().any(|i| normal(Path::new(i)) == changed) {
                todo.push(other.clone());
            }
        }
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
            out.push(publish(&uri, analysis.diagnostics.clone()));
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

fn publish(uri: &Url, diagnostics: Vec<lsp_types::Diagnostic>) -> Notification {
    Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        PublishDiagnosticsParams::new(uri.clone(), diagnostics, None),
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
    use super::normal;
    use std::path::Path;

    #[test]
    fn paths_are_normalised_without_the_disk() {
        assert_eq!(normal(Path::new("/a/b/../c/./d.alg")), Path::new("/a/c/d.alg"));
    }
}
