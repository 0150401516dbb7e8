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
    let long = "é".repeat(3000);
    t.send(&bob, CHAT, "", &long).await;
    let cut = alice.one().data2;
    assert!(
        cut.len() <= 4096 + '…'.len_utf8() && cut.ends_with('…'),
        "{}",
        cut.len()
    );
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
