//! The web API's requests with JSON bodies from the fuzzer: every request
//! gets a status and a body, never a panic, and the server goes on
//! answering (`GET /api/info` after each input).
#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use chessalg::decl::Spec;
use chessalg::session::Controller;
use chessalg::web::{ServeOptions, Store, routes};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

/// The paths a request may go to (`{id}` is a game's id: 1 to 3).
const PATHS: [&str; 9] = [
    "/api/games",
    "/api/games/{id}",
    "/api/games/{id}/move",
    "/api/games/{id}/undo",
    "/api/games/{id}/ai",
    "/api/games/{id}/pgn",
    "/api/games/{id}/svg",
    "/api/games/{id}/explain",
    "/api/info",
];

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

fn spec() -> Arc<Spec> {
    static SPEC: OnceLock<Arc<Spec>> = OnceLock::new();
    SPEC.get_or_init(|| {
        let source = chessalg::bundled::lookup("chess").expect("chess is bundled");
        Arc::new(Spec::load(&source).expect("chess loads").0)
    })
    .clone()
}

fuzz_target!(|data: &[u8]| {
    let game = chessalg_fuzz::bundled(0);
    let options = ServeOptions {
        ai_time: Duration::from_millis(5),
        ai_cap: Duration::from_millis(5),
        ai_depth: 1,
        seats: vec![Controller::Human; 2],
        weights: vec![None, None],
        ..ServeOptions::default()
    };
    let store = Store::in_memory().expect("an in-memory database");
    let app = routes(spec(), game, options, store);
    // Requests, one per line: a byte for the method and path, then the body.
    for line in data.split(|&b| b == b'\n').take(8) {
        let Some((&pick, body)) = line.split_first() else {
            continue;
        };
        let method = if pick & 0x80 == 0 {
            Method::POST
        } else {
            Method::GET
        };
        let id = 1 + (pick >> 4 & 3);
        let path = PATHS[(pick & 0x0f) as usize % PATHS.len()].replace("{id}", &id.to_string());
        let query = if pick & 0x40 != 0 { "?ply=1" } else { "" };
        let request = Request::builder()
            .method(method)
            .uri(format!("{path}{query}"))
            .header("content-type", "application/json")
            .body(Body::from(body.to_vec()))
            .expect("a request");
        let response = runtime()
            .block_on(app.clone().oneshot(request))
            .expect("an answer");
        assert_ne!(
            response.status(),
            StatusCode::INTERNAL_SERVER_ERROR,
            "{path} {body:?}"
        );
    }
    let info = Request::builder()
        .uri("/api/info")
        .body(Body::empty())
        .expect("a request");
    let response = runtime().block_on(app.oneshot(info)).expect("an answer");
    assert_eq!(response.status(), StatusCode::OK);
});
