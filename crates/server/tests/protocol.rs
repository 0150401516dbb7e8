//! Every rule of the protocol page, against a real server over TCP.

mod common;

use std::time::Duration;

use arbiter_server::protocol::{
    Message, CHAT, END, END_MARKER, LEAVE, MOVE, READY, REJECT, RESIGN, STATE, WATCH,
};
use common::{duck_pair, pair, server, server_with, Client};

#[tokio::test]
async fn every_reject_case() {
    let s = server().await;
    let mut c = Client::connect(&s).await;
    for (name, colour, room, why) in [
        ("bad name!", "", "1", "username"),
        ("ok", "PURPLE", "1", "colour"),
        ("ok", "", "256", "room"),
        ("ok", "", "-1", "room"),
        ("ok", "", "one", "room"),
    ] {
        c.send(READY, name, colour, room).await;
        let m = c.recv().await;
        assert_eq!(m.op, REJECT, "{name} {colour} {room}");
        assert_eq!(m.data1, name);
        assert!(m.data2.contains(why), "{}", m.data2);
    }
    // A colour already taken: the later client is refused.
    let mut a = Client::connect(&s).await;
    let mut b = Client::connect(&s).await;
    a.send(READY, "a", "WHITE", "7").await;
    b.send(READY, "b", "WHITE", "7").await;
    let m = b.recv().await;
    assert_eq!((m.op, m.data1.as_str()), (REJECT, "b"));
    assert!(m.data2.contains("colour"));
    // A third client in a room with a game.
    let (_x, _y) = pair(&s, "8").await;
    let mut third = Client::connect(&s).await;
    third.send(READY, "c", "", "8").await;
    assert_eq!(third.recv().await.op, REJECT);
    // The extension: an unknown game, or a different game than the one waiting.
    let mut e = Client::connect(&s).await;
    let mut m = Message::new(READY, "e", "", "9");
    m.extra.insert("game".into(), "chess".into());
    e.send_message(&m).await;
    assert!(e.recv().await.data2.contains("game"));
    let mut d = Client::connect(&s).await;
    let mut duck = Message::new(READY, "d", "", "10");
    duck.extra.insert("game".into(), "duck".into());
    d.send_message(&duck).await;
    let mut f = Client::connect(&s).await;
    f.send(READY, "f", "", "10").await;
    let m = f.recv().await;
    assert_eq!(m.op, REJECT);
    assert!(m.data2.contains("duck"), "{}", m.data2);
}

#[tokio::test]
async fn colour_assignment() {
    let s = server().await;
    // Neither asks: the first ready plays black.
    let mut a = Client::connect(&s).await;
    let mut b = Client::connect(&s).await;
    a.send(READY, "first", "", "3").await;
    // Time for the server to take the first READY before the second (order decides colours).
    tokio::time::sleep(Duration::from_millis(300)).await;
    b.send(READY, "second", "", "3").await;
    assert_eq!(a.recv().await.data2, "BLACK");
    assert_eq!(b.recv().await.data2, "WHITE");
    // One asks for white: the other gets black even though it came first.
    let mut a = Client::connect(&s).await;
    let mut b = Client::connect(&s).await;
    a.send(READY, "early", "", "").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    b.send(READY, "late", "BLACK", "").await;
    let (ra, rb) = (a.recv().await, b.recv().await);
    assert_eq!(
        (ra.data2.as_str(), ra.data3.as_str()),
        ("WHITE", "1"),
        "the empty room is room 1"
    );
    assert_eq!(rb.data2, "BLACK");
}

#[tokio::test]
async fn legal_and_illegal_moves_and_the_end_marker() {
    let s = server().await;
    let (mut black, mut white) = pair(&s, "1").await;
    black.send(MOVE, "A2", "A3", "").await;
    let m = white.recv().await;
    assert_eq!(
        (m.op, m.data1.as_str(), m.data2.as_str(), m.data3.as_str()),
        (MOVE, "A2", "A3", "")
    );
    // White tries to jump two points: forwarded with the end marker, then END.
    white.send(MOVE, "A5", "A3", "").await;
    let m = black.recv().await;
    assert_eq!((m.op, m.data3.as_str()), (MOVE, END_MARKER));
    let end = black.recv().await;
    // A3 holds a black piece: an illegal capture (8), an illegal-move end (6), black wins (0).
    assert_eq!(
        (
            end.op,
            end.data1.as_str(),
            end.data2.as_str(),
            end.data3.as_str()
        ),
        (END, "8", "6", "0")
    );
    assert_eq!(white.recv().await, end);
    // The record file holds the course notation.
    let latest = std::fs::read_to_string(s.dir.join("records").join("latest.txt")).unwrap();
    // As the course's own programs write it: no final newline.
    assert_eq!(latest, "A2-A3 A5-A3 I#");
}

#[tokio::test]
async fn a_legal_move_that_ends_the_game() {
    let s = server().await;
    let mut a = Client::connect(&s).await;
    let mut b = Client::connect(&s).await;
    for (c, name) in [(&mut a, "a"), (&mut b, "b")] {
        let mut m = Message::new(READY, name, "", "4");
        m.extra.insert("game".into(), "surakarta".into());
        m.extra.insert("max_no_capture_round".into(), 1.into());
        c.send_message(&m).await;
    }
    let black_is_a = a.recv().await.data2 == "BLACK";
    b.recv().await;
    let (black, white) = if black_is_a {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };
    black.send(MOVE, "B2", "B3", "").await;
    let m = white.recv().await;
    assert_eq!(m.data3, END_MARKER);
    let end = white.recv().await;
    // A stalemate with equal pieces: nobody wins.
    assert_eq!(
        (end.data1.as_str(), end.data2.as_str(), end.data3.as_str()),
        ("2", "1", "2")
    );
}

#[tokio::test]
async fn a_move_out_of_turn_loses() {
    let s = server().await;
    let (mut black, mut white) = pair(&s, "1").await;
    white.send(MOVE, "A5", "A4", "").await;
    assert_eq!(black.recv().await.data3, END_MARKER);
    let end = black.recv().await;
    // NOT_PLAYER_TURN (4), ILLIGAL_MOVE (6), black wins: the rule breaker always loses.
    assert_eq!(
        (end.data1.as_str(), end.data2.as_str(), end.data3.as_str()),
        ("4", "6", "0")
    );
}

#[tokio::test]
async fn the_clock() {
    // Long enough that a loaded CI machine still delivers black's first move in time.
    let s = server_with(|c| c.timeout_ms = 1000).await;
    let (mut black, mut white) = pair(&s, "1").await;
    black.send(MOVE, "A2", "A3", "").await;
    white.recv().await;
    // White never answers.
    let end = black.recv().await;
    assert_eq!(
        (
            end.op,
            end.data1.as_str(),
            end.data2.as_str(),
            end.data3.as_str()
        ),
        (END, "", "5", "0")
    );
    assert_eq!(white.recv().await, end);
}

#[tokio::test]
async fn resign_on_and_off_turn() {
    let s = server().await;
    let (mut black, mut white) = pair(&s, "1").await;
    white.send(RESIGN, "", "", "").await;
    assert!(black.quiet().await, "a resignation off turn is ignored");
    black.send(RESIGN, "", "", "").await;
    let end = white.recv().await;
    assert_eq!(
        (end.data1.as_str(), end.data2.as_str(), end.data3.as_str()),
        ("", "4", "1")
    );
    assert_eq!(black.recv().await, end);
}

#[tokio::test]
async fn leave_and_disconnect_resign() {
    let s = server().await;
    let (mut black, mut white) = pair(&s, "1").await;
    white.send(LEAVE, "bob", "bye", "").await;
    let leave = black.recv().await;
    assert_eq!(
        (leave.op, leave.data1.as_str(), leave.data2.as_str()),
        (LEAVE, "bob", "bye")
    );
    let end = black.recv().await;
    assert_eq!(
        (end.op, end.data2.as_str(), end.data3.as_str()),
        (END, "4", "0")
    );
    let (black, mut white) = pair(&s, "2").await;
    drop(black);
    assert_eq!(white.recv().await.op, LEAVE);
    let end = white.recv().await;
    assert_eq!(
        (end.op, end.data2.as_str(), end.data3.as_str()),
        (END, "4", "1")
    );
}

#[tokio::test]
async fn rematch_after_the_end() {
    let s = server().await;
    let (mut black, mut white) = pair(&s, "1").await;
    black.send(RESIGN, "", "", "").await;
    black.recv().await;
    white.recv().await;
    // White asks to be black this time.
    white.send(READY, "bob", "BLACK", "1").await;
    black.send(READY, "alice", "", "1").await;
    let (rw, rb) = (white.recv().await, black.recv().await);
    assert_eq!((rw.op, rw.data2.as_str()), (READY, "BLACK"));
    assert_eq!((rb.op, rb.data2.as_str()), (READY, "WHITE"));
    white.send(MOVE, "A2", "A3", "").await;
    assert_eq!(black.recv().await.data1, "A2");
}

#[tokio::test]
async fn chat_is_relayed() {
    let s = server().await;
    let (mut black, mut white) = pair(&s, "1").await;
    black.send(CHAT, "whatever", "good luck", "").await;
    let m = white.recv().await;
    assert_eq!(
        (m.op, m.data1.as_str(), m.data2.as_str()),
        (CHAT, "alice", "good luck")
    );
}

#[tokio::test]
async fn spectators_see_the_game() {
    let s = server().await;
    let (mut black, mut white) = pair(&s, "5").await;
    black.send(MOVE, "A2", "A3", "").await;
    white.recv().await;
    let mut watcher = Client::connect(&s).await;
    watcher.send(WATCH, "5", "", "").await;
    let state = watcher.recv().await;
    assert_eq!(state.op, STATE);
    let snapshot: serde_json::Value = serde_json::from_str(&state.data1).unwrap();
    assert_eq!(snapshot["status"], "playing");
    assert_eq!(snapshot["moves"], serde_json::json!(["A2-A3"]));
    assert_eq!(snapshot["players"][0]["name"], "alice");
    white.send(MOVE, "A5", "A4", "").await;
    let m = watcher.recv().await;
    assert_eq!((m.op, m.data1.as_str()), (MOVE, "A5"));
    black.send(RESIGN, "", "", "").await;
    assert_eq!(watcher.recv().await.op, END);
}

#[tokio::test]
async fn a_duck_chess_game_through_the_extension() {
    let s = server().await;
    let (mut red, mut blue) = duck_pair(&s, "300", &[]).await;
    // Red's car goes up; blue's car takes nothing; red moves a guard illegally and loses.
    red.send(MOVE, "a0", "a1", "").await;
    assert_eq!(blue.recv().await.data1, "a0");
    blue.send(MOVE, "a9", "a8", "").await;
    assert_eq!(red.recv().await.data2, "a8");
    red.send(MOVE, "d0", "d2", "").await;
    assert_eq!(blue.recv().await.data3, END_MARKER);
    let end = blue.recv().await;
    assert_eq!(
        (end.data1.as_str(), end.data2.as_str(), end.data3.as_str()),
        ("9", "6", "1")
    );
}

#[tokio::test]
async fn a_fast_game_is_never_cut_by_the_rate_limit_and_a_cycle_ends_in_a_draw() {
    // 10 messages a second (bursts of 20); each side sends 150 moves as fast as it can.
    let s = server_with(|c| c.rate_limit = 10).await;
    let (mut red, mut blue) = duck_pair(&s, "301", &[("max_no_capture_round", 300.into())]).await;
    let cycle = [("a0", "a1"), ("a9", "a8"), ("a1", "a0"), ("a8", "a9")];
    for ply in 0..300 {
        let (from, to) = cycle[ply % 4];
        let (mover, other) = if ply % 2 == 0 {
            (&mut red, &mut blue)
        } else {
            (&mut blue, &mut red)
        };
        mover.send(MOVE, from, to, "").await;
        let m = other.recv().await;
        assert_eq!((m.op, m.data1.as_str()), (MOVE, from), "ply {ply}");
        assert_eq!(m.data3 == END_MARKER, ply == 299, "ply {ply}");
    }
    // 300 moves without a capture: a draw (stalemate, winner 2).
    let end = red.recv().await;
    assert_eq!(
        (end.op, end.data2.as_str(), end.data3.as_str()),
        (END, "1", "2")
    );
    let latest = std::fs::read_to_string(s.dir.join("records").join("latest.txt")).unwrap();
    assert!(latest.ends_with("a8-a9 S#"), "{latest}");
}

#[tokio::test]
async fn framing_several_messages_in_one_read_and_one_across_reads() {
    let s = server().await;
    let mut a = Client::connect(&s).await;
    let mut b = Client::connect(&s).await;
    let ready_a = Message::new(READY, "a", "BLACK", "6").to_line();
    let ready_b = Message::new(READY, "b", "WHITE", "6").to_line();
    let (half, rest) = ready_b.split_at(10);
    b.raw(half).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    b.raw(&format!("{rest}\n")).await;
    let mv = Message::new(MOVE, "A2", "A3", "").to_line();
    a.raw(&format!("{ready_a}\n")).await;
    assert_eq!(a.recv().await.op, READY);
    assert_eq!(b.recv().await.op, READY);
    // Garbage, an unknown op and a valid move in one write: the move still counts.
    a.raw(&format!(
        "not json\n{{\"op\":123,\"data1\":\"\",\"data2\":\"\",\"data3\":\"\"}}\n{mv}\n"
    ))
    .await;
    assert_eq!(b.recv().await.data1, "A2");
}

#[tokio::test]
async fn overlong_lines_silence_and_floods() {
    let s = server_with(|c| {
        c.idle_timeout = Duration::from_millis(300);
        c.rate_limit = 20;
    })
    .await;
    let (mut black, mut white) = pair(&s, "1").await;
    // A 100 KiB line is dropped; the connection and the game go on.
    black.raw(&format!("{}\n", "x".repeat(100 * 1024))).await;
    black.send(MOVE, "A2", "A3", "").await;
    assert_eq!(white.recv().await.data1, "A2");
    // A client that connects and never speaks is disconnected.
    let mut mute = Client::connect(&s).await;
    assert!(mute.closed_within(Duration::from_secs(3)).await);
    // A flood of chat is cut off; the flooder is dropped and the opponent told.
    for _ in 0..2000 {
        white.send(CHAT, "bob", "spam", "").await;
    }
    let mut saw_end = false;
    while let Some(m) = black.recv_within(Duration::from_secs(2)).await {
        if m.op == END {
            saw_end = true;
            break;
        }
    }
    assert!(saw_end, "the flooding client was disconnected and resigned");
    // Other rooms are untouched.
    let (mut c, mut d) = pair(&s, "2").await;
    c.send(MOVE, "B2", "B3", "").await;
    assert_eq!(d.recv().await.data1, "B2");
}

#[tokio::test]
async fn the_http_api_lists_rooms_and_games() {
    use arbiter_server::client::http_get;
    let s = server().await;
    let (mut black, mut white) = pair(&s, "12").await;
    black.send(MOVE, "A2", "A3", "").await;
    white.recv().await;
    let rooms: serde_json::Value =
        serde_json::from_str(&http_get(s.server.http_addr, "/api/rooms").await.unwrap()).unwrap();
    let room = rooms["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["room"] == 12)
        .expect("room 12 listed");
    assert_eq!(room["status"], "playing");
    white.send(RESIGN, "", "", "").await;
    black.recv().await;
    let games: serde_json::Value = serde_json::from_str(
        &http_get(s.server.http_addr, "/api/games?player=alice")
            .await
            .unwrap(),
    )
    .unwrap();
    let id = games[0]["id"].as_i64().unwrap();
    // A list omits the moves rather than showing every game with none.
    assert!(games[0].get("moves").is_none(), "{games}");
    let game: serde_json::Value = serde_json::from_str(
        &http_get(s.server.http_addr, &format!("/api/games/{id}"))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(game["record"], "A2-A3 R#");
    assert_eq!(game["moves"][0]["move"], "A2-A3");
    assert_eq!(game["winner"], "first");
    assert!(http_get(s.server.http_addr, "/api/games/999999")
        .await
        .unwrap_err()
        .to_string()
        .contains("404"));
    assert!(http_get(s.server.http_addr, "/api/games/abc")
        .await
        .unwrap_err()
        .to_string()
        .contains("400"));
}

#[tokio::test]
async fn a_websocket_client_plays_a_tcp_client() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message as Ws;
    let s = server().await;
    let url = format!("ws://{}/ws", s.server.http_addr);
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut tcp = Client::connect(&s).await;
    ws.send(Ws::text(
        Message::new(READY, "web", "BLACK", "20").to_line(),
    ))
    .await
    .unwrap();
    tcp.send(READY, "tcp", "WHITE", "20").await;
    let next = |text: Option<Result<Ws, _>>| match text {
        Some(Ok(Ws::Text(t))) => Message::parse(t.as_str()).unwrap(),
        other => panic!("expected a text frame, got {other:?}"),
    };
    assert_eq!(next(ws.next().await).data1, "tcp");
    tcp.recv().await;
    ws.send(Ws::text(Message::new(MOVE, "A2", "A3", "").to_line()))
        .await
        .unwrap();
    assert_eq!(tcp.recv().await.data1, "A2");
    tcp.send(MOVE, "A5", "A4", "").await;
    assert_eq!(next(ws.next().await).data2, "A4");
}
