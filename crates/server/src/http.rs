//! The HTTP side: the JSON API, the WebSocket endpoint and the page, served with deadlines.
//!
//! * Each connection counts against the server's connection budget; a client must send a
//!   request's headers within `http_header_timeout`, also while a kept-alive connection idles.
//! * Requests whose `Host` is neither an IP address, `localhost` nor an allowed name are refused
//!   (a page on another domain cannot reach the server through DNS rebinding); the WebSocket
//!   also refuses pages of other origins unless they are allowed.
//! * AI and analysis requests run a few at a time, a short queue waits, more get 503; a request
//!   whose client goes away stops its search.
//! * Every error is JSON: `{"error": "..."}`.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next as Middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

use crate::conn::{ConnConfig, Next, Session};
use crate::limits::Admissions;
use crate::outbox::{Inbox, WRITE_TIMEOUT};
use crate::protocol::MAX_LINE;
use crate::room::Hub;
use crate::store::Store;
use crate::web_api::GameRequest;
use crate::ServerConfig;

#[derive(Clone)]
pub struct AppState {
    pub hub: Arc<Hub>,
    pub store: Store,
    pub conn: ConnConfig,
    ai: Arc<AiGate>,
    allow_origins: Arc<Vec<String>>,
    allow_hosts: Arc<Vec<String>>,
}

impl AppState {
    pub fn new(hub: Arc<Hub>, store: Store, conn: ConnConfig, config: &ServerConfig) -> AppState {
        AppState {
            hub,
            store,
            conn,
            ai: Arc::new(AiGate::new(config.ai_workers)),
            allow_origins: Arc::new(config.allow_origins.clone()),
            allow_hosts: Arc::new(config.allow_hosts.clone()),
        }
    }
}

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/catalogue", get(catalogue))
        .route("/api/rooms", get(rooms))
        .route("/api/games", get(games).post(create_game))
        .route("/api/games/{id}", get(game).put(update_game))
        .route("/api/state", post(api_state))
        .route("/api/ai", post(api_ai))
        .route("/api/analyze", post(api_analyze))
        .route("/api/judge/{game}", post(api_judge))
        .route("/ws", get(websocket))
        .fallback(static_file)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            check_host,
        ))
        .with_state(state)
}

/// Accepts HTTP connections until `stopped`, each within the connection budget and deadlines.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    admissions: Arc<Admissions>,
    header_timeout: Duration,
    mut stopped: watch::Receiver<bool>,
) {
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
                .header_read_timeout(header_timeout);
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = builder.serve_connection_with_upgrades(io, service).await;
        });
    }
}

/// Answers a connection over the budget with a 503 and hangs up.
async fn refuse_http(mut stream: tokio::net::TcpStream, why: String) {
    use tokio::io::AsyncWriteExt;
    let body = serde_json::json!({ "error": why }).to_string();
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), stream.write_all(answer.as_bytes())).await;
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}

async fn method_not_allowed(request: Request) -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{} does not take {}",
            request.uri().path(),
            request.method()
        ),
    )
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

async fn check_host(State(state): State<AppState>, request: Request, next: Middleware) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !host.is_empty() && !host_allowed(host, &state.allow_hosts) {
        return error(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "this server does not answer for the host `{}` (start it with --allow-host {})",
                arbiter_core::text::shorten(host),
                arbiter_core::text::shorten(host_name(host))
            ),
        );
    }
    next.run(request).await
}

/// A browser page may open the WebSocket from the server's own origin, or one allowed with
/// `--allow-origin`; programs that send no `Origin` are not browsers and may.
fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
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

async fn static_file(uri: axum::http::Uri) -> Response {
    if uri.path() == "/favicon.ico" {
        return StatusCode::NO_CONTENT.into_response();
    }
    match crate::web::find(uri.path()) {
        Some(asset) => ([(header::CONTENT_TYPE, asset.content_type)], asset.body).into_response(),
        None => error(StatusCode::NOT_FOUND, format!("no page at {}", uri.path())),
    }
}

/// AI and analysis requests: a few computed at once, a short queue, 503 beyond it.
struct AiGate {
    running: Semaphore,
    waiting: AtomicUsize,
    queue: usize,
}

impl AiGate {
    fn new(workers: usize) -> AiGate {
        let workers = workers.max(1);
        AiGate {
            running: Semaphore::new(workers),
            waiting: AtomicUsize::new(0),
            queue: 4 * workers,
        }
    }
}

/// Raises the flag when dropped: a request whose client went away (hyper drops its future)
/// stops its search.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `f` on the blocking pool within the AI gate; answers with its JSON or a JSON error.
async fn gated<T: serde::Serialize + Send + 'static>(
    gate: &AiGate,
    f: impl FnOnce(&AtomicBool) -> Result<T, String> + Send + 'static,
) -> Response {
    if gate.waiting.fetch_add(1, Ordering::Relaxed) >= gate.queue {
        gate.waiting.fetch_sub(1, Ordering::Relaxed);
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the AI is busy with other requests; try again in a moment",
        );
    }
    let permit = gate.running.acquire().await;
    gate.waiting.fetch_sub(1, Ordering::Relaxed);
    let Ok(_permit) = permit else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping");
    };
    let stop = Arc::new(AtomicBool::new(false));
    let _guard = StopOnDrop(stop.clone());
    match tokio::task::spawn_blocking(move || f(&stop)).await {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(e)) => error(StatusCode::BAD_REQUEST, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

fn bad_json(rejection: JsonRejection) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        format!(
            "the request is not the JSON expected: {}",
            rejection.body_text()
        ),
    )
}

async fn catalogue(State(state): State<AppState>) -> Response {
    Json(crate::web_api::catalogue(&state.conn.registry.games)).into_response()
}

async fn api_state(
    State(state): State<AppState>,
    request: Result<Json<GameRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let describe = state.conn.registry.state;
    match tokio::task::spawn_blocking(move || describe(&request)).await {
        Ok(Ok(view)) => Json(view).into_response(),
        Ok(Err(e)) => error(StatusCode::BAD_REQUEST, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn api_ai(
    State(state): State<AppState>,
    request: Result<Json<GameRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let ai = state.conn.registry.ai;
    gated(&state.ai, move |stop| ai(&request, stop)).await
}

async fn api_analyze(
    State(state): State<AppState>,
    request: Result<Json<GameRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let analyze = state.conn.registry.analyze;
    gated(&state.ai, move |stop| analyze(&request, stop)).await
}

#[derive(Deserialize)]
struct JudgeRequest {
    input: String,
}

/// The judge visualiser: the judge's trace of an input (at most 1 MiB).
async fn api_judge(
    State(state): State<AppState>,
    Path(game): Path<String>,
    request: Result<Json<JudgeRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let def = match state.conn.registry.find(&game) {
        Ok(def) => def,
        Err(e) => return error(StatusCode::NOT_FOUND, e),
    };
    if request.input.len() > arbiter_core::text::MAX_LINE_BYTES {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the visualiser takes at most 1 MiB of input",
        );
    }
    match tokio::task::spawn_blocking(move || crate::web_api::judge_trace(def, &request.input))
        .await
    {
        Ok(Ok(trace)) => Json(trace).into_response(),
        Ok(Err(e)) => error(StatusCode::BAD_REQUEST, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn rooms(State(state): State<AppState>) -> Response {
    Json(state.hub.rooms().await).into_response()
}

#[derive(Deserialize)]
struct GamesQuery {
    limit: Option<u32>,
    offset: Option<u32>,
    player: Option<String>,
}

async fn games(
    State(state): State<AppState>,
    query: Result<Query<GamesQuery>, QueryRejection>,
) -> Response {
    let Query(q) = match query {
        Ok(q) => q,
        Err(rejection) => return error(StatusCode::BAD_REQUEST, rejection.body_text()),
    };
    let store = state.store.clone();
    let limit = q.limit.unwrap_or(50).min(1000);
    let result = tokio::task::spawn_blocking(move || {
        store.list_games(limit, q.offset.unwrap_or(0), q.player.as_deref())
    })
    .await;
    match result {
        Ok(Ok(list)) => Json(list).into_response(),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// A game a page plays by itself (against the AI, at one screen), to be stored as it goes.
#[derive(Deserialize)]
struct CreateGame {
    game: String,
    #[serde(default)]
    players: [String; 2],
    /// `ai` or `local`.
    mode: String,
    level: Option<String>,
    #[serde(flatten)]
    options: std::collections::BTreeMap<String, u64>,
}

/// A player's name as stored: letters, digits, spaces, `_` and `-`, at most 32.
fn player_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '(' | ')'))
        .take(32)
        .collect();
    if clean.trim().is_empty() {
        "anonymous".into()
    } else {
        clean.trim().to_string()
    }
}

fn new_token() -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..32)
        .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.gen_range(0..36)]))
        .collect()
}

async fn create_game(
    State(state): State<AppState>,
    request: Result<Json<CreateGame>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    if !matches!(request.mode.as_str(), "ai" | "local") {
        return error(StatusCode::BAD_REQUEST, "mode must be `ai` or `local`");
    }
    let def = match state.conn.registry.find(&request.game) {
        Ok(def) => def,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    let pairs = request.options.iter().map(|(k, v)| (k.as_str(), *v));
    let options = match def.options_from(pairs) {
        Ok(o) => o,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.to_string()),
    };
    let mut settings = serde_json::Map::new();
    settings.insert("game".into(), def.id.into());
    for (name, value) in options.pairs() {
        settings.insert(name.into(), value.into());
    }
    settings.insert("mode".into(), request.mode.clone().into());
    if let Some(level) = request
        .level
        .as_deref()
        .filter(|l| matches!(*l, "easy" | "medium" | "hard"))
    {
        settings.insert("level".into(), level.into());
    }
    let names = [
        player_name(&request.players[0]),
        player_name(&request.players[1]),
    ];
    let token = new_token();
    let settings = serde_json::Value::Object(settings).to_string();
    match state
        .store
        .start_owned_game(def.id, &settings, [&names[0], &names[1]], &token)
        .await
    {
        Ok(id) => Json(serde_json::json!({ "id": id, "token": token })).into_response(),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e),
    }
}

/// The moves of a page's own game so far (all of them, each time: moves taken back are left
/// out), and a resignation.
#[derive(Deserialize)]
struct UpdateGame {
    token: String,
    moves: Vec<String>,
    /// `first` or `second`: that side resigned after the moves.
    resign: Option<String>,
}

/// The most moves a stored game of a page may have.
const MAX_STORED_MOVES: usize = 5000;

async fn update_game(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Result<Json<UpdateGame>, JsonRejection>,
) -> Response {
    let Json(update) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let Ok(id) = id.parse::<i64>() else {
        return error(StatusCode::BAD_REQUEST, "not a game number");
    };
    let store = state.store.clone();
    let owned = match tokio::task::spawn_blocking(move || store.owned_game(id)).await {
        Ok(Ok(Some(owned))) => owned,
        Ok(Ok(None)) => return error(StatusCode::NOT_FOUND, format!("no game {id}")),
        Ok(Err(e)) => return error(StatusCode::INTERNAL_SERVER_ERROR, e),
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    if owned.owner.as_deref() != Some(update.token.as_str()) {
        return error(StatusCode::FORBIDDEN, "this game is not yours to change");
    }
    if owned.ended {
        return error(StatusCode::CONFLICT, "the game is over");
    }
    if update.moves.len() > MAX_STORED_MOVES || !update.moves.starts_with(&owned.moves) {
        return error(
            StatusCode::CONFLICT,
            format!(
                "the moves must continue the {} stored ones",
                owned.moves.len()
            ),
        );
    }
    let request = match stored_request(&owned.settings, update.moves) {
        Ok(r) => r,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e),
    };
    let replay = state.conn.registry.replayed;
    let replayed = match tokio::task::spawn_blocking(move || replay(&request)).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return error(StatusCode::BAD_REQUEST, e),
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    match store_progress(
        &state.store,
        id,
        owned.moves.len(),
        &replayed,
        update.resign.as_deref(),
    )
    .await
    {
        Ok(end) => Json(serde_json::json!({
            "id": id,
            "plies": replayed.moves.len(),
            "end_reason": end,
        }))
        .into_response(),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e),
    }
}

/// A request for the rules from a stored game's settings and a move list.
fn stored_request(settings: &str, moves: Vec<String>) -> Result<GameRequest, String> {
    let value: serde_json::Value = serde_json::from_str(settings).map_err(|e| e.to_string())?;
    let map = value
        .as_object()
        .ok_or("stored settings are not an object")?;
    let game = map
        .get("game")
        .and_then(|g| g.as_str())
        .ok_or("no game in the settings")?;
    let options = map
        .iter()
        .filter_map(|(k, v)| {
            v.as_u64()
                .filter(|_| k != "timeout_ms")
                .map(|v| (k.clone(), v))
        })
        .collect();
    Ok(GameRequest {
        game: game.to_string(),
        moves,
        level: None,
        seed: None,
        options,
    })
}

/// Stores the new moves and, when the game ended (or a side resigned), its end; the end's name.
async fn store_progress(
    store: &Store,
    id: i64,
    stored: usize,
    replayed: &crate::web_api::Replayed,
    resign: Option<&str>,
) -> Result<Option<&'static str>, String> {
    for (i, (text, reason)) in replayed.moves.iter().enumerate().skip(stored) {
        store.record_move(id, i + 1, text, reason.name()).await?;
    }
    let texts: Vec<String> = replayed.moves.iter().map(|(t, _)| t.clone()).collect();
    let winner_digit = |w: Option<arbiter_core::Side>| w.map_or(2, |s| s.index() as u8);
    let end = match (&replayed.end, resign) {
        (Some(end), _) => Some((end.reason, winner_digit(end.winner))),
        (None, Some("first")) => Some((arbiter_core::EndReason::Resign, 1)),
        (None, Some("second")) => Some((arbiter_core::EndReason::Resign, 0)),
        (None, _) => None,
    };
    if let Some((reason, winner)) = end {
        let record = arbiter_core::outcome::record_with_end(&texts, reason);
        store
            .end_game(id, reason.name(), Some(winner), &record)
            .await?;
    }
    Ok(end.map(|(reason, _)| reason.name()))
}

async fn game(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return error(
            StatusCode::BAD_REQUEST,
            format!(
                "`{}` is not a game number",
                arbiter_core::text::shorten(&id)
            ),
        );
    };
    let store = state.store.clone();
    match tokio::task::spawn_blocking(move || store.game(id)).await {
        Ok(Ok(Some(game))) => Json(game).into_response(),
        Ok(Ok(None)) => error(StatusCode::NOT_FOUND, format!("no game {id}")),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn websocket(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Response {
    if !origin_allowed(&headers, &state.allow_origins) {
        let origin = headers
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            .unwrap_or("");
        return error(
            StatusCode::FORBIDDEN,
            format!(
                "pages from {} may not play here (start the server with --allow-origin {})",
                arbiter_core::text::shorten(origin),
                arbiter_core::text::shorten(origin)
            ),
        );
    }
    let upgrade = match upgrade {
        Ok(u) => u,
        Err(rejection) => return error(rejection.status(), rejection.body_text()),
    };
    upgrade
        .max_message_size(MAX_LINE * 2)
        .on_upgrade(move |socket| serve_websocket(socket, addr, state))
}

/// How often the server pings a WebSocket client, and how long it waits for any frame back.
const PING_EVERY: Duration = Duration::from_secs(20);
const PING_DEADLINE: Duration = Duration::from_secs(60);

async fn write_frames(
    mut inbox: Inbox,
    mut sink: futures_util::stream::SplitSink<WebSocket, WsMessage>,
) {
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        let frame = tokio::select! {
            line = inbox.next() => match line {
                Some(line) => {
                    let frame = WsMessage::Text(line.as_ref().into());
                    let sent = tokio::time::timeout(WRITE_TIMEOUT, sink.send(frame)).await;
                    inbox.written(&line);
                    sent
                }
                None => break,
            },
            _ = ping.tick() => tokio::time::timeout(WRITE_TIMEOUT, sink.send(WsMessage::Ping(Default::default()))).await,
        };
        if !matches!(frame, Ok(Ok(()))) {
            break;
        }
    }
    inbox.close();
    let _ = tokio::time::timeout(Duration::from_secs(1), sink.close()).await;
}

async fn serve_websocket(socket: WebSocket, addr: SocketAddr, state: AppState) {
    let (sink, mut stream) = socket.split();
    let (mut session, inbox) =
        Session::new(format!("ws:{addr}"), state.hub.clone(), state.conn.clone());
    session.speaks_extension();
    tracing::info!("connection from {addr} (WebSocket)");
    let mut writer = tokio::spawn(write_frames(inbox, sink));
    let mut heard = tokio::time::Instant::now();
    loop {
        let idle = session.idle_deadline();
        let frame = tokio::select! {
            frame = stream.next() => frame,
            _ = &mut writer => break,
            _ = session.changed() => continue,
            _ = tokio::time::sleep_until(heard + PING_DEADLINE) => {
                tracing::info!("closing ws:{addr}: no answer to pings");
                break;
            }
            _ = async { tokio::time::sleep_until(idle.expect("guarded")).await }, if idle.is_some() => {
                tracing::info!("closing ws:{addr}: no protocol progress for {} s", session.idle_limit().as_secs());
                break;
            }
        };
        heard = tokio::time::Instant::now();
        let next = match frame {
            None | Some(Err(_)) => break,
            Some(Ok(WsMessage::Text(text))) => frame_lines(&mut session, text.as_str()),
            Some(Ok(WsMessage::Binary(_))) => session.bad_line("binary frames are not messages"),
            Some(Ok(WsMessage::Close(_))) => break,
            Some(Ok(_)) => Next::Continue,
        };
        if next == Next::Close {
            break;
        }
    }
    session.closed();
    let _ = writer.await;
}

/// A frame may carry several newline-separated messages.
fn frame_lines(session: &mut Session, text: &str) -> Next {
    if text.len() > MAX_LINE {
        return session.bad_line("the message is longer than 64 KiB");
    }
    for line in text.split('\n').map(str::trim).filter(|l| !l.is_empty()) {
        if session.line(line) == Next::Close {
            return Next::Close;
        }
    }
    Next::Continue
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
