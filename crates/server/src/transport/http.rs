//! The HTTP side: the JSON API, the WebSocket endpoint and the page, served with deadlines.
//!
//! * Each connection counts against the server's connection budget; a client must send a
//!   request's headers within `http_header_timeout`, also while a kept-alive connection idles.
//! * Requests whose `Host` is neither an IP address, `localhost` nor an allowed name are refused
//!   (a page on another domain cannot reach the server through DNS rebinding); the WebSocket
//!   also refuses pages of other origins unless they are allowed.

use std::sync::Arc;
use std::time::Duration;

use arbiter_ai::Catalogue;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap};
use axum::middleware::Next as Middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::ServiceExt;

use super::limits::{Admissions, Crowded};
use super::session::ConnConfig;
use crate::api::{self, ApiError, ApiState, Engines};
use crate::rooms::Hub;
use crate::storage::Storage;
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
        config: &ServerConfig,
    ) -> HttpState {
        let api = ApiState::new(
            hub.clone(),
            store,
            conn.registry.clone(),
            Arc::new(Engines::of::<C>()),
            &config.api,
        );
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

/// Accepts HTTP connections until `stopped`, each within the connection budget and deadlines.
pub async fn serve(
    listener: TcpListener,
    state: HttpState,
    admissions: Arc<Admissions>,
    header_timeout: Duration,
    mut stopped: watch::Receiver<bool>,
) {
    let max_head = state.api.limits.max_head_bytes.max(8192);
    let app = router(state);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopped.wait_for(|s| *s) => break,
        };
        let (stream, addr) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                tracing::warn!("HTTP accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let admitted = match admissions.admit(addr.ip()) {
            Ok(admitted) => admitted,
            Err(why) => {
                tokio::spawn(refuse_http(stream, why));
                continue;
            }
        };
        let app = app.clone();
        tokio::spawn(async move {
            let _admitted = admitted;
            // hyper's header deadline starts with the first byte: a client that sends none at
            // all is cut off here.
            let mut first = [0u8; 1];
            if !matches!(
                tokio::time::timeout(header_timeout, stream.peek(&mut first)).await,
                Ok(Ok(1))
            ) {
                return;
            }
            let _ = stream.set_nodelay(true);
            let service = app.map_request(move |mut request: Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(addr));
                request
            });
            let service = hyper_util::service::TowerToHyperService::new(service);
            let mut builder =
                hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
            builder
                .http1()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .max_buf_size(max_head);
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = builder.serve_connection_with_upgrades(io, service).await;
        });
    }
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
