//! A running `chessalg serve` on a free port of 127.0.0.1, spoken to over
//! real HTTP as the page and a person with curl speak to it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};

/// A running `chessalg serve`, its games in a database of its own, stopped
/// when dropped. Its standard input is a pipe left open and silent (as a
/// terminal where nobody types).
pub struct Served {
    pub child: Child,
    pub addr: String,
    pub db: std::path::PathBuf,
    _stdin: Option<ChildStdin>,
    _dir: Option<tempfile::TempDir>,
}

impl Served {
    pub fn start(rules: &str) -> Served {
        Served::start_with(rules, &[])
    }

    pub fn start_with(rules: &str, extra: &[&str]) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let mut served = Served::start_on(rules, extra, &dir.path().join("games.sqlite3"));
        served._dir = Some(dir);
        served
    }

    /// A server on the database `db`.
    pub fn start_on(rules: &str, extra: &[&str], db: &std::path::Path) -> Served {
        Served::start_as(Command::new(env!("CARGO_BIN_EXE_chessalg")), rules, extra, db)
    }

    /// A server that may have at most `files` open files (`ulimit -n`).
    pub fn start_limited(rules: &str, extra: &[&str], files: u32) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let mut shell = Command::new("sh");
        shell.args([
            "-c",
            &format!("ulimit -n {files} && exec \"$0\" \"$@\""),
            env!("CARGO_BIN_EXE_chessalg"),
        ]);
        let mut served = Served::start_as(shell, rules, extra, &dir.path().join("games.sqlite3"));
        served._dir = Some(dir);
        served
    }

    fn start_as(mut command: Command, rules: &str, extra: &[&str], db: &std::path::Path) -> Served {
        command.args(["serve", rules, "--port", "0"]);
        // (Quick AI answers, and many games and texts from one address:
        // no rate limit unless a test asks for one.)
        for (flag, value) in [
            ("--time-cap", "0.3"),
            ("--games-per-minute", "0"),
            ("--checks-per-minute", "0"),
        ] {
            if !extra.contains(&flag) {
                command.args([flag, value]);
            }
        }
        let mut child = command
            .arg("--db")
            .arg(db)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chessalg serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("http://")
            .and_then(|a| a.strip_suffix('/'))
            .unwrap_or_else(|| panic!("serve printed {line:?}"))
            .to_string();
        Served {
            _stdin: child.stdin.take(),
            child,
            addr,
            db: db.to_path_buf(),
            _dir: None,
        }
    }

    /// One request; the status and the body.
    pub fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        self.request_as(method, path, body, None)
    }

    /// One request carrying a seat token (`Authorization: Bearer`).
    pub fn request_as(&self, method: &str, path: &str, body: &str, token: Option<&str>) -> (u16, String) {
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        self.raw(&format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        ))
    }

    /// A request written as given (head and body); the status and the body.
    pub fn raw(&self, request: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let text = String::from_utf8_lossy(&raw).into_owned();
        let status: u16 = text
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {text:?}"));
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
        (status, body)
    }

    /// The event stream of game `id`, opened (its reads time out after `wait`).
    pub fn events(&self, id: u64, wait: std::time::Duration) -> TcpStream {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        write!(
            stream,
            "GET /api/games/{id}/events HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n",
            self.addr
        )
        .unwrap();
        stream.set_read_timeout(Some(wait)).unwrap();
        stream
    }

    pub fn json(&self, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
        self.json_as(method, path, body, None)
    }

    pub fn json_as(
        &self,
        method: &str,
        path: &str,
        body: &str,
        token: Option<&str>,
    ) -> (u16, serde_json::Value) {
        let (status, text) = self.request_as(method, path, body, token);
        (
            status,
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
        )
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
