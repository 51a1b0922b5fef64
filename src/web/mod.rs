//! `chessalg serve`: a web board for any rule file. An HTTP server (axum on
//! tokio) answers a JSON API and keeps its games in an SQLite database
//! ([`store`]), written move by move, so that a restart on the same file
//! brings every game back; the page it serves (HTML, CSS and JavaScript
//! embedded in the binary) draws the board from that API and holds no
//! rules: legality, names and outcomes come from the game layer, as in
//! `play`.
//!
//! A game may have seats: one secret token per player, sent with each move
//! as `Authorization: Bearer TOKEN`, so that friends play from their own
//! browsers by link and nobody moves for another; every page viewing a
//! game follows it live through an event stream; an optional clock is
//! judged by the server.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State as Shared};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::Stream;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::ai::{Ai, Budget, Rng, Weights};
use crate::decl::Spec;
use crate::engine::Cache;
use crate::game::{Action, Game, PgnTags, State};
use crate::inspect::Verdict;
use crate::session::Controller;

mod played;
mod playground;
pub mod store;
pub mod svg;

pub use played::parse_clock;
use played::{Played, Viewer, legal_and_ending, now_ms};
pub use store::{ClockSetting, Store, StoreError};

/// The page: the board, drawn from the API.
const PAGE: &str = include_str!("page.html");

/// The playground's page: a rule text written, checked and played.
const PLAYGROUND: &str = include_str!("playground.html");

/// The largest body `POST /api/rules` reads (a longer text is refused
/// with a diagnostic before that, from the playground's own limit).
const MAX_RULES_BODY: usize = 1 << 20;

/// How many rule texts are checked at once (others wait, then are told
/// the playground is busy).
const CHECKS_AT_ONCE: usize = 2;

/// The largest request body accepted, in bytes.
const MAX_BODY: usize = 16 * 1024;

/// How many games one server keeps in memory at most (the oldest go
/// first; the database keeps them, and they come back when asked for).
const MAX_GAMES: usize = 10_000;

/// How many games the list of games (`GET /api/games`) shows.
const LISTED_GAMES: usize = 50;

/// What `chessalg serve` was told on the command line.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Where to listen.
    pub addr: SocketAddr,
    /// The AI's thinking time when a request names none.
    pub ai_time: Duration,
    /// The most thinking time a request may ask for.
    pub ai_cap: Duration,
    /// The AI's deepest iteration.
    pub ai_depth: u32,
    /// Who plays each player in the page at first, in turn order (the
    /// page's choices change it; `Human` by default).
    pub seats: Vec<Controller>,
    /// Where new games start when a request names no FEN (`--fen`).
    pub start: Option<State>,
    /// Each player's learned weights for the AI (`--weights`), in turn order.
    pub weights: Vec<Option<Arc<Weights>>>,
    /// The clock of new games when a request names none (`--clock 5+3`).
    pub clock: Option<ClockSetting>,
}

/// A game in memory with the rules it is played under (the server's, or a
/// playground text's), and the event streams waiting for its next change.
struct Slot {
    played: Mutex<Played>,
    /// Counts the game's changes; event streams wait on it.
    changes: watch::Sender<u64>,
    game: Arc<Game>,
    /// Its rule file as written (for `explain`).
    spec: Arc<Spec>,
}

impl Slot {
    fn new(played: Played, game: Arc<Game>, spec: Arc<Spec>) -> Arc<Slot> {
        Arc::new(Slot {
            played: Mutex::new(played),
            changes: watch::Sender::new(0),
            game,
            spec,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Played> {
        // A panic in a handler leaves the game as its last whole change.
        self.played.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Tells every event stream of the game that it changed.
    fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
    }
}

/// What every request handler shares.
struct Server {
    /// The rule file as written (for `explain`).
    spec: Arc<Spec>,
    game: Arc<Game>,
    games: Mutex<HashMap<u64, Arc<Slot>>>,
    store: Store,
    options: ServeOptions,
    /// Permits to check a rule text of the playground.
    checks: Arc<tokio::sync::Semaphore>,
}

impl Server {
    /// Keeps `slot` in memory as game `id`, unless another request put it
    /// there first (that one is kept and given back).
    fn remember(&self, id: u64, slot: Arc<Slot>) -> Arc<Slot> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(there) = games.get(&id) {
            return there.clone();
        }
        if games.len() >= MAX_GAMES
            && let Some(&oldest) = games.keys().min()
        {
            games.remove(&oldest);
        }
        games.insert(id, slot.clone());
        slot
    }
}

/// A request that cannot be answered: its status and a one-line reason.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

fn bad(reason: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, reason.into())
}

fn forbidden(reason: impl Into<String>) -> ApiError {
    ApiError(StatusCode::FORBIDDEN, reason.into())
}

fn conflict(reason: impl Into<String>) -> ApiError {
    ApiError(StatusCode::CONFLICT, reason.into())
}

/// A database failure, as a request sees it (the change was not made).
fn not_stored(e: StoreError) -> ApiError {
    ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("not saved: {e}"))
}

/// The seat token a request carries (`Authorization: Bearer TOKEN`).
fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))?;
    Some(token.trim().to_string())
}

/// A new secret seat token: 128 random bits from the system, in hex.
fn new_token() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("no randomness for a seat token: {e}"),
        )
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The body of `POST /api/games`: a position (FEN) or a game (PGN) to
/// start from, or neither for the server's start; seats (one secret link
/// per player) and a clock (`"5+3"`), if wanted.
#[derive(Deserialize, Default)]
struct NewGame {
    fen: Option<String>,
    pgn: Option<String>,
    #[serde(default)]
    seats: bool,
    clock: Option<String>,
}

/// The query of `GET /api/games/{id}`: `?ply=N` shows the position after
/// the first N moves (to look back; it has no legal moves).
#[derive(Deserialize, Default)]
struct ShowAt {
    ply: Option<usize>,
}

/// The query of `GET /api/games/{id}/events`: the viewer's seat token
/// (an event stream cannot send headers), to be sent their legal moves.
#[derive(Deserialize, Default)]
struct EventsFor {
    seat: Option<String>,
}

/// The body of `POST /api/games/{id}/move`.
#[derive(Deserialize)]
struct PlayMove {
    #[serde(rename = "move")]
    name: String,
    /// The moves played when the move was chosen: a move for another
    /// position (the game moved on meanwhile) is refused (409).
    plies: Option<usize>,
}

/// The body of `POST /api/games/{id}/ai`.
#[derive(Deserialize, Default)]
struct AiMove {
    /// Thinking time in milliseconds (cut to the server's cap).
    time_ms: Option<u64>,
    /// A uniformly random legal move instead of the AI's.
    #[serde(default)]
    random: bool,
    /// The moves played when the AI was asked: a request for another
    /// position (the game moved on meanwhile, another tab asked first) is
    /// refused (409).
    plies: Option<usize>,
}

/// Serves the board for `game` (built from `spec`), its games kept in
/// `store`, until the process ends; `bound` is called with the address
/// listened on (the port chosen when 0 was asked).
pub fn serve(
    spec: Spec,
    game: Game,
    options: ServeOptions,
    store: Store,
    bound: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.addr).await?;
        bound(listener.local_addr()?);
        axum::serve(listener, routes(Arc::new(spec), Arc::new(game), options, store)).await
    })
}

/// The server's routes for `game` (built from `spec`), its games kept in
/// `store`: what [`serve`] listens with, and what a test or a fuzzer sends
/// requests to without a socket.
pub fn routes(spec: Arc<Spec>, game: Arc<Game>, options: ServeOptions, store: Store) -> Router {
    router(Arc::new(Server {
        spec,
        game,
        games: Mutex::new(HashMap::new()),
        store,
        options,
        checks: Arc::new(tokio::sync::Semaphore::new(CHECKS_AT_ONCE)),
    }))
}

fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/api/info", get(info))
        .route("/api/games", post(new_game).get(list_games))
        .route("/api/games/{id}", get(show))
        .route("/api/games/{id}/events", get(events))
        .route("/api/games/{id}/move", post(play_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/ai", post(ai_move))
        .route("/api/games/{id}/pgn", get(pgn))
        .route("/api/games/{id}/svg", get(picture))
        .route("/api/games/{id}/explain", get(explain_move))
        .route("/playground", get(|| async { Html(PLAYGROUND) }))
        .route(
            "/api/rules",
            post(check_rules).layer(DefaultBodyLimit::max(MAX_RULES_BODY)),
        )
        .route("/api/rules/bundled", get(bundled_list))
        .route("/api/rules/bundled/{name}", get(bundled_text))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(server)
}

/// `GET /api/info`: the game's name and players.
async fn info(Shared(server): Shared<Arc<Server>>) -> Json<Value> {
    let (files, ranks) = server.game.dimensions();
    let seats: serde_json::Map<String, Value> = server
        .game
        .players()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let who = match server.options.seats.get(i) {
                Some(Controller::Ai) => "ai",
                Some(Controller::Random) => "random",
                _ => "human",
            };
            (p.clone(), json!(who))
        })
        .collect();
    let clock = server.options.clock.map(
        |c| json!({ "base_ms": c.base.as_millis() as u64, "increment_ms": c.increment.as_millis() as u64 }),
    );
    Json(json!({
        "game": server.game.name(),
        "players": server.game.players(),
        "files": files,
        "ranks": ranks,
        "seats": seats,
        "time_ms": server.options.ai_time.as_millis() as u64,
        "time_cap_ms": server.options.ai_cap.as_millis() as u64,
        "clock": clock,
    }))
}

/// `POST /api/games` (`{"fen": ...}` or `{"pgn": ...}`, `"seats": true`,
/// `"clock": "5+3"`, all optional): a new game, from a position or with a
/// recorded game's moves played, stored before it is answered. With seats
/// the answer has each player's secret link (`seats: {PLAYER: {token,
/// url}}`) and a link to watch (`watch_url`).
async fn new_game(
    Shared(server): Shared<Arc<Server>>,
    headers: HeaderMap,
    body: Option<Json<NewGame>>,
) -> Result<Json<Value>, ApiError> {
    let body = body.map(|Json(b)| b).unwrap_or_default();
    let rules = Rules {
        game: server.game.clone(),
        spec: server.spec.clone(),
        text: None,
    };
    create(&server, &headers, body, rules).await.map(Json)
}

/// The rules a new game is played under.
struct Rules {
    game: Arc<Game>,
    spec: Arc<Spec>,
    /// The rule text, when not the server's file (a playground game).
    text: Option<String>,
}

/// Makes and stores a new game under `rules` as `body` asks; its JSON, with
/// its seats' links if it has seats.
async fn create(
    server: &Arc<Server>,
    headers: &HeaderMap,
    body: NewGame,
    rules: Rules,
) -> Result<Value, ApiError> {
    let clock = match &body.clock {
        Some(text) => Some(parse_clock(text).map_err(bad)?),
        None => server.options.clock,
    };
    let tokens = if body.seats {
        let players = rules.game.players().len();
        Some((0..players).map(|_| new_token()).collect::<Result<Vec<_>, _>>()?)
    } else {
        None
    };
    let s = server.clone();
    let seats = tokens.clone();
    let (id, slot) = blocking(
        "the game could not be made",
        move || -> Result<(u64, Arc<Slot>), ApiError> {
            let game = &rules.game;
            let mut cache = Cache::new();
            let (start, actions) = match (body.fen, body.pgn) {
                (Some(_), Some(_)) => return Err(bad("give a FEN or a PGN, not both")),
                (Some(f), None) => (
                    game.from_fen_checked(&f, &mut cache)
                        .map_err(|e| bad(e.to_string()))?,
                    Vec::new(),
                ),
                (None, Some(text)) => {
                    let read = game.read_pgn(&text, &mut cache).map_err(|e| bad(e.to_string()))?;
                    (read.start, read.actions)
                }
                // (The server's --fen is a position of its own game.)
                (None, None) => match (&rules.text, &s.options.start) {
                    (None, Some(start)) => (start.clone(), Vec::new()),
                    _ => (game.initial(), Vec::new()),
                },
            };
            let mut p = Played::new(game, start, seats, clock);
            p.rules_text = rules.text.clone();
            for action in actions {
                let state = p.last().clone();
                let (legal, _) = legal_and_ending(game, &state, &mut cache)?;
                let i = legal
                    .iter()
                    .position(|a| *a == action)
                    .ok_or_else(|| bad("a move of the PGN is not legal"))?;
                p.push(game, &state, &legal, i, now_ms());
            }
            let id = s.store.insert(&p.stored(game)).map_err(not_stored)?;
            Ok((id, Slot::new(p, rules.game.clone(), rules.spec.clone())))
        },
    )
    .await?;
    let slot = server.remember(id, slot);
    let players = slot.game.players().to_vec();
    let viewer = if tokens.is_some() {
        None
    } else {
        Some(String::new())
    };
    let mut v = describe(id, slot, None, viewer).await?;
    if let Some(tokens) = tokens {
        let host = (headers.get(header::HOST))
            .and_then(|h| h.to_str().ok())
            .map_or_else(|| server.options.addr.to_string(), str::to_string);
        let links: serde_json::Map<String, Value> = (players.iter())
            .zip(&tokens)
            .map(|(player, token)| {
                let url = format!("http://{host}/?game={id}&seat={token}");
                (player.clone(), json!({ "token": token, "url": url }))
            })
            .collect();
        v["seats"] = Value::Object(links);
        v["watch_url"] = json!(format!("http://{host}/?game={id}"));
    }
    Ok(v)
}

/// `GET /api/games`: the newest games of this server's rule file, newest
/// first, each with whose move it is, how many moves were played, its
/// result and the link to watch it.
async fn list_games(Shared(server): Shared<Arc<Server>>) -> Result<Json<Value>, ApiError> {
    let s = server.clone();
    let ids = blocking("the games could not be listed", move || {
        s.store.recent(LISTED_GAMES).map_err(not_stored)
    })
    .await?;
    let mut games = Vec::new();
    for id in ids {
        // A game that no longer plays under these rules is left out.
        let Ok((_, slot)) = find(&server, &id.to_string()).await else {
            continue;
        };
        let summary = blocking("the game could not be shown", move || {
            let game = &slot.game;
            let p = slot.lock();
            let mut cache = Cache::new();
            let (_, ending) = legal_and_ending(game, p.last(), &mut cache)?;
            Ok(json!({
                "id": id,
                "game": game.name(),
                "playground": p.rules_text.is_some(),
                "turn": game.players()[p.last().turn().index()],
                "plies": p.names.len(),
                "over": ending.is_some() || p.flagged.is_some(),
                "seated": p.seats.is_some(),
                "clock": p.clock.is_some(),
                "created_ms": p.created_ms,
                "watch_url": format!("/?game={id}"),
            }))
        })
        .await?;
        games.push(summary);
    }
    Ok(Json(json!({ "games": games })))
}

/// The game of an id: from memory, or from the database (played again
/// from its start under the server's rules), or a 404.
async fn find(server: &Arc<Server>, id: &str) -> Result<(u64, Arc<Slot>), ApiError> {
    let not_found = || ApiError(StatusCode::NOT_FOUND, format!("no game {id}"));
    let n: u64 = id.parse().map_err(|_| not_found())?;
    if let Some(slot) = server.games.lock().unwrap_or_else(|e| e.into_inner()).get(&n) {
        return Ok((n, slot.clone()));
    }
    let s = server.clone();
    let slot = blocking("the game could not be read", move || {
        let stored = s.store.load(n).map_err(not_stored)?;
        let stored = stored.ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no game {n}")))?;
        // Under its own rule text (a playground game), or the server's.
        let (game, spec) = match &stored.rules_text {
            Some(text) => {
                let checked = playground::check(text);
                match (checked.game, checked.spec) {
                    (Some(game), Some(spec)) => (Arc::new(game), Arc::new(spec)),
                    _ => return Err(conflict(format!("game {n}'s rule text no longer checks"))),
                }
            }
            None if stored.game == s.game.name() => (s.game.clone(), s.spec.clone()),
            None => {
                return Err(ApiError(
                    StatusCode::NOT_FOUND,
                    format!("game {n} is a game of {}, not of {}", stored.game, s.game.name()),
                ));
            }
        };
        let mut p = Played::replayed(&game, &stored)
            .map_err(|e| conflict(format!("game {n} cannot be played again under these rules: {e}")))?;
        p.rules_text = stored.rules_text.clone();
        Ok(Slot::new(p, game, spec))
    })
    .await?;
    let slot = server.remember(n, slot);
    let deadline = slot.lock().deadline();
    watch_clock(server, n, &slot, deadline);
    Ok((n, slot))
}

/// Judges the clock of game `id` at `deadline` (if its clock runs): if
/// the player to move has not moved by then, their time ran out.
fn watch_clock(server: &Arc<Server>, id: u64, slot: &Arc<Slot>, deadline: Option<u64>) {
    let Some(deadline) = deadline else {
        return;
    };
    let (server, slot) = (server.clone(), slot.clone());
    tokio::spawn(async move {
        let wait = deadline.saturating_sub(now_ms());
        tokio::time::sleep(Duration::from_millis(wait + 1)).await;
        let _ = blocking("the clock could not be judged", move || {
            let mut p = slot.lock();
            if p.out_of_time(now_ms()) {
                flag(&server, id, &slot, &mut p);
            }
            Ok(())
        })
        .await;
    });
}

/// The player to move in game `id` ran out of time: the game ends so,
/// kept in the database, and its viewers are told.
fn flag(server: &Server, id: u64, slot: &Slot, p: &mut Played) {
    let turn = p.last().turn().index();
    p.flagged = Some(turn);
    p.version += 1;
    if let Err(e) = server.store.flag(id, turn) {
        eprintln!("chessalg serve: game {id}: {e}");
    }
    slot.changed();
}

/// Whether `viewer` may move for the player to move of `p` (403 if not).
fn may_move(game: &Game, p: &Played, viewer: Viewer) -> Result<(), ApiError> {
    let turn = p.last().turn().index();
    let players = game.players();
    match viewer {
        Viewer::Anyone => Ok(()),
        Viewer::Seat(i) if i == turn => Ok(()),
        Viewer::Seat(i) => Err(forbidden(format!(
            "it is {}'s move, and this is {}'s seat",
            players[turn], players[i]
        ))),
        Viewer::Watcher => Err(forbidden(format!(
            "this game has seats: {}'s move needs the token of its seat (Authorization: Bearer TOKEN)",
            players[turn]
        ))),
    }
}

/// Plays the `i`th of `legal` (the moves of its position now) in game
/// `id` at `now` and stores it (taken back if it cannot be stored); the
/// viewers are told.
fn commit(
    server: &Server,
    id: u64,
    slot: &Slot,
    p: &mut Played,
    legal: &[Action],
    i: usize,
    now: u64,
) -> Result<(), ApiError> {
    let state = p.last().clone();
    p.push(&slot.game, &state, legal, i, now);
    let ply = p.played.len() - 1;
    if let Err(e) = server.store.push_move(id, ply, &p.played[ply]) {
        p.pop(now);
        return Err(not_stored(e));
    }
    slot.changed();
    Ok(())
}

/// `GET /api/games/{id}`: the position, its legal moves and the record.
async fn show(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    Query(at): Query<ShowAt>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let (n, slot) = find(&server, &id).await?;
    describe(n, slot, at.ply, bearer(&headers)).await.map(Json)
}

/// `GET /api/games/{id}/events` (`?seat=TOKEN` optional): an event stream
/// (Server-Sent Events) that sends the game (as `GET /api/games/{id}`
/// shows it, event `game`) at once and after every change.
async fn events(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    Query(whom): Query<EventsFor>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let (n, slot) = find(&server, &id).await?;
    let changes = slot.changes.subscribe();
    let start = (slot, changes, whom.seat, true);
    let stream = futures_util::stream::unfold(start, move |(slot, mut changes, seat, first)| async move {
        if first {
            changes.borrow_and_update();
        } else if changes.changed().await.is_err() {
            return None;
        }
        let v = describe(n, slot.clone(), None, seat.clone()).await.ok()?;
        let event = Event::default().event("game").data(v.to_string());
        Some((Ok(event), (slot, changes, seat, false)))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// `POST /api/games/{id}/move` (`{"move": "e2e4"}`): plays a legal move,
/// named as `moves` names it (or in SAN); in a game with seats, only with
/// the token of the seat to move.
async fn play_move(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Json<PlayMove>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(body) = body.map_err(|e| ApiError(e.status(), e.body_text()))?;
    let (n, slot) = find(&server, &id).await?;
    let token = bearer(&headers);
    let (s, sl) = (server.clone(), slot.clone());
    let (v, deadline) = blocking("the move could not be played", move || {
        let mut p = sl.lock();
        let viewer = p.viewer(token.as_deref());
        may_move(&sl.game, &p, viewer)?;
        moved_on(&p, body.plies)?;
        let state = p.last().clone();
        let now = now_ms();
        if p.out_of_time(now) {
            flag(&s, n, &sl, &mut p);
        }
        let mut cache = Cache::new();
        let (legal, ending) = legal_and_ending(&sl.game, &state, &mut cache)?;
        if ending.is_some() || p.flagged.is_some() {
            return Err(bad("the game is over"));
        }
        let i = (sl.game)
            .read_move(&state, &legal, &body.name)
            .map_err(|e| bad(e.to_string()))?;
        commit(&s, n, &sl, &mut p, &legal, i, now)?;
        Ok((p.describe(&sl.game, n, None, viewer)?, p.deadline()))
    })
    .await?;
    watch_clock(&server, n, &slot, deadline);
    Ok(Json(v))
}

/// `POST /api/games/{id}/undo`: takes the last move back (not in a game
/// with seats).
async fn undo(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let (n, slot) = find(&server, &id).await?;
    let token = bearer(&headers);
    let (s, sl) = (server.clone(), slot.clone());
    let (v, deadline) = blocking("the move could not be taken back", move || {
        let mut p = sl.lock();
        if p.seats.is_some() {
            return Err(conflict("a game with seats takes no move back"));
        }
        let Some(last) = p.played.len().checked_sub(1) else {
            return Err(bad("there is no move to take back"));
        };
        // Out of the database first: if that fails, the game keeps the move.
        s.store.truncate(n, last).map_err(not_stored)?;
        p.pop(now_ms());
        sl.changed();
        let viewer = p.viewer(token.as_deref());
        Ok((p.describe(&sl.game, n, None, viewer)?, p.deadline()))
    })
    .await?;
    watch_clock(&server, n, &slot, deadline);
    Ok(Json(v))
}

/// A 409 when a request made for the position after `plies` moves finds
/// the game elsewhere (a move, an undo or another tab's request came first).
fn moved_on(p: &Played, plies: Option<usize>) -> Result<(), ApiError> {
    let now = p.plies();
    match plies {
        Some(k) if k != now => Err(conflict(format!(
            "the request was for the position after {k} moves; the game has {now}"
        ))),
        _ => Ok(()),
    }
}

/// `POST /api/games/{id}/ai` (`{"time_ms": 500}` optional): the AI plays
/// the player to move, thinking off the request path for at most the
/// server's cap (`{"random": true}`: a random legal move); in a game with
/// seats, only for the seat whose token comes with the request.
async fn ai_move(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Option<Json<AiMove>>,
) -> Result<Json<Value>, ApiError> {
    let (n, slot) = find(&server, &id).await?;
    let token = bearer(&headers);
    let body = body.map(|Json(b)| b).unwrap_or_default();
    let asked = body.time_ms.map(Duration::from_millis);
    let (random, plies) = (body.random, body.plies);
    let time = asked.unwrap_or(server.options.ai_time).min(server.options.ai_cap);
    let depth = server.options.ai_depth;
    let (s, sl) = (server.clone(), slot.clone());
    let (v, deadline) = blocking("the AI could not move", move || {
        let (state, viewer) = {
            let p = sl.lock();
            let viewer = p.viewer(token.as_deref());
            may_move(&sl.game, &p, viewer)?;
            moved_on(&p, plies)?;
            if p.flagged.is_some() {
                return Err(bad("the game is over"));
            }
            (p.last().clone(), viewer)
        };
        let game = &sl.game;
        let mut cache = Cache::new();
        let (legal, ending) = legal_and_ending(game, &state, &mut cache)?;
        if legal.is_empty() || ending.is_some() {
            return Err(bad("the game is over"));
        }
        let budget = Budget {
            depth,
            time: Some(time),
        };
        let index = if random {
            let seed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64);
            Rng::new(seed).below(legal.len())
        } else {
            let w = s.options.weights.get(state.turn().index()).cloned().flatten();
            Ai::new(0x5eed)
                .with_weights(w)
                .choose(game, &state, &legal, budget, &mut cache)
                .map_err(|e| bad(e.to_string()))?
                .index
        };
        let mut p = sl.lock();
        // The game moved on while the AI thought (a move or an undo): its
        // choice is for a position no longer there.
        if p.last() != &state || p.flagged.is_some() {
            return Err(conflict("the position changed while the AI thought"));
        }
        let now = now_ms();
        if p.out_of_time(now) {
            flag(&s, n, &sl, &mut p);
            return Err(bad("the game is over"));
        }
        commit(&s, n, &sl, &mut p, &legal, index, now)?;
        Ok((p.describe(game, n, None, viewer)?, p.deadline()))
    })
    .await?;
    watch_clock(&server, n, &slot, deadline);
    Ok(Json(v))
}

/// The body of `POST /api/rules`: a rule text, and whether to play it (a
/// new game as `POST /api/games` makes, under these rules).
#[derive(Deserialize)]
struct RulesText {
    text: String,
    #[serde(default)]
    play: bool,
    #[serde(default)]
    seats: bool,
    clock: Option<String>,
}

/// `POST /api/rules` (`{"text": ...}`, `"play": true` to play it): the
/// text checked as `chessalg check` checks a file, under the playground's
/// limits: `{"diagnostics": [{line, column, end_line, end_column,
/// severity, message, help}]}`, and with `play` and no error, `"game"`:
/// a new game under these rules (with `"seats"` and `"clock"` as
/// `POST /api/games` takes them).
async fn check_rules(
    Shared(server): Shared<Arc<Server>>,
    headers: HeaderMap,
    body: Result<Json<RulesText>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(body) = body.map_err(|e| ApiError(e.status(), e.body_text()))?;
    // The check holds its permit until it ends, even past the time limit:
    // runaway texts take at most CHECKS_AT_ONCE threads, never the server.
    let permit = tokio::time::timeout(playground::CHECK_TIME, server.checks.clone().acquire_owned()).await;
    let Ok(Ok(permit)) = permit else {
        return Err(ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "the playground is busy checking other texts: try again".into(),
        ));
    };
    let text = body.text.clone();
    let work = tokio::task::spawn_blocking(move || {
        let checked = playground::check(&text);
        drop(permit);
        checked
    });
    let checked = match tokio::time::timeout(playground::CHECK_TIME, work).await {
        Ok(Ok(checked)) => checked,
        Ok(Err(_)) => {
            let d = playground::at_start("the check failed (an error in chessalg)".into());
            return Ok(Json(json!({ "diagnostics": [d] })));
        }
        Err(_) => return Ok(Json(json!({ "diagnostics": [playground::too_slow()] }))),
    };
    let diagnostics = checked.diagnostics;
    let (Some(game), Some(spec), true) = (checked.game, checked.spec, body.play) else {
        return Ok(Json(json!({ "diagnostics": diagnostics })));
    };
    let rules = Rules {
        game: Arc::new(game),
        spec: Arc::new(spec),
        text: Some(body.text),
    };
    let new = NewGame {
        seats: body.seats,
        clock: body.clock,
        ..NewGame::default()
    };
    let game = create(&server, &headers, new, rules).await?;
    Ok(Json(json!({ "diagnostics": diagnostics, "game": game })))
}

/// `GET /api/rules/bundled`: the names of the bundled rule files, and the
/// one this server plays if it is one of them.
async fn bundled_list(Shared(server): Shared<Arc<Server>>) -> Json<Value> {
    let files = playground::bundled_names();
    let own = format!("{}.alg", server.game.name().to_lowercase().replace(' ', ""));
    let served = files.iter().find(|&&f| f == own);
    Json(json!({ "files": files, "served": served }))
}

/// `GET /api/rules/bundled/{name}`: a bundled rule file's text.
async fn bundled_text(Path(name): Path<String>) -> Result<Response, ApiError> {
    let text = crate::bundled::text(&name)
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no bundled rule file {name}")))?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// The JSON of game `id` after `ply` moves (`None`: the last), for the
/// holder of `token` (`None`: a watcher in a game with seats).
async fn describe(
    id: u64,
    slot: Arc<Slot>,
    ply: Option<usize>,
    token: Option<String>,
) -> Result<Value, ApiError> {
    blocking("the game could not be shown", move || {
        let p = slot.lock();
        let viewer = p.viewer(token.as_deref());
        p.describe(&slot.game, id, ply, viewer)
    })
    .await
}

/// `GET /api/games/{id}/pgn`: the game so far as PGN.
async fn pgn(Shared(server): Shared<Arc<Server>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let (_, slot) = find(&server, &id).await?;
    let text = blocking(
        "the record could not be written",
        move || -> Result<String, ApiError> {
            let game = &slot.game;
            let p = slot.lock();
            let mut cache = Cache::new();
            let (_, ending) = legal_and_ending(game, p.last(), &mut cache)?;
            let ending = ending.map(|(e, _)| e);
            let tags = PgnTags {
                event: Some(format!("{}: chessalg serve", game.name())),
                date: Some(crate::game::pgn::today()),
                players: game.players().to_vec(),
                ..PgnTags::default()
            };
            game.pgn(&p.start, &p.actions, ending, &tags, &mut cache)
                .map_err(|e| bad(e.to_string()))
        },
    )
    .await?;
    Ok((
        [(header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8")],
        text,
    )
        .into_response())
}

/// `GET /api/games/{id}/svg` (`?ply=N` optional): the position as an SVG
/// picture, as `show --svg` draws it.
async fn picture(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    Query(at): Query<ShowAt>,
) -> Result<Response, ApiError> {
    let (_, slot) = find(&server, &id).await?;
    let svg = blocking("the position could not be drawn", move || {
        let p = slot.lock();
        let (state, _, _) = p.at(at.ply)?;
        Ok(svg::position_svg(&slot.game, state))
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml; charset=utf-8")], svg).into_response())
}

/// The query of `GET /api/games/{id}/explain`: a move (name, SAN or its
/// squares) and, to look back, the ply.
#[derive(Deserialize)]
struct ExplainQuery {
    #[serde(rename = "move")]
    name: String,
    ply: Option<usize>,
}

/// `GET /api/games/{id}/explain?move=e1g1`: how the rules derive the move
/// in the game's position (or why they do not), as `chessalg explain`.
async fn explain_move(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    Query(q): Query<ExplainQuery>,
) -> Result<Json<Value>, ApiError> {
    let (_, slot) = find(&server, &id).await?;
    let (spec, game) = (slot.spec.clone(), slot.game.clone());
    blocking("the move could not be explained", move || {
        let p = slot.lock();
        let (state, _, _) = p.at(q.ply)?;
        let e = crate::inspect::explain(&spec, &game, state, &q.name).map_err(|e| bad(e.to_string()))?;
        let (verdict, attacked_by) = match &e.verdict {
            Verdict::Legal => ("legal", Vec::new()),
            Verdict::LeavesRoyalAttacked(by) => ("leaves a royal piece attacked", by.clone()),
            Verdict::NotGiven => ("not given by the rules", Vec::new()),
        };
        let lines: Vec<Value> = (e.lines.iter())
            .map(|l| json!({ "depth": l.depth, "text": l.text, "place": l.place }))
            .collect();
        Ok(Json(json!({
            "move": e.name.unwrap_or(e.asked),
            "verdict": verdict,
            "attacked_by": attacked_by,
            "lines": lines,
        })))
    })
    .await
}

/// Runs `work` on a thread for blocking work, off the async workers; if it
/// panics, the request gets a 500 saying `what`.
async fn blocking<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|_| ApiError(StatusCode::INTERNAL_SERVER_ERROR, what.to_string()))?
}
