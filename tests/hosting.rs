//! `chessalg serve` left running for strangers: each way a stranger (or a
//! burst of them) could lose other people's games or the service, tried
//! against the real server over real sockets. No game is forked by a
//! burst of new games, no file of the server is read for a rule text, no
//! text holds the playground, idle connections lock nobody out, a second
//! server cannot share a database, and every error is an answer.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;

use common::served::Served;

/// The first error diagnostic of a check's answer, if any.
fn first_error(answer: &Value) -> Option<&Value> {
    answer["diagnostics"]
        .as_array()?
        .iter()
        .find(|d| d["severity"] == "error")
}

/// The rule text of tic-tac-toe with `extra` lines after it.
fn tictactoe_with(extra: &str) -> String {
    let text = std::fs::read_to_string("rules/tictactoe.alg").unwrap();
    format!("{text}\n{extra}\n")
}

/// Opens the event stream of game `id` and reads it aside until `stop`;
/// what it read so far is in the returned text.
fn follow(s: &Served, id: u64, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<String> {
    let mut stream = s.events(id, Duration::from_millis(100));
    std::thread::spawn(move || {
        let (mut seen, mut buf) = (String::new(), vec![0u8; 1 << 16]);
        while !stop.load(Ordering::SeqCst) {
            if let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
        seen
    })
}

/// Two clients make games as fast as they can (the server keeps 16 in
/// memory) while three play one game: every move the server answered is
/// in the database, the game loads after a restart, and its event stream
/// heard the last move.
#[test]
fn a_burst_of_new_games_forks_no_game() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite3");
    let s = Arc::new(Served::start_on("rules/chess.alg", &["--max-games", "16"], &db));
    let (_, g) = s.json("POST", "/api/games", "{}");
    let id = g["id"].as_u64().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let viewer = follow(&s, id, stop.clone());
    let makers: Vec<_> = (0..2)
        .map(|_| {
            let (s, stop) = (s.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut made = 0;
                while !stop.load(Ordering::SeqCst) {
                    let (status, _) = s.request("POST", "/api/games", "{}");
                    assert_eq!(status, 200);
                    made += 1;
                }
                made
            })
        })
        .collect();
    let players: Vec<_> = (0..3)
        .map(|p| {
            let s = s.clone();
            std::thread::spawn(move || {
                let mut answered = Vec::new();
                for turn in 0..200 {
                    let (status, g) = s.json("GET", &format!("/api/games/{id}"), "");
                    assert_eq!(status, 200, "{g}");
                    let plies = g["plies"].as_u64().unwrap();
                    let legal = g["legal"].as_array().unwrap();
                    if legal.is_empty() || plies >= 60 {
                        break;
                    }
                    let name = legal[(p * 5 + turn * 7) % legal.len()]["name"]
                        .as_str()
                        .unwrap()
                        .to_string();
                    let body = json!({ "move": name, "plies": plies }).to_string();
                    let (status, answer) = s.json("POST", &format!("/api/games/{id}/move"), &body);
                    match status {
                        200 => answered.push((plies, name)),
                        // Another player moved first.
                        409 => {}
                        _ => panic!("{status}: {answer}"),
                    }
                }
                answered
            })
        })
        .collect();
    let mut answered: Vec<(u64, String)> = players.into_iter().flat_map(|p| p.join().unwrap()).collect();
    stop.store(true, Ordering::SeqCst);
    let made: u32 = makers.into_iter().map(|m| m.join().unwrap()).sum();
    let seen = viewer.join().unwrap();
    answered.sort();
    eprintln!("{} moves answered while {made} games were made", answered.len());
    assert!(made > 100, "only {made} games were made");
    assert!(answered.len() >= 30, "{answered:?}");
    // One answer per ply, each in the game's history.
    let (_, g) = s.json("GET", &format!("/api/games/{id}"), "");
    let history: Vec<String> = serde_json::from_value(g["history"].clone()).unwrap();
    assert_eq!(history.len(), answered.len(), "{answered:?}");
    for (ply, name) in &answered {
        assert_eq!(&history[*ply as usize], name, "move {ply}");
    }
    assert!(
        seen.contains(&format!("\"plies\":{},", history.len())),
        "the event stream never heard move {}",
        history.len()
    );
    // And so in the database: the game loads, whole, after a restart.
    drop(s);
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (status, g) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["history"], json!(history));
}

/// A stream follows its game while a burst of new games passes the
/// table's bound: it holds the game, which is not let go of.
#[test]
fn an_event_stream_keeps_following_its_game_through_a_burst() {
    let s = Served::start_with("rules/chess.alg", &["--max-games", "4"]);
    let (_, g) = s.json("POST", "/api/games", "{}");
    let id = g["id"].as_u64().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let viewer = follow(&s, id, stop.clone());
    std::thread::sleep(Duration::from_millis(200));
    for _ in 0..40 {
        s.request("POST", "/api/games", "{}");
    }
    let (status, _) = s.json("POST", &format!("/api/games/{id}/move"), r#"{"move": "e2e4"}"#);
    assert_eq!(status, 200);
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::SeqCst);
    let seen = viewer.join().unwrap();
    assert!(
        seen.contains("\"plies\":1,"),
        "the stream missed the move: {seen}"
    );
    let (_, status) = s.json("GET", "/api/status", "");
    assert!(status["games_in_memory"].as_u64().unwrap() <= 5, "{status}");
}

#[test]
fn new_games_past_a_clients_rate_get_a_429() {
    let s = Served::start_with(
        "rules/tictactoe.alg",
        &["--games-per-minute", "3", "--checks-per-minute", "2"],
    );
    for _ in 0..3 {
        assert_eq!(s.json("POST", "/api/games", "{}").0, 200);
    }
    let (status, e) = s.json("POST", "/api/games", "{}");
    assert_eq!(status, 429, "{e}");
    assert!(e["error"].as_str().unwrap().contains("try again in"), "{e}");
    let text = json!({ "text": tictactoe_with("") }).to_string();
    for _ in 0..2 {
        assert_eq!(s.json("POST", "/api/rules", &text).0, 200);
    }
    assert_eq!(s.json("POST", "/api/rules", &text).0, 429);
}

/// `weights "PATH"` in a playground text reads nothing of the server's:
/// the answer is the same for a secret file, a missing one, a directory
/// and the server's standard input, and says nothing of any of them;
/// bundled weights are read.
#[test]
fn a_playground_text_reads_no_file_of_the_server() {
    let s = Served::start("rules/chess.alg");
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.json");
    std::fs::write(&secret, "TOPSECRET").unwrap();
    let missing = dir.path().join("missing.json");
    let paths = [
        secret.display().to_string(),
        missing.display().to_string(),
        dir.path().display().to_string(),
        "/dev/stdin".to_string(),
        "../../../../etc/passwd".to_string(),
    ];
    let mut answers = Vec::new();
    for path in &paths {
        let t = Instant::now();
        let text = tictactoe_with(&format!("weights \"{path}\""));
        let (status, answer) = s.json("POST", "/api/rules", &json!({ "text": text }).to_string());
        assert_eq!(status, 200, "{answer}");
        assert!(t.elapsed() < Duration::from_secs(3), "{path}: {:?}", t.elapsed());
        let said = first_error(&answer).unwrap_or_else(|| panic!("{path}: {answer}"))["message"]
            .as_str()
            .unwrap()
            .replace(path.as_str(), "PATH");
        assert!(said.contains("reads no file of the server"), "{said}");
        assert!(!said.contains("TOPSECRET"), "{said}");
        answers.push(said);
    }
    assert!(answers.iter().all(|a| *a == answers[0]), "{answers:#?}");
    let text = tictactoe_with("weights \"weights/connect4.json\"");
    let (_, answer) = s.json("POST", "/api/rules", &json!({ "text": text }).to_string());
    assert!(first_error(&answer).is_none(), "{answer}");
}

/// Texts that would run for ever (a doubling expansion, a runaway
/// repetition on a large board) are each answered within the check's time,
/// and the playground answers the next texts at once: no check outlives
/// its time holding a permit.
#[test]
fn runaway_texts_do_not_hold_the_playground() {
    let s = Arc::new(Served::start("rules/chess.alg"));
    let doubling = std::fs::read_to_string("tests/data/untrusted/doubling.alg").unwrap();
    let mut slide = String::from("game Runaway\nplayers a b\npiece X Y\nboard\n");
    for row in 0..40 {
        let cells: String = (0..40)
            .map(|c| if (row, c) == (20, 20) { 'X' } else { '.' })
            .collect();
        slide.push_str(&format!("    {cells}\n"));
    }
    slide.push_str(
        "slide = (% + u. -> . + u%)+ | (% + r. -> . + r%)+ | (% + d. -> . + d%)+ | (% + l. -> . + l%)+\n",
    );
    slide.push_str("moves a = %X: slide* (% + u. -> . + u%)\nmoves b = %Y: slide\n");
    let started = Instant::now();
    let askers: Vec<_> = [
        doubling.clone(),
        slide,
        doubling.replace("game Doubling", "game Doubling again"),
    ]
    .into_iter()
    .map(|text| {
        let s = s.clone();
        std::thread::spawn(move || {
            let t = Instant::now();
            let (status, answer) = s.json(
                "POST",
                "/api/rules",
                &json!({ "text": text, "play": true }).to_string(),
            );
            (status, answer, t.elapsed())
        })
    })
    .collect();
    for asker in askers {
        let (status, answer, took) = asker.join().unwrap();
        eprintln!(
            "answered {status} in {took:?}: {}",
            first_error(&answer).map_or(Value::Null, |d| d["message"].clone())
        );
        // Two checks at once: the third waits for a permit, then runs.
        assert!(took < Duration::from_secs(9), "{took:?}");
        assert!(status == 200 || status == 503, "{status}: {answer}");
        if status == 200 {
            assert!(first_error(&answer).is_some(), "{answer}");
            assert!(answer["game"].is_null());
        }
    }
    eprintln!("all answered in {:?}", started.elapsed());
    // The playground is free again: texts are checked at once.
    let text = json!({ "text": tictactoe_with("") }).to_string();
    for _ in 0..4 {
        let t = Instant::now();
        let (status, answer) = s.json("POST", "/api/rules", &text);
        assert_eq!(status, 200, "{answer}");
        assert!(first_error(&answer).is_none(), "{answer}");
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    }
    let (_, status) = s.json("GET", "/api/status", "");
    assert_eq!(status["checks_running"], 0, "{status}");
}

/// A playground board past its squares is refused on its `board` line;
/// playground games together keep no more than their bytes in memory,
/// the least recently used going first and coming back when asked for.
#[test]
fn playground_games_are_bounded_in_squares_and_bytes() {
    let s = Served::start_with("rules/chess.alg", &["--playground-memory", "3"]);
    let mut big = String::from("game Big\nplayers a b\npiece X Y\nboard\n");
    for _ in 0..70 {
        big.push_str(&format!("    X{}\n", ".".repeat(69)));
    }
    big.push_str("moves a = %X: % + u. -> . + u%\nmoves b = %Y: % + d. -> . + d%\n");
    let (_, answer) = s.json(
        "POST",
        "/api/rules",
        &json!({ "text": big, "play": true }).to_string(),
    );
    let e = first_error(&answer).unwrap_or_else(|| panic!("{answer}"));
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("4900 squares, more than the 4096"),
        "{e}"
    );
    assert_eq!(e["line"], 4, "{e}");
    // Chess under other names: each text a rule set of its own.
    let chess = std::fs::read_to_string("rules/chess.alg").unwrap();
    let mut ids = Vec::new();
    for k in 0..6 {
        let text = chess.replace("game Chess", &format!("game Chess {k}"));
        let (status, answer) = s.json(
            "POST",
            "/api/rules",
            &json!({ "text": text, "play": true }).to_string(),
        );
        assert_eq!(status, 200, "{answer}");
        ids.push(
            answer["game"]["id"]
                .as_u64()
                .unwrap_or_else(|| panic!("{answer}")),
        );
        let (_, status) = s.json("GET", "/api/status", "");
        let bytes = status["playground_bytes"].as_u64().unwrap();
        eprintln!("{} playground rule sets: {bytes} bytes", k + 1);
        assert!(bytes > 0 && bytes <= 3 << 20, "{status}");
    }
    // The first, let go of, comes back from the database.
    let (status, g) = s.json(
        "POST",
        &format!("/api/games/{}/move", ids[0]),
        r#"{"move": "e2e4"}"#,
    );
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["game"], "Chess 0");
}

/// A server that may open 256 files, and 400 connections that send
/// nothing: a person's request is still answered at once (the longest
/// idle connections are closed to make room), and a connection that
/// sends half a request head is closed at the idle timeout.
#[test]
fn idle_connections_lock_nobody_out() {
    let s = Served::start_limited("rules/chess.alg", &["--idle-timeout", "2"], 256);
    let idle: Vec<TcpStream> = (0..400).map(|_| TcpStream::connect(&s.addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    let mut person = TcpStream::connect(&s.addr).unwrap();
    person.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        person,
        "GET /api/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = person.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
    eprintln!("answered past 400 idle connections in {:?}", t.elapsed());
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    drop(idle);
    // Half a head, then nothing: closed at the idle timeout.
    let mut slow = TcpStream::connect(&s.addr).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(slow, "GET /api/info HTTP/1.1\r\nHost: x\r\n").unwrap();
    let t = Instant::now();
    let mut rest = Vec::new();
    let _ = slow.read_to_end(&mut rest);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

/// When every connection is at work (event streams), a new one is
/// answered 503 at once; past the cap on streams, a stream is refused 503.
#[test]
fn connections_and_streams_past_their_caps_get_a_503() {
    // Opens `n` event streams on a new game and waits for their heads.
    let open_streams = |s: &Served, n: usize| {
        let (_, g) = s.json("POST", "/api/games", "{}");
        let id = g["id"].as_u64().unwrap();
        let streams: Vec<TcpStream> = (0..n)
            .map(|_| {
                let mut stream = s.events(id, Duration::from_secs(5));
                let mut head = [0u8; 64];
                let k = stream.read(&mut head).unwrap();
                assert!(String::from_utf8_lossy(&head[..k]).starts_with("HTTP/1.1 200"));
                stream
            })
            .collect();
        (id, streams)
    };
    let s = Served::start_with(
        "rules/chess.alg",
        &["--max-connections", "6", "--max-streams", "8"],
    );
    let (_, streams) = open_streams(&s, 6);
    let t = Instant::now();
    let (status, body) = s.request("GET", "/api/info", "");
    assert_eq!(status, 503, "{body}");
    let e: Value = serde_json::from_str(&body).unwrap();
    assert!(e["error"].as_str().unwrap().contains("most connections"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    drop(streams);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.request("GET", "/api/info", "").0, 200);

    let s = Served::start_with("rules/chess.alg", &["--max-streams", "2"]);
    let (id, _streams) = open_streams(&s, 2);
    let (status, e) = s.json("GET", &format!("/api/games/{id}/events"), "");
    assert_eq!(status, 503, "{e}");
    assert!(e["error"].as_str().unwrap().contains("event streams"), "{e}");
}

/// A second server on a database in use refuses to start, in one line
/// naming the file and the process that holds it.
#[test]
fn a_second_server_on_one_database_refuses_to_start() {
    let s = Served::start("rules/chess.alg");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessalg"))
        .args(["serve", "rules/chess.alg", "--port", "0", "--db"])
        .arg(&s.db)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    assert!(said.contains(&s.db.display().to_string()), "{said}");
    assert!(said.contains(&format!("process {}", s.child.id())), "{said}");
}

/// A database with damaged pages is refused at the start and left byte for
/// byte as it was, with nothing new beside it.
#[test]
fn a_damaged_database_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite3");
    {
        let s = Served::start_on("rules/chess.alg", &[], &db);
        for _ in 0..30 {
            let (_, g) = s.json("POST", "/api/games", "{}");
            s.json(
                "POST",
                &format!("/api/games/{}/move", g["id"]),
                r#"{"move": "e2e4"}"#,
            );
        }
    }
    // Everything into the file itself, then a page damaged.
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
        .unwrap();
    let mut bytes = std::fs::read(&db).unwrap();
    for b in &mut bytes[2 * 4096..2 * 4096 + 12] {
        *b = 0xee;
    }
    std::fs::write(&db, &bytes).unwrap();
    let before: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessalg"))
        .args(["serve", "rules/chess.alg", "--port", "0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("is damaged"), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "the file was changed");
    let after: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(after.len(), before.len(), "{after:?}");
}

/// Rows edited by hand are an error for their game, and only for it.
#[test]
fn a_hand_edited_row_is_an_error_for_its_game_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite3");
    let ids: Vec<u64> = {
        let s = Served::start_on("rules/chess.alg", &[], &db);
        (0..3)
            .map(|_| {
                let (_, g) = s.json("POST", "/api/games", r#"{"seats": true}"#);
                g["id"].as_u64().unwrap()
            })
            .collect()
    };
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute("UPDATE games SET seats = 'a b c' WHERE id = ?1", [ids[0] as i64])
        .unwrap();
    c.execute(
        "UPDATE games SET created_ms = 'yesterday' WHERE id = ?1",
        [ids[1] as i64],
    )
    .unwrap();
    drop(c);
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (status, e) = s.json("GET", &format!("/api/games/{}", ids[0]), "");
    assert_eq!(status, 409, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("3 seats for 2 players"),
        "{e}"
    );
    let (status, e) = s.json("GET", &format!("/api/games/{}", ids[1]), "");
    assert_eq!(status, 500, "{e}");
    assert!(e["error"].as_str().unwrap().contains("does not read"), "{e}");
    assert_eq!(s.json("GET", &format!("/api/games/{}", ids[2]), "").0, 200);
}

/// Seat links start with `--public-url`, or are relative to the page:
/// never built from the `Host` a request names.
#[test]
fn seat_links_never_come_from_the_host_a_request_names() {
    let spoofed = |s: &Served| {
        let body = r#"{"seats": true}"#;
        let (status, text) = s.raw(&format!(
            "POST /api/games HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ));
        assert_eq!(status, 200, "{text}");
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let s = Served::start_with("rules/chess.alg", &["--public-url", "https://chess.example.org/"]);
    let g = spoofed(&s);
    let url = g["seats"]["white"]["url"].as_str().unwrap();
    assert!(url.starts_with("https://chess.example.org/?game="), "{url}");
    assert!(
        g["watch_url"]
            .as_str()
            .unwrap()
            .starts_with("https://chess.example.org/?game=")
    );
    let s = Served::start("rules/chess.alg");
    let g = spoofed(&s);
    let url = g["seats"]["black"]["url"].as_str().unwrap();
    assert!(url.starts_with("/?game="), "{url}");
    assert!(!g.to_string().contains("evil.example"));
}

/// Every error is `{"error": ...}`, whatever the request got wrong.
#[test]
fn every_error_is_json() {
    let s = Served::start("rules/chess.alg");
    let (_, g) = s.json("POST", "/api/games", "{}");
    let id = g["id"].as_u64().unwrap();
    for (method, path, body, status) in [
        ("POST", "/api/games".to_string(), "not json", 400),
        ("POST", "/api/games".to_string(), r#"{"seats": "yes"}"#, 422),
        ("POST", format!("/api/games/{id}/ai"), "not json", 400),
        ("POST", format!("/api/games/{id}/move"), "{", 400),
        ("POST", "/api/rules".to_string(), "[]", 422),
        ("GET", "/api/nothing".to_string(), "", 404),
        ("DELETE", "/api/games".to_string(), "", 405),
        ("GET", format!("/api/games/{id}?ply=x"), "", 400),
        ("POST", "/api/games".to_string(), &"x".repeat(20_000), 413),
    ] {
        let (got, text) = s.request(method, &path, body);
        assert_eq!(got, status, "{method} {path}: {text}");
        let e: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path}: {e}: {text}"));
        assert!(e["error"].as_str().is_some_and(|t| !t.is_empty()), "{e}");
    }
}
