//! The HTTP side: the JSON API and the WebSocket endpoint.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;

use crate::conn::{ConnConfig, Next, Session};
use crate::protocol::MAX_LINE;
use crate::room::{Hub, Outgoing};
use crate::store::Store;
use crate::web_api::{self, GameRequest};

#[derive(Clone)]
pub struct AppState {
    pub hub: Arc<Hub>,
    pub store: Store,
    pub conn: ConnConfig,
}

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/catalogue", get(catalogue))
        .route("/api/rooms", get(rooms))
        .route("/api/games", get(games))
        .route("/api/games/{id}", get(game))
        .route("/api/state", post(api_state))
        .route("/api/ai", post(api_ai))
        .route("/api/analyze", post(api_analyze))
        .route("/ws", get(websocket))
        .fallback(static_file)
        .with_state(state)
}

async fn static_file(uri: axum::http::Uri) -> Response {
    if uri.path() == "/favicon.ico" {
        return StatusCode::NO_CONTENT.into_response();
    }
    match crate::web::find(uri.path()) {
        Some(asset) => (
            [(axum::http::header::CONTENT_TYPE, asset.content_type)],
            asset.body,
        )
            .into_response(),
        None => error(StatusCode::NOT_FOUND, format!("no page at {}", uri.path())),
    }
}

/// Runs a computation on the blocking pool and answers with its JSON or a 400 with its error.
async fn blocking<T: serde::Serialize + Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(e)) => error(StatusCode::BAD_REQUEST, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn catalogue(State(state): State<AppState>) -> Response {
    Json(web_api::catalogue(&state.conn.registry.games)).into_response()
}

async fn api_state(State(state): State<AppState>, Json(request): Json<GameRequest>) -> Response {
    let describe = state.conn.registry.state;
    blocking(move || describe(&request)).await
}

async fn api_ai(State(state): State<AppState>, Json(request): Json<GameRequest>) -> Response {
    let ai = state.conn.registry.ai;
    blocking(move || ai(&request)).await
}

async fn api_analyze(State(state): State<AppState>, Json(request): Json<GameRequest>) -> Response {
    let analyze = state.conn.registry.analyze;
    blocking(move || analyze(&request)).await
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
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

async fn games(State(state): State<AppState>, Query(q): Query<GamesQuery>) -> Response {
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

async fn game(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return error(
            StatusCode::BAD_REQUEST,
            format!("`{id}` is not a game number"),
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
    upgrade: WebSocketUpgrade,
) -> Response {
    upgrade
        .max_message_size(MAX_LINE * 2)
        .on_upgrade(move |socket| serve_websocket(socket, addr, state))
}

async fn serve_websocket(socket: WebSocket, addr: SocketAddr, state: AppState) {
    let idle = state.conn.idle_timeout;
    let (mut sink, mut stream) = socket.split();
    let (mut session, mut outgoing) =
        Session::new(format!("ws:{addr}"), state.hub.clone(), state.conn.clone());
    tracing::info!("connection from {addr} (WebSocket)");
    let mut writer = tokio::spawn(async move {
        while let Some(out) = outgoing.recv().await {
            match out {
                Outgoing::Message(m) => {
                    if sink
                        .send(WsMessage::Text(m.to_line().into()))
                        .await
                        .is_err()
                    {
                        break;
                    }
                }
                Outgoing::Close => break,
            }
        }
        let _ = sink.close().await;
    });
    let mut spoke = false;
    loop {
        let frame = tokio::select! {
            frame = stream.next() => frame,
            _ = &mut writer => break,
            _ = tokio::time::sleep(idle), if !spoke => break,
        };
        let next = match frame {
            None | Some(Err(_)) => break,
            Some(Ok(WsMessage::Text(text))) => {
                spoke = true;
                if text.len() > MAX_LINE {
                    session.bad_line("the message is longer than 64 KiB")
                } else {
                    let mut next = Next::Continue;
                    // A frame may carry several newline-separated messages.
                    for line in text
                        .as_str()
                        .split('\n')
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                    {
                        next = session.line(line).await;
                        if next == Next::Close {
                            break;
                        }
                    }
                    next
                }
            }
            Some(Ok(WsMessage::Binary(_))) => session.bad_line("binary frames are not messages"),
            Some(Ok(WsMessage::Close(_))) => break,
            Some(Ok(_)) => Next::Continue,
        };
        if next == Next::Close {
            break;
        }
    }
    session.closed().await;
    let _ = session.peer().tx.try_send(Outgoing::Close);
}
