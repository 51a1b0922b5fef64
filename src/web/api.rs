//! The JSON API's handlers: games made, shown, followed, played, taken
//! back and explained; rule texts checked and played (the playground).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Extension, Path, Query, State as Shared};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::games::{RuleSet, Slot};
use super::listen::{Busy, ClientAddr, Link};
use super::played::{Played, Viewer};
use super::{
    ApiError, CHECKS_AT_ONCE, LISTED_GAMES, Server, bad, blocking, conflict, forbidden, not_stored,
    playground, svg, unavailable,
};
use crate::ai::{Ai, Budget};
use crate::core::Rng;
use crate::engine::Cache;
use crate::game::{Action, Game, PgnTags};
use crate::inspect::Verdict;
use crate::session::{Controller, TimeControl, now_ms};

/// A JSON body of type `T`: absent or empty, `T`'s default; not JSON (a
/// 400) or JSON not of `T`'s form (a 422), an error saying why.
pub(super) fn body_of<T: DeserializeOwned + Default>(bytes: &Bytes) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    required_body(bytes)
}

/// A JSON body of type `T` that must be there.
pub(super) fn required_body<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| {
        let status = match e.classify() {
            serde_json::error::Category::Data => StatusCode::UNPROCESSABLE_ENTITY,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError(status, format!("the body is not the JSON this asks for: {e}"))
    })
}

/// The seat token a request carries (`Authorization: Bearer TOKEN`).
pub(super) fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))?;
    Some(token.trim().to_string())
}

/// A new secret seat token: 128 random bits from the system, in hex.
pub(super) fn new_token() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("no randomness for a seat token: {e}"),
        )
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A 429 for a client past its rate, saying when to try again.
pub(super) fn too_fast(what: &str, wait: Duration) -> ApiError {
    ApiError(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many {what} from this address: try again in {} s",
            wait.as_secs().max(1)
        ),
    )
}

/// The client's address of a request, if it came over a socket.
pub(super) type Client = Option<Extension<ClientAddr>>;

pub(super) fn address(client: &Client) -> Option<std::net::IpAddr> {
    client.as_ref().map(|Extension(ClientAddr(ip))| *ip)
}

/// The body of `POST /api/games`: a position (FEN) or a game (PGN) to
/// start from, or neither for the server's start; seats (one secret link
/// per player) and a clock (`"5+3"`), if wanted; `like`: a game whose rules
/// the new game is played under (a playground variant's), else the
/// server's own.
#[derive(Deserialize, Default)]
pub(super) struct NewGame {
    pub(super) fen: Option<String>,
    pub(super) pgn: Option<String>,
    #[serde(default)]
    pub(super) seats: bool,
    pub(super) clock: Option<String>,
    /// Moves to play at once (named as `legal` names them, or in SAN),
    /// from the FEN or the start: the page stores a game only at its
    /// first move.
    pub(super) moves: Option<Vec<String>>,
    /// A game whose rules the new game is played under.
    pub(super) like: Option<String>,
}

/// The most moves `POST /api/games` plays from its `moves`.
const MAX_MOVES_GIVEN: usize = 1024;

/// The query of `GET /api/games/{id}`: `?ply=N` shows the position after
/// the first N moves (to look back; it has no legal moves).
#[derive(Deserialize, Default)]
pub(super) struct ShowAt {
    ply: Option<usize>,
}

/// The query of `GET /api/games/{id}/events`: the viewer's seat token
/// (an event stream cannot send headers), to be sent their legal moves.
#[derive(Deserialize, Default)]
pub(super) struct EventsFor {
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

/// `GET /api/info`: the game's name and players.
pub(super) async fn info(Shared(server): Shared<Arc<Server>>) -> Json<Value> {
    let game = &server.rules.game;
    let (files, ranks) = game.dimensions();
    let seats: serde_json::Map<String, Value> = game
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
        "game": game.name(),
        "players": game.players(),
        "player_names": super::played::player_names(game),
        "files": files,
        "ranks": ranks,
        "seats": seats,
        "time_ms": server.options.ai_time.as_millis() as u64,
        "time_cap_ms": server.options.ai_cap.as_millis() as u64,
        "clock": clock,
    }))
}

/// `GET /api/status`: what the server holds now, against its limits (for
/// the person hosting it): games in memory, the playground's bytes, event
/// streams open, rule texts being checked.
pub(super) async fn status(Shared(server): Shared<Arc<Server>>) -> Json<Value> {
    let (games, bytes) = server.games.size();
    let limits = &server.options.limits;
    Json(json!({
        "games_in_memory": games,
        "max_games": limits.max_games,
        "playground_bytes": bytes,
        "playground_bytes_limit": limits.playground_bytes,
        "streams_open": limits.max_streams.max(1) - server.streams.available_permits(),
        "max_streams": limits.max_streams.max(1),
        "checks_running": CHECKS_AT_ONCE - server.checks.available_permits(),
    }))
}

/// `POST /api/games` (`{"fen": ...}` or `{"pgn": ...}`, `"moves": [...]`,
/// `"seats": true`, `"clock": "5+3"`, all optional): a new game, from a
/// position or with a recorded game's moves (or the moves listed)
/// played, stored before it is answered. With seats
/// the answer has each player's secret link (`seats: {PLAYER: {token,
/// url}}`) and a link to watch (`watch_url`).
pub(super) async fn new_game(
    Shared(server): Shared<Arc<Server>>,
    client: Client,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let body: NewGame = body_of(&body)?;
    (server.new_games.take(address(&client))).map_err(|wait| too_fast("new games", wait))?;
    let rules = match &body.like {
        Some(like) => find(&server, like).await?.1.rules.clone(),
        None => server.rules.clone(),
    };
    create(&server, body, rules).await.map(Json)
}

/// Makes and stores a new game under `rules` as `body` asks; its JSON, with
/// its seats' links if it has seats.
pub(super) async fn create(
    server: &Arc<Server>,
    body: NewGame,
    rules: Arc<RuleSet>,
) -> Result<Value, ApiError> {
    let clock = match &body.clock {
        Some(text) => Some(text.parse::<TimeControl>().map_err(|e| bad(e.to_string()))?),
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
            let mut p = Played::new(game.clone(), start, seats, clock);
            p.rules_text = rules.text.clone();
            let named = body.moves.unwrap_or_default();
            if named.len() > MAX_MOVES_GIVEN {
                return Err(bad(format!("at most {MAX_MOVES_GIVEN} moves are played at once")));
            }
            if !named.is_empty() && !actions.is_empty() {
                return Err(bad("give a PGN or moves, not both"));
            }
            for (k, name) in named.iter().enumerate() {
                let (legal, ending) = p.legal_and_ending()?;
                if ending.is_some() {
                    return Err(bad(format!("the game is over before move {} ({name})", k + 1)));
                }
                let i = (game.read_move(p.last(), &legal, name))
                    .map_err(|e| bad(format!("move {} ({name}): {e}", k + 1)))?;
                p.push(&legal, i, now_ms());
            }
            for action in actions {
                let (legal, _) = p.legal_and_ending()?;
                let i = legal
                    .iter()
                    .position(|a| *a == action)
                    .ok_or_else(|| bad("a move of the PGN is not legal"))?;
                p.push(&legal, i, now_ms());
            }
            let id = s.store.insert(&p.stored()).map_err(not_stored)?;
            Ok((id, Arc::new(Slot::new(p, rules))))
        },
    )
    .await?;
    let slot = server.games.keep(id, slot);
    let players = slot.game().players().to_vec();
    let viewer = if tokens.is_some() {
        None
    } else {
        Some(String::new())
    };
    let mut v = describe(id, slot, None, viewer).await?;
    if let Some(tokens) = tokens {
        let base = server
            .options
            .public_url
            .as_deref()
            .unwrap_or("")
            .trim_end_matches('/');
        let links: serde_json::Map<String, Value> = (players.iter())
            .zip(&tokens)
            .map(|(player, token)| {
                let url = format!("{base}/?game={id}&seat={token}");
                (player.clone(), json!({ "token": token, "url": url }))
            })
            .collect();
        v["seats"] = Value::Object(links);
        v["watch_url"] = json!(format!("{base}/?game={id}"));
    }
    Ok(v)
}

/// `GET /api/games`: the newest games of this server's rule file, newest
/// first, each with its variant (the game's name), players and open
/// seats, whose move it is, how many moves were played, its result and
/// the link to watch it. A row is made again only when its game changed
/// (by its version), so the list is cheap to poll.
pub(super) async fn list_games(Shared(server): Shared<Arc<Server>>) -> Result<Json<Value>, ApiError> {
    let s = server.clone();
    let ids = blocking("the games could not be listed", move || {
        s.store.recent(LISTED_GAMES).map_err(not_stored)
    })
    .await?;
    let mut games = Vec::new();
    for &id in &ids {
        if let Some(slot) = server.games.get(id) {
            let version = slot.lock().version;
            if let Some((v, row)) = listed(&server.listed).get(&id)
                && *v == version
            {
                games.push(row.clone());
                continue;
            }
        }
        // A game that no longer plays under these rules is left out.
        let Ok((_, slot)) = find(&server, &id.to_string()).await else {
            continue;
        };
        let (version, row) = blocking("the game could not be shown", move || {
            let mut p = slot.lock();
            Ok((p.version, summary(id, &mut p)?))
        })
        .await?;
        listed(&server.listed).insert(id, (version, row.clone()));
        games.push(row);
    }
    listed(&server.listed).retain(|id, _| ids.contains(id));
    Ok(Json(json!({ "games": games })))
}

/// The rows of the list of games, locked.
fn listed<T>(rows: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    rows.lock().unwrap_or_else(|e| e.into_inner())
}

/// A game's row in the list of games.
fn summary(id: u64, p: &mut Played) -> Result<Value, ApiError> {
    let result = p.outcome()?;
    let game = p.game().clone();
    let open_seats: Vec<&String> = match p.open_seek {
        Some(waiting) => (game.players().iter().enumerate())
            .filter(|&(i, _)| i != waiting)
            .map(|(_, name)| name)
            .collect(),
        None => Vec::new(),
    };
    let control = p.session.clock.as_ref().map(|c| c.control());
    Ok(json!({
        "id": id,
        "game": game.name(),
        "variant": game.name(),
        "players": game.players(),
        "player_names": super::played::player_names(&game),
        "open_seats": open_seats,
        "playground": p.rules_text.is_some(),
        "turn": game.players()[p.last().turn().index()],
        "plies": p.names.len(),
        "over": result.is_some(),
        "result": result,
        "seated": p.seats.is_some(),
        "clock": control.is_some(),
        "time_control": control.map(time_control),
        "rematch": p.rematch,
        "created_ms": p.created_ms,
        "watch_url": format!("/?game={id}"),
    }))
}

/// A clock's time control as the API writes it.
pub(super) fn time_control(c: TimeControl) -> Value {
    json!({
        "base_ms": c.base.as_millis() as u64,
        "increment_ms": c.increment.as_millis() as u64,
    })
}

/// The game of an id: from memory, or from the database (played again
/// from its start under its rules), or a 404. One copy of a game is ever
/// in memory: a game loaded twice at once is kept once, and the other
/// copy, never used, is dropped.
pub(super) async fn find(server: &Arc<Server>, id: &str) -> Result<(u64, Arc<Slot>), ApiError> {
    let not_found = || ApiError(StatusCode::NOT_FOUND, format!("no game {id}"));
    let n: u64 = id.parse().map_err(|_| not_found())?;
    if let Some(slot) = server.games.get(n) {
        return Ok((n, slot));
    }
    let s = server.clone();
    let (stored, open_seek) = blocking("the game could not be read", move || {
        let stored = s.store.load(n).map_err(not_stored)?;
        let stored = stored.ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no game {n}")))?;
        let open_seek = match stored.seats {
            Some(_) => s.store.seek_open(n).map_err(not_stored)?,
            None => None,
        };
        Ok((stored, open_seek))
    })
    .await?;
    // Under its own rule text (a playground game), or the server's.
    let rules = match &stored.rules_text {
        Some(text) => match check_text(server, text.clone(), true).await? {
            TextChecked::Kept(rules) => rules,
            TextChecked::Diagnosed(_) => {
                return Err(conflict(format!("game {n}'s rule text no longer checks")));
            }
        },
        None if stored.game == server.rules.game.name() => server.rules.clone(),
        None => {
            return Err(ApiError(
                StatusCode::NOT_FOUND,
                format!(
                    "game {n} is a game of {}, not of {}",
                    stored.game,
                    server.rules.game.name()
                ),
            ));
        }
    };
    let slot = blocking("the game could not be read", move || {
        let mut p = Played::replayed(rules.game.clone(), &stored)
            .map_err(|e| conflict(format!("game {n} cannot be played again under these rules: {e}")))?;
        p.rules_text = stored.rules_text.clone();
        p.open_seek = open_seek;
        Ok(Arc::new(Slot::new(p, rules)))
    })
    .await?;
    let slot = server.games.keep(n, slot);
    let deadline = slot.lock().deadline();
    watch_clock(server, n, &slot, deadline);
    Ok((n, slot))
}

/// What checking a playground text came to.
enum TextChecked {
    /// Its rule set: in memory already, or just built and kept.
    Kept(Arc<RuleSet>),
    /// Its diagnostics only: it has an error, its game is larger than the
    /// playground keeps in all, or it was not to be kept.
    Diagnosed(Vec<Value>),
}

/// Checks a playground text, unless its rule set is in memory, under a
/// check permit (at most [`CHECKS_AT_ONCE`] at once; a 503 after waiting
/// a check's time, which every check ends within); with `keep`, a text
/// without error is kept as a rule set.
async fn check_text(server: &Arc<Server>, text: String, keep: bool) -> Result<TextChecked, ApiError> {
    if let Some(rules) = server.rule_sets.get(&text) {
        return Ok(TextChecked::Kept(rules));
    }
    let permit = tokio::time::timeout(playground::CHECK_TIME, server.checks.clone().acquire_owned()).await;
    let Ok(Ok(permit)) = permit else {
        return Err(unavailable(
            "the playground is busy checking other texts: try again",
        ));
    };
    let s = server.clone();
    let work = tokio::task::spawn_blocking(move || {
        // (Another request may have built it meanwhile.)
        let checked = match s.rule_sets.get(&text) {
            Some(rules) => Ok(rules),
            None => Err(Box::new(playground::check(&text))),
        };
        drop(permit);
        (text, checked)
    });
    // (A safety net: the check stops at its time by itself.)
    let (text, checked) = match tokio::time::timeout(playground::CHECK_TIME * 2, work).await {
        Ok(Ok(done)) => done,
        Ok(Err(_)) => {
            let d = playground::at_start("the check failed (an error in chessalg)".into());
            return Ok(TextChecked::Diagnosed(vec![d]));
        }
        Err(_) => return Ok(TextChecked::Diagnosed(vec![playground::too_slow()])),
    };
    let mut checked = match checked {
        Ok(rules) => return Ok(TextChecked::Kept(rules)),
        Err(checked) => *checked,
    };
    let limit = server.options.limits.playground_bytes;
    Ok(match checked.built {
        // A game larger than the playground keeps in all is not kept.
        Some((_, _, bytes)) if keep && bytes > limit => {
            checked.diagnostics.push(playground::too_large(bytes, limit));
            TextChecked::Diagnosed(checked.diagnostics)
        }
        Some((game, spec, bytes)) if keep => TextChecked::Kept(server.rule_sets.keep(RuleSet {
            game: Arc::new(game),
            spec: Arc::new(spec),
            text: Some(text),
            bytes,
            diagnostics: checked.diagnostics,
        })),
        _ => TextChecked::Diagnosed(checked.diagnostics),
    })
}

/// Judges the clock of game `id` at `deadline` (if its clock runs): if
/// the player to move has not moved by then, their time ran out.
pub(super) fn watch_clock(server: &Arc<Server>, id: u64, slot: &Arc<Slot>, deadline: Option<u64>) {
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
pub(super) fn flag(server: &Server, id: u64, slot: &Slot, p: &mut Played) {
    let turn = p.last().turn().index();
    p.flag();
    if let Err(e) = server.store.flag(id, turn) {
        eprintln!("chessalg serve: game {id}: {e}");
    }
    slot.changed();
}

/// Whether `viewer` may move for the player to move of `p` (403 if not;
/// 409 in a seek's game before an opponent joined).
fn may_move(p: &Played, viewer: Viewer) -> Result<(), ApiError> {
    let turn = p.last().turn().index();
    let players = p.game().players();
    if p.open_seek.is_some() {
        return Err(conflict(
            "the game waits for an opponent to join it from the lobby",
        ));
    }
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
/// `id` at `now` and stores it (taken back if it cannot be stored: the
/// database refuses a second move for a ply); the viewers are told.
fn commit(
    server: &Server,
    id: u64,
    slot: &Slot,
    p: &mut Played,
    legal: &[Action],
    i: usize,
    now: u64,
) -> Result<(), ApiError> {
    p.push(legal, i, now);
    let ply = p.played.len() - 1;
    if let Err(e) = server.store.push_move(id, ply, &p.played[ply]) {
        p.pop(now);
        return Err(not_stored(e));
    }
    slot.changed();
    Ok(())
}

/// `GET /api/games/{id}`: the position, its legal moves and the record.
pub(super) async fn show(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    Query(at): Query<ShowAt>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let (n, slot) = find(&server, &id).await?;
    describe(n, slot, at.ply, bearer(&headers)).await.map(Json)
}

/// `GET /api/games/{id}/rules`: the rules the game is played under, to
/// read or to fork in the playground: `{"game": NAME, "text": TEXT}` (the
/// playground's text, or the server's own rule file; `null` if the server
/// was not given it), and `"bundled"`: the name of the bundled file the
/// server's own rules are, if they are one.
pub(super) async fn rules_of(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let (_, slot) = find(&server, &id).await?;
    let rules = &slot.rules;
    let (text, bundled) = match &rules.text {
        Some(text) => (Some(text.to_string()), None),
        None => (server.options.rules_text.clone(), served_bundled_name(&server)),
    };
    Ok(Json(
        json!({ "game": rules.game.name(), "text": text, "bundled": bundled }),
    ))
}

/// `GET /api/games/{id}/events` (`?seat=TOKEN` optional): an event stream
/// (Server-Sent Events) that sends the game (as `GET /api/games/{id}`
/// shows it, event `game`) at once and after every change. The stream
/// holds the game in memory, and counts against the server's streams.
pub(super) async fn events(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    Query(whom): Query<EventsFor>,
    link: Option<Extension<Arc<Link>>>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let permit =
        server.streams.clone().try_acquire_owned().map_err(|_| {
            unavailable("the server has its most event streams open: try again in a few seconds")
        })?;
    let (n, slot) = find(&server, &id).await?;
    // Counted among the game's followers (its other pages are told) before
    // its first event, which so counts it (and the change told shortly
    // after sends it a second).
    let following = Following::new(slot.clone(), whom.seat.as_deref());
    let changes = slot.changes.subscribe();
    // The connection is at work while the stream is open.
    let busy = link.map(|Extension(link)| Busy::new(link));
    let held = Arc::new((permit, busy, following));
    let start = (slot, changes, whom.seat, true, held);
    let stream =
        futures_util::stream::unfold(start, move |(slot, mut changes, seat, first, held)| async move {
            if first {
                changes.borrow_and_update();
            } else if changes.changed().await.is_err() {
                return None;
            }
            let v = describe(n, slot.clone(), None, seat.clone()).await.ok()?;
            let event = Event::default().event("game").data(v.to_string());
            Some((Ok(event), (slot, changes, seat, false, held)))
        });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// An event stream's place among its game's followers: counted in the
/// game's `watchers` (or its seat's `online`) while the stream is open;
/// every page of the game is told when it opens and closes.
struct Following {
    slot: Arc<Slot>,
    viewer: Viewer,
}

impl Following {
    fn new(slot: Arc<Slot>, seat: Option<&str>) -> Following {
        let viewer = {
            let mut p = slot.lock();
            let viewer = p.viewer(seat);
            p.presence.open(viewer);
            viewer
        };
        slot.followers_changed();
        Following { slot, viewer }
    }
}

impl Drop for Following {
    fn drop(&mut self) {
        self.slot.lock().presence.close(self.viewer, now_ms());
        self.slot.followers_changed();
    }
}

/// `POST /api/games/{id}/move` (`{"move": "e2e4"}`): plays a legal move,
/// named as `moves` names it (or in SAN); in a game with seats, only with
/// the token of the seat to move.
pub(super) async fn play_move(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let body: PlayMove = required_body(&body)?;
    let (n, slot) = find(&server, &id).await?;
    let token = bearer(&headers);
    let (s, sl) = (server.clone(), slot.clone());
    let (v, deadline) = blocking("the move could not be played", move || {
        let mut p = sl.lock();
        let viewer = p.viewer(token.as_deref());
        may_move(&p, viewer)?;
        moved_on(&p, body.plies)?;
        let now = now_ms();
        if p.out_of_time(now) {
            flag(&s, n, &sl, &mut p);
        }
        let (legal, ending) = p.legal_and_ending()?;
        if ending.is_some() || p.stopped() {
            return Err(bad("the game is over"));
        }
        let i = (p.game().read_move(p.last(), &legal, &body.name)).map_err(|e| bad(e.to_string()))?;
        commit(&s, n, &sl, &mut p, &legal, i, now)?;
        Ok((p.describe(n, None, viewer)?, p.deadline()))
    })
    .await?;
    watch_clock(&server, n, &slot, deadline);
    Ok(Json(v))
}

/// `POST /api/games/{id}/undo`: takes the last move back (not in a game
/// with seats).
pub(super) async fn undo(
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
        Ok((p.describe(n, None, viewer)?, p.deadline()))
    })
    .await?;
    watch_clock(&server, n, &slot, deadline);
    Ok(Json(v))
}

/// A 409 when a request made for the position after `plies` moves finds
/// the game elsewhere (a move, an undo or another tab's request came first).
pub(super) fn moved_on(p: &Played, plies: Option<usize>) -> Result<(), ApiError> {
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
pub(super) async fn ai_move(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let body: AiMove = body_of(&body)?;
    let (n, slot) = find(&server, &id).await?;
    let token = bearer(&headers);
    let asked = body.time_ms.map(Duration::from_millis);
    let (random, plies) = (body.random, body.plies);
    let time = asked.unwrap_or(server.options.ai_time).min(server.options.ai_cap);
    let depth = server.options.ai_depth;
    let started = Instant::now();
    if !random && slot.rules.text.is_none() {
        server.warm_prospects();
    }
    // One search a core: others wait their turn, for the AI's time at most.
    let thinking = match random {
        true => None,
        false => {
            match tokio::time::timeout(server.options.ai_cap, server.thinking.clone().acquire_owned()).await {
                Ok(Ok(permit)) => Some(permit),
                _ => return Err(unavailable("the AI is busy thinking for other games: try again")),
            }
        }
    };
    let (s, sl) = (server.clone(), slot.clone());
    let (v, deadline) = blocking("the AI could not move", move || {
        let _thinking = thinking;
        let (state, viewer, legal) = {
            let mut p = sl.lock();
            let viewer = p.viewer(token.as_deref());
            may_move(&p, viewer)?;
            moved_on(&p, plies)?;
            if p.stopped() {
                return Err(bad("the game is over"));
            }
            let (legal, ending) = p.legal_and_ending()?;
            if legal.is_empty() || ending.is_some() {
                return Err(bad("the game is over"));
            }
            (p.last().clone(), viewer, legal)
        };
        let game = sl.game().clone();
        let index = if random {
            let seed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64);
            Rng::new(seed).below(legal.len())
        } else {
            // The AI thinks with a cache of its own, off the game's lock.
            let mut cache = Cache::new();
            let budget = Budget {
                depth,
                time: Some(time.saturating_sub(started.elapsed())),
            };
            // The server's weights are for its own game only.
            let weights = match sl.rules.text {
                None => s.options.weights.get(state.turn().index()).cloned().flatten(),
                Some(_) => None,
            };
            Ai::new(0x5eed)
                .with_weights(weights)
                .choose(&game, &state, &legal, budget, &mut cache)
                .map_err(|e| bad(e.to_string()))?
                .index
        };
        let mut p = sl.lock();
        // The game moved on while the AI thought (a move or an undo): its
        // choice is for a position no longer there.
        if p.last() != &state || p.stopped() {
            return Err(conflict("the position changed while the AI thought"));
        }
        let now = now_ms();
        if p.out_of_time(now) {
            flag(&s, n, &sl, &mut p);
            return Err(bad("the game is over"));
        }
        commit(&s, n, &sl, &mut p, &legal, index, now)?;
        Ok((p.describe(n, None, viewer)?, p.deadline()))
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
pub(super) async fn check_rules(
    Shared(server): Shared<Arc<Server>>,
    client: Client,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let body: RulesText = required_body(&body)?;
    let who = address(&client);
    (server.new_checks.take(who)).map_err(|wait| too_fast("rule texts checked", wait))?;
    if body.play {
        (server.new_games.take(who)).map_err(|wait| too_fast("new games", wait))?;
    }
    let rules = match check_text(&server, body.text, body.play).await? {
        TextChecked::Kept(rules) if body.play => rules,
        TextChecked::Kept(rules) => return Ok(Json(json!({ "diagnostics": rules.diagnostics }))),
        TextChecked::Diagnosed(diagnostics) => return Ok(Json(json!({ "diagnostics": diagnostics }))),
    };
    let new = NewGame {
        seats: body.seats,
        clock: body.clock,
        ..NewGame::default()
    };
    let game = create(&server, new, rules.clone()).await?;
    Ok(Json(json!({ "diagnostics": rules.diagnostics, "game": game })))
}

/// `GET /api/rules/bundled`: the names of the bundled rule files, and the
/// one this server plays if it is one of them.
pub(super) async fn bundled_list(Shared(server): Shared<Arc<Server>>) -> Json<Value> {
    let files = playground::bundled_names();
    Json(json!({ "files": files, "served": served_bundled_name(&server) }))
}

/// `GET /api/rules/bundled/{name}`: a bundled rule file's text.
pub(super) async fn bundled_text(Path(name): Path<String>) -> Result<Response, ApiError> {
    let text = crate::bundled::text(&name)
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no bundled rule file {name}")))?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// The JSON of game `id` after `ply` moves (`None`: the last), for the
/// holder of `token` (`None`: a watcher in a game with seats).
pub(super) async fn describe(
    id: u64,
    slot: Arc<Slot>,
    ply: Option<usize>,
    token: Option<String>,
) -> Result<Value, ApiError> {
    blocking("the game could not be shown", move || {
        let mut p = slot.lock();
        let viewer = p.viewer(token.as_deref());
        p.describe(id, ply, viewer)
    })
    .await
}

/// `GET /api/games/{id}/pgn`: the game so far as PGN.
pub(super) async fn pgn(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (_, slot) = find(&server, &id).await?;
    let text = blocking(
        "the record could not be written",
        move || -> Result<String, ApiError> {
            let mut p = slot.lock();
            let (_, ending) = p.legal_and_ending()?;
            let game = p.game().clone();
            let tags = PgnTags {
                event: Some(format!("{}: chessalg serve", game.name())),
                date: Some(crate::game::pgn::today()),
                players: game.display_names(),
                ..PgnTags::default()
            };
            let session = &mut p.session;
            let ending = ending.map(|(e, _)| e);
            (game.pgn(
                &session.start,
                &session.actions,
                ending,
                &tags,
                &mut session.cache,
            ))
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
pub(super) async fn picture(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    Query(at): Query<ShowAt>,
) -> Result<Response, ApiError> {
    let (_, slot) = find(&server, &id).await?;
    let svg = blocking("the position could not be drawn", move || {
        let p = slot.lock();
        let (state, _, _) = p.at(at.ply)?;
        Ok(svg::position_svg(slot.game(), state, svg::PieceSet::Standalone))
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml; charset=utf-8")], svg).into_response())
}

/// The query of `GET /api/games/{id}/explain`: a move (name, SAN or its
/// squares) and, to look back, the ply.
#[derive(Deserialize)]
pub(super) struct ExplainQuery {
    #[serde(rename = "move")]
    name: String,
    ply: Option<usize>,
}

/// `GET /api/games/{id}/explain?move=e1g1`: how the rules derive the move
/// in the game's position (or why they do not), as `chessalg explain`.
pub(super) async fn explain_move(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    Query(q): Query<ExplainQuery>,
) -> Result<Json<Value>, ApiError> {
    let (_, slot) = find(&server, &id).await?;
    blocking("the move could not be explained", move || {
        let p = slot.lock();
        let (state, _, _) = p.at(q.ply)?;
        let (spec, game): (&crate::decl::Spec, &Game) = (&slot.rules.spec, slot.game());
        let e = crate::inspect::explain(spec, game, state, &q.name).map_err(|e| bad(e.to_string()))?;
        let (verdict, attacked_by) = match &e.verdict {
            Verdict::Legal => ("legal", Vec::new()),
            Verdict::LeavesRoyalAttacked(by) => ("leaves a royal piece attacked", by.clone()),
            Verdict::NotGiven => ("not given by the rules", Vec::new()),
        };
        let lines: Vec<Value> = (e.lines.iter())
            .map(|l| {
                let place = l
                    .place
                    .as_deref()
                    .map(|at| crate::inspect::public_place(spec, at));
                json!({ "depth": l.depth, "text": l.text, "place": place })
            })
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

/// The name of the bundled rule file the server's own game is named like
/// (`chess.alg` for "Chess"), if there is one.
fn served_bundled_name(server: &Server) -> Option<&'static str> {
    let own = format!("{}.alg", server.rules.game.name().to_lowercase().replace(' ', ""));
    playground::bundled_names().into_iter().find(|&f| f == own)
}
