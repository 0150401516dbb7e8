//! Chat and spectators.

use super::*;

#[tokio::test(start_paused = true)]
async fn chat_goes_to_the_others_with_the_senders_name() {
    let (mut t, mut alice, mut bob) = started().await;
    let mut carol = Client::new(3, "carol");
    t.send(&carol, WATCH, "1", "").await;
    carol.one();
    t.send(&alice, CHAT, "", "good luck").await;
    assert_eq!(fields(&bob.one()), (CHAT, "alice", "good luck", ""));
    assert_eq!(fields(&carol.one()), (CHAT, "alice", "good luck", ""));
    alice.silent();
    // Spectators do not talk to the players.
    t.send(&carol, CHAT, "", "psst").await;
    bob.silent();
    alice.silent();
}

/// A line over 500 characters is refused, its sender told why; 500 (in any script) go through.
#[tokio::test(start_paused = true)]
async fn a_chat_line_over_500_characters_is_refused_with_a_reason() {
    let (mut t, mut alice, mut bob) = started().await;
    t.send(&bob, CHAT, "", &"é".repeat(501)).await;
    alice.silent();
    let refused = bob.one();
    assert_eq!((refused.op, refused.data1.as_str()), (NOTICE, "error"));
    assert_eq!(
        refused.data3,
        "a chat message has at most 500 characters; this one has 501"
    );
    let longest = "é".repeat(500);
    t.send(&bob, CHAT, "", &longest).await;
    assert_eq!(fields(&alice.one()), (CHAT, "bob", longest.as_str(), ""));
}

/// The spectators' own channel, as on lichess: a spectator's line goes to the other spectators,
/// under the name it gives, marked `spectators`; the players never see it.
#[tokio::test(start_paused = true)]
async fn spectators_chat_among_themselves_and_the_players_do_not_see_it() {
    let (mut t, mut alice, mut bob) = started().await;
    let (mut carol, mut dave) = (Client::new(3, "carol"), Client::new(4, "dave"));
    for c in [&carol, &dave] {
        t.send(c, WATCH, "1", "").await;
    }
    carol.one();
    dave.one();
    t.send(&carol, CHAT, "carol", "nice move").await;
    assert_eq!(
        fields(&dave.one()),
        (CHAT, "carol", "nice move", "spectators")
    );
    carol.silent();
    alice.silent();
    bob.silent();
    // The players' channel still reaches every spectator.
    t.send(&alice, CHAT, "", "thanks").await;
    assert_eq!(fields(&carol.one()), (CHAT, "alice", "thanks", ""));
    assert_eq!(fields(&dave.one()), (CHAT, "alice", "thanks", ""));
}

#[tokio::test(start_paused = true)]
async fn a_spectator_sees_the_state_then_every_move_and_the_end() {
    let (mut t, alice, bob) = started().await;
    t.play(&alice, "A2", "A3").await;
    let mut carol = Client::new(3, "carol");
    t.send(&carol, WATCH, "1", "").await;
    let state = carol.one();
    assert_eq!(fields(&state).0, STATE);
    let info: serde_json::Value = serde_json::from_str(&state.data1).unwrap();
    assert_eq!(info["status"], "playing");
    assert_eq!(info["moves"], serde_json::json!(["A2-A3"]));
    t.play(&bob, "F5", "E4").await;
    assert_eq!(fields(&carol.one()), (MOVE, "F5", "E4", ""));
    t.send(&alice, RESIGN, "", "").await;
    assert_eq!(carol.one().op, END);
    t.room.step(RoomEvent::Unwatch { conn: 3 }).await;
    t.send(&alice, CHAT, "", "gg").await;
    carol.silent();
}
