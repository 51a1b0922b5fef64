//! The AI keeps its time on any rule file: asked for 100 ms, it answers
//! with a legal move within a small margin, from its first answer on, on
//! boards where that first answer once took half a minute (a 50x50 board
//! where each move puts a stone on an empty square, a 40x40 board of chess's
//! sliding pieces), through the library and through the web API.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chessalg::ai::{Ai, Budget};
use chessalg::engine::Cache;

mod common;

/// The time the AI is asked for.
const ASKED: Duration = Duration::from_millis(100);

/// The most an answer may take: the time asked for and a margin generous
/// for a loaded machine of two cores.
const AT_MOST: Duration = Duration::from_millis(1500);

/// The large boards: a placement game, and chess's pieces.
const BOARDS: [&str; 2] = ["tests/data/gomoku50.alg", "tests/data/chess40.alg"];

#[test]
fn the_ai_answers_in_its_time_on_large_boards_from_its_first_answer() {
    for path in BOARDS {
        // A new game: nothing it works out once is known yet.
        let game = common::game(path);
        let mut state = game.initial();
        let mut cache = Cache::new();
        for ply in 0..3 {
            let legal = game.legal_actions(&state, &mut cache).unwrap();
            let started = Instant::now();
            let budget = Budget {
                depth: 64,
                time: Some(ASKED),
            };
            let choice = Ai::new(7)
                .choose(&game, &state, &legal, budget, &mut cache)
                .unwrap();
            let took = started.elapsed();
            eprintln!(
                "{path}, ply {ply}: {} of {} legal moves in {took:?} (depth {}, {} positions)",
                choice.index,
                legal.len(),
                choice.depth,
                choice.nodes
            );
            assert!(took < AT_MOST, "{path}, ply {ply}: {took:?}");
            assert!(choice.index < legal.len(), "{path}");
            // The search's deadline is gone from the cache.
            assert_eq!(cache.deadline(), None);
            game.make(&mut state, &legal[choice.index]);
        }
    }
}

#[test]
fn a_deadline_already_on_the_cache_bounds_the_ai_too_and_stays() {
    let game = common::game(BOARDS[1]);
    let state = game.initial();
    let mut cache = Cache::new();
    let legal = game.legal_actions(&state, &mut cache).unwrap();
    let started = Instant::now();
    let deadline = started + ASKED;
    cache.set_deadline(Some(deadline));
    let budget = Budget {
        depth: 64,
        time: Some(Duration::from_secs(30)),
    };
    let choice = Ai::new(7)
        .choose(&game, &state, &legal, budget, &mut cache)
        .unwrap();
    let took = started.elapsed();
    eprintln!("thirty seconds asked, 100 ms on the cache: answered in {took:?}");
    assert!(took < AT_MOST, "{took:?}");
    assert!(choice.index < legal.len());
    assert_eq!(cache.deadline(), Some(deadline));
}

/// A running `chessalg serve` on a free port, its games in a database of
/// its own, stopped when dropped.
struct Served {
    child: Child,
    addr: String,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start(rules: &str) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_chessalg"))
            .args(["serve", rules, "--port", "0", "--time-cap", "10", "--db"])
            .arg(dir.path().join("games.sqlite3"))
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
            child,
            addr,
            _dir: dir,
        }
    }

    /// One POST; the status and the body.
    fn post(&self, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        write!(
            stream,
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let text = String::from_utf8_lossy(&raw).into_owned();
        let status: u16 = text.split(' ').nth(1).unwrap().parse().unwrap();
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
        (status, body)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_web_ai_answers_in_the_time_asked_on_large_boards() {
    for path in BOARDS {
        let served = Served::start(path);
        let (status, body) = served.post("/api/games", "{}");
        assert_eq!(status, 200, "{body}");
        let game: serde_json::Value = serde_json::from_str(&body).unwrap();
        let id = game["id"].as_u64().unwrap();
        for ply in 0..2 {
            let started = Instant::now();
            let (status, body) = served.post(&format!("/api/games/{id}/ai"), r#"{"time_ms":100}"#);
            let took = started.elapsed();
            eprintln!("{path} through the web API, ply {ply}: {took:?}");
            assert_eq!(status, 200, "{body}");
            let after: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(
                after["plies"].as_u64(),
                Some(ply + 1),
                "{path}: the AI's move was played"
            );
            assert!(took < AT_MOST, "{path}, ply {ply}: {took:?}");
        }
    }
}
