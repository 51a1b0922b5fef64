//! The game room and the lobby over real HTTP against the real server:
//! resignation, draws, take-backs, rematches, scores, who is watching,
//! seeks, the list of games, a fresh game shown without being stored, and
//! a game claimed from a player gone; what changes is kept in the
//! database (a restart finds it) and every page is told at once.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;

use common::served::Served;

/// An event stream of a game, read as it comes.
struct Follower {
    stream: TcpStream,
    seen: String,
}

impl Follower {
    /// Follows game `id` (with a seat's token, or as a watcher).
    fn open(s: &Served, id: u64, seat: Option<&str>) -> Follower {
        let mut stream = TcpStream::connect(&s.addr).unwrap();
        let query = seat.map_or(String::new(), |t| format!("?seat={t}"));
        write!(
            stream,
            "GET /api/games/{id}/events{query} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n",
            s.addr
        )
        .unwrap();
        stream.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        let mut f = Follower {
            stream,
            seen: String::new(),
        };
        f.until(|_| true).expect("the stream's first event");
        f
    }

    /// The games the stream sent so far, in order.
    fn games(&self) -> Vec<Value> {
        (self.seen.lines())
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str(d).ok())
            .collect()
    }

    /// Reads until the stream sends a game `want` holds of (2 s at most).
    fn until(&mut self, want: impl Fn(&Value) -> bool) -> Option<Value> {
        let deadline = Instant::now() + Duration::from_secs(2);
        let mut buf = vec![0u8; 1 << 16];
        loop {
            if let Some(g) = self.games().into_iter().rev().find(&want) {
                self.seen.clear();
                return Some(g);
            }
            if Instant::now() > deadline {
                return None;
            }
            if let Ok(n) = self.stream.read(&mut buf) {
                self.seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
    }
}

/// A new game with seats: its id and each player's token.
fn seated(s: &Served, body: &str) -> (u64, String, String) {
    let (status, g) = s.json("POST", "/api/games", body);
    assert_eq!(status, 200, "{g}");
    let token = |p: &str| g["seats"][p]["token"].as_str().unwrap().to_string();
    (g["id"].as_u64().unwrap(), token("white"), token("black"))
}

/// Plays `name` in game `id` with `token`; the game after.
fn play(s: &Served, id: u64, name: &str, token: Option<&str>) -> Value {
    let body = json!({ "move": name }).to_string();
    let (status, g) = s.json_as("POST", &format!("/api/games/{id}/move"), &body, token);
    assert_eq!(status, 200, "{name}: {g}");
    g
}

fn post(s: &Served, path: &str, body: &str, token: Option<&str>) -> (u16, Value) {
    s.json_as("POST", path, body, token)
}

#[test]
fn a_resignation_ends_the_game_for_every_page_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite3");
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (id, white, black) = seated(&s, r#"{"seats": true, "clock": "5+0"}"#);
    play(&s, id, "e2e4", Some(&white));
    let mut watcher = Follower::open(&s, id, None);
    let path = format!("/api/games/{id}/resign");
    // Only a seat resigns a game with seats.
    let (status, e) = post(&s, &path, "", None);
    assert_eq!(status, 403, "{e}");
    let (status, g) = post(&s, &path, "", Some(&black));
    assert_eq!(status, 200, "{g}");
    let want = json!({ "winner": "white", "reason": "resignation", "rule": "resignation", "detail": null, "score": "1-0" });
    assert_eq!(g["result"], want);
    assert_eq!(g["legal"], json!([]));
    assert!(g["clock"]["running"].is_null(), "{g}");
    let heard = watcher
        .until(|g| !g["result"].is_null())
        .expect("the watcher was told");
    assert_eq!(heard["result"], want);
    // Over: no second resignation, no move.
    assert_eq!(post(&s, &path, "", Some(&white)).0, 409);
    let (status, _) = post(
        &s,
        &format!("/api/games/{id}/move"),
        r#"{"move": "e7e5"}"#,
        Some(&black),
    );
    assert_eq!(status, 400);
    drop(watcher);
    drop(s);
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (_, g) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(g["result"], want);
    assert_eq!(g["plies"], 1);

    // Without seats, whoever may move resigns for the player to move.
    let (_, g) = s.json("POST", "/api/games", "{}");
    let id = g["id"].as_u64().unwrap();
    let (status, g) = post(&s, &format!("/api/games/{id}/resign"), "", None);
    assert_eq!(status, 200, "{g}");
    assert_eq!(
        g["result"],
        json!({ "winner": "black", "reason": "resignation", "rule": "resignation", "detail": null, "score": "0-1" })
    );
}

#[test]
fn a_draw_is_offered_withdrawn_by_a_move_declined_and_agreed() {
    let s = Served::start("rules/chess.alg");
    let (id, white, black) = seated(&s, r#"{"seats": true}"#);
    let path = format!("/api/games/{id}/draw");
    let mut black_page = Follower::open(&s, id, Some(&black));
    let (status, g) = post(&s, &path, r#"{"offer": true}"#, Some(&white));
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["draw_offer"], "white");
    black_page
        .until(|g| g["draw_offer"] == "white")
        .expect("black's page was told of the offer");
    // One's own offer is not accepted by oneself, nor by a watcher.
    assert_eq!(post(&s, &path, r#"{"accept": true}"#, Some(&white)).0, 409);
    assert_eq!(post(&s, &path, r#"{"accept": true}"#, None).0, 403);
    assert_eq!(
        post(&s, &path, r#"{"accept": true, "offer": true}"#, Some(&black)).0,
        400
    );
    // A move withdraws it.
    play(&s, id, "e2e4", Some(&white));
    let g = play(&s, id, "e7e5", Some(&black));
    assert!(g["draw_offer"].is_null(), "{g}");
    assert_eq!(post(&s, &path, r#"{"accept": true}"#, Some(&black)).0, 409);
    // Declined.
    post(&s, &path, r#"{"offer": true}"#, Some(&white));
    let (status, g) = post(&s, &path, r#"{"decline": true}"#, Some(&black));
    assert_eq!(status, 200, "{g}");
    assert!(g["draw_offer"].is_null(), "{g}");
    // Agreed: the game ends drawn.
    post(&s, &path, r#"{"offer": true}"#, Some(&black));
    let (status, g) = post(&s, &path, r#"{"accept": true}"#, Some(&white));
    assert_eq!(status, 200, "{g}");
    let want =
        json!({ "winner": null, "reason": "agreement", "rule": "agreement", "detail": null, "score": "½-½" });
    assert_eq!(g["result"], want);
    let heard = black_page.until(|g| !g["result"].is_null()).unwrap();
    assert_eq!(heard["result"], want);
    assert_eq!(post(&s, &path, r#"{"offer": true}"#, Some(&black)).0, 409);
    // Without seats there is nobody to agree with.
    let (_, g) = s.json("POST", "/api/games", "{}");
    let (status, e) = post(
        &s,
        &format!("/api/games/{}/draw", g["id"]),
        r#"{"offer": true}"#,
        None,
    );
    assert_eq!(status, 409, "{e}");
}

#[test]
fn a_takeback_granted_makes_it_the_askers_turn_again_and_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite3");
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (id, white, black) = seated(&s, r#"{"seats": true}"#);
    let path = format!("/api/games/{id}/takeback");
    assert_eq!(
        post(&s, &path, r#"{"ask": true}"#, Some(&white)).0,
        409,
        "no move yet"
    );
    for (name, token) in [("e2e4", &white), ("e7e5", &black), ("g1f3", &white)] {
        play(&s, id, name, Some(token));
    }
    // Black asks after white's reply to black's move: both go.
    let (status, g) = post(&s, &path, r#"{"ask": true}"#, Some(&black));
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["takeback_ask"], "black");
    assert_eq!(
        post(&s, &path, r#"{"grant": true}"#, Some(&black)).0,
        409,
        "not one's own"
    );
    assert_eq!(post(&s, &path, r#"{"grant": true}"#, None).0, 403);
    let (status, g) = post(&s, &path, r#"{"grant": true}"#, Some(&white));
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["history"], json!(["e2e4"]));
    assert_eq!(g["turn"], "black");
    assert!(g["takeback_ask"].is_null(), "{g}");
    // White asks on black's turn: only white's move goes.
    play(&s, id, "c7c5", Some(&black));
    play(&s, id, "d2d4", Some(&white));
    post(&s, &path, r#"{"ask": true}"#, Some(&white));
    let (status, g) = post(&s, &path, r#"{"decline": true}"#, Some(&black));
    assert_eq!(status, 200, "{g}");
    assert!(g["takeback_ask"].is_null(), "{g}");
    post(&s, &path, r#"{"ask": true}"#, Some(&white));
    let (_, g) = post(&s, &path, r#"{"grant": true}"#, Some(&black));
    assert_eq!(g["history"], json!(["e2e4", "c7c5"]));
    assert_eq!(g["turn"], "white");
    // A move withdraws a request.
    post(&s, &path, r#"{"ask": true}"#, Some(&black));
    let g = play(&s, id, "g1f3", Some(&white));
    assert!(g["takeback_ask"].is_null(), "{g}");
    drop(s);
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (_, g) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(g["history"], json!(["e2e4", "c7c5", "g1f3"]));
}

#[test]
fn a_rematch_swaps_the_seats_and_both_pages_learn_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite3");
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (id, white, black) = seated(&s, r#"{"seats": true, "clock": "3+2"}"#);
    let path = format!("/api/games/{id}/rematch");
    assert_eq!(post(&s, &path, "", Some(&white)).0, 409, "not over");
    play(&s, id, "f2f3", Some(&white));
    post(&s, &format!("/api/games/{id}/resign"), "", Some(&white));
    let mut white_page = Follower::open(&s, id, Some(&white));
    assert_eq!(post(&s, &path, "", None).0, 403);
    let (status, g) = post(&s, &path, "", Some(&white));
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["rematch_ask"], "white");
    assert!(g["rematch"].is_null(), "{g}");
    let (status, g) = post(&s, &path, "", Some(&black));
    assert_eq!(status, 200, "{g}");
    let next = g["rematch"].as_u64().unwrap_or_else(|| panic!("{g}"));
    assert_ne!(next, id);
    let heard = white_page
        .until(|g| !g["rematch"].is_null())
        .expect("white's page was told");
    assert_eq!(heard["rematch"], next);
    // The same tokens, the colours swapped, the same clock.
    let (_, n) = s.json_as("GET", &format!("/api/games/{next}"), "", Some(&white));
    assert_eq!(n["you"], "black");
    assert_eq!((n["plies"].as_u64(), n["result"].is_null()), (Some(0), true));
    assert_eq!(n["clock"]["base_ms"], 180_000);
    assert_eq!(n["clock"]["increment_ms"], 2_000);
    let (_, n) = s.json_as("GET", &format!("/api/games/{next}"), "", Some(&black));
    assert_eq!(n["you"], "white");
    assert_eq!(n["legal"].as_array().unwrap().len(), 20);
    play(&s, next, "e2e4", Some(&black));
    // A second call is answered with the same rematch.
    let (_, g) = post(&s, &path, "", Some(&white));
    assert_eq!(g["rematch"], next);
    drop(white_page);
    drop(s);
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (_, g) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(g["rematch"], next);

    // A playground game without seats (against the AI): one call, the
    // same rule text.
    let text = std::fs::read_to_string("rules/tictactoe.alg").unwrap();
    let (_, answer) = s.json(
        "POST",
        "/api/rules",
        &json!({ "text": text, "play": true }).to_string(),
    );
    let id = answer["game"]["id"].as_u64().unwrap();
    post(&s, &format!("/api/games/{id}/resign"), "", None);
    let (status, g) = post(&s, &format!("/api/games/{id}/rematch"), "", None);
    assert_eq!(status, 200, "{g}");
    let next = g["rematch"].as_u64().unwrap();
    let (_, n) = s.json("GET", &format!("/api/games/{next}"), "");
    assert_eq!(n["game"], answer["game"]["game"]);
    assert_eq!(n["legal"].as_array().unwrap().len(), 9);
}

#[test]
fn watchers_and_seats_online_are_counted_and_told() {
    let s = Served::start("rules/chess.alg");
    let (id, white, _) = seated(&s, r#"{"seats": true}"#);
    let (_, g) = s.json("GET", &format!("/api/games/{id}"), "");
    assert_eq!(g["watchers"], 0);
    assert_eq!(g["online"], json!({ "white": false, "black": false }));
    let mut white_page = Follower::open(&s, id, Some(&white));
    let first = Follower::open(&s, id, None);
    let _second = Follower::open(&s, id, Some("not-a-token"));
    let heard = white_page
        .until(|g| g["watchers"] == 2)
        .expect("white's page heard of the watchers");
    assert_eq!(heard["online"], json!({ "white": true, "black": false }));
    drop(first);
    white_page
        .until(|g| g["watchers"] == 1)
        .expect("white's page heard a watcher leave");
    drop(white_page);
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let (_, g) = s.json("GET", &format!("/api/games/{id}"), "");
        if g["online"]["white"] == false {
            assert_eq!(g["watchers"], 1);
            break;
        }
        assert!(Instant::now() < deadline, "white still online: {g}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_seek_is_listed_joined_once_and_then_played() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite3");
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (status, g) = post(&s, "/api/seeks", r#"{"clock": "5+3", "side": "black"}"#, None);
    assert_eq!(status, 200, "{g}");
    let id = g["id"].as_u64().unwrap();
    assert_eq!(g["you"], "black");
    let seats = g["seats"].as_object().unwrap();
    assert_eq!(
        seats.keys().collect::<Vec<_>>(),
        ["black"],
        "only the asker's seat"
    );
    let black = seats["black"]["token"].as_str().unwrap().to_string();
    assert!(
        seats["black"]["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("?game={id}&seat={black}"))
    );
    assert_eq!(g["open_seats"], json!(["white"]));
    let mut black_page = Follower::open(&s, id, Some(&black));
    let (_, lobby) = s.json("GET", "/api/seeks", "");
    let row = &lobby["seeks"][0];
    assert_eq!(row["id"], id, "{lobby}");
    assert_eq!(row["variant"], "Chess");
    assert_eq!(row["clock"], "5+3");
    assert_eq!(row["waiting"], "black");
    assert_eq!(row["open"], json!(["white"]));
    assert!(row["age_ms"].as_u64().unwrap() < 10_000, "{row}");
    // Nobody moves before an opponent joins.
    let (status, e) = post(
        &s,
        &format!("/api/games/{id}/move"),
        r#"{"move": "e2e4"}"#,
        Some(&black),
    );
    assert_eq!(status, 409, "{e}");
    let (status, e) = post(&s, &format!("/api/games/{id}/resign"), "", Some(&black));
    assert_eq!(status, 409, "{e}");
    let join = format!("/api/seeks/{id}/join");
    let (status, j) = post(&s, &join, "", None);
    assert_eq!(status, 200, "{j}");
    assert_eq!(j["you"], "white");
    let white = j["seats"]["white"]["token"].as_str().unwrap().to_string();
    assert_ne!(white, black);
    assert!(j["seats"].get("black").is_none(), "{j}");
    assert_eq!(j["open_seats"], json!([]));
    black_page
        .until(|g| g["open_seats"] == json!([]))
        .expect("the waiting page heard of the join");
    let (status, e) = post(&s, &join, "", None);
    assert_eq!(status, 409, "{e}");
    assert_eq!(post(&s, "/api/seeks/99999/join", "", None).0, 409);
    let (_, lobby) = s.json("GET", "/api/seeks", "");
    assert_eq!(lobby["seeks"], json!([]));
    play(&s, id, "e2e4", Some(&white));
    play(&s, id, "e7e5", Some(&black));
    // Bad sides and clocks are 400s.
    assert_eq!(post(&s, "/api/seeks", r#"{"side": "green"}"#, None).0, 400);
    assert_eq!(post(&s, "/api/seeks", r#"{"clock": "soon"}"#, None).0, 400);
    // A seek made before a restart is still there after it.
    let (_, g) = post(&s, "/api/seeks", "{}", None);
    let kept = g["id"].as_u64().unwrap();
    drop(black_page);
    drop(s);
    let s = Served::start_on("rules/chess.alg", &[], &db);
    let (_, lobby) = s.json("GET", "/api/seeks", "");
    assert_eq!(lobby["seeks"][0]["id"], kept, "{lobby}");
    let (status, j) = post(&s, &format!("/api/seeks/{kept}/join"), "", None);
    assert_eq!(status, 200, "{j}");
}

#[test]
fn a_seek_closes_when_its_page_has_gone_and_seeks_are_rate_limited() {
    let s = Served::start_with("rules/chess.alg", &["--away", "1", "--games-per-minute", "3"]);
    let (_, g) = post(&s, "/api/seeks", r#"{"side": "white"}"#, None);
    let (gone, token) = (g["id"].as_u64().unwrap(), g["seats"]["white"]["token"].clone());
    let (_, g) = post(&s, "/api/seeks", r#"{"side": "random"}"#, None);
    let stays = g["id"].as_u64().unwrap();
    let you = g["you"].as_str().unwrap().to_string();
    let stays_token = g["seats"][&you]["token"].as_str().unwrap().to_string();
    let page = Follower::open(&s, gone, token.as_str());
    let _stays_page = Follower::open(&s, stays, Some(&stays_token));
    let (_, lobby) = s.json("GET", "/api/seeks", "");
    assert_eq!(lobby["seeks"].as_array().unwrap().len(), 2, "{lobby}");
    drop(page);
    std::thread::sleep(Duration::from_millis(1500));
    let (_, lobby) = s.json("GET", "/api/seeks", "");
    let ids: Vec<u64> = (lobby["seeks"].as_array().unwrap().iter())
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [stays], "{lobby}");
    let (status, e) = post(&s, &format!("/api/seeks/{gone}/join"), "", None);
    assert_eq!(status, 409, "{e}");
    // Seeks count as new games: the third game of the minute is one too many.
    let (_, _) = s.json("POST", "/api/games", "{}");
    let (status, e) = post(&s, "/api/seeks", "{}", None);
    assert_eq!(status, 429, "{e}");
}

#[test]
fn the_games_list_names_variant_players_seats_and_results() {
    let s = Served::start("rules/chess.alg");
    let (id, _, black) = seated(&s, r#"{"seats": true, "clock": "1+0"}"#);
    post(&s, &format!("/api/games/{id}/resign"), "", Some(&black));
    let (_, seek) = post(&s, "/api/seeks", r#"{"side": "white"}"#, None);
    let (_, list) = s.json("GET", "/api/games", "");
    let rows = list["games"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{list}");
    let (seek_row, resigned) = (&rows[0], &rows[1]);
    assert_eq!(seek_row["id"], seek["id"]);
    assert_eq!(seek_row["open_seats"], json!(["black"]));
    assert_eq!(resigned["variant"], "Chess");
    assert_eq!(resigned["players"], json!(["white", "black"]));
    assert_eq!(resigned["over"], true);
    assert_eq!(
        resigned["result"],
        json!({ "winner": "white", "reason": "resignation", "rule": "resignation", "detail": null, "score": "1-0" })
    );
    assert_eq!(
        resigned["time_control"],
        json!({ "base_ms": 60_000, "increment_ms": 0 })
    );
    // Polled again, a row follows its game.
    post(&s, &format!("/api/seeks/{}/join", seek["id"]), "", None);
    let (_, list) = s.json("GET", "/api/games", "");
    assert_eq!(list["games"][0]["open_seats"], json!([]), "{list}");
}

#[test]
fn a_visit_stores_nothing_and_a_game_is_stored_with_its_first_moves() {
    let s = Served::start("rules/chess.alg");
    let (status, page) = s.request("GET", "/", "");
    assert_eq!(status, 200);
    assert!(page.contains("<html") || page.contains("<!DOCTYPE") || page.contains("<!doctype"));
    let (status, g) = s.json("GET", "/api/start", "");
    assert_eq!(status, 200, "{g}");
    assert!(g["id"].is_null(), "{g}");
    assert_eq!(g["legal"].as_array().unwrap().len(), 20);
    assert_eq!(g["plies"], 0);
    assert!(g["fen"].as_str().unwrap().starts_with("rnbqkbnr/pppppppp"));
    assert!(g["svg"].as_str().unwrap().contains("<svg"));
    let (_, again) = s.json("GET", "/api/start", "");
    assert_eq!(again, g);
    let (_, list) = s.json("GET", "/api/games", "");
    assert_eq!(list["games"], json!([]), "a visit stored a game");
    // The first move stores the game, with it.
    let (status, g) = s.json("POST", "/api/games", r#"{"moves": ["e2e4", "e5"]}"#);
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["history"], json!(["e2e4", "e7e5"]));
    assert_eq!(g["turn"], "white");
    let (status, e) = s.json("POST", "/api/games", r#"{"moves": ["e2e4", "e2e4"]}"#);
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("move 2"), "{e}");
    let (_, list) = s.json("GET", "/api/games", "");
    assert_eq!(list["games"].as_array().unwrap().len(), 1, "{list}");
}

#[test]
fn a_game_whose_player_to_move_is_gone_may_be_claimed() {
    let s = Served::start_with("rules/chess.alg", &["--away", "1"]);
    let (id, white, black) = seated(&s, r#"{"seats": true}"#);
    let path = format!("/api/games/{id}/claim");
    let _black_page = Follower::open(&s, id, Some(&black));
    let white_page = Follower::open(&s, id, Some(&white));
    let (status, e) = post(&s, &path, "", Some(&black));
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("following"), "{e}");
    assert_eq!(post(&s, &path, "", Some(&white)).0, 409, "one's own turn");
    drop(white_page);
    std::thread::sleep(Duration::from_millis(200));
    let (status, e) = post(&s, &path, "", Some(&black));
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("away"), "{e}");
    std::thread::sleep(Duration::from_millis(1100));
    let (status, g) = post(&s, &path, "", Some(&black));
    assert_eq!(status, 200, "{g}");
    assert_eq!(
        g["result"],
        json!({ "winner": "black", "reason": "abandonment", "rule": "abandonment", "detail": null, "score": "0-1" })
    );
}
