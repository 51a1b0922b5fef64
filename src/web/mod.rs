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
//! judged by the server. Players resign, offer and agree draws, ask a
//! move back, ask for a rematch and find opponents in a lobby of open
//! seats (the `room` module); every game counts who follows it.
//!
//! A server may be left running for strangers: every request, connection
//! and rule text from a browser is untrusted, and each has a limit
//! ([`HostLimits`]) whose answer is a clear error, never a server that
//! stops answering. One copy of a game is ever in memory (see the `games` module).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use crate::ai::Weights;
use crate::decl::Spec;
use crate::game::{Game, State};
use crate::session::{Controller, TimeControl};

mod api;
mod games;
mod listen;
mod played;
mod playground;
mod room;
pub mod store;
pub mod svg;

use games::{Games, Rate, RuleSet, RuleSets};
pub use store::{Store, StoreError};

/// The page: the game room (the board, drawn from the API, and its
/// panel), in files a person can read: its HTML, its style, and two
/// scripts (the board, the room).
const PAGE: &str = include_str!("page/index.html");

/// The page's files besides its HTML: path, content type, text.
const PAGE_FILES: [(&str, &str, &str); 16] = [
    (
        "/page/style.css",
        "text/css; charset=utf-8",
        include_str!("page/style.css"),
    ),
    (
        "/page/board.js",
        "text/javascript; charset=utf-8",
        include_str!("page/board.js"),
    ),
    (
        "/page/room.js",
        "text/javascript; charset=utf-8",
        include_str!("page/room.js"),
    ),
    // The chess pieces' pictures (chess-art by Maurizio Monge, MIT licence:
    // page/pieces/LICENSE).
    (
        "/page/pieces/wK.svg",
        "image/svg+xml",
        include_str!("page/pieces/wK.svg"),
    ),
    (
        "/page/pieces/wQ.svg",
        "image/svg+xml",
        include_str!("page/pieces/wQ.svg"),
    ),
    (
        "/page/pieces/wR.svg",
        "image/svg+xml",
        include_str!("page/pieces/wR.svg"),
    ),
    (
        "/page/pieces/wB.svg",
        "image/svg+xml",
        include_str!("page/pieces/wB.svg"),
    ),
    (
        "/page/pieces/wN.svg",
        "image/svg+xml",
        include_str!("page/pieces/wN.svg"),
    ),
    (
        "/page/pieces/wP.svg",
        "image/svg+xml",
        include_str!("page/pieces/wP.svg"),
    ),
    (
        "/page/pieces/bK.svg",
        "image/svg+xml",
        include_str!("page/pieces/bK.svg"),
    ),
    (
        "/page/pieces/bQ.svg",
        "image/svg+xml",
        include_str!("page/pieces/bQ.svg"),
    ),
    (
        "/page/pieces/bR.svg",
        "image/svg+xml",
        include_str!("page/pieces/bR.svg"),
    ),
    (
        "/page/pieces/bB.svg",
        "image/svg+xml",
        include_str!("page/pieces/bB.svg"),
    ),
    (
        "/page/pieces/bN.svg",
        "image/svg+xml",
        include_str!("page/pieces/bN.svg"),
    ),
    (
        "/page/pieces/bP.svg",
        "image/svg+xml",
        include_str!("page/pieces/bP.svg"),
    ),
    (
        "/page/pieces/LICENSE",
        "text/plain; charset=utf-8",
        include_str!("page/pieces/LICENSE"),
    ),
];

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

/// How many games the list of games (`GET /api/games`) shows.
const LISTED_GAMES: usize = 50;

/// What a server left running for strangers allows each of them: the
/// limits on connections, requests, games and rule texts. Each limit
/// reached is answered (503, 429, 413, a diagnostic), never waited on.
#[derive(Clone, Debug)]
pub struct HostLimits {
    /// Connections open at once; past it the longest idle one is closed
    /// to make room, and if none is idle a new one is answered 503.
    pub max_connections: usize,
    /// Event streams open at once (each holds a connection); past it, 503.
    pub max_streams: usize,
    /// How long a connection may take to send a request's head, from its
    /// opening or from its last answer (an idle keep-alive connection is
    /// closed then).
    pub idle_timeout: Duration,
    /// How long one request may take, its body read included (an AI
    /// request is given its thinking time on top).
    pub request_timeout: Duration,
    /// Games kept in memory; past it, those no request, stream or clock
    /// holds go, least recently used first (the database keeps them).
    pub max_games: usize,
    /// New games (and playground games) one client address may make a
    /// minute (a burst of as many is allowed); past it, 429.
    pub games_per_minute: u32,
    /// Rule texts one client address may have checked a minute; past it, 429.
    pub checks_per_minute: u32,
    /// Bytes the playground's rule sets may take in memory together; past
    /// it, games of the least recently used go (and come back from the
    /// database when asked for).
    pub playground_bytes: usize,
    /// How long a seek stays in the lobby unjoined.
    pub seek_life: Duration,
    /// How long a seat may have no event stream open before it counts as
    /// gone: its seek leaves the lobby, and if it is to move, its opponent
    /// may claim the game.
    pub away: Duration,
}

impl Default for HostLimits {
    fn default() -> Self {
        HostLimits {
            max_connections: listen::default_max_connections(),
            max_streams: listen::default_max_connections() / 2,
            idle_timeout: Duration::from_secs(20),
            request_timeout: Duration::from_secs(30),
            max_games: 10_000,
            games_per_minute: 30,
            checks_per_minute: 120,
            playground_bytes: 512 << 20,
            seek_life: Duration::from_secs(30 * 60),
            away: Duration::from_secs(3 * 60),
        }
    }
}

/// What `chessalg serve` was told on the command line.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Where to listen.
    pub addr: SocketAddr,
    /// The address people reach the server at (`https://chess.example.org`),
    /// which seat links start with; `None`: links relative to the page.
    pub public_url: Option<String>,
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
    pub clock: Option<TimeControl>,
    /// The limits on what strangers may do.
    pub limits: HostLimits,
    /// The text of the server's rule file, shown to visitors who open a
    /// game's rules (`None`: not shown).
    pub rules_text: Option<String>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            public_url: None,
            ai_time: Duration::from_secs(1),
            ai_cap: Duration::from_secs(10),
            ai_depth: 64,
            seats: Vec::new(),
            start: None,
            weights: Vec::new(),
            clock: None,
            limits: HostLimits::default(),
            rules_text: None,
        }
    }
}

/// What every request handler shares.
struct Server {
    /// The server's own rule file, as every game not of the playground
    /// is played under.
    rules: Arc<RuleSet>,
    games: Games,
    /// The playground's rule sets in memory, by text.
    rule_sets: RuleSets,
    store: Store,
    options: ServeOptions,
    /// Permits to check a rule text of the playground.
    checks: Arc<tokio::sync::Semaphore>,
    /// Permits to hold an event stream open.
    streams: Arc<tokio::sync::Semaphore>,
    /// Permits for the AI to think: one per core (more would only share
    /// the cores, each answer slower).
    thinking: Arc<tokio::sync::Semaphore>,
    /// New games per client address.
    new_games: Rate,
    /// Rule texts checked per client address.
    new_checks: Rate,
    /// Whether the work on the game's prospects has begun.
    warmed: std::sync::Once,
    /// The rows of the list of games, by id, with the version of the game
    /// each was made from (a game changes only in memory: a row of a game
    /// not in memory is still true).
    listed: std::sync::Mutex<std::collections::HashMap<u64, (u64, serde_json::Value)>>,
    /// The JSON of a new game at the start, not stored (`GET /api/start`).
    fresh: std::sync::OnceLock<serde_json::Value>,
}

impl Server {
    /// Works out what the AI wants to know of the server's game's pieces
    /// (see [`Game::prospects`]) on a thread of its own, off the request
    /// path, once: at start when a seat is the AI's, else at the first
    /// search (whose answers meanwhile use what is known). A server whose
    /// AI is never asked does none of this work, and its first requests
    /// share the cores with nothing.
    fn warm_prospects(&self) {
        self.warmed.call_once(|| {
            let game = self.rules.game.clone();
            std::thread::spawn(move || {
                game.prospects(&mut crate::engine::Cache::new());
            });
        });
    }
}

/// A request that cannot be answered: its status and a one-line reason,
/// sent as `{"error": REASON}`.
#[derive(Debug)]
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

fn unavailable(reason: impl Into<String>) -> ApiError {
    ApiError(StatusCode::SERVICE_UNAVAILABLE, reason.into())
}

/// A database failure, as a request sees it (the change was not made).
fn not_stored(e: StoreError) -> ApiError {
    match e {
        // Only a second copy of the game could have played it: the game
        // this request saw is not the game any more.
        StoreError::MoveTaken { .. } => {
            conflict(format!("the game moved on meanwhile ({e}): nothing was played"))
        }
        StoreError::BadRow { .. } => ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        _ => ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("not saved: {e}")),
    }
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
    let game = Arc::new(game);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.addr).await?;
        bound(listener.local_addr()?);
        let limits = options.limits.clone();
        let ai_cap = options.ai_cap;
        let app = routes(Arc::new(spec), game, options, store);
        listen::run(listener, app, &limits, ai_cap).await
    })
}

/// The server's routes for `game` (built from `spec`), its games kept in
/// `store`: what [`serve`] listens with, and what a test or a fuzzer sends
/// requests to without a socket.
pub fn routes(spec: Arc<Spec>, game: Arc<Game>, options: ServeOptions, store: Store) -> Router {
    let limits = &options.limits;
    let server = Server {
        rules: Arc::new(RuleSet::served(game, spec)),
        games: Games::new(limits.max_games, limits.playground_bytes),
        rule_sets: RuleSets::default(),
        store,
        checks: Arc::new(tokio::sync::Semaphore::new(CHECKS_AT_ONCE)),
        streams: Arc::new(tokio::sync::Semaphore::new(limits.max_streams.max(1))),
        thinking: Arc::new(tokio::sync::Semaphore::new(
            std::thread::available_parallelism().map_or(1, |n| n.get()),
        )),
        new_games: Rate::per_minute(limits.games_per_minute),
        new_checks: Rate::per_minute(limits.checks_per_minute),
        warmed: std::sync::Once::new(),
        listed: std::sync::Mutex::new(std::collections::HashMap::new()),
        fresh: std::sync::OnceLock::new(),
        options,
    };
    if server.options.seats.contains(&Controller::Ai) {
        server.warm_prospects();
    }
    router(Arc::new(server))
}

fn router(server: Arc<Server>) -> Router {
    let mut router = Router::new();
    for (path, kind, text) in PAGE_FILES {
        // The pictures never change within a build: a board redrawn on
        // each move asks for none of them again.
        let keep = if path.starts_with("/page/pieces/") {
            "public, max-age=86400"
        } else {
            "no-cache"
        };
        router = router.route(
            path,
            get(move || async move {
                (
                    [
                        (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
                        (header::CACHE_CONTROL, HeaderValue::from_static(keep)),
                    ],
                    text,
                )
            }),
        );
    }
    router
        .route("/", get(|| async { Html(PAGE) }))
        .route("/api/info", get(api::info))
        .route("/api/status", get(api::status))
        .route("/api/games", post(api::new_game).get(api::list_games))
        .route("/api/games/{id}", get(api::show))
        .route("/api/games/{id}/events", get(api::events))
        .route("/api/games/{id}/rules", get(api::rules_of))
        .route("/api/games/{id}/move", post(api::play_move))
        .route("/api/games/{id}/undo", post(api::undo))
        .route("/api/games/{id}/ai", post(api::ai_move))
        .route("/api/games/{id}/pgn", get(api::pgn))
        .route("/api/games/{id}/svg", get(api::picture))
        .route("/api/games/{id}/explain", get(api::explain_move))
        .route("/api/games/{id}/resign", post(room::resign))
        .route("/api/games/{id}/draw", post(room::draw))
        .route("/api/games/{id}/takeback", post(room::takeback))
        .route("/api/games/{id}/rematch", post(room::rematch))
        .route("/api/games/{id}/claim", post(room::claim))
        .route("/api/start", get(room::start))
        .route("/api/seeks", post(room::new_seek).get(room::seeks))
        .route("/api/seeks/{id}/join", post(room::join_seek))
        .route("/playground", get(|| async { Html(PLAYGROUND) }))
        .route(
            "/api/rules",
            post(api::check_rules).layer(DefaultBodyLimit::max(MAX_RULES_BODY)),
        )
        .route("/api/rules/bundled", get(api::bundled_list))
        .route("/api/rules/bundled/{name}", get(api::bundled_text))
        .fallback(|| async { ApiError(StatusCode::NOT_FOUND, "no such page or API".into()) })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::map_response(errors_as_json))
        .with_state(server)
}

/// Every error an API request gets is `{"error": ...}`: the answers axum
/// itself gives (a body too large, a body that is not JSON, a method the
/// path does not take) come as plain text, and are put in that form here.
async fn errors_as_json(response: Response) -> Response {
    let status = response.status();
    let json = HeaderValue::from_static("application/json");
    if !(status.is_client_error() || status.is_server_error())
        || response.headers().get(header::CONTENT_TYPE) == Some(&json)
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, MAX_BODY).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let reason = match text.trim() {
        "" => status.canonical_reason().unwrap_or("error").to_lowercase(),
        said => said.to_string(),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(header::CONTENT_TYPE, json);
    let body = json!({ "error": reason }).to_string();
    Response::from_parts(parts, axum::body::Body::from(body))
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
