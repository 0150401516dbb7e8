//! The server's own AI seat, as a course client meets it over TCP: a READY with
//! `"opponent":"ai"` gets a game against `arbiter_LEVEL` that is played to its END, on the
//! course's clock, stored like any other game; bad requests are refused by name.

mod common;

use std::time::Duration;

use arbiter_server::client::{play_over, ClientError, ConnectOptions, Connection};
use arbiter_server::protocol::{Message, READY, REJECT};
use common::{server, server_with, Client, TestServer};

/// A course client's READY asking for the server's AI (`extra` as JSON keys).
fn ready_for_ai(room: &str, extra: &[(&str, serde_json::Value)]) -> Message {
    let mut m = Message::new(READY, "student", "", room);
    m.extra.insert("opponent".into(), "ai".into());
    for (key, value) in extra {
        m.extra.insert((*key).into(), value.clone());
    }
    m
}

fn options(s: &TestServer, room: u32) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port: s.server.tcp_addr.port(),
        colour: String::new(),
        name: "student".into(),
        room,
        game: None,
        options: Vec::new(),
        player: "random".parse().unwrap(),
        record: None,
        seed: 7,
        wait: Duration::from_secs(10),
        quiet: true,
        gate: None,
    }
}

/// Plays a whole game as a course client (a random mover) against the server's AI.
async fn play_against_ai(s: &TestServer, ready: Message, room: u32) -> Result<String, ClientError> {
    let mut options = options(s, room);
    options.game = ready
        .extra
        .get("game")
        .and_then(|g| g.as_str())
        .map(Into::into);
    let conn = Connection::open("127.0.0.1", s.server.tcp_addr.port(), true).await?;
    let outcome = play_over::<arbiter_ai::Standard>(conn, &ready, &options).await?;
    assert_eq!(outcome.opponent, "arbiter_easy");
    assert!(outcome.end_reason.is_some(), "{outcome:?}");
    Ok(outcome.record)
}

#[tokio::test]
async fn a_course_client_plays_a_whole_game_against_the_servers_ai() {
    let s = server().await;
    let ready = ready_for_ai("3", &[("level", "easy".into())]);
    let record = tokio::time::timeout(Duration::from_secs(120), play_against_ai(&s, ready, 3))
        .await
        .expect("the game ends within two minutes")
        .expect("the game is played to its end");
    // The record names every move and the end's mark, as `--records-dir` writes it.
    assert!(record.contains('#'), "{record}");
    assert!(record.split_whitespace().count() >= 2, "{record}");
}

#[tokio::test]
async fn the_ais_game_of_another_game_is_stored_with_its_name() {
    let s = server().await;
    let ready = ready_for_ai("4", &[("level", "easy".into()), ("game", "duck".into())]);
    tokio::time::timeout(Duration::from_secs(120), play_against_ai(&s, ready, 4))
        .await
        .expect("the game ends")
        .expect("the game is played to its end");
    let http = s.server.http_addr;
    let games = arbiter_server::client::http_get(http, "/api/games")
        .await
        .expect("the list of games");
    assert!(games.contains("arbiter_easy"), "{games}");
    assert!(games.contains("student"), "{games}");
    assert!(games.contains("\"duck\""), "{games}");
}

/// The REJECT text a READY gets from the server.
async fn refusal(s: &TestServer, ready: Message) -> String {
    let mut c = Client::connect(s).await;
    c.send_message(&ready).await;
    let answer = c
        .recv_within(Duration::from_secs(5))
        .await
        .expect("an answer");
    assert_eq!(answer.op, REJECT, "{answer:?}");
    answer.data2
}

#[tokio::test]
async fn a_bad_request_for_the_ai_is_refused_by_name() {
    let s = server().await;
    let mut bad_opponent = ready_for_ai("5", &[]);
    bad_opponent.extra.insert("opponent".into(), "bot".into());
    assert!(refusal(&s, bad_opponent).await.contains("opponent must be"));
    let bad_level = ready_for_ai("5", &[("level", "expert".into())]);
    assert!(refusal(&s, bad_level).await.contains("level must be"));
    let rated = ready_for_ai("5", &[("rated", 1.into())]);
    assert!(refusal(&s, rated).await.contains("not rated"));
    let mut level_alone = Message::new(READY, "student", "", "5");
    level_alone.extra.insert("level".into(), "easy".into());
    assert!(refusal(&s, level_alone).await.contains("level needs"));
}

#[tokio::test]
async fn a_server_started_without_its_ai_says_so() {
    let s = server_with(|config| config.house_ai = false).await;
    let refused = refusal(&s, ready_for_ai("6", &[])).await;
    assert!(refused.contains("--no-house-ai"), "{refused}");
}
