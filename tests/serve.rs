//! `chessalg serve`: the JSON API over real HTTP on 127.0.0.1, as the page
//! and a person with curl use it; bad requests get a 4xx and one line of
//! JSON, and leave the game as it was.

use std::io::Read;
use std::process::{Command, Stdio};

mod common;

use chessalg::core::Rng;
use common::served::Served;

#[test]
fn a_game_is_played_through_the_api_to_its_end() {
    let s = Served::start("rules/chess.alg");
    let (status, page) = s.request("GET", "/", "");
    assert_eq!(status, 200);
    assert!(page.contains("/page/board.js"), "the page");
    let (status, board) = s.request("GET", "/page/board.js", "");
    assert_eq!(status, 200);
    assert!(board.contains("data-square"), "the board's script");
    let (status, g) = s.json("POST", "/api/games", "{}");
    assert_eq!(status, 200);
    let id = g["id"].as_u64().unwrap();
    assert_eq!(g["legal"].as_array().unwrap().len(), 20);
    assert_eq!(g["turn"], "white");
    // Fool's mate.
    let mut last = g;
    for m in ["f2f3", "e7e5", "g2g4", "d8h4"] {
        let (status, g) = s.json(
            "POST",
            &format!("/api/games/{id}/move"),
            &format!("{{\"move\": \"{m}\"}}"),
        );
        assert_eq!(status, 200, "{m}: {g}");
        last = g;
    }
    assert_eq!(last["result"]["winner"], "black", "{last}");
    // What chess calls it, and the rule for "Why?".
    assert_eq!(last["result"]["reason"], "checkmate", "{last}");
    assert_eq!(
        last["result"]["rule"],
        "no legal move, with a royal piece attacked"
    );
    assert_eq!(last["result"]["detail"], serde_json::Value::Null);
    assert_eq!(
        last["player_names"],
        serde_json::json!({"white": "white", "black": "black"})
    );
    assert_eq!(last["history"].as_array().unwrap().len(), 4);
    assert_eq!(last["record"][3], "Qh4#", "{last}");
    assert!(last["legal"].as_array().unwrap().is_empty());
    // Looking back: the position after the first move, shown, not played from.
    let (status, back) = s.json("GET", &format!("/api/games/{id}?ply=1"), "");
    assert_eq!(status, 200);
    assert_eq!(
        back["fen"],
        "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1"
    );
    assert!(back["legal"].as_array().unwrap().is_empty() && back["plies"] == 4 && back["ply"] == 1);
    let (status, _) = s.json("GET", &format!("/api/games/{id}?ply=9"), "");
    assert_eq!(status, 400);
    // The record, and no move after the end.
    let (status, pgn) = s.request("GET", &format!("/api/games/{id}/pgn"), "");
    assert_eq!(status, 200);
    assert!(
        pgn.contains("1. f3 e5 2. g4 Qh4#") && pgn.contains("0-1"),
        "{pgn}"
    );
    let (status, e) = s.json("POST", &format!("/api/games/{id}/move"), "{\"move\": \"a2a3\"}");
    assert_eq!((status, e["error"].as_str().unwrap()), (400, "the game is over"));
    // Undo, then the AI answers within the cap.
    let (status, g) = s.json("POST", &format!("/api/games/{id}/undo"), "{}");
    assert_eq!((status, g["history"].as_array().unwrap().len()), (200, 3));
    let started = std::time::Instant::now();
    let (status, g) = s.json("POST", &format!("/api/games/{id}/ai"), "{\"time_ms\": 60000}");
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["history"].as_array().unwrap().len(), 4);
    assert!(started.elapsed().as_secs() < 20, "the AI's time is capped");
}

#[test]
fn bad_requests_get_a_4xx_and_change_nothing() {
    let s = Served::start("rules/chess.alg");
    let (_, g) = s.json("POST", "/api/games", "{}");
    let id = g["id"].as_u64().unwrap();
    let fen = g["fen"].clone();
    let moved = format!("/api/games/{id}/move");
    for (path, body, status) in [
        (moved.as_str(), "{\"move\": \"e2e5\"}", 400),
        (moved.as_str(), "not json", 400),
        (moved.as_str(), "{\"mov\": \"e2e4\"}", 422),
        ("/api/games/999/move", "{\"move\": \"e2e4\"}", 404),
        ("/api/games/x/move", "{\"move\": \"e2e4\"}", 404),
        ("/api/games", "{\"fen\": \"8/8 w\"}", 400),
        (&format!("/api/games/{id}/undo"), "{}", 400),
        // A move or an AI request made for another position than the
        // game's (a page that has not seen the last move yet).
        (moved.as_str(), "{\"move\": \"e2e4\", \"plies\": 1}", 409),
        (
            &format!("/api/games/{id}/ai"),
            "{\"random\": true, \"plies\": 3}",
            409,
        ),
    ] {
        let (got, e) = s.json("POST", path, body);
        assert_eq!(got, status, "{path} {body}: {e}");
        assert!(e["error"].as_str().is_some_and(|t| !t.contains('\n')), "{e}");
    }
    // A body over the limit is refused whole.
    let huge = format!("{{\"move\": \"{}\"}}", "x".repeat(100_000));
    let (got, _) = s.request("POST", &moved, &huge);
    assert_eq!(got, 413);
    let (_, g) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(g["fen"], fen);
    assert!(g["history"].as_array().unwrap().is_empty());
    // The same requests for the position there is are played.
    let (got, g) = s.json("POST", &moved, "{\"move\": \"e2e4\", \"plies\": 0}");
    assert_eq!(got, 200, "{g}");
    let (got, g) = s.json(
        "POST",
        &format!("/api/games/{id}/ai"),
        "{\"random\": true, \"plies\": 1}",
    );
    assert_eq!((got, g["plies"].as_u64()), (200, Some(2)), "{g}");
}

#[test]
fn drops_and_placements_carry_what_the_page_needs() {
    let s = Served::start("rules/crazyhouse.alg");
    let (_, g) = s.json(
        "POST",
        "/api/games",
        "{\"fen\": \"2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1\"}",
    );
    let legal = g["legal"].as_array().unwrap();
    assert!(
        legal
            .iter()
            .any(|m| m["name"] == "Q@d4" && m["drop"] == "♕" && m["to"] == "d4" && m["from"].is_null())
    );
    assert!(
        g["pockets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["piece"] == "♕" && p["count"] == 1)
    );
    let t = Served::start("rules/tictactoe.alg");
    let (_, g) = t.json("POST", "/api/games", "{}");
    let legal = g["legal"].as_array().unwrap();
    assert_eq!(legal.len(), 9);
    assert!(legal.iter().all(|m| m["from"].is_null() && m["to"].is_string()));
}

/// The page in a real headless browser (`scripts/browser_test.py --all`:
/// chromium through chromedriver's WebDriver): Fool's Mate by clicks, the
/// result in `#status`, looking back, a promotion through the picker, a PGN
/// file loaded, moves dragged by mouse and by touch, a checkers multi-jump
/// clicked landing by landing, a drop from the pocket, a pass by its button,
/// seats by link with each board turned to its seat, the lobby's seek
/// joined from a second browser at phone size, a draw agreed, a rematch
/// with colours swapped, a resignation, a playground draft kept over a
/// reload, a screenshot; then every rule file in
/// `rules/` played to its end by clicks. Needs Debian's `chromium` and
/// `chromium-driver` (`.ci/run` installs them where it can); without them the
/// test says so and checks nothing else.
#[test]
fn the_page_plays_by_clicks_in_a_real_browser() {
    let present = |p: &str| std::path::Path::new(p).exists();
    if !present("/usr/bin/chromium") || !present("/usr/bin/chromedriver") {
        eprintln!("chromium or chromedriver is not installed: the browser test is not run");
        return;
    }
    let shot = std::env::temp_dir().join("chessalg-browser-test.png");
    let out = Command::new("python3")
        .args([
            "scripts/browser_test.py",
            "--all",
            "--binary",
            env!("CARGO_BIN_EXE_chessalg"),
        ])
        .arg("--screenshot")
        .arg(&shot)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("fool's mate: 0-1 · black wins (checkmate)"),
        "{stdout}"
    );
    assert!(stdout.contains("looked back at move 1 and returned"), "{stdout}");
    assert!(stdout.contains("e8 shows ♘"), "{stdout}");
    for line in [
        "loaded a PGN",
        "checkers multi-jump clicked landing by landing: 1. 9x18x27",
        "crazyhouse drop from the pocket: 1. N@d4",
        "othello pass by its button",
        "dragged b1 to c3 by mouse: Nc3",
        "dragged g8 to f6 by touch: Nf6",
        "friends by link: 5 moves by clicks in two browsers",
        "lobby: a seek joined from a second browser (phone size)",
        "draw offered and accepted: ½-½",
        "rematch: a new game, the desktop now black, the phone white",
        "resigned: both pages show '1-0 · white wins (resignation)'",
        "playground: an error shown on line",
        "kept over a reload",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    // Every game of rules/ ended with a result shown.
    let files = std::fs::read_dir("rules")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".alg") && n != "prelude.alg")
        .count();
    let ended = stdout
        .lines()
        .filter(|l| l.contains(" plies (") && (l.contains(" wins (") || l.contains("Draw (")))
        .count();
    assert_eq!(ended, files, "{stdout}");
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 1000),
        "a screenshot"
    );
}

/// The percentile `p` (0-100) of sorted durations, in milliseconds.
fn percentile(sorted: &[std::time::Duration], p: usize) -> f64 {
    let i = (sorted.len() * p / 100).min(sorted.len() - 1);
    sorted[i].as_secs_f64() * 1000.0
}

/// Load: 100 games at once on one server, each played 20 plies by its own
/// client (a state request and a move request per ply): no error, no lost
/// move, and the latencies of both kinds printed as percentiles
/// (`cargo test --release --test serve load -- --nocapture`).
#[test]
fn a_hundred_games_at_once_lose_no_move() {
    // (Each game also has a live viewer on its event stream.)
    let s = std::sync::Arc::new(Served::start("rules/chess.alg"));
    let clients: Vec<_> = (0..100)
        .map(|c| {
            let s = s.clone();
            std::thread::spawn(move || {
                let (mut states, mut moves) = (Vec::new(), Vec::new());
                let (status, g) = s.json("POST", "/api/games", "{}");
                assert_eq!(status, 200);
                let id = g["id"].as_u64().unwrap();
                // A live viewer of the game: its event stream, read aside.
                let mut viewer = s.events(id, std::time::Duration::from_millis(100));
                let mut seen = String::new();
                let mut buf = vec![0u8; 1 << 16];
                let mut read_events = |seen: &mut String| {
                    while let Ok(n) = viewer.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
                    }
                };
                let mut plies = 0;
                for ply in 0..20 {
                    let t = std::time::Instant::now();
                    let (status, g) = s.json("GET", &format!("/api/games/{id}"), "");
                    states.push(t.elapsed());
                    assert_eq!(status, 200);
                    assert_eq!(g["history"].as_array().unwrap().len(), ply, "a move was lost");
                    let legal = g["legal"].as_array().unwrap();
                    if legal.is_empty() {
                        break;
                    }
                    let m = legal[(c * 7 + ply * 13) % legal.len()]["name"]
                        .as_str()
                        .unwrap()
                        .to_string();
                    let t = std::time::Instant::now();
                    let (status, g) = s.json(
                        "POST",
                        &format!("/api/games/{id}/move"),
                        &format!("{{\"move\":\"{m}\"}}"),
                    );
                    moves.push(t.elapsed());
                    assert_eq!(status, 200, "{m}: {g}");
                    plies = ply + 1;
                    read_events(&mut seen);
                }
                // The viewer has been sent the last move within a second.
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
                let last = format!("\"plies\":{plies},");
                while !seen.contains(&last) && std::time::Instant::now() < deadline {
                    read_events(&mut seen);
                }
                assert!(
                    seen.contains(&last),
                    "the viewer of game {id} never saw move {plies}"
                );
                (states, moves)
            })
        })
        .collect();
    let (mut states, mut moves) = (Vec::new(), Vec::new());
    for c in clients {
        let (a, b) = c.join().expect("a client failed");
        states.extend(a);
        moves.extend(b);
    }
    states.sort();
    moves.sort();
    assert!(
        states.len() + moves.len() > 2000,
        "{} requests",
        states.len() + moves.len()
    );
    for (what, all) in [("state", &states), ("move", &moves)] {
        eprintln!(
            "{what} requests: {} · p50 {:.1} ms · p90 {:.1} ms · p99 {:.1} ms · max {:.1} ms",
            all.len(),
            percentile(all, 50),
            percentile(all, 90),
            percentile(all, 99),
            percentile(all, 100)
        );
    }
}

/// `--white ai` (and `--player`) tell the page who plays at first;
/// `--fen` is where new games start.
#[test]
fn the_seats_and_the_start_are_told_to_the_page() {
    let s = Served::start_with(
        "rules/checkers.alg",
        &[
            "--white",
            "ai",
            "--player",
            "black=random",
            "--fen",
            "B:W14,22,23,30:B9",
        ],
    );
    let (status, info) = s.json("GET", "/api/info", "");
    assert_eq!(status, 200);
    assert_eq!(
        info["seats"],
        serde_json::json!({"white": "ai", "black": "random"})
    );
    assert_eq!(info["game"], "Checkers");
    assert_eq!(info["time_cap_ms"], 300);
    let (status, g) = s.json("POST", "/api/games", "{}");
    assert_eq!(status, 200);
    let names: Vec<&str> = g["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["9x18x25", "9x18x27"]);
    // A multi-jump is clicked landing by landing.
    assert_eq!(g["legal"][0]["clicks"], serde_json::json!(["9", "18", "25"]));
}

/// Flags the server cannot use are refused in one line before it listens.
#[test]
fn bad_serve_flags_are_refused() {
    for (args, says) in [
        (&["--fen", "8/8 w"][..], "--fen"),
        (&["--player", "red=ai"][..], "red"),
        (&["--time", "0"][..], "--time"),
        (&["--time-cap=-1"][..], "--time-cap"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_chessalg"))
            .args(["serve", "rules/checkers.alg", "--port", "0"])
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} listened");
    }
}

/// A PGN loads as a game with its moves; the page's drawing comes as SVG;
/// the random mover plays a legal move.
#[test]
fn a_pgn_loads_and_the_position_is_drawn() {
    let s = Served::start("rules/chess.alg");
    let pgn = serde_json::json!({"pgn": "[Event \"t\"]\n\n1. e4 e5 2. Nf3 {dev} Nc6 *\n"}).to_string();
    let (status, g) = s.json("POST", "/api/games", &pgn);
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["record"], serde_json::json!(["e4", "e5", "Nf3", "Nc6"]));
    assert_eq!(g["turn"], "white");
    let id = g["id"].as_u64().unwrap();
    let (status, text) = s.request("GET", &format!("/api/games/{id}/svg?ply=2"), "");
    assert_eq!(status, 200);
    assert!(text.contains("<svg") && text.contains(r#"data-square="e5""#));
    assert!(g["svg"].as_str().unwrap().contains("data-square"));
    let bad = serde_json::json!({"pgn": "1. e4 e5 2. Ke3"}).to_string();
    let (status, e) = s.json("POST", "/api/games", &bad);
    assert_eq!(status, 400);
    assert!(e["error"].as_str().unwrap().contains("`Ke3`"), "{e}");
    let both = serde_json::json!({"pgn": "1. e4", "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}).to_string();
    assert_eq!(s.json("POST", "/api/games", &both).0, 400);
    let (status, after) = s.json("POST", &format!("/api/games/{id}/ai"), r#"{"random": true}"#);
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["record"].as_array().unwrap().len(), 5);
}

/// A shogi game names its players as shogi does, in the game JSON, the
/// server's info and the PGN.
#[test]
fn shogi_players_are_sente_and_gote() {
    let s = Served::start("rules/shogi.alg");
    let (_, g) = s.json("POST", "/api/games", "{}");
    assert_eq!(g["players"], serde_json::json!(["white", "black"]));
    assert_eq!(
        g["player_names"],
        serde_json::json!({"white": "Sente", "black": "Gote"})
    );
    assert_eq!(g["player_colours"], serde_json::json!({}));
    let (_, info) = s.json("GET", "/api/info", "");
    assert_eq!(info["player_names"]["black"], "Gote", "{info}");
    let id = g["id"].as_u64().unwrap();
    let (_, pgn) = s.request("GET", &format!("/api/games/{id}/pgn"), "");
    assert!(
        pgn.contains("[White \"Sente\"]") && !pgn.contains("[FEN"),
        "{pgn}"
    );
}

/// `GET /api/games/{id}/explain`: `chessalg explain` for the game's
/// position (or one looked back at), as JSON.
#[test]
fn a_move_is_explained_for_the_page() {
    let s = Served::start("rules/chess.alg");
    let pgn = serde_json::json!({"pgn": "1. e4 e5 2. Nf3 Nc6 *"}).to_string();
    let (_, g) = s.json("POST", "/api/games", &pgn);
    let id = g["id"].as_u64().unwrap();
    let (status, e) = s.json("GET", &format!("/api/games/{id}/explain?move=Bb5"), "");
    assert_eq!(status, 200, "{e}");
    assert_eq!(e["move"], "f1b5");
    assert_eq!(e["verdict"], "legal");
    // Places name the rule file from its folder, never the server's paths.
    let places: Vec<&str> = (e["lines"].as_array().unwrap().iter())
        .filter_map(|l| l["place"].as_str())
        .collect();
    assert!(
        !places.is_empty() && places.iter().all(|p| p.starts_with("chess.alg:")),
        "{places:?}"
    );
    let text: Vec<&str> = e["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert!(
        text.iter().any(|t| t.starts_with("bishop = %♗: bishop_moves")),
        "{text:?}"
    );
    // Castling with the bishop still on f1: the first step finds no empty f1.
    let (status, e) = s.json("GET", &format!("/api/games/{id}/explain?move=e1g1"), "");
    assert_eq!(status, 200, "{e}");
    assert_eq!(e["verdict"], "not given by the rules");
    let text = e["lines"].to_string();
    assert!(text.contains("stopped at step 1"), "{text}");
    // Looking back at the start: e2e4 was legal there, not now.
    let (_, e) = s.json("GET", &format!("/api/games/{id}/explain?move=e2e4&ply=0"), "");
    assert_eq!(e["verdict"], "legal", "{e}");
    let (status, e) = s.json("GET", &format!("/api/games/{id}/explain?move=zz"), "");
    assert_eq!(status, 400);
    assert!(e["error"].as_str().unwrap().contains("`zz`"), "{e}");
}

/// The pictures of `docs/games.md` (`docs/boards/*.svg`) are what `show --svg` draws
/// for each game's start: one for every file of `rules/`, none stale.
#[test]
fn the_readme_pictures_are_what_show_svg_draws() {
    let dir = std::env::temp_dir().join(format!("chessalg-boards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut games = 0;
    for entry in std::fs::read_dir("rules").unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(game) = name.strip_suffix(".alg") else {
            continue;
        };
        if game == "prelude" {
            continue;
        }
        games += 1;
        let out = dir.join(format!("{game}.svg"));
        let status = Command::new(env!("CARGO_BIN_EXE_chessalg"))
            .args(["show", &format!("rules/{name}"), "--svg"])
            .arg(&out)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{game}");
        let drawn = std::fs::read_to_string(&out).unwrap();
        let kept = std::fs::read_to_string(format!("docs/boards/{game}.svg"))
            .unwrap_or_else(|_| panic!("docs/boards/{game}.svg is missing"));
        assert!(
            drawn == kept,
            "docs/boards/{game}.svg is stale: chessalg show rules/{name} --svg docs/boards/{game}.svg"
        );
    }
    assert!(games >= 30, "{games} games");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rule_file_whose_moves_explode_leaves_the_server_running() {
    // Once, the walk strategy overflowed its stack on this file's first
    // position, and the server died with every game in it.
    let s = Served::start("tests/data/runaway/row64.alg");
    let (status, body) = s.json("POST", "/api/games", "{}");
    assert!(status >= 400, "{status} {body}");
    assert!(body["error"].as_str().unwrap().contains("states"), "{body}");
    let (status, info) = s.json("GET", "/api/info", "");
    assert_eq!(status, 200);
    assert_eq!(info["game"], "Rooks on a long row");
}

/// The seat tokens of a game made with `{"seats": true}`, by player.
fn seat_tokens(made: &serde_json::Value) -> (String, String) {
    let token = |p: &str| made["seats"][p]["token"].as_str().unwrap().to_string();
    (token("white"), token("black"))
}

/// A game with seats: each seat's link plays only its own side, a move
/// without a token or with the other seat's is refused with 403 and
/// changes nothing, a watcher sees the game but no moves, and a seated
/// game takes no move back.
#[test]
fn only_a_seats_token_moves_for_it() {
    let s = Served::start("rules/chess.alg");
    let (status, made) = s.json("POST", "/api/games", r#"{"seats": true}"#);
    assert_eq!(status, 200, "{made}");
    let id = made["id"].as_u64().unwrap();
    let (white, black) = seat_tokens(&made);
    assert_ne!(white, black);
    assert!(white.len() >= 32, "{white}");
    let url = made["seats"]["white"]["url"].as_str().unwrap();
    assert!(url.ends_with(&format!("/?game={id}&seat={white}")), "{url}");
    assert!(
        made["watch_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/?game={id}"))
    );
    // The answer to whoever made it is a watcher's: no moves.
    assert_eq!(made["legal"].as_array().unwrap().len(), 0);

    let path = format!("/api/games/{id}/move");
    let e4 = r#"{"move": "e2e4"}"#;
    for token in [
        None,
        Some(black.as_str()),
        Some("0123456789abcdef0123456789abcdef"),
    ] {
        let (status, body) = s.json_as("POST", &path, e4, token);
        assert_eq!(status, 403, "{token:?}: {body}");
        assert!(body["error"].as_str().unwrap().contains("white"), "{body}");
    }
    let (status, _) = s.json_as("POST", &format!("/api/games/{id}/ai"), "{}", Some(&black));
    assert_eq!(status, 403);
    let (_, seen) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(seen["plies"], 0);

    // Each seat sees its moves when it is to move, and plays them.
    let (_, mine) = s.json_as("GET", &format!("/api/games/{id}"), "", Some(&white));
    assert_eq!(mine["you"], "white");
    assert_eq!(mine["legal"].as_array().unwrap().len(), 20);
    let (_, theirs) = s.json_as("GET", &format!("/api/games/{id}"), "", Some(&black));
    assert_eq!(theirs["you"], "black");
    assert_eq!(theirs["legal"].as_array().unwrap().len(), 0);
    let (status, after) = s.json_as("POST", &path, e4, Some(&white));
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["history"], serde_json::json!(["e2e4"]));
    let (status, _) = s.json_as("POST", &path, r#"{"move": "d2d4"}"#, Some(&white));
    assert_eq!(status, 403);
    let (status, _) = s.json_as("POST", &path, r#"{"move": "e7e5"}"#, Some(&black));
    assert_eq!(status, 200);
    let (status, _) = s.json_as("POST", &format!("/api/games/{id}/undo"), "{}", Some(&white));
    assert_eq!(status, 409);
    let (_, watched) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(watched["history"], serde_json::json!(["e2e4", "e7e5"]));
    assert_eq!(watched["you"], serde_json::Value::Null);
    assert_eq!(watched["legal"].as_array().unwrap().len(), 0);
    assert_eq!(watched["seated"], true);
}

/// The server killed with SIGKILL mid-game and started again on the same
/// database brings back every game: its moves, its seats, its clock.
#[test]
fn games_come_back_after_the_server_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite3");
    let (seated, open, white, black, undone) = {
        let s = Served::start_on("rules/chess.alg", &["--clock", "5+3"], &db);
        let (_, made) = s.json("POST", "/api/games", r#"{"seats": true}"#);
        let seated = made["id"].as_u64().unwrap();
        let (white, black) = seat_tokens(&made);
        let path = format!("/api/games/{seated}/move");
        for (m, t) in [("e2e4", &white), ("e7e5", &black), ("g1f3", &white)] {
            let (status, body) = s.json_as("POST", &path, &format!(r#"{{"move": "{m}"}}"#), Some(t));
            assert_eq!(status, 200, "{body}");
        }
        let (_, made) = s.json("POST", "/api/games", r#"{"clock": "1+0"}"#);
        let open = made["id"].as_u64().unwrap();
        for m in ["d2d4", "d7d5", "c2c4"] {
            s.json(
                "POST",
                &format!("/api/games/{open}/move"),
                &format!(r#"{{"move": "{m}"}}"#),
            );
        }
        let (_, before) = s.json("GET", &format!("/api/games/{open}"), "");
        let (status, undone) = s.json("POST", &format!("/api/games/{open}/undo"), "{}");
        assert_eq!(status, 200);
        // Every change makes the game's version grow: a page keeps the newest.
        let version = |g: &serde_json::Value| g["version"].as_u64().expect("a version");
        assert!(version(&undone) > version(&before), "{undone} after {before}");
        // `Served` is dropped here: Child::kill sends SIGKILL.
        (seated, open, white, black, version(&undone))
    };
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (status, back) = s.json_as("GET", &format!("/api/games/{seated}"), "", Some(&black));
    assert_eq!(status, 200, "{back}");
    assert_eq!(back["history"], serde_json::json!(["e2e4", "e7e5", "g1f3"]));
    assert_eq!(back["you"], "black");
    assert_eq!(back["clock"]["base_ms"], 300_000);
    assert_eq!(back["clock"]["increment_ms"], 3_000);
    assert_eq!(back["clock"]["running"], "black");
    let left = back["clock"]["left_ms"]["white"].as_u64().unwrap();
    // Two moves of white, each adding 3 s, the second charged a few ms.
    assert!((303_000..=306_000).contains(&left), "{left}");
    let (status, _) = s.json_as(
        "POST",
        &format!("/api/games/{seated}/move"),
        r#"{"move": "b8c6"}"#,
        Some(&white),
    );
    assert_eq!(status, 403);
    let (status, _) = s.json_as(
        "POST",
        &format!("/api/games/{seated}/move"),
        r#"{"move": "b8c6"}"#,
        Some(&black),
    );
    assert_eq!(status, 200);
    let (_, back) = s.json("GET", &format!("/api/games/{open}"), "");
    assert_eq!(back["history"], serde_json::json!(["d2d4", "d7d5"]));
    assert_eq!(back["clock"]["base_ms"], 60_000);
    // Loaded again, the game is newer than any description sent before.
    assert!(back["version"].as_u64().unwrap() > undone, "{back}");
    let (_, listed) = s.json("GET", "/api/games", "");
    let ids: Vec<u64> = (listed["games"].as_array().unwrap().iter())
        .map(|g| g["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, vec![open, seated]);
    assert!(s.db.exists());
}

/// A file that is not a chessalg database is refused in one line and left
/// as it was.
#[test]
fn a_database_that_is_not_ours_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes, not a database\n".repeat(100)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_chessalg"))
        .args(["serve", "rules/chess.alg", "--port", "0", "--db"])
        .arg(&notes)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a chessalg database"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "my notes, not a database\n".repeat(100)
    );
}

/// The event stream sends the game at once and again within a second of
/// each move, without asking.
#[test]
fn the_event_stream_sends_every_move() {
    let s = Served::start("rules/chess.alg");
    let (_, made) = s.json("POST", "/api/games", "{}");
    let id = made["id"].as_u64().unwrap();
    let mut stream = s.events(id, std::time::Duration::from_millis(200));
    // The events read so far, as the text of their `data:` lines.
    let mut seen = String::new();
    let mut read_until = |want: usize, seen: &mut String| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        let mut buf = [0u8; 65536];
        while seen.matches("event: game").count() < want && std::time::Instant::now() < deadline {
            if let Ok(n) = stream.read(&mut buf) {
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
        seen.matches("event: game").count()
    };
    assert_eq!(read_until(1, &mut seen), 1, "{seen}");
    assert!(seen.contains("text/event-stream"), "{seen}");
    for (k, m) in ["e2e4", "e7e5"].into_iter().enumerate() {
        let (status, _) = s.json(
            "POST",
            &format!("/api/games/{id}/move"),
            &format!(r#"{{"move": "{m}"}}"#),
        );
        assert_eq!(status, 200);
        assert_eq!(read_until(k + 2, &mut seen), k + 2, "after {m}: {seen}");
        assert!(
            seen.contains(&format!(
                r#""history":["e2e4"{}"#,
                if k == 1 { r#","e7e5""# } else { "" }
            )),
            "{seen}"
        );
    }
}

/// A clock that runs out is judged by the server: nobody needs to ask,
/// the game ends, and no move is taken after it.
#[test]
fn the_server_judges_a_clock_that_runs_out() {
    let s = Served::start_with("rules/chess.alg", &["--clock", "0.01+0"]);
    let (_, made) = s.json("POST", "/api/games", "{}");
    let id = made["id"].as_u64().unwrap();
    assert_eq!(made["clock"]["base_ms"], 600);
    assert_eq!(made["clock"]["running"], serde_json::Value::Null);
    let (status, moved) = s.json("POST", &format!("/api/games/{id}/move"), r#"{"move": "e2e4"}"#);
    assert_eq!(status, 200);
    assert_eq!(moved["clock"]["running"], "black");
    std::thread::sleep(std::time::Duration::from_millis(900));
    let (_, now) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(now["result"]["winner"], "white", "{now}");
    assert_eq!(now["result"]["reason"], "black ran out of time");
    assert_eq!(now["clock"]["left_ms"]["black"], 0);
    let (status, _) = s.json("POST", &format!("/api/games/{id}/move"), r#"{"move": "e7e5"}"#);
    assert_eq!(status, 400);
    let (_, listed) = s.json("GET", "/api/games", "");
    assert_eq!(listed["games"][0]["over"], true);
}

/// The playground: a rule text checked (diagnostics placed on their
/// lines, with a help), played at once under its own rules, and its game
/// kept in the database with its text.
#[test]
fn the_playground_checks_a_rule_text_and_plays_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite3");
    let text = std::fs::read_to_string("rules/tictactoe.alg").unwrap();
    let body = |text: &str, play: bool| serde_json::json!({ "text": text, "play": play }).to_string();
    let id = {
        let s = Served::start_on("rules/chess.alg", &[], &db);
        let (status, page) = s.request("GET", "/playground", "");
        assert_eq!(status, 200);
        assert!(page.contains("playground"));
        let (status, list) = s.json("GET", "/api/rules/bundled", "");
        assert_eq!(status, 200);
        assert_eq!(list["served"], "chess.alg");
        assert!(list["files"].as_array().unwrap().iter().any(|f| f == "shogi.alg"));
        let (status, checked) = s.json("POST", "/api/rules", &body(&text, false));
        assert_eq!(status, 200, "{checked}");
        assert!(
            checked["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .all(|d| d["severity"] != "error"),
            "{checked}"
        );
        assert!(checked["game"].is_null());
        // A name nobody defined, on the line where it is used.
        let broken = text.replacen("moves crosses = ", "moves crosses = nowhere | ", 1);
        let line = broken.lines().position(|l| l.contains("nowhere")).unwrap() + 1;
        let (_, checked) = s.json("POST", "/api/rules", &body(&broken, true));
        let d = &checked["diagnostics"][0];
        assert_eq!(d["severity"], "error", "{checked}");
        assert_eq!(d["line"], line, "{checked}");
        assert!(d["message"].as_str().unwrap().contains("nowhere"), "{d}");
        assert!(checked["game"].is_null());
        // Played: a game of its own rules beside the server's.
        let (status, played) = s.json("POST", "/api/rules", &body(&text, true));
        assert_eq!(status, 200, "{played}");
        let game = &played["game"];
        assert_eq!(game["game"], "Tic-tac-toe");
        let id = game["id"].as_u64().unwrap();
        let m = game["legal"][4]["name"].as_str().unwrap().to_string();
        let (status, after) = s.json(
            "POST",
            &format!("/api/games/{id}/move"),
            &format!(r#"{{"move": "{m}"}}"#),
        );
        assert_eq!(status, 200, "{after}");
        let (_, chess) = s.json("POST", "/api/games", "{}");
        assert_eq!(chess["game"], "Chess");
        id
    };
    // Back after a restart, under its own text.
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (status, back) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(status, 200, "{back}");
    assert_eq!(back["game"], "Tic-tac-toe");
    assert_eq!(back["plies"], 1);
}

/// Rule text is untrusted: one that runs away is answered with a
/// diagnostic within the playground's limit while the server goes on
/// answering, and a hundred mutated texts in a row leave it healthy.
#[test]
fn the_playground_survives_runaway_and_mutated_texts() {
    let s = std::sync::Arc::new(Served::start("rules/chess.alg"));
    let (_, game) = s.json("POST", "/api/games", "{}");
    let id = game["id"].as_u64().unwrap();
    // A rook that slides any number of squares any way, repeated without a
    // bound, on a board of 40x40: every search explodes.
    let mut runaway = String::from("game Runaway\nplayers a b\npiece X Y\nboard\n");
    for row in 0..40 {
        let cells: String = (0..40)
            .map(|c| if (row, c) == (20, 20) { 'X' } else { '.' })
            .collect();
        runaway.push_str(&format!("    {cells}\n"));
    }
    runaway.push_str(
        "slide = (% + u. -> . + u%)+ | (% + r. -> . + r%)+ | (% + d. -> . + d%)+ | (% + l. -> . + l%)+\n",
    );
    runaway.push_str("moves a = %X: slide* (% + u. -> . + u%)\nmoves b = %Y: slide\n");
    let body = serde_json::json!({ "text": runaway, "play": true }).to_string();
    let t = std::time::Instant::now();
    let asker = {
        let s = s.clone();
        std::thread::spawn(move || s.json("POST", "/api/rules", &body))
    };
    // Meanwhile the server answers the games.
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let (status, _) = s.json("GET", &format!("/api/games/{id}"), "");
        assert_eq!(status, 200);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            t.elapsed()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let (status, answer) = asker.join().unwrap();
    assert!(
        t.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        t.elapsed()
    );
    assert!(status == 200 || status == 400, "{status}: {answer}");
    let said = answer.to_string();
    assert!(said.contains("limit") || said.contains("most"), "{said}");
    // Placed on the `moves` line of the player whose moves ran away.
    let line = runaway.lines().position(|l| l.starts_with("moves a")).unwrap() + 1;
    assert_eq!(answer["diagnostics"][0]["line"], line, "{said}");
    assert!(answer["game"].is_null());
    eprintln!(
        "runaway text answered in {:?}: {}",
        t.elapsed(),
        &said[..said.len().min(300)]
    );

    let text = std::fs::read_to_string("rules/chess.alg").unwrap();
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut errors = 0;
    for _ in 0..100 {
        let mut chars: Vec<char> = text.chars().collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(chars.len());
            match rng.below(3) {
                0 => {
                    chars.remove(at);
                }
                1 => chars.insert(at, ['(', ')', '|', '*', '{', '%', 'u', '9', '\n'][rng.below(9)]),
                _ => {
                    let other = rng.below(chars.len());
                    chars.swap(at, other);
                }
            }
        }
        let mutated: String = chars.into_iter().collect();
        let play = rng.below(2) == 0;
        let body = serde_json::json!({ "text": mutated, "play": play }).to_string();
        let (status, answer) = s.json("POST", "/api/rules", &body);
        assert!(matches!(status, 200 | 400), "{status}: {answer}");
        if answer["diagnostics"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["severity"] == "error"))
        {
            errors += 1;
        }
    }
    assert!(errors > 30, "{errors} of 100 mutants had an error");
    let (status, _) = s.json("GET", "/api/info", "");
    assert_eq!(status, 200);
    let (status, _) = s.json("POST", &format!("/api/games/{id}/move"), r#"{"move": "e2e4"}"#);
    assert_eq!(status, 200);
}
