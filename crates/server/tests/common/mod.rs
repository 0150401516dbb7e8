//! A server on free ports with its own database, and a raw protocol client.

#![allow(dead_code)]

use std::time::Duration;

pub use arbiter_pgtest::TestDir;
use arbiter_server::protocol::Message;
use arbiter_server::{RunningServer, ServerConfig};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

/// A server and its folder. Fields drop in order: the folder, last, is removed (or kept after a
/// failure) once the server is dropped; its tasks end with the test's runtime right after.
pub struct TestServer {
    pub server: RunningServer,
    pub dir: TestDir,
}

pub async fn server_with(adjust: impl FnOnce(&mut ServerConfig)) -> TestServer {
    let dir = TestDir::new("arbiter-server-test-");
    let mut config = ServerConfig {
        tcp: "127.0.0.1:0".parse().unwrap(),
        http: "127.0.0.1:0".parse().unwrap(),
        db: dir.join("games.sqlite").into(),
        records_dir: Some(dir.join("records")),
        // Every test client connects from this machine.
        seat_limits: arbiter_server::SeatLimits {
            per_ip: 10_000,
            per_net: 10_000,
        },
        ..ServerConfig::default()
    };
    adjust(&mut config);
    let server = arbiter_server::start::<arbiter_ai::Standard>(config)
        .await
        .expect("the server starts");
    TestServer { server, dir }
}

pub async fn server() -> TestServer {
    server_with(|_| {}).await
}

pub struct Client {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
}

impl Client {
    pub async fn connect(s: &TestServer) -> Client {
        let stream = TcpStream::connect(s.server.tcp_addr).await.unwrap();
        let (r, w) = stream.into_split();
        Client {
            reader: BufReader::new(r),
            writer: w,
        }
    }

    /// Writes bytes; a connection the server has closed is not an error here.
    pub async fn raw(&mut self, text: &str) {
        let _ = self.writer.write_all(text.as_bytes()).await;
    }

    pub async fn send(&mut self, op: i64, d1: &str, d2: &str, d3: &str) {
        self.send_message(&Message::new(op, d1, d2, d3)).await;
    }

    pub async fn send_message(&mut self, m: &Message) {
        self.raw(&format!("{}\n", m.to_line())).await;
    }

    /// The next message within `wait`; `None` on silence or a closed connection.
    pub async fn recv_within(&mut self, wait: Duration) -> Option<Message> {
        let mut line = String::new();
        match tokio::time::timeout(wait, self.reader.read_line(&mut line)).await {
            Ok(Ok(n)) if n > 0 => {
                Some(Message::parse(line.trim()).expect("the server sends valid messages"))
            }
            _ => None,
        }
    }

    pub async fn recv(&mut self) -> Message {
        self.recv_within(Duration::from_secs(5))
            .await
            .expect("a message from the server")
    }

    /// Whether the server closed the connection (within `wait`).
    pub async fn closed_within(&mut self, wait: Duration) -> bool {
        let mut line = String::new();
        matches!(
            tokio::time::timeout(wait, self.reader.read_line(&mut line)).await,
            Ok(Ok(0)) | Ok(Err(_))
        )
    }

    /// Nothing arrives for a little while.
    pub async fn quiet(&mut self) -> bool {
        self.recv_within(Duration::from_millis(300)).await.is_none()
    }
}

/// Two clients that started a game in `room`: (black, white).
pub async fn pair(s: &TestServer, room: &str) -> (Client, Client) {
    let mut a = Client::connect(s).await;
    let mut b = Client::connect(s).await;
    a.send(arbiter_server::protocol::READY, "alice", "BLACK", room)
        .await;
    b.send(arbiter_server::protocol::READY, "bob", "WHITE", room)
        .await;
    let ra = a.recv().await;
    let rb = b.recv().await;
    assert_eq!((ra.data1.as_str(), ra.data2.as_str()), ("bob", "BLACK"));
    assert_eq!((rb.data1.as_str(), rb.data2.as_str()), ("alice", "WHITE"));
    (a, b)
}

/// Two clients that started a Duck Chess game in `room` through the extension, with `extra`
/// READY keys besides `game`: (red, blue).
pub async fn duck_pair(
    s: &TestServer,
    room: &str,
    extra: &[(&str, serde_json::Value)],
) -> (Client, Client) {
    use arbiter_server::protocol::READY;
    let mut red = Client::connect(s).await;
    let mut blue = Client::connect(s).await;
    for (c, name, colour) in [(&mut red, "r", "RED"), (&mut blue, "b", "BLUE")] {
        let mut m = Message::new(READY, name, colour, room);
        m.extra.insert("game".into(), "duck".into());
        for (key, value) in extra {
            m.extra.insert((*key).into(), value.clone());
        }
        c.send_message(&m).await;
    }
    let ready = red.recv().await;
    assert_eq!(
        (ready.op, ready.data2.as_str(), ready.extra_str("game")),
        (READY, "RED", Some("duck"))
    );
    let ready = blue.recv().await;
    assert_eq!((ready.op, ready.data2.as_str()), (READY, "BLUE"));
    (red, blue)
}

/// A raw HTTP/1.1 request; the status and the body (`Connection: close`).
pub async fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}
