//! The HTTP side: the JSON API, the WebSocket endpoint and the page, served with deadlines.
//!
//! * Each connection counts against the server's connection budget (a WebSocket too, until its
//!   socket closes). HTTP/1 and HTTP/2 connections alike must send a request's headers within
//!   `http_header_timeout`, also while they idle between requests, and its body within
//!   `http_body_timeout` (or get a 408); none lives past `http_max_age`.
//! * Requests whose `Host` is neither an IP address, `localhost` nor an allowed name are refused
//!   (a page on another domain cannot reach the server through DNS rebinding); the WebSocket
//!   also refuses pages of other origins unless they are allowed.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use arbiter_ai::Catalogue;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next as Middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt;

use super::bare::JsonErrors;
use super::deadline::{Counted, Requests, TimedBody, Tracked};
use super::limits::{Admissions, Crowded};
use super::proxy::Proxies;
use super::session::ConnConfig;
use crate::api::gate::CpuGate;
use crate::api::{self, ApiError, ApiState, Engines};
use crate::rooms::Hub;
use crate::storage::{DbLocation, Storage};
use crate::ServerConfig;

/// What the HTTP transport's handlers share: the API's state, and what the WebSocket and the
/// host and origin checks need.
#[derive(Clone)]
pub struct HttpState {
    pub api: ApiState,
    pub hub: Arc<Hub>,
    pub conn: ConnConfig,
    pub(crate) allow_origins: Arc<Vec<String>>,
    allow_hosts: Arc<Vec<String>>,
}

impl HttpState {
    pub fn new<C: Catalogue>(
        hub: Arc<Hub>,
        store: Storage,
        conn: ConnConfig,
        cpu: Arc<CpuGate>,
        config: &ServerConfig,
    ) -> HttpState {
        let mut api = ApiState::new(
            hub.clone(),
            store,
            conn.registry.clone(),
            Arc::new(Engines::of::<C>()),
            &config.api,
            cpu,
        );
        if let DbLocation::Postgres(url) = &config.db {
            api.arena_queue = Some(Arc::new(crate::api::arena_tests::ArenaTests::new(url)));
        }
        HttpState {
            api,
            hub,
            conn,
            allow_origins: Arc::new(config.allow_origins.clone()),
            allow_hosts: Arc::new(config.allow_hosts.clone()),
        }
    }
}

/// The API, the WebSocket and the page, behind the host check.
pub fn router(state: HttpState) -> Router {
    let routes = api::router(state.api.clone()).route("/ws", get(super::ws::websocket));
    api::fallbacks(routes, &state.api.limits)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            check_host,
        ))
        .with_state(state)
}

/// An HTTP connection's deadlines (see [`crate::ServerConfig`]).
#[derive(Clone, Copy, Debug)]
pub struct HttpDeadlines {
    /// A request's headers must arrive within this long, also while the connection idles
    /// between requests; also the time a closing connection gets to finish.
    pub header: Duration,
    /// A request's body must arrive within this long of its headers.
    pub body: Duration,
    /// The connection is closed, after its current request, this long after it opened.
    pub max_age: Duration,
}

/// Accepts HTTP connections until `stopped`, each within the connection budget of its address
/// (the client's, behind a trusted balancer) and the deadlines.
pub async fn serve(
    listener: TcpListener,
    state: HttpState,
    admissions: Arc<Admissions>,
    deadlines: HttpDeadlines,
    proxies: Proxies,
    mut stopped: watch::Receiver<bool>,
) {
    let max_head = state.api.limits.max_head_bytes.max(8192);
    let app = router(state);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopped.wait_for(|s| *s) => break,
        };
        let (mut stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                tracing::warn!("HTTP accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let (app, admissions, proxies) = (app.clone(), admissions.clone(), proxies.clone());
        tokio::spawn(async move {
            let Some(addr) = proxies.origin(&mut stream, peer).await.map(|o| o.addr) else {
                return;
            };
            match admissions.admit(addr.ip()) {
                Ok(admitted) => {
                    let io = Counted::new(stream, admitted);
                    serve_connection(io, addr, app, deadlines, max_head).await;
                }
                Err(why) => refuse_http(stream, why).await,
            }
        });
    }
}

/// Serves one connection, HTTP/1 or HTTP/2 (prior knowledge), until it ends, carries no request
/// for the header deadline, or reaches its maximum age; then it gets the header deadline to
/// finish what it is doing. A WebSocket leaves with its socket (and its place in the budget).
async fn serve_connection(
    io: Counted<TcpStream>,
    addr: SocketAddr,
    app: Router,
    deadlines: HttpDeadlines,
    max_head: usize,
) {
    let mut requests = Requests::new();
    let service = timed_service(app, addr, &requests, deadlines.body);
    let service = hyper_util::service::TowerToHyperService::new(service);
    let mut builder =
        hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
    builder
        .http1()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(deadlines.header)
        .max_buf_size(max_head);
    builder
        .http2()
        .max_header_list_size(u32::try_from(max_head).unwrap_or(u32::MAX))
        .timer(hyper_util::rt::TokioTimer::new())
        .keep_alive_interval(Some(H2_PING_EVERY))
        .keep_alive_timeout(H2_PING_EVERY);
    let connection =
        builder.serve_connection_with_upgrades(TokioIo::new(JsonErrors::new(io)), service);
    tokio::pin!(connection);
    let why = tokio::select! {
        _ = connection.as_mut() => return,
        _ = requests.idle_for(deadlines.header) => "idle",
        _ = tokio::time::sleep(deadlines.max_age) => "at its maximum age",
    };
    tracing::debug!("closing HTTP connection {addr}: {why}");
    connection.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(deadlines.header, connection).await;
}

/// How often an HTTP/2 client is pinged; one that does not answer within as long is gone.
const H2_PING_EVERY: Duration = Duration::from_secs(20);

/// The router for one connection: each request counted while under way, its body held to the
/// body deadline (408 when it is late), and the peer's address known to the handlers.
fn timed_service(
    app: Router,
    addr: SocketAddr,
    requests: &Requests,
    body_deadline: Duration,
) -> impl tower::Service<
    Request<hyper::body::Incoming>,
    Response = Response,
    Error = std::convert::Infallible,
    Future = impl Send,
> + Clone {
    let requests = requests.counter();
    tower::service_fn(move |request: Request<hyper::body::Incoming>| {
        let in_flight = requests.begin();
        let late = Arc::new(AtomicBool::new(false));
        let mut request =
            request.map(|body| Body::new(TimedBody::new(body, body_deadline, late.clone())));
        request.extensions_mut().insert(ConnectInfo(addr));
        let app = app.clone();
        async move {
            let mut response = app.oneshot(request).await?;
            if late.load(Ordering::Relaxed) {
                response = body_too_slow(body_deadline);
            }
            Ok(response.map(|body| Body::new(Tracked::new(body, in_flight))))
        }
    })
}

/// The answer to a request whose body did not arrive in time; the connection is closed.
fn body_too_slow(deadline: Duration) -> Response {
    let error = format!(
        "the request body did not arrive within {} ms of its headers",
        deadline.as_millis()
    );
    let body = serde_json::json!({ "error": error });
    (
        StatusCode::REQUEST_TIMEOUT,
        [(header::CONNECTION, "close")],
        axum::Json(body),
    )
        .into_response()
}

/// Answers a connection over the budget with a 503 and hangs up.
async fn refuse_http(mut stream: tokio::net::TcpStream, why: Crowded) {
    use tokio::io::AsyncWriteExt;
    let body = serde_json::json!({ "error": why.to_string() }).to_string();
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), stream.write_all(answer.as_bytes())).await;
}

/// The host part of a `Host` header or an origin's authority (`[::1]:8080` → `::1`).
fn host_name(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    authority.rsplit_once(':').map_or(authority, |(h, _)| h)
}

fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let name = host_name(host);
    name.parse::<std::net::IpAddr>().is_ok()
        || name.eq_ignore_ascii_case("localhost")
        || allowed
            .iter()
            .any(|a| a.eq_ignore_ascii_case(name) || a == "*")
}

async fn check_host(
    State(state): State<HttpState>,
    request: Request,
    next: Middleware,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !host.is_empty() && !host_allowed(host, &state.allow_hosts) {
        let refused = ApiError::Host {
            host: arbiter_core::text::shorten(host).to_string(),
            name: arbiter_core::text::shorten(host_name(host)).to_string(),
        };
        return refused.into_response();
    }
    next.run(request).await
}

/// A browser page may open the WebSocket from the server's own origin, or one allowed with
/// `--allow-origin`; programs that send no `Origin` are not browsers and may.
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
        return true;
    };
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let authority = origin.split_once("://").map_or(origin, |(_, a)| a);
    authority.eq_ignore_ascii_case(host)
        || allowed
            .iter()
            .any(|a| a == "*" || a.trim_end_matches('/').eq_ignore_ascii_case(origin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        let none: Vec<String> = Vec::new();
        for host in ["127.0.0.1:8080", "[::1]:8080", "localhost:8080", "10.1.2.3"] {
            assert!(host_allowed(host, &none), "{host}");
        }
        assert!(!host_allowed("evil.example:8080", &none));
        assert!(host_allowed(
            "games.example.org",
            &["games.example.org".into()]
        ));
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, "127.0.0.1:8080".parse().unwrap());
        assert!(origin_allowed(&headers, &none));
        headers.insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
        assert!(origin_allowed(&headers, &none));
        headers.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        assert!(!origin_allowed(&headers, &none));
        assert!(origin_allowed(&headers, &["https://evil.example".into()]));
    }
}
