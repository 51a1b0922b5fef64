//! The server's connections, each under limits: a connection must send a
//! request's head within the idle timeout of its opening or of its last
//! answer (so neither a slow head nor an idle keep-alive holds it), a
//! request must be answered within the request timeout, and at most
//! `max_connections` are open at once. When that many are open, the one
//! idle longest (no request under way, no event stream) is closed to make
//! room; when none is idle, the new connection is answered 503 at once.
//! Every request is told its client's address ([`ClientAddr`]) and its
//! connection ([`Link`]).

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::response::IntoResponse;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tower::ServiceExt;

use super::{ApiError, HostLimits};
use crate::session::now_ms;

/// The address of a request's client (none for a request made without a
/// socket, by a test or a fuzzer).
#[derive(Clone, Copy, Debug)]
pub(super) struct ClientAddr(pub(super) IpAddr);

/// How many connections being refused are answered at once (more are
/// closed unanswered).
const REFUSING_AT_ONCE: usize = 64;

/// The default cap on connections: three quarters of the open files this
/// process may have (each connection is one), between 16 and 8192.
pub(super) fn default_max_connections() -> usize {
    let files = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("Max open files"))?;
            line.split_whitespace().nth(3)?.parse::<usize>().ok()
        })
        .unwrap_or(1024);
    (files / 4 * 3).clamp(16, 8192)
}

/// One open connection: how many requests and streams it serves now,
/// since when it idles, and how to close it.
pub(super) struct Link {
    busy: AtomicUsize,
    idle_since: AtomicU64,
    close: Notify,
}

impl Link {
    fn new() -> Link {
        Link {
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(now_ms()),
            close: Notify::new(),
        }
    }
}

/// Keeps a connection at work while it lives (a request under way, an
/// event stream open): it is not closed to make room.
pub(super) struct Busy(Arc<Link>);

impl Busy {
    pub(super) fn new(link: Arc<Link>) -> Busy {
        link.busy.fetch_add(1, Ordering::SeqCst);
        Busy(link)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.idle_since.store(now_ms(), Ordering::SeqCst);
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The open connections.
struct Links {
    open: Mutex<HashMap<u64, Arc<Link>>>,
    next: AtomicU64,
    max: usize,
}

impl Links {
    /// A place for a new connection: its id and link, after closing the
    /// longest idle one if all places are taken; `None` if none is idle.
    fn admit(&self) -> Option<(u64, Arc<Link>)> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() >= self.max {
            let idle = (open.iter())
                .filter(|(_, l)| l.busy.load(Ordering::SeqCst) == 0)
                .min_by_key(|(_, l)| l.idle_since.load(Ordering::SeqCst))
                .map(|(&id, _)| id)?;
            if let Some(link) = open.remove(&idle) {
                link.close.notify_one();
            }
        }
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let link = Arc::new(Link::new());
        open.insert(id, link.clone());
        Some((id, link))
    }

    fn leave(&self, id: u64) {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }
}

/// Accepts connections on `listener` and serves `app` on each, under
/// `limits` (a request may take `ai_cap` more than the request timeout:
/// the AI's thinking), until the process ends.
pub(super) async fn run(
    listener: TcpListener,
    app: Router,
    limits: &HostLimits,
    ai_cap: Duration,
) -> std::io::Result<()> {
    let links = Arc::new(Links {
        open: Mutex::new(HashMap::new()),
        next: AtomicU64::new(0),
        max: limits.max_connections.max(1),
    });
    let refusing = Arc::new(Semaphore::new(REFUSING_AT_ONCE));
    let idle_timeout = limits.idle_timeout;
    let request_timeout = limits.request_timeout + ai_cap;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of files, or a connection gone before it was taken:
                // wait a little (the first frees files) and go on.
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                ) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        match links.admit() {
            Some((id, link)) => {
                let (app, links) = (app.clone(), links.clone());
                tokio::spawn(async move {
                    serve_one(stream, peer.ip(), app, link, idle_timeout, request_timeout).await;
                    links.leave(id);
                });
            }
            None => {
                if let Ok(permit) = refusing.clone().try_acquire_owned() {
                    tokio::spawn(refuse(stream, links.max, permit));
                }
            }
        }
    }
}

/// Serves HTTP/1.1 on one connection until it closes, it idles past
/// `idle_timeout`, or it is told to close.
async fn serve_one(
    stream: TcpStream,
    peer: IpAddr,
    app: Router,
    link: Arc<Link>,
    idle_timeout: Duration,
    request_timeout: Duration,
) {
    let for_requests = link.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let (app, link) = (app.clone(), for_requests.clone());
        async move {
            let _busy = Busy::new(link.clone());
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(ClientAddr(peer));
            request.extensions_mut().insert(link);
            let answer = match tokio::time::timeout(request_timeout, app.oneshot(request)).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(never)) => match never {},
                Err(_) => ApiError(
                    StatusCode::REQUEST_TIMEOUT,
                    format!("the request took longer than {} s", request_timeout.as_secs()),
                )
                .into_response(),
            };
            Ok::<_, Infallible>(answer)
        }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(idle_timeout)
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => {}
        () = link.close.notified() => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.as_mut().await;
        }
    }
}

/// Answers a connection past the cap with a 503, then closes it.
async fn refuse(mut stream: TcpStream, max: usize, _permit: OwnedSemaphorePermit) {
    // The request is read first (a little of it, briefly): a socket closed
    // with unread bytes is reset, and the client would see no answer.
    let mut head = [0u8; 4096];
    let _ = tokio::time::timeout(Duration::from_millis(200), stream.read(&mut head)).await;
    let body = serde_json::json!({
        "error": format!("the server has its most connections open ({max}), all at work: try again in a few seconds"),
    })
    .to_string();
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_closes_its_longest_idle_connection_and_refuses_when_all_work() {
        let links = Links {
            open: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            max: 2,
        };
        let (a, link_a) = links.admit().unwrap();
        let (_, link_b) = links.admit().unwrap();
        link_a.idle_since.store(1, Ordering::SeqCst);
        link_b.idle_since.store(2, Ordering::SeqCst);
        // Both idle: the older (a) is closed for the third.
        let (_, link_c) = links.admit().unwrap();
        assert!(!links.open.lock().unwrap().contains_key(&a));
        // Every one at work: nobody is closed, the fourth is refused.
        let _busy = (Busy::new(link_b.clone()), Busy::new(link_c.clone()));
        assert!(links.admit().is_none());
        drop(_busy);
        assert!(links.admit().is_some());
        assert!(default_max_connections() >= 16);
    }
}
