//! Seats and clocks for people: a page that reloads or loses its connection takes its seat back
//! with its token; a seat not taken back in time is a resignation; a game clock with
//! increments; a player joining a room takes the room's settings.

mod common;

use std::time::Duration;

use arbiter_server::protocol::{Message, END, MOVE, NOTICE, READY, REJECT, RESIGN, STATE};
use common::{server_with, Client, TestServer};

fn duck_ready(
    name: &str,
    colour: &str,
    room: &str,
    extra: &[(&str, serde_json::Value)],
) -> Message {
    let mut m = Message::new(READY, name, colour, room);
    m.extra.insert("game".into(), "duck".into());
    for (k, v) in extra {
        m.extra.insert((*k).into(), v.clone());
    }
    m
}

async fn next_of(c: &mut Client, op: i64) -> Message {
    loop {
        let m = c.recv().await;
        if m.op == op {
            return m;
        }
    }
}

/// A seat token (32 hex digits) made of a side and a tag.
fn seat_token(side: &str, tag: &str) -> String {
    let seed = if side == "red" { "ed" } else { "b1" };
    format!("{seed}{tag:0>30}")
}

/// Red and blue in Duck Chess room `room`, each with a seat token ending in `tag`, the game
/// started (both READYs read).
async fn seated_pair(s: &TestServer, room: &str, tag: &str) -> (Client, Client) {
    let mut red = Client::connect(s).await;
    let mut blue = Client::connect(s).await;
    let token = |side: &str| vec![("token", seat_token(side, tag).into())];
    red.send_message(&duck_ready("r", "RED", room, &token("red")))
        .await;
    blue.send_message(&duck_ready("b", "BLUE", room, &token("blue")))
        .await;
    red.recv().await;
    blue.recv().await;
    (red, blue)
}

#[tokio::test]
async fn a_page_that_reloads_mid_game_takes_its_seat_back() {
    let s = server_with(|_| {}).await;
    let (mut red, mut blue) = seated_pair(&s, "40", "1234").await;
    red.send(MOVE, "a0", "a1", "").await;
    assert_eq!(blue.recv().await.op, MOVE);
    blue.send(MOVE, "a9", "a8", "").await;
    // Red's page reloads: its connection drops before it read blue's move.
    drop(red);
    let away = next_of(&mut blue, NOTICE).await;
    assert_eq!(
        (
            away.data1.as_str(),
            away.data2.as_str(),
            away.data3.as_str()
        ),
        ("away", "r", "30")
    );
    let mut red = Client::connect(&s).await;
    red.send_message(&duck_ready(
        "r",
        "RED",
        "40",
        &[("token", seat_token("red", "1234").into())],
    ))
    .await;
    let again = red.recv().await;
    assert_eq!(
        (again.op, again.data1.as_str(), again.data2.as_str()),
        (READY, "b", "RED")
    );
    assert_eq!(again.extra_str("game"), Some("duck"));
    let state = red.recv().await;
    assert_eq!(state.op, STATE);
    let snapshot: serde_json::Value = serde_json::from_str(&state.data1).unwrap();
    assert_eq!(snapshot["moves"], serde_json::json!(["a0-a1", "a9-a8"]));
    assert_eq!(next_of(&mut blue, NOTICE).await.data1, "back");
    red.send(MOVE, "a1", "a0", "").await;
    assert_eq!(next_of(&mut blue, MOVE).await.data1, "a1");
}

#[tokio::test]
async fn a_seat_not_taken_back_in_time_has_left_the_game() {
    let s = server_with(|c| c.seats.seat_grace = Duration::from_millis(300)).await;
    let (red, mut blue) = seated_pair(&s, "41", "5678").await;
    drop(red);
    assert_eq!(next_of(&mut blue, NOTICE).await.data1, "away");
    let end = next_of(&mut blue, END).await;
    // Left (10), told so to a client of the extension: blue (1) wins.
    assert_eq!((end.data2.as_str(), end.data3.as_str()), ("10", "1"));
}

#[tokio::test]
async fn a_course_client_that_disconnects_resigns_at_once() {
    let s = server_with(|_| {}).await;
    let (black, mut white) = common::pair(&s, "42").await;
    drop(black);
    let leave = white.recv().await;
    assert_eq!(leave.op, arbiter_server::protocol::LEAVE);
    assert_eq!(white.recv().await.op, END);
}

#[tokio::test]
async fn a_game_clock_counts_down_and_adds_the_increment() {
    let s = server_with(|_| {}).await;
    let mut red = Client::connect(&s).await;
    let mut blue = Client::connect(&s).await;
    let clock = [("clock_ms", 1000.into()), ("increment_ms", 500.into())];
    red.send_message(&duck_ready("r", "RED", "43", &clock))
        .await;
    // Blue names no time control: it takes the room's.
    blue.send_message(&duck_ready("b", "BLUE", "43", &[])).await;
    let ready = blue.recv().await;
    assert_eq!(ready.extra_u64("clock_ms"), Some(Ok(1000)));
    assert_eq!(ready.extra_u64("increment_ms"), Some(Ok(500)));
    red.recv().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    red.send(MOVE, "a0", "a1", "").await;
    let forwarded = blue.recv().await;
    let clocks: Vec<u64> = serde_json::from_value(forwarded.extra["clocks"].clone()).unwrap();
    // Red spent about 300 ms and got 500 back; blue's clock is running.
    assert!((1100..=1250).contains(&clocks[0]), "{clocks:?}");
    assert!(clocks[1] <= 1000, "{clocks:?}");
    // Blue thinks longer than the second it has: it loses on time.
    let end = next_of(&mut red, END).await;
    assert_eq!((end.data2.as_str(), end.data3.as_str()), ("5", "0"));
}

#[tokio::test]
async fn a_training_room_is_asked_for_with_one_and_both_players_are_told() {
    let s = server_with(|_| {}).await;
    let mut a = Client::connect(&s).await;
    let mut b = Client::connect(&s).await;
    a.send_message(&duck_ready("a", "", "45", &[("training", 2.into())]))
        .await;
    let refused = a.recv().await;
    assert_eq!(
        (refused.op, refused.data2.as_str()),
        (REJECT, "training must be 0 or 1")
    );
    a.send_message(&duck_ready("a", "", "45", &[("training", 1.into())]))
        .await;
    b.send_message(&duck_ready("b", "", "45", &[("training", 1.into())]))
        .await;
    for c in [&mut a, &mut b] {
        let ready = c.recv().await;
        assert_eq!(
            (ready.op, ready.extra_u64("training")),
            (READY, Some(Ok(1)))
        );
    }
}

#[tokio::test]
async fn a_joiner_takes_the_rooms_settings_and_a_conflicting_one_is_told_them() {
    let s = server_with(|_| {}).await;
    let mut a = Client::connect(&s).await;
    let mut b = Client::connect(&s).await;
    a.send_message(&duck_ready(
        "a",
        "",
        "44",
        &[("clock_ms", 300_000.into()), ("increment_ms", 3000.into())],
    ))
    .await;
    b.send_message(&duck_ready("b", "", "44", &[("clock_ms", 60_000.into())]))
        .await;
    let refused = b.recv().await;
    assert_eq!(refused.op, REJECT);
    assert!(
        refused
            .data2
            .contains("the room is set up for duck (max_no_capture_round 80, 5 min + 3 s)"),
        "{refused:?}"
    );
    b.send_message(&duck_ready("b", "", "44", &[])).await;
    assert_eq!(b.recv().await.extra_u64("clock_ms"), Some(Ok(300_000)));
}

/// `PUT path` of a stored game: its `moves` (a JSON list) with `token`, and `extra` fields.
async fn put_moves(
    addr: std::net::SocketAddr,
    path: &str,
    moves: &str,
    token: &str,
    extra: &str,
) -> (u16, String) {
    let body = format!(r#"{{"token":"{token}","moves":{moves}{extra}}}"#);
    common::http(addr, "PUT", path, "", &body).await
}

#[tokio::test]
async fn a_game_against_the_ai_is_stored_as_it_goes_and_only_by_its_owner() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    let (status, body) = common::http(
        addr,
        "POST",
        "/api/games",
        "",
        r#"{"game":"rc02","size":4,"players":["me","AI (hard)"],"mode":"ai","level":"hard"}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let created: serde_json::Value = serde_json::from_str(&body).unwrap();
    let (id, token) = (
        created["id"].as_i64().unwrap(),
        created["token"].as_str().unwrap().to_string(),
    );
    let path = format!("/api/games/{id}");
    let (status, body) = put_moves(addr, &path, r#"["b1-b2","c1-b1"]"#, &token, "").await;
    assert_eq!(status, 200, "{body}");
    // Somebody else, a rewritten past, an illegal move: refused, nothing stored.
    let three = r#"["b1-b2","c1-b1","b4-b3"]"#;
    let (status, _) = put_moves(addr, &path, three, "not-the-owner", "").await;
    assert_eq!(status, 403);
    let (status, _) = put_moves(addr, &path, r#"["a2-a1"]"#, &token, "").await;
    assert_eq!(status, 409);
    let (status, body) = put_moves(addr, &path, r#"["b1-b2","c1-b1","a1-a9"]"#, &token, "").await;
    assert_eq!(status, 400, "{body}");
    // The capture, then blue resigns: the game is over and replayable.
    let (status, body) = put_moves(addr, &path, three, &token, r#","resign":"second""#).await;
    assert_eq!(status, 200, "{body}");
    let (_, body) = common::http(addr, "GET", &path, "", "").await;
    let start = body.find('{').unwrap();
    let game: serde_json::Value =
        serde_json::from_str(&body[start..body.rfind('}').unwrap() + 1]).unwrap();
    assert_eq!(game["record"], "b1-b2 c1-b1 b4-b3 R#");
    assert_eq!(game["winner"], "first");
    assert_eq!(game["settings"]["mode"], "ai");
    assert_eq!(game["moves"][2]["reason"], "LEGAL_CAPTURE_MOVE");
    assert!(game.get("owner").is_none(), "the secret is never shown");
    let (status, _) = put_moves(addr, &path, three, &token, "").await;
    assert_eq!(status, 409);
}

/// A page's own game of RC-02 4×4 at one screen: its number and its owner's secret.
async fn local_rc02_game(addr: std::net::SocketAddr) -> (i64, String) {
    let (status, body) = common::http(
        addr,
        "POST",
        "/api/games",
        "",
        r#"{"game":"rc02","size":4,"players":["me","you"],"mode":"local"}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let created: serde_json::Value = serde_json::from_str(&body).unwrap();
    (
        created["id"].as_i64().unwrap(),
        created["token"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn a_stored_game_takes_one_numbered_move_at_a_time() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    let (id, token) = local_rc02_game(addr).await;
    let path = format!("/api/games/{id}/moves");
    let one = |ply: usize, mv: &str, token: &str| {
        format!(r#"{{"token":"{token}","ply":{ply},"move":"{mv}"}}"#)
    };
    let (status, body) = common::http(addr, "POST", &path, "", &one(1, "b1-b2", &token)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""plies":1"#), "{body}");
    // The same move again (a retry), a skipped ply, another's token, an illegal move: refused.
    let (status, body) = common::http(addr, "POST", &path, "", &one(1, "b1-b2", &token)).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body.contains("ply 1 is not the next move of this game: the next is ply 2"),
        "{body}"
    );
    let (status, _) = common::http(addr, "POST", &path, "", &one(3, "c1-b1", &token)).await;
    assert_eq!(status, 409);
    let (status, _) = common::http(addr, "POST", &path, "", &one(2, "c1-b1", "nobody")).await;
    assert_eq!(status, 403);
    let (status, _) = common::http(addr, "POST", &path, "", &one(2, "a1-a9", &token)).await;
    assert_eq!(status, 400);
    for (ply, mv) in [(2, "c1-b1"), (3, "b4-b3")] {
        let (status, body) = common::http(addr, "POST", &path, "", &one(ply, mv, &token)).await;
        assert_eq!(status, 200, "{body}");
    }
    let (_, body) = common::http(addr, "GET", &format!("/api/games/{id}"), "", "").await;
    assert!(body.contains(r#""reason":"LEGAL_CAPTURE_MOVE""#), "{body}");
    // The whole list still works for what one move cannot say (a resignation).
    let whole =
        format!(r#"{{"token":"{token}","moves":["b1-b2","c1-b1","b4-b3"],"resign":"second"}}"#);
    let (status, body) = common::http(addr, "PUT", &format!("/api/games/{id}"), "", &whole).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn the_page_reads_how_to_draw_every_game_and_the_protocol_from_the_server() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    let (status, body) = common::http(addr, "GET", "/api/catalogue", "", "").await;
    assert_eq!(status, 200);
    let start = body.find('[').unwrap();
    let games: serde_json::Value =
        serde_json::from_str(&body[start..body.rfind(']').unwrap() + 1]).unwrap();
    for game in games.as_array().unwrap() {
        let boards = game["boards"].as_array().unwrap();
        assert!(!boards.is_empty(), "{}", game["id"]);
        for board in boards {
            let cols = board["cols"].as_u64().unwrap() as usize;
            assert_eq!(board["column_labels"].as_array().unwrap().len(), cols);
            assert!(!board["shapes"].as_array().unwrap().is_empty());
        }
        assert!(game["look"]["example"].as_str().unwrap().contains('-'));
    }
    let arcs = body.matches(r#""type":"arc""#).count();
    assert!(arcs > 0, "Surakarta's circuits turn on arcs");
    assert_eq!(body.matches(r#""show":"Latin letters""#).count(), 1);
    let (status, body) = common::http(addr, "GET", "/api/protocol", "", "").await;
    assert_eq!(status, 200);
    assert!(body.contains(r#""MOVE":200001"#), "{body}");
    assert!(body.contains(r#""RESIGN":"{loser} resigned""#), "{body}");
    assert!(body.contains(r#""end_marker":"998244353""#), "{body}");
    // The time controls a page opens a room with, with their READY keys (issue 76).
    assert!(body.contains(r#""time_controls":["#), "{body}");
    assert!(body.contains(r#""label":"3 min + 2 s a game""#), "{body}");
    assert!(body.contains(r#""clock_ms":180000"#), "{body}");
}

#[tokio::test]
async fn a_takeback_is_stored_and_the_game_goes_on_from_it() {
    let s = server_with(|_| {}).await;
    let addr = s.server.http_addr;
    let (id, token) = local_rc02_game(addr).await;
    let path = format!("/api/games/{id}");
    let (status, body) = put_moves(addr, &path, r#"["b1-b2","c1-b1"]"#, &token, "").await;
    assert_eq!(status, 200, "{body}");
    let back = format!("{path}/takeback");
    let to = |ply: usize, token: &str| format!(r#"{{"token":"{token}","ply":{ply}}}"#);
    // Beyond the stored moves, somebody else, a ply that is no number: refused, nothing changed.
    let (status, body) = common::http(addr, "POST", &back, "", &to(3, &token)).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body.contains(r#"{"error":"cannot take back to ply 3: the game has 2 stored moves"}"#),
        "{body}"
    );
    let (status, body) = common::http(addr, "POST", &back, "", &to(1, "nobody")).await;
    assert_eq!(status, 403, "{body}");
    let bad = format!(r#"{{"token":"{token}","ply":-1}}"#);
    let (status, body) = common::http(addr, "POST", &back, "", &bad).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains(r#"{"error":"#), "{body}");
    // Back to ply 1 (twice: a retry changes nothing), then another line and a resignation.
    for _ in 0..2 {
        let (status, body) = common::http(addr, "POST", &back, "", &to(1, &token)).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains(r#""plies":1"#), "{body}");
    }
    let one = format!(r#"{{"token":"{token}","ply":2,"move":"c1-c2"}}"#);
    let (status, body) = common::http(addr, "POST", &format!("{path}/moves"), "", &one).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = put_moves(
        addr,
        &path,
        r#"["b1-b2","c1-c2"]"#,
        &token,
        r#","resign":"first""#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, body) = common::http(addr, "GET", &path, "", "").await;
    let start = body.find('{').unwrap();
    let game: serde_json::Value =
        serde_json::from_str(&body[start..body.rfind('}').unwrap() + 1]).unwrap();
    assert_eq!(game["record"], "b1-b2 c1-c2 R#");
    assert_eq!(game["winner"], "second");
    assert_eq!(game["moves"].as_array().unwrap().len(), 2);
    // The game is over: no more takebacks.
    let (status, _) = common::http(addr, "POST", &back, "", &to(0, &token)).await;
    assert_eq!(status, 409);
}

/// A page's WebSocket: its lines as messages, until the server closes it.
type Page =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn page_ready(s: &TestServer, ready: &Message) -> Page {
    use futures_util::SinkExt;
    let url = format!("ws://{}/ws", s.server.http_addr);
    let (mut page, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let line = ready.to_line();
    page.send(tokio_tungstenite::tungstenite::Message::text(line))
        .await
        .unwrap();
    page
}

/// Every message the page hears until the server closes the connection (10 s at most).
async fn heard_until_closed(page: &mut Page) -> Vec<Message> {
    use futures_util::StreamExt;
    let mut heard = Vec::new();
    let reading = async {
        while let Some(Ok(frame)) = page.next().await {
            if let Ok(text) = frame.to_text() {
                heard.extend(text.lines().filter_map(|l| Message::parse(l).ok()));
            }
            if frame.is_close() {
                break;
            }
        }
    };
    let closed = tokio::time::timeout(Duration::from_secs(10), reading).await;
    assert!(closed.is_ok(), "the idle page's connection stayed open");
    heard
}

/// A finished game left alone in two tabs: when the rematch window ends, both pages hear that
/// their seat is gone and why, though the server closes their idle connections at that instant.
#[tokio::test]
async fn an_idle_page_after_the_game_hears_why_its_seat_went_before_the_close() {
    use futures_util::SinkExt;
    let s = server_with(|c| {
        c.seats.rematch_window = Duration::from_secs(1);
        c.idle_timeout = Duration::from_secs(1);
    })
    .await;
    let mut red = page_ready(&s, &duck_ready("r", "RED", "41", &[])).await;
    let mut blue = page_ready(&s, &duck_ready("b", "BLUE", "41", &[])).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let resign = Message::new(RESIGN, "", "", "").to_line();
    red.send(tokio_tungstenite::tungstenite::Message::text(resign))
        .await
        .unwrap();
    for page in [&mut red, &mut blue] {
        let heard = heard_until_closed(page).await;
        assert!(heard.iter().any(|m| m.op == END), "{heard:?}");
        let notice = heard.iter().rfind(|m| m.op == NOTICE);
        let notice = notice.map(|m| (m.data1.as_str(), m.data3.as_str()));
        assert_eq!(
            notice,
            Some(("unseated", "the time to ask for a rematch is over"))
        );
    }
}
