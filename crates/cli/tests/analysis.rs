//! A whole-game analysis outlives the server that ran it: `arbiter serve` analyses a finished
//! game, is killed, and the next `arbiter serve` on the same database answers the analysis done
//! at once, with the very evaluations, instead of searching the game again (~20 s on a real
//! game).

mod common;

use std::time::{Duration, Instant};

use common::{http, start_server_with, TestDir};
use serde_json::{json, Value};

/// A short Surakarta 6×6 game: six quiet moves, then the first player resigns.
const MOVES: [&str; 6] = ["B2-B3", "B5-B4", "C2-C3", "C5-C4", "D2-D3", "D5-D4"];
/// Each position gets 2 s / 7 of search: the whole analysis takes about 2 s.
const SERVE: [&str; 2] = ["--analysis-seconds", "2"];

fn call(port: u16, method: &str, path: &str, body: &str) -> (u16, Value) {
    let (status, body) = http(port, method, path, body);
    let value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("not JSON: {body}"));
    (status, value)
}

/// A finished game stored as a page's own game: its number.
fn finished_game(port: u16) -> i64 {
    let create =
        json!({"game": "surakarta", "size": 6, "mode": "local", "players": ["ann", "bob"]});
    let (status, game) = call(port, "POST", "/api/games", &create.to_string());
    assert_eq!(status, 200, "{game}");
    let id = game["id"].as_i64().unwrap();
    let update = json!({"token": game["token"], "moves": MOVES, "resign": "first"});
    let (status, answer) = call(
        port,
        "PUT",
        &format!("/api/games/{id}"),
        &update.to_string(),
    );
    assert_eq!(status, 200, "{answer}");
    id
}

/// Polls the analysis at `path` until it is done.
fn until_done(port: u16, path: &str) -> Value {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, progress) = call(port, "GET", path, "");
        assert_eq!(status, 200, "{progress}");
        if progress["status"] == "done" {
            return progress;
        }
        assert!(
            Instant::now() < until,
            "the analysis did not end: {progress}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_finished_analysis_is_answered_done_at_once_after_a_restart() {
    let dir = TestDir::new("arbiter-analysis-kept-");
    let db = dir.join("games.sqlite");
    let (server, _, port) = start_server_with(&dir, db.as_os_str(), &SERVE);
    let id = finished_game(port);
    let path = format!("/api/games/{id}/analysis");
    let (status, started) = call(port, "POST", &path, "");
    assert_eq!((status, &started["total"]), (202, &json!(7)), "{started}");
    let done = until_done(port, &path);
    drop(server); // killed: nothing is written on the way out

    let (_server, _, port) = start_server_with(&dir, db.as_os_str(), &SERVE);
    let (status, kept) = call(port, "GET", &path, "");
    assert_eq!(status, 200, "{kept}");
    assert_eq!(
        (&kept["status"], &kept["done"], &kept["total"]),
        (&json!("done"), &json!(7), &json!(7)),
        "the first answer is the whole analysis"
    );
    assert_eq!(kept["positions"], done["positions"], "the same evaluations");
    assert_eq!(kept["moves"], done["moves"], "the same judgements");
    let (status, again) = call(port, "POST", &path, "");
    assert_eq!(
        (status, &again["status"]),
        (202, &json!("done")),
        "not run again"
    );
    assert_eq!(again["positions"], done["positions"]);
}
