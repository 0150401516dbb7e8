//! The last hardening round's attacks that had no test of their own, each tried again:
//! request smuggling, path traversal, malformed and trickled WebSocket frames. The server must
//! answer (in JSON, where it answers), let the attacker go, and keep serving everyone else.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::server_with;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends `bytes` and reads until the server closes (or `within` passes).
async fn exchange(to: SocketAddr, bytes: &[u8], within: Duration) -> (String, bool) {
    let mut stream = TcpStream::connect(to).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let mut got = Vec::new();
    let closed = tokio::time::timeout(within, stream.read_to_end(&mut got))
        .await
        .is_ok();
    (String::from_utf8_lossy(&got).into_owned(), closed)
}

fn rooms_answered(answer: &str) -> bool {
    answer.starts_with("HTTP/1.1 200") && answer.contains("\"rooms\"")
}

async fn still_serving(to: SocketAddr) {
    let get = format!("GET /api/rooms HTTP/1.1\r\nHost: {to}\r\nConnection: close\r\n\r\n");
    let (answer, _) = exchange(to, get.as_bytes(), Duration::from_secs(5)).await;
    assert!(rooms_answered(&answer), "{answer}");
}

/// A body framed two ways (Content-Length and chunked) is refused and the connection closed,
/// so the request hidden after it is never answered.
#[tokio::test]
async fn a_request_smuggled_behind_two_framings_is_never_answered() {
    let s = server_with(|_| {}).await;
    let to = s.server.http_addr;
    let smuggled = format!(
        "POST /api/games HTTP/1.1\r\nHost: {to}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/rooms HTTP/1.1\r\nHost: {to}\r\n\r\n"
    );
    let (answer, closed) = exchange(to, smuggled.as_bytes(), Duration::from_secs(5)).await;
    assert!(closed, "the connection stayed open");
    assert_eq!(answer.matches("HTTP/1.1 ").count(), 1, "{answer}");
    assert!(answer.starts_with("HTTP/1.1 4"), "{answer}");
    assert!(
        !answer.contains("\"rooms\""),
        "the smuggled request was answered"
    );
    still_serving(to).await;
}

/// The page's files are compiled into the server: no path reaches the disk.
#[tokio::test]
async fn no_path_reaches_a_file_on_disk() {
    let s = server_with(|_| {}).await;
    let to = s.server.http_addr;
    for path in [
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/..%2f..%2f..%2fetc%2fpasswd",
        "/web/../Cargo.toml",
        "//etc/passwd",
    ] {
        let get = format!("GET {path} HTTP/1.1\r\nHost: {to}\r\nConnection: close\r\n\r\n");
        let (answer, _) = exchange(to, get.as_bytes(), Duration::from_secs(5)).await;
        assert!(!answer.contains("root:"), "{path}: {answer}");
        assert!(!answer.contains("[workspace]"), "{path}: {answer}");
        assert!(
            answer.contains("application/json") || answer.contains("text/html"),
            "{path}: {answer}"
        );
    }
}

fn websocket_handshake(to: SocketAddr) -> String {
    format!(
        "GET /ws HTTP/1.1\r\nHost: {to}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
}

/// Frames a client may not send (unmasked, a reserved opcode, a length beyond any limit) close
/// that WebSocket; the server goes on.
#[tokio::test]
async fn malformed_websocket_frames_close_only_that_socket() {
    let s = server_with(|_| {}).await;
    let to = s.server.http_addr;
    let huge = [
        0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4,
    ];
    let frames: [&[u8]; 3] = [b"\x81\x05hello", b"\x8b\x80\x01\x02\x03\x04", &huge];
    for frame in frames {
        let mut bytes = websocket_handshake(to).into_bytes();
        bytes.extend_from_slice(frame);
        let (answer, closed) = exchange(to, &bytes, Duration::from_secs(5)).await;
        assert!(answer.starts_with("HTTP/1.1 101"), "{answer}");
        assert!(closed, "a WebSocket sending {frame:02x?} stayed open");
    }
    still_serving(to).await;
}

/// A WebSocket that trickles one frame a byte at a time, never finishing it, is closed by the
/// idle deadline like any connection that makes no progress.
#[tokio::test]
async fn a_websocket_trickling_a_frame_is_closed() {
    let s = server_with(|c| c.idle_timeout = Duration::from_millis(600)).await;
    let to = s.server.http_addr;
    let mut stream = TcpStream::connect(to).await.unwrap();
    stream
        .write_all(websocket_handshake(to).as_bytes())
        .await
        .unwrap();
    // A masked text frame that announces 100 bytes and never sends them all.
    let mut frame = vec![0x81, 0xe4, 1, 2, 3, 4];
    frame.extend(std::iter::repeat_n(b'x', 99));
    let mut closed = false;
    for byte in frame {
        if stream.write_all(&[byte]).await.is_err() {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut rest = Vec::new();
    closed = closed
        || tokio::time::timeout(Duration::from_secs(3), stream.read_to_end(&mut rest))
            .await
            .is_ok();
    assert!(closed, "a trickled frame kept its WebSocket open");
    still_serving(to).await;
}
