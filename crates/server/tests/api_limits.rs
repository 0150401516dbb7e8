//! The HTTP API's limits against the attacks of issue 27, each in a fast version: request sizes
//! (413 JSON), one gate for CPU-heavy requests that a client hanging up never holds, writes per
//! client and per network (429 JSON with Retry-After), every error JSON, the rooms paginated.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use arbiter_server::api::RateQuota;
use common::{http, server_with, Client};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// The JSON body of an answer (a chunked body carries its length first).
fn json(body: &str) -> serde_json::Value {
    let start = body.find(['{', '[']).unwrap_or(0);
    let end = body.rfind(['}', ']']).map_or(body.len(), |i| i + 1);
    serde_json::from_str(&body[start..end]).unwrap_or(serde_json::Value::Null)
}

fn is_json_error(body: &str) -> bool {
    json(body)["error"].is_string()
}

/// A raw request from `from` (any 127.x.y.z is this machine); the whole answer, head and body.
async fn raw_from(from: &str, to: SocketAddr, request: &str) -> String {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let mut stream = socket.connect(to).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

fn post(to: SocketAddr, path: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {to}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_with_413_json_on_every_route() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    // The head alone announces 3 MB: the server answers at once, reading none of it.
    for path in [
        "/api/state",
        "/api/games",
        "/api/judge/duck",
        "/api/rooms",
        "/nowhere",
    ] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\nConnection: close\r\n\r\n"
        );
        let answer = raw_from("127.0.0.1", addr, &head).await;
        assert!(answer.starts_with("HTTP/1.1 413"), "{path}: {answer}");
        assert!(answer.contains("application/json"), "{path}: {answer}");
        assert!(is_json_error(&answer), "{path}: {answer}");
    }
}

#[tokio::test]
async fn the_judge_refuses_input_over_its_limit_with_413_json() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    let input = "a2a4 b7b5 c3\n".repeat(100_000 / 13);
    let body = serde_json::json!({ "input": input }).to_string();
    let (status, answer) = http(addr, "POST", "/api/judge/duck", "", &body).await;
    assert_eq!(status, 413, "{}", &answer[..answer.len().min(300)]);
    assert!(is_json_error(&answer), "{answer}");
}

#[tokio::test]
async fn the_judges_answer_is_never_larger_than_its_bound() {
    let bound = 40_000;
    let s = server_with(|c| c.api.judge_max_answer_bytes = bound).await;
    let addr = s.server.http_addr;
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/duck/official/2.in"
    );
    let input = std::fs::read_to_string(data).unwrap();
    let body = serde_json::json!({ "input": input }).to_string();
    let (status, answer) = http(addr, "POST", "/api/judge/duck", "", &body).await;
    assert_eq!(status, 200, "{}", &answer[..answer.len().min(300)]);
    assert!(answer.len() <= bound, "an answer of {} bytes", answer.len());
    let trace = json(&answer);
    assert_eq!(trace["truncated"], true, "{answer}");
    let shown = trace["steps"].as_array().unwrap().len();
    let total = trace["steps_total"].as_u64().unwrap();
    assert!(
        shown > 0 && total > shown as u64,
        "{shown} of {total}; output {}",
        trace["output"].as_str().unwrap().len()
    );
}

#[tokio::test]
async fn ai_requests_whose_clients_hang_up_never_hold_the_gate() {
    let s = server_with(|c| c.api.cpu_workers = 1).await;
    let addr = s.server.http_addr;
    let hard = r#"{"game":"duck","level":"hard","moves":[]}"#;
    for _ in 0..3 {
        // Ten ask at once and hang up: one was computing, the others waiting in the queue.
        let mut streams = Vec::new();
        for _ in 0..10 {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            let request = post(addr, "/api/ai", hard).replace("Connection: close\r\n", "");
            stream.write_all(request.as_bytes()).await.unwrap();
            streams.push(stream);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        drop(streams);
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    let easy = r#"{"game":"duck","level":"easy","moves":[]}"#;
    let (status, body) = http(addr, "POST", "/api/ai", "", easy).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = http(addr, "POST", "/api/analyze", "", easy).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn the_judge_shares_the_gate_of_cpu_heavy_requests() {
    let s = server_with(|c| {
        c.api.cpu_workers = 1;
        c.api.cpu_queue = 0;
    })
    .await;
    let addr = s.server.http_addr;
    // The one worker thinks; a judge request finds no room and is told so at once.
    let hard = r#"{"game":"duck","level":"hard","moves":[]}"#;
    let thinking = tokio::spawn(http(addr, "POST", "/api/ai", "", hard));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let body = r#"{"input":"a2a4\n"}"#;
    let (status, answer) = http(addr, "POST", "/api/judge/duck", "", body).await;
    assert_eq!(status, 503, "{answer}");
    assert!(
        is_json_error(&answer) && answer.contains("busy"),
        "{answer}"
    );
    assert_eq!(thinking.await.unwrap().0, 200);
}

#[tokio::test]
async fn a_burst_of_writes_from_one_address_gets_429_json_with_retry_after() {
    let s = server_with(|c| {
        c.api.writes_per_address = RateQuota {
            per_second: 1,
            burst: 5,
        }
    })
    .await;
    let addr = s.server.http_addr;
    let create = r#"{"game":"duck","mode":"local"}"#;
    let mut statuses = Vec::new();
    let mut refused = String::new();
    for _ in 0..8 {
        let answer = raw_from("127.0.0.1", addr, &post(addr, "/api/games", create)).await;
        statuses.push(answer.split_whitespace().nth(1).unwrap_or("").to_string());
        if answer.starts_with("HTTP/1.1 429") {
            refused = answer;
        }
    }
    assert_eq!(statuses[..5], ["200"; 5], "{statuses:?}");
    assert_eq!(statuses[5..], ["429"; 3], "{statuses:?}");
    assert!(
        refused.to_ascii_lowercase().contains("retry-after: "),
        "{refused}"
    );
    assert!(is_json_error(&refused), "{refused}");
    // Reading is not writing: the list still answers.
    let (status, _) = http(addr, "GET", "/api/games", "", "").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn one_network_cannot_flood_from_many_addresses() {
    let s = server_with(|c| {
        c.api.writes_per_address = RateQuota {
            per_second: 1,
            burst: 4,
        };
        c.api.writes_per_network = RateQuota {
            per_second: 1,
            burst: 6,
        };
    })
    .await;
    let addr = s.server.http_addr;
    let create = r#"{"game":"duck","mode":"local"}"#;
    let mut answered = 0;
    for from in ["127.0.0.2", "127.0.0.3", "127.0.0.4"] {
        for _ in 0..4 {
            let answer = raw_from(from, addr, &post(addr, "/api/games", create)).await;
            if answer.starts_with("HTTP/1.1 200") {
                answered += 1;
            } else {
                assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
                assert!(answer.contains("network"), "{answer}");
            }
        }
    }
    assert_eq!(answered, 6);
}

#[tokio::test]
async fn rejections_axum_makes_itself_are_json_too() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    for (method, path, body, status) in [
        ("POST", "/api/judge/%FF", r#"{"input":""}"#, 400),
        ("GET", "/api/games/%FF", "", 400),
        ("POST", "/api/judge/duck", "{", 400),
        ("POST", "/api/judge/duck", r#"{"input":7}"#, 400),
        ("DELETE", "/api/games", "", 405),
        ("GET", "/api/nowhere/%FF", "", 404),
    ] {
        let answer = raw_from(
            "127.0.0.1",
            addr,
            &post(addr, path, body).replacen("POST", method, 1),
        )
        .await;
        let head = answer.split("\r\n\r\n").next().unwrap_or("");
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{method} {path}: {answer}"
        );
        assert!(
            head.contains("application/json"),
            "{method} {path}: {answer}"
        );
        assert!(is_json_error(&answer), "{method} {path}: {answer}");
    }
}

/// Heads hyper refuses before any handler runs (bad syntax, conflicting lengths, an unknown
/// version, a head over the limit) are answered in JSON too.
#[tokio::test]
async fn heads_that_cannot_be_parsed_get_json_errors() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    let long_head = format!(
        "GET / HTTP/1.1\r\nHost: {addr}\r\nX-Filler: {}\r\n\r\n",
        "a".repeat(200_000)
    );
    for request in [
        "GARBAGE\r\n\r\n".to_string(),
        format!("GET / HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"),
        format!("GET / HTTP/3.0\r\nHost: {addr}\r\n\r\n"),
        long_head,
    ] {
        let answer = raw_from("127.0.0.1", addr, &request).await;
        let head = answer.split("\r\n\r\n").next().unwrap_or("");
        assert!(answer.starts_with("HTTP/1.1 4"), "{answer}");
        assert!(head.contains("application/json"), "{answer}");
        assert!(is_json_error(&answer), "{answer}");
    }
}

#[tokio::test]
async fn the_rooms_list_comes_in_pages() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    let mut waiting = Vec::new();
    for room in 1..=5 {
        let mut c = Client::connect(&s).await;
        c.send(
            arbiter_server::protocol::READY,
            "w",
            "BLACK",
            &room.to_string(),
        )
        .await;
        waiting.push(c);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let page = |query: &'static str| async move {
        let (status, body) = http(addr, "GET", &format!("/api/rooms{query}"), "", "").await;
        assert_eq!(status, 200, "{body}");
        json(&body)
    };
    let all = page("").await;
    assert_eq!(all["rooms"].as_array().unwrap().len(), 5, "{all}");
    assert!(all["next"].is_null(), "{all}");
    let first = page("?limit=2").await;
    let numbers = |p: &serde_json::Value| -> Vec<u64> {
        p["rooms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["room"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(
        (numbers(&first), first["next"].as_u64()),
        (vec![1, 2], Some(2))
    );
    let second = page("?limit=2&after=2").await;
    assert_eq!(
        (numbers(&second), second["next"].as_u64()),
        (vec![3, 4], Some(4))
    );
    let last = page("?limit=2&after=4").await;
    assert_eq!(numbers(&last), vec![5]);
    assert!(last["next"].is_null(), "{last}");
    // A page is never larger than the maximum, whatever is asked.
    let (status, body) = http(addr, "GET", "/api/rooms?limit=100000", "", "").await;
    assert_eq!(status, 200, "{body}");
}

/// No answer is larger than the bound: a list of long games is cut to fit (the next page
/// starts where it ends), and one game longer than the bound alone is refused in JSON.
#[tokio::test]
async fn no_answer_is_larger_than_the_bound() {
    let s = server_with(|c| c.api.max_response_bytes = 16 << 10).await;
    let store = &s.server.store;
    use arbiter_server::protocol::Winner;
    use arbiter_server::storage::{GameEnd, NewGame, PlayedMove};
    for n in 0..20 {
        let game = NewGame {
            room: 0,
            game: "surakarta".into(),
            settings: "{}".into(),
            players: ["a".into(), "b".into()],
            owner: None,
            seat_tokens: [None, None],
            fence: None,
        };
        let id = store.start_game(game).await.unwrap();
        let plies = if n == 19 { 600 } else { 20 };
        for ply in 1..=plies {
            let played = PlayedMove {
                game_id: id,
                ply,
                text: "A2-A3".into(),
                reason: "LEGAL_NON_CAPTURE_MOVE".into(),
                fence: None,
            };
            store.record_move(played).await.unwrap();
        }
        let end = GameEnd {
            game_id: id,
            end_reason: "RESIGN".into(),
            winner: Winner::First,
            record: vec!["A2-A3"; plies].join(" ") + " R#",
            fence: None,
        };
        store.end_game(end).await.unwrap();
    }
    let addr = s.server.http_addr;
    let get =
        |path: &str| format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let list = raw_from("127.0.0.1", addr, &get("/api/games?limit=1000")).await;
    assert!(list.starts_with("HTTP/1.1 200"), "{list}");
    let listed = json(&list);
    let shown = listed.as_array().map_or(0, Vec::len);
    assert!((1..20).contains(&shown), "{shown} games listed");
    assert!(list.len() < 16 << 10);
    let long = raw_from("127.0.0.1", addr, &get("/api/games/20")).await;
    assert!(
        long.starts_with("HTTP/1.1 413"),
        "{}",
        &long[..long.len().min(300)]
    );
    assert!(is_json_error(&long));
    assert!(long.len() < 16 << 10);
}
