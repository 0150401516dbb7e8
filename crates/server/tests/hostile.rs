//! The server under hostile clients and failing storage: each attack a hostile client or a flaky
//! disk can make, and what the server must do about it. (Process-level attacks — a log pipe
//! nobody reads, `kill -9`, Ctrl-C — are in `crates/cli/tests/hostile.rs`; the slow ones in
//! `scripts/hostile.sh`.)

mod common;

use std::time::{Duration, Instant};

use arbiter_server::protocol::{
    Message, CHAT, END, MOVE, READY, REJECT, RESIGN, STATE, UNWATCH, WATCH,
};
use common::{duck_pair, http, pair, server_with, Client};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Reads whatever arrives until the server closes the connection; false if it is still open
/// after `within`.
async fn closed_by_server(stream: &mut TcpStream, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut buf = vec![0u8; 1 << 16];
    while Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) | Err(_) => {}
        }
    }
    false
}

fn line(m: &Message) -> String {
    format!("{}\n", m.to_line())
}

#[tokio::test]
async fn a_connection_that_trickles_junk_is_closed_for_making_no_progress() {
    let s = server_with(|c| c.idle_timeout = Duration::from_millis(500)).await;
    let mut stream = TcpStream::connect(s.server.tcp_addr).await.unwrap();
    let started = Instant::now();
    // A junk line and a stray byte every 100 ms: traffic, but never a protocol step.
    let mut closed = false;
    while started.elapsed() < Duration::from_secs(4) {
        if stream.write_all(b"x\n{").await.is_err() {
            closed = true;
            break;
        }
        if closed_by_server(&mut stream, Duration::from_millis(100)).await {
            closed = true;
            break;
        }
    }
    assert!(closed, "a trickling connection stayed open for 4 s");
}

#[tokio::test]
async fn idle_http_connections_are_closed_and_connections_are_capped() {
    let s = server_with(|c| {
        c.http_header_timeout = Duration::from_millis(500);
        c.max_connections_per_ip = 4;
    })
    .await;
    // Silent, idle after a request, and headers trickled a line at a time: all cut off.
    let mut silent = TcpStream::connect(s.server.http_addr).await.unwrap();
    assert!(closed_by_server(&mut silent, Duration::from_secs(3)).await);
    let mut kept_alive = TcpStream::connect(s.server.http_addr).await.unwrap();
    let host = s.server.http_addr;
    let request = format!("GET /api/rooms HTTP/1.1\r\nHost: {host}\r\n\r\n");
    kept_alive.write_all(request.as_bytes()).await.unwrap();
    assert!(closed_by_server(&mut kept_alive, Duration::from_secs(3)).await);
    let mut trickle = TcpStream::connect(s.server.http_addr).await.unwrap();
    trickle
        .write_all(b"GET /api/rooms HTTP/1.1\r\n")
        .await
        .unwrap();
    let mut trickled_out = false;
    for i in 0..30 {
        let header = format!("X-Slow-{i}: 1\r\n");
        if trickle.write_all(header.as_bytes()).await.is_err()
            || closed_by_server(&mut trickle, Duration::from_millis(150)).await
        {
            trickled_out = true;
            break;
        }
    }
    assert!(
        trickled_out,
        "trickled headers kept the connection for 4.5 s"
    );
    // Four connections from this address are the limit; a fifth is told why and let go.
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(TcpStream::connect(s.server.tcp_addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut fifth = Client::connect(&s).await;
    let refused = fifth.recv().await;
    assert_eq!(refused.op, REJECT);
    assert!(refused.data2.contains("limit per address"), "{refused:?}");
    assert!(fifth.closed_within(Duration::from_secs(2)).await);
    drop(held);
}

#[tokio::test]
async fn seats_of_a_finished_game_are_freed_for_newcomers() {
    let s = server_with(|c| c.seats.rematch_window = Duration::from_millis(400)).await;
    let (mut black, mut white) = pair(&s, "20").await;
    black.send(RESIGN, "", "", "").await;
    assert_eq!(black.recv().await.op, END);
    assert_eq!(white.recv().await.op, END);
    // Both stay connected and silent: after the rematch window the room is free again.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (_c, _d) = pair(&s, "20").await;
}

#[tokio::test]
async fn a_player_waiting_too_long_loses_its_seat() {
    let s = server_with(|c| c.seats.wait_timeout = Duration::from_millis(400)).await;
    let mut squatter = Client::connect(&s).await;
    squatter.send(READY, "squatter", "BLACK", "21").await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (_a, _b) = pair(&s, "21").await;
    drop(squatter);
}

#[tokio::test]
async fn a_client_that_stops_reading_is_let_go() {
    let s = server_with(|c| c.rate_limit = 1_000_000).await;
    let (mut red, mut blue) = duck_pair(&s, "22", &[("max_no_capture_round", 0.into())]).await;
    // A few hundred moves make every snapshot of the room a few kilobytes.
    for ply in 0..400 {
        let other = shuffle_cars(ply, &mut red, &mut blue).await;
        assert_eq!(other.recv().await.op, MOVE);
    }
    // Ask for the snapshot over and over and never read: tens of megabytes of answers.
    let mut greedy = TcpStream::connect(s.server.tcp_addr).await.unwrap();
    let watch = line(&Message::new(WATCH, "22", "", ""));
    let burst = watch.repeat(500);
    for _ in 0..20 {
        if greedy.write_all(burst.as_bytes()).await.is_err() {
            break;
        }
    }
    assert!(
        closed_by_server(&mut greedy, Duration::from_secs(20)).await,
        "a client that never reads kept its connection (and its queue)"
    );
    // The game it watched goes on.
    red.send(MOVE, "a0", "a1", "").await;
    assert_eq!(blue.recv().await.op, MOVE);
}

#[tokio::test]
async fn a_chat_flood_never_costs_a_thinking_player_its_game() {
    let s = server_with(|c| {
        c.rate_limit = 1_000_000;
        c.timeout_ms = 30_000;
    })
    .await;
    let (mut black, white) = pair(&s, "23").await;
    black.send(MOVE, "A2", "A3", "").await;
    // White thinks and reads nothing while black floods it with 10 MB of chat (lines of the
    // 500 characters a line may have).
    let mut white = white;
    let text = "x".repeat(500);
    for _ in 0..20_000 {
        black.send(CHAT, "", &text, "").await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    // White reads what reached it, then plays: it is still in the game.
    let mut saw_move = false;
    while let Some(m) = white.recv_within(Duration::from_millis(500)).await {
        assert_ne!(m.op, END, "white was dropped from its game: {m:?}");
        saw_move |= m.op == MOVE;
    }
    assert!(saw_move);
    white.send(MOVE, "F5", "E4", "").await;
    let answer = loop {
        let m = black.recv().await;
        if m.op != CHAT {
            break m;
        }
    };
    assert_eq!((answer.op, answer.data1.as_str()), (MOVE, "F5"));
}

#[tokio::test]
async fn a_move_the_database_refuses_is_never_forwarded() {
    let s = server_with(|_| {}).await;
    let (mut red, mut blue) = duck_pair(&s, "24", &[("max_no_capture_round", 0.into())]).await;
    // The disk "fills up" after ten stored moves.
    rusqlite::Connection::open(s.dir.join("games.sqlite"))
        .unwrap()
        .execute_batch(
            "CREATE TRIGGER disk_full BEFORE INSERT ON moves WHEN (SELECT count(*) FROM moves) >= 10
             BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;",
        )
        .unwrap();
    let mut forwarded = 0;
    let mut end = None;
    for ply in 0..100 {
        let other = shuffle_cars(ply, &mut red, &mut blue).await;
        let m = other
            .recv_within(Duration::from_secs(10))
            .await
            .expect("an answer");
        if m.op == END {
            end = Some(m);
            break;
        }
        assert_eq!(m.op, MOVE);
        forwarded += 1;
    }
    let end = end.expect("100 moves went through a full disk");
    // Ten moves were stored and forwarded; the eleventh was neither, and the game ended.
    assert_eq!(forwarded, 10);
    assert_eq!(end.data2, "7", "{end:?}");
    assert!(
        end.extra_str("error")
            .unwrap()
            .contains("could not store move 11"),
        "{end:?}"
    );
    assert_eq!(end.extra_u64("plies"), Some(Ok(10)));
    // The server counted each refusal of move 11, and each time it was tried again but the last.
    let metrics = arbiter_server::client::http_get(s.server.http_addr, "/api/metrics")
        .await
        .unwrap();
    let store: serde_json::Value = serde_json::from_str(&metrics).unwrap();
    let count = |name: &str| store["store"][name].as_u64().unwrap();
    assert!(count("refusals") > 0, "{metrics}");
    assert_eq!(count("retries") + 1, count("refusals"), "{metrics}");
    assert!(count("writes") >= 10 + count("refusals"), "{metrics}");
}

#[tokio::test]
async fn shutting_down_ends_running_games_as_interrupted() {
    let s = server_with(|c| c.shutdown_grace = Duration::from_millis(300)).await;
    let (mut black, mut white) = pair(&s, "25").await;
    black.send(MOVE, "A2", "A3", "").await;
    assert_eq!(white.recv().await.op, MOVE);
    let store = s.server.store.clone();
    s.server.shutdown().await;
    for c in [&mut black, &mut white] {
        let end = c.recv().await;
        assert_eq!(
            (end.op, end.data2.as_str(), end.data3.as_str()),
            (END, "7", "2")
        );
    }
    let query = arbiter_server::storage::GameQuery {
        limit: 10,
        ..Default::default()
    };
    let games = store.list_games(query).await.unwrap();
    assert_eq!(games[0].end_reason.as_deref(), Some("INTERRUPTED"));
    assert_eq!(games[0].record.as_deref(), Some("A2-A3 X#"));
}

#[tokio::test]
async fn watching_is_capped_per_connection() {
    let s = server_with(|c| c.rate_limit = 100_000).await;
    let mut c = Client::connect(&s).await;
    for room in 100..164 {
        c.send(WATCH, &room.to_string(), "", "").await;
        assert_eq!(c.recv().await.op, STATE);
    }
    c.send(WATCH, "999", "", "").await;
    let m = c.recv().await;
    assert_eq!(m.op, REJECT);
    assert!(m.data2.contains("at most 64 rooms"), "{m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn readies_racing_a_closing_room_are_always_answered() {
    let s = std::sync::Arc::new(server_with(|c| c.rate_limit = 100_000).await);
    // Forty rooms at once, fifty rounds each: a spectator opens and empties the room (its
    // task winds down) just as two players arrive; both must always get their game.
    let rooms: Vec<_> = (0..40)
        .map(|r| {
            let s = s.clone();
            tokio::spawn(async move {
                for round in 0..50 {
                    let room = (1000 + r * 100 + round).to_string();
                    let ready = |name: &str| {
                        let mut m = Message::new(READY, name, "", room.as_str());
                        m.extra.insert("game".into(), "surakarta".into());
                        m
                    };
                    let mut passer = Client::connect(&s).await;
                    let mut a = Client::connect(&s).await;
                    let mut b = Client::connect(&s).await;
                    passer.send(WATCH, &room, "", "").await;
                    passer.send(UNWATCH, &room, "", "").await;
                    a.send_message(&ready("a")).await;
                    b.send_message(&ready("b")).await;
                    for c in [&mut a, &mut b] {
                        let m = c.recv_within(Duration::from_secs(5)).await;
                        assert!(
                            m.as_ref().is_some_and(|m| m.op == READY),
                            "room {room} round {round}: {m:?}"
                        );
                    }
                }
            })
        })
        .collect();
    for room in rooms {
        room.await.unwrap();
    }
}

#[tokio::test]
async fn a_player_who_watches_its_own_room_gets_each_move_once() {
    let s = server_with(|_| {}).await;
    let (mut black, mut white) = pair(&s, "26").await;
    black.send(WATCH, "26", "", "").await;
    assert_eq!(black.recv().await.op, STATE);
    black.send(MOVE, "A2", "A3", "").await;
    white.recv().await;
    white.send(MOVE, "F5", "E4", "").await;
    assert_eq!(black.recv().await.op, MOVE);
    assert!(black.quiet().await, "the move came twice");
}

#[tokio::test]
async fn a_second_server_on_the_same_database_is_refused() {
    let s = server_with(|_| {}).await;
    let db = s.dir.join("games.sqlite");
    let second = arbiter_server::start::<arbiter_ai::Standard>(arbiter_server::ServerConfig {
        tcp: "127.0.0.1:0".parse().unwrap(),
        http: "127.0.0.1:0".parse().unwrap(),
        db: db.into(),
        ..arbiter_server::ServerConfig::default()
    })
    .await;
    let error = second.err().expect("the second server is refused");
    assert!(
        error.to_string().contains("another arbiter server"),
        "{error}"
    );
}

fn is_json_error(body: &str) -> bool {
    // A chunked body carries its length first; the JSON object is the rest.
    let start = body.find('{').unwrap_or(0);
    let end = body.rfind('}').map_or(body.len(), |i| i + 1);
    serde_json::from_str::<serde_json::Value>(&body[start..end])
        .is_ok_and(|v| v["error"].is_string())
}

#[tokio::test]
async fn every_api_error_is_json() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    for (method, path, body, status) in [
        ("POST", "/api/state", "{", 400),
        (
            "POST",
            "/api/state",
            r#"{"game":"duck","moves":"a0-a1"}"#,
            400,
        ),
        ("POST", "/api/state", r#"{"game":"chess"}"#, 400),
        ("GET", "/api/ai", "", 405),
        ("GET", "/api/games?limit=lots", "", 400),
        ("GET", "/api/games/abc", "", 400),
        ("GET", "/nowhere", "", 404),
    ] {
        let (got, answer) = http(addr, method, path, "", body).await;
        assert_eq!(got, status, "{method} {path}: {answer}");
        assert!(is_json_error(&answer), "{method} {path}: {answer}");
    }
}

#[tokio::test]
async fn ai_requests_are_capped_and_abandoned_ones_stop() {
    let s = server_with(|c| {
        c.api.cpu_workers = 1;
        c.api.cpu_queue = 4;
    })
    .await;
    let addr = s.server.http_addr;
    let hard = r#"{"game":"duck","level":"hard","moves":[]}"#;
    // One computes, four wait; the rest are told the AI is busy.
    let flood: Vec<_> = (0..10)
        .map(|_| tokio::spawn(http(addr, "POST", "/api/ai", "", hard)))
        .collect();
    let mut busy = 0;
    for request in flood {
        let (status, body) = request.await.unwrap();
        if status == 503 {
            assert!(is_json_error(&body) && body.contains("busy"), "{body}");
            busy += 1;
        } else {
            assert_eq!(status, 200, "{body}");
        }
    }
    assert!(busy >= 4, "only {busy} of 10 were turned away");
    // Clients that ask and hang up leave nothing running: a quick request is answered at once.
    for _ in 0..4 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = format!(
            "POST /api/ai HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{hard}",
            hard.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let easy = r#"{"game":"duck","level":"easy","moves":[]}"#;
    let (status, body) = http(addr, "POST", "/api/ai", "", easy).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "abandoned searches held the AI for {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn pages_of_other_origins_and_foreign_host_names_are_refused() {
    let s = server_with(|c| c.allow_origins = vec!["https://friend.example".into()]).await;
    let addr = s.server.http_addr;
    let upgrade = |origin: &str| {
        format!(
            "Origin: {origin}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        )
    };
    let (status, body) = http(addr, "GET", "/ws", &upgrade("https://evil.example"), "").await;
    assert_eq!(status, 403, "{body}");
    assert!(
        is_json_error(&body) && body.contains("--allow-origin"),
        "{body}"
    );
    for origin in [
        format!("http://{addr}"),
        "https://friend.example".to_string(),
    ] {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = format!(
            "GET /ws HTTP/1.1\r\nHost: {addr}\r\n{}\r\n",
            upgrade(&origin)
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut head = vec![0u8; 256];
        let n = stream.read(&mut head).await.unwrap();
        assert!(
            String::from_utf8_lossy(&head[..n]).starts_with("HTTP/1.1 101"),
            "{origin}"
        );
    }
    // DNS rebinding: a page served by evil.example whose name now points here.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            b"GET /api/games HTTP/1.1\r\nHost: evil.example:8080\r\nConnection: close\r\n\r\n",
        )
        .await
        .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 421"), "{answer}");
    assert!(answer.contains("--allow-host evil.example"), "{answer}");
}

/// Ply `ply` of an endless game: the side to move sends a car one point along its edge and
/// back, so nothing is ever captured; the side that must answer next.
async fn shuffle_cars<'a>(ply: usize, red: &'a mut Client, blue: &'a mut Client) -> &'a mut Client {
    let (from, to) = [("a0", "a1"), ("a9", "a8"), ("a1", "a0"), ("a8", "a9")][ply % 4];
    let (mover, other) = if ply.is_multiple_of(2) {
        (red, blue)
    } else {
        (blue, red)
    };
    mover.send(MOVE, from, to, "").await;
    other
}
