//! The game room and the lobby: what players say to each other besides
//! their moves (a resignation, a draw offered and agreed, a move asked
//! back and granted, a rematch, a game claimed from a player gone), the
//! lobby's open seats (seeks), and a new game shown before it is stored.
//!
//! None of it knows a game's rules: it knows players (by index in turn
//! order), seats (their tokens), moves and results.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State as Shared};
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};

use super::api::{
    Client, NewGame, address, bearer, body_of, create, describe, find, flag, time_control, too_fast,
    watch_clock,
};
use super::games::Slot;
use super::played::{Played, Viewer};
use super::store::{Ended, EndedBy, StoredSeek};
use super::{ApiError, LISTED_GAMES, Server, bad, blocking, conflict, forbidden, not_stored};
use crate::engine::Cache;
use crate::session::{TimeControl, now_ms};

/// The seat of `viewer` in a game with seats: a 409 in a game without
/// seats (nobody's word is a player's there), a 403 without a seat's token.
fn seat_of(viewer: Viewer, what: &str) -> Result<usize, ApiError> {
    match viewer {
        Viewer::Seat(i) => Ok(i),
        Viewer::Anyone => Err(conflict(format!("{what} is for a game with seats"))),
        Viewer::Watcher => Err(forbidden(format!(
            "{what} needs the token of a seat of this game (Authorization: Bearer TOKEN)"
        ))),
    }
}

/// A 409 if the game is over (its clock judged first: a player out of
/// time loses before anything else is said), or waits for an opponent to
/// join it from the lobby.
fn ongoing(server: &Server, id: u64, slot: &Slot, p: &mut Played) -> Result<(), ApiError> {
    if p.open_seek.is_some() {
        return Err(conflict(
            "the game waits for an opponent to join it from the lobby",
        ));
    }
    if p.out_of_time(now_ms()) {
        flag(server, id, slot, p);
    }
    if p.over()? {
        return Err(conflict("the game is over"));
    }
    Ok(())
}

/// Ends game `id` by its players' word: kept in the database first (if
/// that fails, the game goes on), then every page is told.
fn end(server: &Server, id: u64, slot: &Slot, p: &mut Played, ended: Ended) -> Result<(), ApiError> {
    server.store.end(id, ended).map_err(not_stored)?;
    p.ended = Some(ended);
    p.draw_offer = None;
    p.takeback_ask = None;
    changed(slot, p);
    Ok(())
}

/// The game changed (an offer, a request, an ending): its version grows
/// and every page is told.
fn changed(slot: &Slot, p: &mut Played) {
    p.version += 1;
    slot.changed();
}

/// The winner when `loser` gives up a game of `players` players: the other
/// of two; none of more.
fn other_of_two(players: usize, loser: usize) -> Option<usize> {
    (players == 2).then(|| 1 - loser)
}

/// What a room request does to a game, with the server, the game's id,
/// its slot, the game (locked) and who asks.
type Work = dyn FnOnce(&Arc<Server>, u64, &Arc<Slot>, &mut Played, Viewer) -> Result<(), ApiError> + Send;

/// Runs `work` on game `id` for the holder of the request's token, off
/// the async workers; the game as the asker sees it after, its clock
/// watched anew.
async fn act(
    server: &Arc<Server>,
    id: &str,
    headers: &HeaderMap,
    what: &'static str,
    work: Box<Work>,
) -> Result<Json<Value>, ApiError> {
    let (n, slot) = find(server, id).await?;
    let token = bearer(headers);
    let (s, sl) = (server.clone(), slot.clone());
    let (v, deadline) = blocking(what, move || {
        let mut p = sl.lock();
        let viewer = p.viewer(token.as_deref());
        work(&s, n, &sl, &mut p, viewer)?;
        Ok((p.describe(n, None, viewer)?, p.deadline()))
    })
    .await?;
    watch_clock(server, n, &slot, deadline);
    Ok(Json(v))
}

/// `POST /api/games/{id}/resign`: the asker's player resigns (in a game
/// with seats, the seat of the token; without, the player to move), and
/// the game ends: the other of two players wins, `"reason":
/// "resignation"`.
pub(super) async fn resign(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let work = |s: &Arc<Server>, n: u64, sl: &Arc<Slot>, p: &mut Played, viewer: Viewer| {
        let loser = match viewer {
            Viewer::Anyone => p.last().turn().index(),
            _ => seat_of(viewer, "resigning")?,
        };
        ongoing(s, n, sl, p)?;
        let winner = other_of_two(p.game().players().len(), loser);
        end(
            s,
            n,
            sl,
            p,
            Ended {
                winner,
                by: EndedBy::Resignation,
            },
        )
    };
    act(
        &server,
        &id,
        &headers,
        "the game could not be resigned",
        Box::new(work),
    )
    .await
}

/// The body of `POST /api/games/{id}/draw`: one of the three.
#[derive(Deserialize, Default)]
struct DrawSaid {
    #[serde(default)]
    offer: bool,
    #[serde(default)]
    accept: bool,
    #[serde(default)]
    decline: bool,
}

/// `POST /api/games/{id}/draw` (`{"offer": true}`, `{"accept": true}` or
/// `{"decline": true}`, by a seat's token): a draw offered (shown as
/// `draw_offer` until a move or a decline; an offer when the other side
/// offers accepts it), accepted by another seat (the game ends drawn,
/// `"reason": "agreement"`), or declined.
pub(super) async fn draw(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let said: DrawSaid = body_of(&body)?;
    if [said.offer, said.accept, said.decline]
        .iter()
        .filter(|&&b| b)
        .count()
        != 1
    {
        return Err(bad(
            r#"say one of {"offer": true}, {"accept": true}, {"decline": true}"#,
        ));
    }
    let work = move |s: &Arc<Server>, n: u64, sl: &Arc<Slot>, p: &mut Played, viewer: Viewer| {
        let me = seat_of(viewer, "a draw")?;
        let theirs = p.draw_offer.filter(|&j| j != me);
        if said.decline {
            if theirs.is_none() {
                return Err(conflict("there is no draw offer of another player to decline"));
            }
            p.draw_offer = None;
            changed(sl, p);
            return Ok(());
        }
        ongoing(s, n, sl, p)?;
        match (said.offer, theirs) {
            // Both offer: agreed.
            (_, Some(_)) => end(
                s,
                n,
                sl,
                p,
                Ended {
                    winner: None,
                    by: EndedBy::Agreement,
                },
            ),
            (true, None) => {
                if p.draw_offer != Some(me) {
                    p.draw_offer = Some(me);
                    changed(sl, p);
                }
                Ok(())
            }
            (false, None) => Err(conflict("there is no draw offer of another player to accept")),
        }
    };
    act(
        &server,
        &id,
        &headers,
        "the draw could not be answered",
        Box::new(work),
    )
    .await
}

/// The body of `POST /api/games/{id}/takeback`: one of the three.
#[derive(Deserialize, Default)]
struct TakebackSaid {
    #[serde(default)]
    ask: bool,
    #[serde(default)]
    grant: bool,
    #[serde(default)]
    decline: bool,
}

/// `POST /api/games/{id}/takeback` (`{"ask": true}`, `{"grant": true}`
/// or `{"decline": true}`, by a seat's token): a seat asks to take back
/// its last move (shown as `takeback_ask` until a move or a decline);
/// another seat grants it (the asker's last move is taken back, and every
/// move after it, so it is the asker's turn again) or declines.
pub(super) async fn takeback(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let said: TakebackSaid = body_of(&body)?;
    if [said.ask, said.grant, said.decline]
        .iter()
        .filter(|&&b| b)
        .count()
        != 1
    {
        return Err(bad(
            r#"say one of {"ask": true}, {"grant": true}, {"decline": true}"#,
        ));
    }
    let work = move |s: &Arc<Server>, n: u64, sl: &Arc<Slot>, p: &mut Played, viewer: Viewer| {
        let me = seat_of(viewer, "a take-back")?;
        let theirs = p.takeback_ask.filter(|&j| j != me);
        if said.decline {
            if theirs.is_none() {
                return Err(conflict("there is no request of another player to decline"));
            }
            p.takeback_ask = None;
            changed(sl, p);
            return Ok(());
        }
        ongoing(s, n, sl, p)?;
        if said.ask {
            if p.last_move_of(me).is_none() {
                return Err(conflict("you have made no move to take back"));
            }
            if p.takeback_ask != Some(me) {
                p.takeback_ask = Some(me);
                changed(sl, p);
            }
            return Ok(());
        }
        let asker = theirs.ok_or_else(|| conflict("there is no request of another player to grant"))?;
        let to = (p.last_move_of(asker)).ok_or_else(|| conflict("the asker has no move to take back"))?;
        // Out of the database first: if that fails, the game keeps its moves.
        s.store.truncate(n, to).map_err(not_stored)?;
        let now = now_ms();
        while p.plies() > to && p.pop(now) {}
        sl.changed();
        Ok(())
    };
    act(
        &server,
        &id,
        &headers,
        "the take-back could not be answered",
        Box::new(work),
    )
    .await
}

/// `POST /api/games/{id}/rematch` (the game over): in a game with seats,
/// by a seat's token, the first call is shown as `rematch_ask`, another
/// seat's call makes the new game; in a game without seats (against the
/// AI), one call makes it. The new game has the same rules (a playground
/// game's text too), start and clock, and the same tokens, each passed
/// to the next player in turn order (with two, the colours swap); the old
/// game's JSON names it (`"rematch": ID`) and its pages are told. Counted
/// against the asker's rate of new games.
pub(super) async fn rematch(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    client: Client,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    (server.new_games.take(address(&client))).map_err(|wait| too_fast("new games", wait))?;
    let work = |s: &Arc<Server>, n: u64, sl: &Arc<Slot>, p: &mut Played, viewer: Viewer| {
        let me = match viewer {
            Viewer::Anyone => None,
            _ => Some(seat_of(viewer, "a rematch")?),
        };
        if p.rematch.is_some() {
            return Ok(());
        }
        if !p.over()? {
            return Err(conflict("the game is not over: a rematch follows its end"));
        }
        if let Some(me) = me
            && p.rematch_ask.is_none_or(|j| j == me)
        {
            if p.rematch_ask != Some(me) {
                p.rematch_ask = Some(me);
                changed(sl, p);
            }
            return Ok(());
        }
        let game = sl.game().clone();
        let start = (game.from_fen_checked(&p.start_fen, &mut Cache::new()))
            .map_err(|e| conflict(format!("the game's start does not read any more: {e}")))?;
        let seats = p.seats.clone().map(|mut tokens| {
            if !tokens.is_empty() {
                tokens.rotate_left(1);
            }
            tokens
        });
        let control = p.session.clock.as_ref().map(|c| c.control());
        let mut next = Played::new(game, start, seats, control);
        next.rules_text = p.rules_text.clone();
        let next_id = s.store.insert(&next.stored()).map_err(not_stored)?;
        s.store.link_rematch(n, next_id).map_err(not_stored)?;
        s.games.keep(next_id, Arc::new(Slot::new(next, sl.rules.clone())));
        p.rematch = Some(next_id);
        p.rematch_ask = None;
        changed(sl, p);
        Ok(())
    };
    act(
        &server,
        &id,
        &headers,
        "the rematch could not be made",
        Box::new(work),
    )
    .await
}

/// `POST /api/games/{id}/claim` (by a seat's token, on the opponent's
/// turn): the game is won by the asker if the player to move has had no
/// page following the game (no event stream with its token) for the
/// server's `away` time (`--away`), `"reason": "abandonment"`.
pub(super) async fn claim(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let work = |s: &Arc<Server>, n: u64, sl: &Arc<Slot>, p: &mut Played, viewer: Viewer| {
        let me = seat_of(viewer, "a claim")?;
        ongoing(s, n, sl, p)?;
        let turn = p.last().turn().index();
        let players = p.game().players().to_vec();
        if turn == me {
            return Err(conflict(
                "it is your own move: a claim is for the opponent's turn",
            ));
        }
        let needed = s.options.limits.away.as_millis() as u64;
        match p.presence.away(turn, now_ms()) {
            Some(away) if away >= needed => {}
            Some(away) => {
                return Err(conflict(format!(
                    "{} has been away {} s; the game may be claimed after {} s",
                    players[turn],
                    away / 1000,
                    needed / 1000
                )));
            }
            None => return Err(conflict(format!("{} is following the game", players[turn]))),
        }
        let winner = (players.len() == 2).then_some(me);
        end(
            s,
            n,
            sl,
            p,
            Ended {
                winner,
                by: EndedBy::Abandonment,
            },
        )
    };
    act(
        &server,
        &id,
        &headers,
        "the game could not be claimed",
        Box::new(work),
    )
    .await
}

/// `GET /api/start`: a new game at the server's start as `GET
/// /api/games/{id}` shows one (`"id": null`), not stored: a page shows it
/// and stores a game only at its first move (`POST /api/games` with
/// `"moves"`). Worked out once.
pub(super) async fn start(Shared(server): Shared<Arc<Server>>) -> Result<Json<Value>, ApiError> {
    if let Some(v) = server.fresh.get() {
        return Ok(Json(v.clone()));
    }
    let s = server.clone();
    let v = blocking("the start could not be shown", move || {
        let game = s.rules.game.clone();
        let start = match &s.options.start {
            Some(start) => start.clone(),
            None => game.initial(),
        };
        let mut p = Played::new(game, start, None, s.options.clock);
        let mut v = p.describe(0, None, Viewer::Anyone)?;
        v["id"] = Value::Null;
        v["version"] = json!(0);
        Ok(v)
    })
    .await?;
    Ok(Json(server.fresh.get_or_init(|| v).clone()))
}

/// The body of `POST /api/seeks`.
#[derive(Deserialize, Default)]
struct NewSeek {
    /// The clock (`"5+3"`); none: the server's.
    clock: Option<String>,
    /// The asker's player, or `"random"` (the default).
    side: Option<String>,
}

/// A seat's secret link: its token and the page's address with it.
fn seat_link(server: &Server, id: u64, token: &str) -> Value {
    let base = (server.options.public_url.as_deref())
        .unwrap_or("")
        .trim_end_matches('/');
    json!({ "token": token, "url": format!("{base}/?game={id}&seat={token}") })
}

/// The link to watch game `id`.
fn watch_link(server: &Server, id: u64) -> String {
    let base = (server.options.public_url.as_deref())
        .unwrap_or("")
        .trim_end_matches('/');
    format!("{base}/?game={id}")
}

/// A time control as people write it (`5+3`: minutes, then seconds a move).
fn clock_text(c: TimeControl) -> String {
    format!("{}+{}", c.base.as_secs_f64() / 60.0, c.increment.as_secs_f64())
}

/// `POST /api/seeks` (`{"clock": "5+3", "side": PLAYER or "random"}`,
/// both optional): a game with seats of the server's rules, the asker's
/// seat taken and the other open, listed in the lobby until someone joins
/// it; the answer is the game as the asker's seat sees it, with that
/// seat's link (`"seats": {PLAYER: {token, url}}`), `"watch_url"` and
/// `"seek"` (its row of `GET /api/seeks`). Counted against the asker's
/// rate of new games; games of two players only.
pub(super) async fn new_seek(
    Shared(server): Shared<Arc<Server>>,
    client: Client,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let body: NewSeek = body_of(&body)?;
    let players = server.rules.game.players().to_vec();
    if players.len() != 2 {
        return Err(bad(format!(
            "the lobby seats games of two players; {} has {}",
            server.rules.game.name(),
            players.len()
        )));
    }
    let side = match body.side.as_deref() {
        None | Some("random") => {
            let mut byte = [0u8; 1];
            getrandom::fill(&mut byte).map_err(|e| {
                ApiError(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("no randomness for a side: {e}"),
                )
            })?;
            usize::from(byte[0] & 1)
        }
        Some(name) => players.iter().position(|p| p == name).ok_or_else(|| {
            bad(format!(
                "no player {name:?}: give one of {} or \"random\"",
                players.join(", ")
            ))
        })?,
    };
    (server.new_games.take(address(&client))).map_err(|wait| too_fast("new games", wait))?;
    let new = NewGame {
        seats: true,
        clock: body.clock,
        ..NewGame::default()
    };
    let made = create(&server, new, server.rules.clone()).await?;
    let (id, token) = match (
        made["id"].as_u64(),
        made["seats"][&players[side]]["token"].as_str(),
    ) {
        (Some(id), Some(token)) => (id, token.to_string()),
        _ => {
            return Err(ApiError(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the seek's game has no seats".into(),
            ));
        }
    };
    let created = now_ms();
    let s = server.clone();
    blocking("the seek could not be stored", move || {
        s.store.insert_seek(id, side, created).map_err(not_stored)
    })
    .await?;
    let (_, slot) = find(&server, &id.to_string()).await?;
    let clock = {
        let mut p = slot.lock();
        p.open_seek = Some(side);
        changed(&slot, &mut p);
        p.session.clock.as_ref().map(|c| c.control())
    };
    let row = seek_row(
        &server,
        &StoredSeek {
            game_id: id,
            game: server.rules.game.name().to_string(),
            waiting: side,
            created_ms: created,
            clock,
        },
    );
    let mut v = describe(id, slot, None, Some(token.clone())).await?;
    v["seats"] = json!({ players[side].clone(): seat_link(&server, id, &token) });
    v["watch_url"] = json!(watch_link(&server, id));
    v["seek"] = row;
    Ok(Json(v))
}

/// A seek's row in the lobby.
fn seek_row(server: &Server, seek: &StoredSeek) -> Value {
    let players = server.rules.game.players();
    let id = seek.game_id;
    let open: Vec<&String> = (players.iter().enumerate())
        .filter(|&(i, _)| i != seek.waiting)
        .map(|(_, p)| p)
        .collect();
    json!({
        "id": id,
        "game": seek.game,
        "variant": seek.game,
        "clock": seek.clock.map(clock_text),
        "time_control": seek.clock.map(time_control),
        "waiting": players.get(seek.waiting),
        "open": open,
        "created_ms": seek.created_ms,
        "age_ms": now_ms().saturating_sub(seek.created_ms),
        "join_url": format!("/api/seeks/{id}/join"),
        "watch_url": watch_link(server, id),
    })
}

/// Whether the player waiting for the seek of a game in memory has left
/// it (had no page following the game for the server's `away` time). Of
/// a game not in memory nothing is known, and only the seek's age counts.
fn waiting_left(server: &Server, id: u64) -> bool {
    let Some(slot) = server.games.get(id) else {
        return false;
    };
    let p = slot.lock();
    let away = server.options.limits.away.as_millis() as u64;
    match p.open_seek {
        Some(waiting) => p.presence.away(waiting, now_ms()).is_some_and(|t| t >= away),
        None => true,
    }
}

/// `GET /api/seeks`: the lobby, the open seeks of the server's rules,
/// newest first: `{"seeks": [{"id", "game", "variant", "clock" ("5+3"
/// or null), "time_control", "waiting" (the player whose seat is taken),
/// "open" (the players whose seats are free), "created_ms", "age_ms",
/// "join_url", "watch_url"}]}`. A seek leaves it when joined, after the
/// server's seek life (`--seek-minutes`), or when its waiting player has
/// had no page following the game for the `away` time.
pub(super) async fn seeks(Shared(server): Shared<Arc<Server>>) -> Result<Json<Value>, ApiError> {
    let since = now_ms().saturating_sub(server.options.limits.seek_life.as_millis() as u64);
    let s = server.clone();
    let stored = blocking("the seeks could not be listed", move || {
        s.store.open_seeks(since, LISTED_GAMES).map_err(not_stored)
    })
    .await?;
    let name = server.rules.game.name();
    let rows: Vec<Value> = (stored.iter())
        .filter(|seek| seek.game == name && !waiting_left(&server, seek.game_id))
        .map(|seek| seek_row(&server, seek))
        .collect();
    Ok(Json(json!({ "seeks": rows })))
}

/// `POST /api/seeks/{id}/join`: takes the open seat of seek `id` (once: a
/// seek joined already, expired or left is a 409); the answer is the game
/// as the joiner's seat sees it, with that seat's link (`"seats":
/// {PLAYER: {token, url}}`) and `"watch_url"`. The waiting page is told.
pub(super) async fn join_seek(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let n: u64 = id
        .parse()
        .map_err(|_| ApiError(StatusCode::NOT_FOUND, format!("no seek {id}")))?;
    if waiting_left(&server, n) {
        return Err(conflict(format!(
            "seek {n} is closed: its player left, or it was joined"
        )));
    }
    let now = now_ms();
    let since = now.saturating_sub(server.options.limits.seek_life.as_millis() as u64);
    let s = server.clone();
    let joined = blocking("the seek could not be joined", move || {
        s.store.join_seek(n, now, since).map_err(not_stored)
    })
    .await?;
    let Some(waiting) = joined else {
        return Err(conflict(format!(
            "no open seek {n}: it was joined already, or it expired"
        )));
    };
    let (n, slot) = find(&server, &id).await?;
    let (player, token) = {
        let mut p = slot.lock();
        let players = p.game().players().to_vec();
        let free = (0..players.len()).find(|&i| i != waiting);
        let token = free.and_then(|i| Some((players[i].clone(), p.seats.as_ref()?.get(i)?.clone())));
        p.open_seek = None;
        changed(&slot, &mut p);
        token.ok_or_else(|| conflict(format!("game {n} has no seat to join")))?
    };
    let mut v = describe(n, slot, None, Some(token.clone())).await?;
    v["seats"] = json!({ player: seat_link(&server, n, &token) });
    v["watch_url"] = json!(watch_link(&server, n));
    Ok(Json(v))
}
