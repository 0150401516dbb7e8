//! A stored game's record as a file, and the whole-game analysis job: started only for a
//! finished game, one job per game, a cap on jobs at once, progress polled until every
//! position is searched, the finished analysis stored and served by a server that did not run
//! it, and clear JSON errors for bad or unknown game numbers.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{http, server_with};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A Surakarta 6×6 opening of twelve quiet moves.
const RECORD: [&str; 12] = [
    "B2-B3", "B5-B4", "C2-C3", "C5-C4", "D2-D3", "D5-D4", "A2-A3", "E5-E4", "E2-E3", "F5-F4",
    "F2-F3", "A5-A4",
];

/// The JSON body of an answer (a chunked body carries its length first).
fn json(body: &str) -> serde_json::Value {
    let start = body.find(['{', '[']).unwrap_or(0);
    let end = body.rfind(['}', ']']).map_or(body.len(), |i| i + 1);
    serde_json::from_str(&body[start..end]).unwrap_or(serde_json::Value::Null)
}

async fn call(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
    let (status, body) = http(addr, method, path, "", body).await;
    (status, json(&body))
}

/// A page's own game with `moves` played, resigned by the first player when `resign`.
async fn stored_game(addr: SocketAddr, moves: &[&str], resign: bool) -> i64 {
    let created = r#"{"game":"surakarta","size":6,"mode":"local","players":["alice","bob"]}"#;
    let (status, game) = call(addr, "POST", "/api/games", created).await;
    assert_eq!(status, 200, "{game}");
    let id = game["id"].as_i64().unwrap();
    let mut update = serde_json::json!({"token": game["token"], "moves": moves});
    if resign {
        update["resign"] = "first".into();
    }
    let (status, answer) = call(
        addr,
        "PUT",
        &format!("/api/games/{id}"),
        &update.to_string(),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    id
}

/// The whole answer, head and body.
async fn raw_get(addr: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// Polls the analysis at `path` until it is done; its last answer.
async fn until_done(addr: SocketAddr, path: &str) -> serde_json::Value {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, progress) = call(addr, "GET", path, "").await;
        assert_eq!(status, 200, "{progress}");
        if progress["status"] == "done" {
            return progress;
        }
        assert_eq!(progress["status"], "running", "{progress}");
        assert!(
            Instant::now() < until,
            "the analysis did not end: {progress}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_record_downloads_in_the_course_notation() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    let over = stored_game(addr, &RECORD, true).await;
    let answer = raw_get(addr, &format!("/api/games/{over}/record")).await;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains("content-type: text/plain; charset=utf-8"),
        "{head}"
    );
    let file =
        format!("content-disposition: attachment; filename=\"arbiter-surakarta-{over}.txt\"");
    assert!(head.contains(&file), "{head}");
    assert_eq!(body, format!("{} R#", RECORD.join(" ")));
    // A game not over yet: its moves so far, no end mark.
    let running = stored_game(addr, &RECORD[..3], false).await;
    let (status, body) = http(addr, "GET", &format!("/api/games/{running}/record"), "", "").await;
    assert_eq!((status, body.as_str()), (200, "B2-B3 B5-B4 C2-C3"));
    let (status, error) = call(addr, "GET", "/api/games/abc/record", "").await;
    assert_eq!(
        (status, error["error"].as_str()),
        (400, Some("`abc` is not a game number"))
    );
    let (status, error) = call(addr, "GET", "/api/games/999999/record", "").await;
    assert_eq!(
        (status, error["error"].as_str()),
        (404, Some("no game 999999"))
    );
}

#[tokio::test]
async fn a_finished_game_is_analysed_whole_and_each_move_judged() {
    let s = server_with(|c| c.api.analysis_budget = Duration::from_secs(3)).await;
    let addr = s.server.http_addr;
    let id = stored_game(addr, &RECORD, true).await;
    let path = format!("/api/games/{id}/analysis");
    let (status, error) = call(addr, "GET", &path, "").await;
    assert_eq!(status, 404, "{error}");
    let expected =
        format!("game {id} has not been analysed: POST /api/games/{id}/analysis starts it");
    assert_eq!(error["error"].as_str(), Some(expected.as_str()));
    let (status, started) = call(addr, "POST", &path, "").await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["total"], 13);
    assert_eq!(started["thresholds"]["blunder"], 0.3);
    // Asked again while it runs: the same job, not a second one.
    let (status, again) = call(addr, "POST", &path, "").await;
    assert_eq!((status, again["game_id"].as_i64()), (202, Some(id)));
    let done = until_done(addr, &path).await;
    assert_eq!(done["done"], 13);
    let positions = done["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 13);
    for p in positions {
        let win = p["win"].as_f64().unwrap();
        assert!(
            (0.0..=1.0).contains(&win) && p["depth"].as_u64().unwrap() >= 1,
            "{p}"
        );
        assert_eq!(p["pv"][0], p["best"], "{p}");
    }
    let moves = done["moves"].as_array().unwrap();
    let texts: Vec<&str> = moves.iter().map(|m| m["move"].as_str().unwrap()).collect();
    assert_eq!(texts, RECORD);
    for m in moves {
        let loss = m["loss"].as_f64().unwrap();
        let expected = match loss {
            l if l >= 0.3 => "blunder",
            l if l >= 0.2 => "mistake",
            l if l >= 0.1 => "inaccuracy",
            _ => "",
        };
        assert_eq!(m["judgement"].as_str().unwrap_or(""), expected, "{m}");
    }
}

#[tokio::test]
async fn analysis_is_refused_for_live_games_bad_numbers_and_beyond_the_cap() {
    let s = server_with(|c| {
        c.api.analysis_jobs = 1;
        c.api.analysis_budget = Duration::from_secs(20);
    })
    .await;
    let addr = s.server.http_addr;
    let live = stored_game(addr, &RECORD[..2], false).await;
    let (status, error) = call(addr, "POST", &format!("/api/games/{live}/analysis"), "").await;
    assert_eq!(status, 409);
    let expected = format!("game {live} is not over: only a finished game is analysed");
    assert_eq!(error["error"].as_str(), Some(expected.as_str()));
    for (path, status, text) in [
        ("/api/games/abc/analysis", 400, "`abc` is not a game number"),
        ("/api/games/424242/analysis", 404, "no game 424242"),
    ] {
        for method in ["GET", "POST"] {
            let (got, error) = call(addr, method, path, "").await;
            assert_eq!(
                (got, error["error"].as_str()),
                (status, Some(text)),
                "{method} {path}"
            );
        }
    }
    // One job at a time on this server: a second game waits for the first to end.
    let first = stored_game(addr, &RECORD, true).await;
    let second = stored_game(addr, &RECORD[..4], true).await;
    let (status, _) = call(addr, "POST", &format!("/api/games/{first}/analysis"), "").await;
    assert_eq!(status, 202);
    let (status, error) = call(addr, "POST", &format!("/api/games/{second}/analysis"), "").await;
    assert_eq!(status, 503, "{error}");
    assert_eq!(
        error["error"].as_str(),
        Some("this server runs at most 1 whole-game analyses at once and all are busy; try again when one ends")
    );
    let (_, progress) = call(addr, "GET", &format!("/api/games/{first}/analysis"), "").await;
    assert_eq!(progress["status"], "running", "{progress}");
}

/// A finished analysis is written to the store before it is told done; a server that finds it
/// there (another node, or this one started again) answers it done at once, without searching
/// again, with the very evaluations and judgements.
#[tokio::test]
async fn a_stored_analysis_is_served_done_by_a_server_that_did_not_run_it() {
    let budget = |c: &mut arbiter_server::ServerConfig| {
        c.api.analysis_budget = Duration::from_secs(1);
    };
    let ran = server_with(budget).await;
    let id = stored_game(ran.server.http_addr, &RECORD[..6], true).await;
    let path = format!("/api/games/{id}/analysis");
    let (status, _) = call(ran.server.http_addr, "POST", &path, "").await;
    assert_eq!(status, 202);
    let done = until_done(ran.server.http_addr, &path).await;
    let stored = ran.server.store.analysis(id).await.unwrap();
    let mut record = stored.expect("stored once done").record;
    // Another server, whose store holds the same game and the analysis the first one stored.
    let other = server_with(budget).await;
    let addr = other.server.http_addr;
    record.game_id = stored_game(addr, &RECORD[..6], true).await;
    other
        .server
        .store
        .save_analysis(record.clone())
        .await
        .unwrap();
    let path = format!("/api/games/{}/analysis", record.game_id);
    let (status, posted) = call(addr, "POST", &path, "").await;
    assert_eq!(status, 202, "{posted}");
    assert_eq!(
        (&posted["status"], &posted["done"]),
        (&"done".into(), &7.into())
    );
    for field in ["total", "positions", "moves", "thresholds"] {
        assert_eq!(posted[field], done[field], "{field}");
    }
    let (status, kept) = call(addr, "GET", &path, "").await;
    assert_eq!((status, &kept["status"]), (200, &"done".into()));
    assert_eq!(kept["positions"], done["positions"]);
}
