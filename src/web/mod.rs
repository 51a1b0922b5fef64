//! `chessalg serve`: a web board for any rule file. An HTTP server (axum on
//! tokio) keeps games in memory by id and answers a JSON API; the page it
//! serves (HTML, CSS and JavaScript embedded in the binary) draws the board
//! from that API and holds no rules: legality, names and outcomes come from
//! the game layer, as in `play`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State as Shared};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::ai::{Ai, Budget, Rng, Weights};
use crate::core::{Content, Coord, PlayerId};
use crate::decl::Spec;
use crate::engine::Cache;
use crate::game::{Action, Ending, Game, PgnTags, Reason, State};
use crate::inspect::Verdict;
use crate::session::Controller;

pub mod svg;

/// The page: the board, drawn from the API.
const PAGE: &str = include_str!("page.html");

/// The largest request body accepted, in bytes.
const MAX_BODY: usize = 16 * 1024;

/// How many games one server keeps at most (the oldest go first).
const MAX_GAMES: usize = 10_000;

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
}

/// One game in the server's memory: where it started and the moves played.
struct Played {
    start: State,
    states: Vec<State>,
    actions: Vec<Action>,
    names: Vec<String>,
    /// The moves in the game's notation (SAN; `11-15` under `notation numbered`).
    record: Vec<String>,
}

impl Played {
    /// The position after the first `ply` moves (`None`: the last), with
    /// that ply and the number of moves played; a 400 past the last.
    fn at(&self, ply: Option<usize>) -> Result<(&State, usize, usize), ApiError> {
        let last = self.states.len() - 1;
        let shown = ply.unwrap_or(last);
        let state = self
            .states
            .get(shown)
            .ok_or_else(|| bad(format!("the game has {last} moves, not {shown}")))?;
        Ok((state, shown, last))
    }
}

/// What every request handler shares.
struct Server {
    /// The rule file as written (for `explain`).
    spec: Arc<Spec>,
    game: Arc<Game>,
    games: Mutex<HashMap<u64, Arc<Mutex<Played>>>>,
    next_id: AtomicU64,
    options: ServeOptions,
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

/// The body of `POST /api/games`: a position (FEN) or a game (PGN) to
/// start from, or neither for the server's start.
#[derive(Deserialize, Default)]
struct NewGame {
    fen: Option<String>,
    pgn: Option<String>,
}

/// The query of `GET /api/games/{id}`: `?ply=N` shows the position after
/// the first N moves (to look back; it has no legal moves).
#[derive(Deserialize, Default)]
struct ShowAt {
    ply: Option<usize>,
}

/// The body of `POST /api/games/{id}/move`.
#[derive(Deserialize)]
struct PlayMove {
    #[serde(rename = "move")]
    name: String,
}

/// The body of `POST /api/games/{id}/ai`.
#[derive(Deserialize, Default)]
struct AiMove {
    /// Thinking time in milliseconds (cut to the server's cap).
    time_ms: Option<u64>,
    /// A uniformly random legal move instead of the AI's.
    #[serde(default)]
    random: bool,
}

/// Serves the board for `game` (built from `spec`) until the process ends;
/// `bound` is called with the address listened on (the port chosen when 0
/// was asked).
pub fn serve(
    spec: Spec,
    game: Game,
    options: ServeOptions,
    bound: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.addr).await?;
        bound(listener.local_addr()?);
        axum::serve(listener, routes(Arc::new(spec), Arc::new(game), options)).await
    })
}

/// The server's routes for `game` (built from `spec`), with no games yet:
/// what [`serve`] listens with, and what a test or a fuzzer sends requests
/// to without a socket.
pub fn routes(spec: Arc<Spec>, game: Arc<Game>, options: ServeOptions) -> Router {
    router(Arc::new(Server {
        spec,
        game,
        games: Mutex::new(HashMap::new()),
        next_id: AtomicU64::new(1),
        options,
    }))
}

fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/api/info", get(info))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(show))
        .route("/api/games/{id}/move", post(play_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/ai", post(ai_move))
        .route("/api/games/{id}/pgn", get(pgn))
        .route("/api/games/{id}/svg", get(picture))
        .route("/api/games/{id}/explain", get(explain_move))
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
    Json(json!({
        "game": server.game.name(),
        "players": server.game.players(),
        "files": files,
        "ranks": ranks,
        "seats": seats,
        "time_ms": server.options.ai_time.as_millis() as u64,
        "time_cap_ms": server.options.ai_cap.as_millis() as u64,
    }))
}

/// `POST /api/games` (`{"fen": ...}` or `{"pgn": ...}`, optional): a new
/// game, from a position or with a recorded game's moves played.
async fn new_game(
    Shared(server): Shared<Arc<Server>>,
    body: Option<Json<NewGame>>,
) -> Result<Json<Value>, ApiError> {
    let body = body.map(|Json(b)| b).unwrap_or_default();
    let game = server.game.clone();
    let default_start = server.options.start.clone();
    let played = blocking(
        "the position could not be read",
        move || -> Result<Played, ApiError> {
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
                (None, None) => (default_start.unwrap_or_else(|| game.initial()), Vec::new()),
            };
            let mut p = Played {
                start: start.clone(),
                states: vec![start],
                actions: Vec::new(),
                names: Vec::new(),
                record: Vec::new(),
            };
            for action in actions {
                let state = p.states.last().expect("a game has a position").clone();
                let (legal, _) = legal_and_ending(&game, &state, &mut cache)?;
                let i = legal
                    .iter()
                    .position(|a| *a == action)
                    .ok_or_else(|| bad("a move of the PGN is not legal"))?;
                push(&game, &mut p, &state, &legal, i);
            }
            Ok(p)
        },
    )
    .await?;
    let id = server.next_id.fetch_add(1, Ordering::Relaxed);
    let played = Arc::new(Mutex::new(played));
    {
        let mut games = server.games.lock().expect("the games lock is never poisoned");
        if games.len() >= MAX_GAMES
            && let Some(&oldest) = games.keys().min()
        {
            games.remove(&oldest);
        }
        games.insert(id, played.clone());
    }
    describe(&server, id, played).await.map(Json)
}

/// The game of an id, or a 404.
fn find(server: &Server, id: &str) -> Result<(u64, Arc<Mutex<Played>>), ApiError> {
    let not_found = || ApiError(StatusCode::NOT_FOUND, format!("no game {id}"));
    let n: u64 = id.parse().map_err(|_| not_found())?;
    let games = server.games.lock().expect("the games lock is never poisoned");
    games.get(&n).cloned().map(|g| (n, g)).ok_or_else(not_found)
}

/// `GET /api/games/{id}`: the position, its legal moves and the record.
async fn show(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    Query(at): Query<ShowAt>,
) -> Result<Json<Value>, ApiError> {
    let (n, played) = find(&server, &id)?;
    describe_at(&server, n, played, at.ply).await.map(Json)
}

/// `POST /api/games/{id}/move` (`{"move": "e2e4"}`): plays a legal move,
/// named as `moves` names it (or in SAN).
async fn play_move(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    body: Result<Json<PlayMove>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(body) = body.map_err(|e| ApiError(e.status(), e.body_text()))?;
    let (n, played) = find(&server, &id)?;
    let game = server.game.clone();
    let p = played.clone();
    blocking("the move could not be played", move || -> Result<(), ApiError> {
        let mut p = p.lock().expect("a game's lock is never poisoned");
        let state = p.states.last().expect("a game has a position").clone();
        let mut cache = Cache::new();
        let (legal, ending) = legal_and_ending(&game, &state, &mut cache)?;
        if ending.is_some() {
            return Err(bad("the game is over"));
        }
        let i = game
            .read_move(&state, &legal, &body.name)
            .map_err(|e| bad(e.to_string()))?;
        push(&game, &mut p, &state, &legal, i);
        Ok(())
    })
    .await?;
    describe(&server, n, played).await.map(Json)
}

/// Plays the `i`th of `legal` in `p`, recording its name and its SAN.
fn push(game: &Game, p: &mut Played, state: &State, legal: &[Action], i: usize) {
    let names = game.move_names(state, legal);
    let next = game.play(state, &legal[i]);
    let san = game.san(state, &legal[i], legal, &mut Cache::new());
    p.record.push(san.unwrap_or_else(|_| names[i].clone()));
    p.names.push(names[i].clone());
    p.actions.push(legal[i].clone());
    p.states.push(next);
}

/// `POST /api/games/{id}/undo`: takes the last move back.
async fn undo(Shared(server): Shared<Arc<Server>>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let (n, played) = find(&server, &id)?;
    {
        let mut p = played.lock().expect("a game's lock is never poisoned");
        if p.states.len() < 2 {
            return Err(bad("there is no move to take back"));
        }
        p.states.pop();
        p.actions.pop();
        p.names.pop();
        p.record.pop();
    }
    describe(&server, n, played).await.map(Json)
}

/// `POST /api/games/{id}/ai` (`{"time_ms": 500}` optional): the AI plays
/// the player to move, thinking off the request path for at most the
/// server's cap (`{"random": true}`: a random legal move).
async fn ai_move(
    Shared(server): Shared<Arc<Server>>,
    Path(id): Path<String>,
    body: Option<Json<AiMove>>,
) -> Result<Json<Value>, ApiError> {
    let (n, played) = find(&server, &id)?;
    let body = body.map(|Json(b)| b).unwrap_or_default();
    let asked = body.time_ms.map(Duration::from_millis);
    let random = body.random;
    let time = asked.unwrap_or(server.options.ai_time).min(server.options.ai_cap);
    let depth = server.options.ai_depth;
    let weights = server.options.weights.clone();
    let game = server.game.clone();
    let p = played.clone();
    blocking("the AI could not move", move || -> Result<(), ApiError> {
        let state = p
            .lock()
            .expect("a game's lock is never poisoned")
            .states
            .last()
            .cloned();
        let state = state.expect("a game has a position");
        let mut cache = Cache::new();
        let (legal, ending) = legal_and_ending(&game, &state, &mut cache)?;
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
            let w = weights.get(state.turn().index()).cloned().flatten();
            Ai::new(0x5eed)
                .with_weights(w)
                .choose(&game, &state, &legal, budget, &mut cache)
                .map_err(|e| bad(e.to_string()))?
                .index
        };
        let mut p = p.lock().expect("a game's lock is never poisoned");
        // The game moved on while the AI thought (a move or an undo): its
        // choice is for a position no longer there.
        if p.states.last() != Some(&state) {
            return Err(ApiError(
                StatusCode::CONFLICT,
                "the position changed while the AI thought".into(),
            ));
        }
        push(&game, &mut p, &state, &legal, index);
        Ok(())
    })
    .await?;
    describe(&server, n, played).await.map(Json)
}

/// `GET /api/games/{id}/pgn`: the game so far as PGN.
async fn pgn(Shared(server): Shared<Arc<Server>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let (_, played) = find(&server, &id)?;
    let game = server.game.clone();
    let text = blocking(
        "the record could not be written",
        move || -> Result<String, ApiError> {
            let p = played.lock().expect("a game's lock is never poisoned");
            let mut cache = Cache::new();
            let last = p.states.last().expect("a game has a position");
            let (_, ending) = legal_and_ending(&game, last, &mut cache)?;
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
    let (_, played) = find(&server, &id)?;
    let game = server.game.clone();
    let svg = blocking("the position could not be drawn", move || {
        let p = played.lock().expect("a game's lock is never poisoned");
        let (state, _, _) = p.at(at.ply)?;
        Ok(svg::position_svg(&game, state))
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
    let (_, played) = find(&server, &id)?;
    let (spec, game) = (server.spec.clone(), server.game.clone());
    blocking("the move could not be explained", move || {
        let p = played.lock().expect("a game's lock is never poisoned");
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

/// How a game stands: ended (and why), or not.
type Standing = Option<(Ending, Reason)>;

/// The legal moves of `state` and how the game stands there (ended, and
/// why, or not), as every handler needs them.
fn legal_and_ending(
    game: &Game,
    state: &State,
    cache: &mut Cache,
) -> Result<(Vec<Action>, Standing), ApiError> {
    let legal = game.legal_actions(state, cache).map_err(|e| bad(e.to_string()))?;
    let ending = game
        .ending_reason(state, &legal, cache)
        .map_err(|e| bad(e.to_string()))?;
    Ok((legal, ending))
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

/// The JSON a game is shown as: board, turn, legal moves, record, result.
async fn describe(server: &Arc<Server>, id: u64, played: Arc<Mutex<Played>>) -> Result<Value, ApiError> {
    describe_at(server, id, played, None).await
}

/// The JSON of the position after `ply` moves (`None`: the last).
async fn describe_at(
    server: &Arc<Server>,
    id: u64,
    played: Arc<Mutex<Played>>,
    ply: Option<usize>,
) -> Result<Value, ApiError> {
    let game = server.game.clone();
    blocking("the game could not be shown", move || {
        let p = played.lock().expect("a game's lock is never poisoned");
        describe_now(&game, id, &p, ply)
    })
    .await
}

fn describe_now(game: &Game, id: u64, p: &Played, ply: Option<usize>) -> Result<Value, ApiError> {
    let (state, shown, last) = p.at(ply)?;
    let mut cache = Cache::new();
    let (legal, ending) = legal_and_ending(game, state, &mut cache)?;
    let (files, ranks) = game.dimensions();
    let label = |at: Coord| game.square_label(at);
    let mut cells = Vec::new();
    for (at, content) in state.position().squares() {
        let file = at.x - game.square_at(0, 0).x;
        let rank = at.y - game.square_at(0, 0).y;
        let (piece, marks, owner, letter) = match content {
            Content::Piece(pc, marks) => {
                let info = game.piece_info(pc);
                (
                    Some(game.pieces().symbol(pc).to_string()),
                    Some(game.pieces().mark_symbols(marks)),
                    info.owner.map(|o| o.index()),
                    info.fen.map(|l| l.to_string()),
                )
            }
            _ => (None, None, None, None),
        };
        cells.push(json!({
            "square": label(at), "file": file, "rank": rank,
            "piece": piece, "marks": marks, "owner": owner, "letter": letter,
            "dark": (file + rank) % 2 == 0,
        }));
    }
    // A past position is shown, not played from.
    let names = if ending.is_some() || shown != last {
        Vec::new()
    } else {
        game.move_names(state, &legal)
    };
    let clicks = if names.is_empty() {
        Vec::new()
    } else {
        game.click_sequences(state, &legal)
    };
    let moves: Vec<Value> = names
        .iter()
        .zip(&legal)
        .zip(&clicks)
        .map(|((name, action), clicks)| {
            let drop = game.dropped_piece(state, action);
            let to = action
                .to()
                .filter(|&t| Some(t) != action.from())
                .or_else(|| drop.map(|(_, at)| at))
                .or_else(|| game.placed_square(state, action));
            json!({
                "name": name,
                "from": if drop.is_some() { None } else { action.from().filter(|&f| Some(f) != to).map(label) },
                "to": to.map(label),
                "drop": drop.map(|(pc, _)| game.pieces().symbol(pc).to_string()),
                "pass": action.is_pass(),
                "clicks": clicks.iter().map(|&at| label(at)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut pockets = Vec::new();
    for slot in 0..game.pieces().box_count() * game.pieces().len() {
        let n = state.position().tally(slot);
        if n > 0 {
            let (bx, pc) = game.pieces().slot_of(slot);
            pockets.push(json!({
                "box": game.pieces().box_name(bx),
                "piece": game.pieces().symbol(pc).to_string(),
                "owner": game.piece_info(pc).owner.map(|o| o.index()),
                "count": n,
            }));
        }
    }
    let player = |p: PlayerId| game.players()[p.index()].clone();
    let result = ending.map(|(e, reason)| match e {
        Ending::Win(p) => json!({ "winner": player(p), "reason": reason.to_string() }),
        Ending::Draw => json!({ "winner": null, "reason": reason.to_string() }),
    });
    Ok(json!({
        "id": id,
        "game": game.name(),
        "players": game.players(),
        "files": files,
        "ranks": ranks,
        "turn": player(state.turn()),
        "fen": game.to_fen(state),
        "board": cells,
        "svg": svg::position_svg(game, state),
        "pockets": pockets,
        "legal": moves,
        "ply": shown,
        "plies": last,
        "history": p.names,
        "record": p.record,
        "result": result,
    }))
}
