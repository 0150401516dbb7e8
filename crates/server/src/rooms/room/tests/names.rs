//! Names held by a browser's secret, and rated rooms.

use super::*;
use crate::storage::GameStore;

const ALICE_SECRET: &str = "0123456789abcdef0123456789abcdef";
const BOB_SECRET: &str = "fedcba9876543210fedcba9876543210";

/// READY from `c` with its name's `secret`, asking for a rated room or not.
async fn ready_named(t: &mut Table, c: &Client, name: &str, secret: Option<&str>, rated: bool) {
    let request = Requested {
        rated,
        ..t.request("surakarta", &[])
    };
    let ready = Ready {
        secret: secret.map(String::from),
        ..Ready::for_tests(name, "1", None, request)
    };
    let event = RoomEvent::Ready {
        peer: c.peer.clone(),
        ready,
    };
    t.room.step(event).await;
}

#[tokio::test(start_paused = true)]
async fn a_held_name_is_refused_to_anyone_without_its_secret() {
    let mut t = Table::new();
    let (mut alice, mut other, mut third) = (
        Client::page(1, "alice"),
        Client::page(2, "x"),
        Client::page(3, "y"),
    );
    ready_named(&mut t, &alice, "中文😀", Some(ALICE_SECRET), false).await;
    alice.silent();
    ready_named(&mut t, &other, "中文😀", Some(BOB_SECRET), false).await;
    let refused = other.one();
    assert_eq!(refused.extra_str("code"), Some("name_held"));
    assert_eq!(
        fields(&refused),
        (
            REJECT,
            "中文😀",
            "the name 中文😀 is held by another player",
            ""
        )
    );
    ready_named(&mut t, &third, "中文😀", None, false).await;
    assert_eq!(
        third.one().data2,
        "the name 中文😀 is held by another player"
    );
}

#[tokio::test(start_paused = true)]
async fn a_rated_game_needs_held_names_and_moves_both_ratings() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::page(1, "alice"), Client::page(2, "bob"));
    ready_named(&mut t, &alice, "alice", Some(ALICE_SECRET), true).await;
    ready_named(&mut t, &bob, "bob", None, true).await;
    assert_eq!(
        bob.one().data2,
        "a rated game needs a name of your own (choose one on the home page)"
    );
    ready_named(&mut t, &bob, "bob", Some(BOB_SECRET), true).await;
    assert_eq!(alice.one().op, READY);
    assert_eq!(bob.one().op, READY);
    t.send(&alice, RESIGN, "", "").await;
    let end = bob.one();
    assert_eq!(end.op, END);
    let told = end.extra.get("ratings").expect("the new ratings").clone();
    let board = t
        .store
        .leaderboard("surakarta/bullet".into(), 5)
        .await
        .unwrap();
    let names: Vec<&str> = board.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["bob", "alice"]);
    let bob_after = board[0].rating.rating;
    assert!(bob_after > 1500.0);
    assert_eq!(told[1][0], serde_json::json!(bob_after.round()));
    assert_eq!(told[1][1], serde_json::json!((bob_after - 1500.0).round()));
}
