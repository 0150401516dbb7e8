//! The course protocol over TCP: one JSON message a line, each connection read by its own task
//! and written by another, so a client that stops reading never holds up a room.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::limits::{Admissions, Admitted, Crowded};
use super::proxy::{Origin, Proxies};
use super::session::{ConnConfig, Next, Session, Traffic};
use crate::protocol::{self, Line, LineBuffer};
use crate::rooms::outbox::{Inbox, SOCKET_BUFFER, WRITE_TIMEOUT};
use crate::rooms::Hub;

/// Accepts course clients for ever, each within the connection budget of its address (the
/// client's, behind a trusted balancer).
pub async fn accept(
    listener: TcpListener,
    hub: Arc<Hub>,
    config: ConnConfig,
    admissions: Arc<Admissions>,
    proxies: Proxies,
) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let (hub, config) = (hub.clone(), config.clone());
                let (admissions, proxies) = (admissions.clone(), proxies.clone());
                tokio::spawn(async move {
                    let mut stream = stream;
                    let Some(origin) = proxies.origin(&mut stream, peer).await else {
                        return;
                    };
                    let addr = origin.addr;
                    match admissions.admit(addr.ip()) {
                        Ok(admitted) => serve_tcp(stream, origin, hub, config, admitted).await,
                        Err(why) => {
                            tracing::warn!("refused a connection from {addr}: {why}");
                            refuse_tcp(stream, why).await;
                        }
                    }
                });
            }
            Err(e) => {
                tracing::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Tells a refused client why in the protocol's words, then hangs up.
async fn refuse_tcp(mut stream: TcpStream, why: Crowded) {
    let reject = protocol::Message::new(protocol::REJECT, "", why.to_string(), "");
    let line = format!("{}\n", reject.to_line());
    let _ = tokio::time::timeout(Duration::from_secs(2), stream.write_all(line.as_bytes())).await;
}

/// Writes queued lines until the outbox closes or a write stalls (the client stopped reading).
async fn write_lines(mut inbox: Inbox, mut writer: impl AsyncWrite + Unpin, traffic: Arc<Traffic>) {
    while let Some(line) = inbox.next().await {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        match tokio::time::timeout(WRITE_TIMEOUT, writer.write_all(&bytes)).await {
            Ok(Ok(())) => {
                inbox.written(&line);
                traffic.mark();
            }
            Ok(Err(_)) => break,
            Err(_) => {
                tracing::warn!(
                    "a client read nothing for {} s: closing it",
                    WRITE_TIMEOUT.as_secs()
                );
                break;
            }
        }
    }
    inbox.close();
    let _ = tokio::time::timeout(Duration::from_secs(1), writer.shutdown()).await;
}

/// Probes an idle peer so one that vanished without closing (a dead host, a pulled cable) is
/// found within about a minute.
fn keep_alive(stream: &TcpStream) {
    let probes = socket2::TcpKeepalive::new()
        .with_time(Duration::from_secs(30))
        .with_interval(Duration::from_secs(10))
        .with_retries(3);
    let _ = socket2::SockRef::from(stream).set_tcp_keepalive(&probes);
}

async fn serve_tcp(
    stream: TcpStream,
    origin: Origin,
    hub: Arc<Hub>,
    config: ConnConfig,
    _admitted: Admitted,
) {
    let addr = origin.addr;
    let _ = stream.set_nodelay(true);
    keep_alive(&stream);
    // The kernel's send buffer grows to megabytes for a client that does not read; bound it.
    let _ = socket2::SockRef::from(&stream).set_send_buffer_size(SOCKET_BUFFER);
    let (reader, writer) = stream.into_split();
    if origin.check {
        tracing::debug!("connection from {addr} (TCP; the balancer's health check)");
    } else {
        tracing::info!("connection from {addr} (TCP)");
    }
    serve_lines(reader, writer, addr.to_string(), hub, config, origin.check).await;
}

/// Serves one connection of the course protocol over any byte stream: a TCP socket, or the
/// in-process pipe of the server's own AI seat. A `quiet` one (a balancer's health check) logs
/// its messages at DEBUG.
pub async fn serve_lines(
    mut reader: impl AsyncRead + Unpin,
    writer: impl AsyncWrite + Send + Unpin + 'static,
    addr: String,
    hub: Arc<Hub>,
    config: ConnConfig,
    quiet: bool,
) {
    let (mut session, inbox) = Session::new(addr.clone(), hub, config);
    if quiet {
        session.log_quietly();
    }
    let mut writer_task = tokio::spawn(write_lines(inbox, writer, session.traffic()));
    let mut buf = vec![0u8; 8192];
    let mut lines = LineBuffer::default();
    'reading: loop {
        let deadline = session.idle_deadline();
        let read = tokio::select! {
            read = reader.read(&mut buf) => read,
            _ = &mut writer_task => break 'reading,
            _ = session.changed() => continue 'reading,
            _ = async { tokio::time::sleep_until(deadline.expect("guarded")).await }, if deadline.is_some() => {
                if !session.idle_expired() {
                    continue 'reading;
                }
                tracing::info!("closing {addr}: {}", session.idle_reason());
                break 'reading;
            }
        };
        let n = match read {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for line in lines.push(&buf[..n]) {
            let next = match line {
                Line::Text(text) => session.line(&text),
                Line::Bad(why) => session.bad_line(why),
            };
            if next == Next::Close {
                break 'reading;
            }
        }
    }
    session.flush_queued().await;
    session.closed();
    let _ = writer_task.await;
}
