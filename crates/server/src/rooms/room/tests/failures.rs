//! Storage refusing writes, shutdown, and a connection that cannot take messages.

use super::*;

#[tokio::test(start_paused = true)]
async fn a_move_the_store_refuses_is_never_forwarded_and_the_game_is_interrupted() {
    let (mut t, mut alice, mut bob) = started().await;
    t.store.failing.store(true, Ordering::Relaxed);
    t.play(&alice, "A2", "A3").await;
    let to_bob = bob.one();
    assert_eq!(
        end_of(&to_bob),
        end(None, EndReason::Interrupted, Winner::Nobody)
    );
    assert_eq!(
        to_bob.extra_str("error"),
        Some("the server could not store move 1")
    );
    assert_eq!(to_bob.extra_u64("plies"), Some(Ok(0)));
    assert_eq!(alice.one().op, END);
}

#[tokio::test(start_paused = true)]
async fn a_game_the_store_cannot_start_is_refused_to_both_players() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&alice, None).await;
    t.store.failing.store(true, Ordering::Relaxed);
    t.ready(&bob, None).await;
    for c in [&mut alice, &mut bob] {
        let refused = c.one();
        assert_eq!(refused.op, REJECT);
        assert_eq!(refused.data2, "the server cannot store games right now");
    }
    assert_eq!(t.status(), "waiting");
}

#[tokio::test(start_paused = true)]
async fn shutting_down_interrupts_a_running_game() {
    let (mut t, mut alice, mut bob) = started().await;
    let (done, finished) = oneshot::channel();
    t.room.step(RoomEvent::Shutdown { done }).await;
    finished.await.unwrap();
    let expected = end(None, EndReason::Interrupted, Winner::Nobody);
    assert_eq!(end_of(&alice.one()), expected);
    assert_eq!(end_of(&bob.one()), expected);
}

#[tokio::test(start_paused = true)]
async fn a_player_whose_connection_cannot_take_messages_leaves_the_game() {
    let (mut t, mut alice, bob) = started().await;
    bob.peer.outbox.close();
    t.play(&alice, "A2", "A3").await;
    let heard = alice.heard();
    assert_eq!(
        end_of(heard.last().unwrap()),
        end(None, EndReason::Resign, Winner::First)
    );
}
