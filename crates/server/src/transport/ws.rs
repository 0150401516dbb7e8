//! The same JSON messages over a WebSocket, one message per text frame, with pings to find a
//! client that vanished.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};

use super::http::{origin_allowed, HttpState};
use super::session::{Next, Session, Traffic};
use crate::api::ApiError;
use crate::protocol::MAX_LINE;
use crate::rooms::outbox::{Inbox, SOCKET_BUFFER, WRITE_TIMEOUT};

/// Upgrades a request from an allowed origin to a WebSocket session.
pub async fn websocket(
    State(state): State<HttpState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    if !origin_allowed(&headers, &state.allow_origins) {
        let origin = headers
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            .unwrap_or("");
        let origin = arbiter_core::text::shorten(origin).to_string();
        return Err(ApiError::Origin(origin));
    }
    let upgrade = upgrade.map_err(|rejection| ApiError::Upgrade {
        status: rejection.status(),
        message: rejection.body_text(),
    })?;
    // The frames waiting in the socket's own buffer are bounded too, not only the outbox.
    Ok(upgrade
        .max_message_size(MAX_LINE * 2)
        .write_buffer_size(SOCKET_BUFFER)
        .max_write_buffer_size(SOCKET_BUFFER + MAX_LINE * 2)
        .on_upgrade(move |socket| serve_websocket(socket, addr, state)))
}

/// How often the server pings a WebSocket client, and how long it waits for any frame back.
const PING_EVERY: Duration = Duration::from_secs(20);
const PING_DEADLINE: Duration = Duration::from_secs(60);

async fn write_frames(
    mut inbox: Inbox,
    mut sink: futures_util::stream::SplitSink<WebSocket, WsMessage>,
    traffic: Arc<Traffic>,
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
                    traffic.mark();
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

async fn serve_websocket(socket: WebSocket, addr: SocketAddr, state: HttpState) {
    let (sink, mut stream) = socket.split();
    let (mut session, inbox) =
        Session::new(format!("ws:{addr}"), state.hub.clone(), state.conn.clone());
    session.speaks_extension();
    tracing::info!("connection from {addr} (WebSocket)");
    let mut writer = tokio::spawn(write_frames(inbox, sink, session.traffic()));
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
                if !session.idle_expired() {
                    continue;
                }
                tracing::info!("closing ws:{addr}: {}", session.idle_reason());
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
    session.flush_queued().await;
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
