//! The playground's rule text through the HTTP API, as a browser sends it:
//! every text (checked, or checked and played) gets an answer within the
//! check's time, never a panic nor a 500, and the server goes on answering
//! (`GET /api/info`, and a known text checked clean, after each input).
#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use chessalg::decl::Spec;
use chessalg::web::{ServeOptions, Store, routes};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

/// One server for the whole run: what one text leaves behind (rule sets,
/// games, permits) meets the next.
fn app() -> axum::Router {
    static APP: OnceLock<axum::Router> = OnceLock::new();
    APP.get_or_init(|| {
        let source = chessalg::bundled::lookup("tictactoe").expect("tictactoe is bundled");
        let spec = Arc::new(Spec::load(&source).expect("tictactoe loads").0);
        let game = chessalg_fuzz::bundled(0);
        let options = ServeOptions {
            ai_time: Duration::from_millis(5),
            ai_cap: Duration::from_millis(5),
            ai_depth: 1,
            ..ServeOptions::default()
        };
        routes(
            spec,
            game,
            options,
            Store::in_memory().expect("an in-memory database"),
        )
    })
    .clone()
}

/// POSTs `body` to `/api/rules`; the status and the answer.
fn check(body: String) -> (StatusCode, serde_json::Value) {
    let request = Request::builder()
        .method(Method::POST)
        .uri("/api/rules")
        .header("content-type", "application/json")
        .body(Body::from(body))
        .expect("a request");
    runtime().block_on(async {
        let response = app().oneshot(request).await.expect("an answer");
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 24)
            .await
            .expect("a body");
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    // The first byte: play the text or only check it.
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(text).into_owned();
    let started = Instant::now();
    let (status, answer) = check(serde_json::json!({ "text": text, "play": pick & 1 == 1 }).to_string());
    assert!(
        matches!(status.as_u16(), 200 | 400 | 422 | 429 | 503),
        "{status}: {answer}"
    );
    assert!(answer.is_object(), "{status}: not JSON");
    // The check's time (3 s) and the little it takes to wind down.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let known = chessalg::bundled::text("tictactoe.alg")
        .expect("bundled")
        .to_string();
    let (status, answer) = check(serde_json::json!({ "text": known }).to_string());
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(
        answer["diagnostics"]
            .as_array()
            .is_some_and(|d| d.iter().all(|d| d["severity"] != "error")),
        "{answer}"
    );
});
