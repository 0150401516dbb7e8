//! A player whose node the owner cannot hear (docs/cluster.md, "Failures"): its time stands from
//! when the node was last heard until it is heard again, to the millisecond.

use tokio::time::Instant;

use super::*;

async fn reach(t: &mut Table, c: &Client, unheard_since: Option<Instant>) {
    let conn = c.peer.id;
    t.room
        .step(RoomEvent::Reach {
            conn,
            unheard_since,
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn the_side_to_move_out_of_reach_is_charged_only_until_its_node_was_last_heard() {
    let (mut t, mut alice, mut bob) = started().await;
    t.advance(Duration::from_millis(1000)).await;
    // Heard last 600 ms ago: 400 ms of the turn are charged, the rest stands.
    let last_heard = Instant::now() - Duration::from_millis(600);
    reach(&mut t, &alice, Some(last_heard)).await;
    t.advance(Duration::from_secs(60)).await;
    alice.silent();
    bob.silent();
    reach(&mut t, &alice, None).await;
    t.advance(MOVE_TIME - Duration::from_millis(400) - MS).await;
    alice.silent();
    t.advance(MS).await;
    let expected = end(None, EndReason::Timeout, Winner::Second);
    assert_eq!(end_of(&alice.one()), expected);
}

#[tokio::test(start_paused = true)]
async fn a_move_told_to_a_player_out_of_reach_starts_its_time_once_it_is_heard() {
    let (mut t, mut alice, mut bob) = started().await;
    reach(&mut t, &bob, Some(Instant::now())).await;
    t.play(&alice, "A2", "A3").await;
    bob.one();
    t.advance(Duration::from_secs(60)).await;
    bob.silent();
    reach(&mut t, &bob, None).await;
    t.advance(MOVE_TIME - MS).await;
    bob.silent();
    t.advance(MS).await;
    let expected = end(None, EndReason::Timeout, Winner::First);
    assert_eq!(end_of(&alice.one()), expected);
}

#[tokio::test(start_paused = true)]
async fn the_opponent_out_of_reach_does_not_stop_the_side_to_move() {
    let (mut t, mut alice, bob) = started().await;
    reach(&mut t, &bob, Some(Instant::now())).await;
    t.advance(MOVE_TIME).await;
    let expected = end(None, EndReason::Timeout, Winner::Second);
    assert_eq!(end_of(&alice.one()), expected);
}
