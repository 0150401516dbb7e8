//! Deadlines and connection caps on every transport: a request body that never comes, an
//! HTTP/2 connection that idles, a connection that only watches an empty room, one network
//! that opens many connections. (The full-size versions are in `scripts/hostile.py`.)

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use arbiter_server::protocol::{Message, MOVE, REJECT, STATE, WATCH};
use common::{pair, server_with, Client};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Reads (and keeps) whatever arrives until the server closes the connection; `None` if it is
/// still open after `within`.
async fn read_until_closed(stream: &mut TcpStream, within: Duration) -> Option<Vec<u8>> {
    let deadline = Instant::now() + within;
    let mut got = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    while Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_millis(100), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return Some(got),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    None
}

/// A connection to `to` from the loopback address `from` (any 127.x.y.z is this machine).
async fn connect_from(from: &str, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(to).await.unwrap()
}

#[tokio::test]
async fn a_post_whose_body_never_comes_is_answered_408_within_the_body_deadline() {
    let s = server_with(|c| {
        c.http_body_timeout = Duration::from_millis(500);
        c.http_header_timeout = Duration::from_secs(30);
    })
    .await;
    let addr = s.server.http_addr;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /api/state HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"ga"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let answer = read_until_closed(&mut stream, Duration::from_secs(5))
        .await
        .expect("a POST without its body held the connection for 5 s");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#"{"error":"#), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

/// The HTTP/2 connection preface (prior knowledge, h2c) and an empty SETTINGS frame.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";
/// A PING frame: traffic, but no request.
const H2_PING: &[u8] = b"\x00\x00\x08\x06\x00\x00\x00\x00\x00pingping";

#[tokio::test]
async fn an_idle_http2_connection_is_closed_like_an_http1_one() {
    let s = server_with(|c| c.http_header_timeout = Duration::from_millis(500)).await;
    let mut stream = TcpStream::connect(s.server.http_addr).await.unwrap();
    stream.write_all(H2_PREFACE).await.unwrap();
    // The server speaks HTTP/2 (its SETTINGS frame comes back), then the client only pings.
    let mut settings = [0u8; 9];
    stream.read_exact(&mut settings).await.unwrap();
    assert_eq!(settings[3], 4, "not an HTTP/2 SETTINGS frame: {settings:?}");
    let started = Instant::now();
    let mut closed = false;
    while started.elapsed() < Duration::from_secs(5) {
        if stream.write_all(H2_PING).await.is_err()
            || read_until_closed(&mut stream, Duration::from_millis(200))
                .await
                .is_some()
        {
            closed = true;
            break;
        }
    }
    assert!(closed, "an HTTP/2 connection without requests stayed 5 s");
}

/// `GET /api/rooms` on stream 1 as an HTTP/2 HEADERS frame (HPACK, no Huffman coding).
fn h2_get_rooms(authority: &str) -> Vec<u8> {
    let mut block = vec![0x82, 0x86, 0x04, 10];
    block.extend_from_slice(b"/api/rooms");
    block.extend_from_slice(&[0x01, authority.len() as u8]);
    block.extend_from_slice(authority.as_bytes());
    let mut frame = vec![0, 0, block.len() as u8, 0x01, 0x05, 0, 0, 0, 1];
    frame.extend_from_slice(&block);
    frame
}

#[tokio::test]
async fn an_http2_request_is_answered_then_the_idle_connection_closed() {
    let s = server_with(|c| c.http_header_timeout = Duration::from_millis(500)).await;
    let addr = s.server.http_addr;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(H2_PREFACE).await.unwrap();
    stream
        .write_all(&h2_get_rooms(&addr.to_string()))
        .await
        .unwrap();
    let frames = read_until_closed(&mut stream, Duration::from_secs(3))
        .await
        .expect("closed once idle");
    // Somewhere in what came back: a HEADERS frame (type 1) on stream 1 whose first header is
    // `:status: 200` (HPACK static index 8).
    let answered = frames
        .windows(10)
        .any(|f| f[3] == 1 && f[5..9] == [0, 0, 0, 1] && f[9] == 0x88);
    assert!(answered, "no 200 on stream 1: {frames:?}");
}

#[tokio::test]
async fn a_connection_that_only_watches_an_empty_room_is_closed_when_idle() {
    let s = server_with(|c| {
        c.idle_timeout = Duration::from_millis(500);
        c.watch_idle_timeout = Duration::from_millis(500);
    })
    .await;
    let mut idle = Client::connect(&s).await;
    idle.send(WATCH, "77", "", "").await;
    assert_eq!(idle.recv().await.op, STATE);
    assert!(
        idle.closed_within(Duration::from_secs(3)).await,
        "a WATCH on an empty room kept the connection open"
    );
    // A spectator of a live game receives its moves: never idle while the game goes on.
    let (mut black, mut white) = pair(&s, "78").await;
    let mut watcher = Client::connect(&s).await;
    watcher.send(WATCH, "78", "", "").await;
    assert_eq!(watcher.recv().await.op, STATE);
    let moves = [("A2", "A3"), ("F5", "E4"), ("A3", "A2"), ("E4", "F5")];
    for (ply, (from, to)) in moves.into_iter().enumerate() {
        let (mover, other) = if ply % 2 == 0 {
            (&mut black, &mut white)
        } else {
            (&mut white, &mut black)
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        mover.send(MOVE, from, to, "").await;
        assert_eq!(other.recv().await.op, MOVE);
        assert_eq!(watcher.recv().await.op, MOVE, "the spectator was let go");
    }
}

#[tokio::test]
async fn one_network_cannot_take_every_connection() {
    let s = server_with(|c| {
        c.max_connections_per_ip = 2;
        c.max_connections_per_network = 4;
    })
    .await;
    let tcp = s.server.tcp_addr;
    let mut held = Vec::new();
    for from in ["127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"] {
        held.push(connect_from(from, tcp).await);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A fifth address of the same /24 is refused, over TCP and over HTTP …
    let mut fifth = connect_from("127.0.0.4", tcp).await;
    let refused = read_until_closed(&mut fifth, Duration::from_secs(3))
        .await
        .expect("refused and closed");
    let refused = Message::parse(String::from_utf8_lossy(&refused).trim()).unwrap();
    assert_eq!(refused.op, REJECT);
    assert!(refused.data2.contains("per network"), "{refused:?}");
    let mut web = connect_from("127.0.0.5", s.server.http_addr).await;
    let answer = read_until_closed(&mut web, Duration::from_secs(3))
        .await
        .unwrap();
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 503"));
    // … while another network gets in.
    let mut other = connect_from("127.0.1.2", tcp).await;
    other
        .write_all(format!("{}\n", Message::new(WATCH, "79", "", "").to_line()).as_bytes())
        .await
        .unwrap();
    let mut line = vec![0u8; 4096];
    let n = other.read(&mut line).await.unwrap();
    let answer = Message::parse(String::from_utf8_lossy(&line[..n]).trim()).unwrap();
    assert_eq!(answer.op, STATE, "{answer:?}");
}

#[tokio::test]
async fn websockets_count_against_the_connection_budget() {
    let s = server_with(|c| c.max_connections_per_ip = 3).await;
    let addr = s.server.http_addr;
    let mut sockets = Vec::new();
    for _ in 0..3 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let upgrade = format!(
            "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        );
        stream.write_all(upgrade.as_bytes()).await.unwrap();
        let mut head = vec![0u8; 256];
        let n = stream.read(&mut head).await.unwrap();
        assert!(String::from_utf8_lossy(&head[..n]).starts_with("HTTP/1.1 101"));
        sockets.push(stream);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut fourth = Client::connect(&s).await;
    let refused = fourth.recv().await;
    assert_eq!(refused.op, REJECT, "three WebSockets were not counted");
    assert!(refused.data2.contains("per address"), "{refused:?}");
}

#[tokio::test]
async fn a_busy_http_connection_is_closed_at_its_maximum_age() {
    let s = server_with(|c| c.http_max_age = Duration::from_secs(1)).await;
    let addr = s.server.http_addr;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET /api/rooms HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    let started = Instant::now();
    let mut closed = false;
    while started.elapsed() < Duration::from_secs(4) {
        if stream.write_all(request.as_bytes()).await.is_err()
            || read_until_closed(&mut stream, Duration::from_millis(200))
                .await
                .is_some()
        {
            closed = true;
            break;
        }
    }
    assert!(
        closed,
        "a connection asking every 200 ms lived past its 1 s age"
    );
}

#[tokio::test]
async fn a_websocket_that_only_watches_an_empty_room_is_closed_when_idle() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message as Ws;
    let s = server_with(|c| c.watch_idle_timeout = Duration::from_millis(500)).await;
    let url = format!("ws://{}/ws", s.server.http_addr);
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let watch = Message::new(WATCH, "80", "", "").to_line();
    ws.send(Ws::text(watch)).await.unwrap();
    let closed = tokio::time::timeout(Duration::from_secs(3), async {
        while let Some(Ok(frame)) = ws.next().await {
            if frame.is_close() {
                break;
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "a watching WebSocket stayed open 3 s");
}

/// Behind a trusted balancer the caps count the clients its PROXY headers name, not the
/// balancer; anyone else's PROXY line is just a bad protocol line, never an address.
#[tokio::test]
async fn behind_a_trusted_balancer_the_caps_count_its_clients() {
    let s = server_with(|c| {
        c.max_connections_per_ip = 1;
        c.trusted_proxies = vec!["127.0.0.9".parse().unwrap()];
    })
    .await;
    let tcp = s.server.tcp_addr;
    let proxied = |client: &'static str| async move {
        let mut stream = connect_from("127.0.0.9", tcp).await;
        let header = format!("PROXY TCP4 {client} 127.0.0.1 40000 10086\r\n");
        let watch = Message::new(WATCH, "79", "", "").to_line();
        stream
            .write_all(format!("{header}{watch}\n").as_bytes())
            .await
            .unwrap();
        let mut line = vec![0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(3), stream.read(&mut line))
            .await
            .expect("an answer")
            .unwrap_or(0);
        let answer = Message::parse(String::from_utf8_lossy(&line[..n]).trim()).unwrap();
        (stream, answer)
    };
    // Two clients through one balancer: each has its own budget of one connection.
    let (_a, first) = proxied("203.0.113.1").await;
    let (_b, second) = proxied("203.0.113.2").await;
    assert_eq!((first.op, second.op), (STATE, STATE));
    // The first client again: over its own cap.
    let (_c, again) = proxied("203.0.113.1").await;
    assert_eq!(again.op, REJECT, "{again:?}");
    assert!(again.data2.contains("address"), "{again:?}");
    // The same over HTTP.
    let mut web = connect_from("127.0.0.9", s.server.http_addr).await;
    let request = "PROXY TCP4 203.0.113.3 127.0.0.1 40000 80\r\nGET /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    web.write_all(request.as_bytes()).await.unwrap();
    let answer = read_until_closed(&mut web, Duration::from_secs(3)).await;
    assert!(String::from_utf8_lossy(&answer.unwrap()).starts_with("HTTP/1.1 200"));
    // A client that is not the balancer cannot name an address: its connection counts for
    // its own address, so a second one from there is refused.
    let mut spoof = connect_from("127.0.0.10", tcp).await;
    spoof
        .write_all(b"PROXY TCP4 203.0.113.9 127.0.0.1 1 2\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut second = connect_from("127.0.0.10", tcp).await;
    let refused = read_until_closed(&mut second, Duration::from_secs(3)).await;
    let refused = Message::parse(String::from_utf8_lossy(&refused.unwrap()).trim()).unwrap();
    assert!(refused.data2.contains("address"), "{refused:?}");
}
