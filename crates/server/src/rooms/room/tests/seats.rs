//! Seats kept and freed: waiting, after a game, leaving, and coming back with a token.

use super::*;

#[tokio::test(start_paused = true)]
async fn seats_are_freed_when_nobody_asks_for_a_rematch_in_time() {
    let (mut t, mut alice, mut bob) = started().await;
    t.send(&alice, RESIGN, "", "").await;
    alice.one();
    bob.one();
    t.advance(REMATCH - MS).await;
    assert!(alice.seated() && bob.seated());
    t.advance(MS).await;
    assert!(!alice.seated() && !bob.seated());
    assert_eq!(fields(&bob.one()), (LEAVE, "alice", "left the room", ""));
    assert!(t.room.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_lone_player_loses_its_seat_after_waiting_too_long() {
    let mut t = Table::new();
    let alice = Client::new(1, "alice");
    t.ready(&alice, None).await;
    t.advance(WAIT - MS).await;
    assert!(alice.seated());
    t.advance(MS).await;
    assert!(!alice.seated());
    assert!(t.room.is_empty());
}

#[tokio::test(start_paused = true)]
async fn leaving_or_disconnecting_during_a_game_is_a_resignation() {
    let (mut t, mut alice, bob) = started().await;
    t.send(&bob, LEAVE, "bob", "bye").await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[0]), (LEAVE, "bob", "bye", ""));
    assert_eq!(
        end_of(&heard[1]),
        end(None, EndReason::Resign, Winner::First)
    );
    assert!(!bob.seated());

    let (mut t, mut alice, bob) = started().await;
    t.close(&bob).await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[0]), (LEAVE, "bob", "disconnected", ""));
    assert_eq!(
        end_of(&heard[1]),
        end(None, EndReason::Resign, Winner::First)
    );
}

pub(super) const ALICE_TOKEN: &str = "a11ce0000000000000000000000000a1";
pub(super) const BOB_TOKEN: &str = "b0b00000000000000000000000000b0b";

/// Alice and Bob, pages with seat tokens, in a started game.
pub(super) async fn started_with_tokens() -> (Table, Client, Client) {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::page(1, "alice"), Client::page(2, "bob"));
    // Moves long enough that only the seat's grace can run out.
    let request = Requested {
        timeout_ms: Some(60_000),
        ..t.request("surakarta", &[])
    };
    t.ready_with(
        &alice,
        Some(Side::First),
        request.clone(),
        Some(ALICE_TOKEN),
    )
    .await;
    t.ready_with(&bob, Some(Side::Second), request, Some(BOB_TOKEN))
        .await;
    alice.one();
    bob.one();
    (t, alice, bob)
}

/// The seat tokens are stored with the game, so a room's next owner (another node of a
/// cluster) can give the seats back.
#[tokio::test(start_paused = true)]
async fn the_seat_tokens_are_stored_with_the_game() {
    use crate::storage::GameStore;
    let (mut t, alice, _bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    let live = t
        .store
        .live_game(1)
        .await
        .unwrap()
        .expect("the running game");
    let tokens = [Some(ALICE_TOKEN.to_string()), Some(BOB_TOKEN.to_string())];
    assert_eq!(live.seat_tokens, tokens);
    assert_eq!(live.players, ["alice".to_string(), "bob".to_string()]);
    assert_eq!(live.moves.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_player_with_a_token_keeps_its_seat_and_comes_back_to_its_game() {
    let (mut t, mut alice, bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    t.close(&bob).await;
    assert_eq!(fields(&alice.one()), (NOTICE, "away", "bob", "30"));
    assert_eq!(t.room.info().away, ["bob"]);
    assert_eq!(t.status(), "playing");
    let mut again = Client::page(3, "bob");
    let request = t.request("surakarta", &[]);
    t.ready_with(&again, None, request, Some(BOB_TOKEN)).await;
    let heard = again.heard();
    assert_eq!(fields(&heard[0]), (READY, "alice", "WHITE", "1"));
    let state: serde_json::Value = serde_json::from_str(&heard[1].data1).unwrap();
    assert_eq!(state["moves"], serde_json::json!(["A2-A3"]));
    assert_eq!(fields(&alice.one()), (NOTICE, "back", "bob", "0"));
    assert!(again.awaited() && again.seated());
    t.play(&again, "F5", "E4").await;
    assert_eq!(fields(&alice.one()), (MOVE, "F5", "E4", ""));
}

#[tokio::test(start_paused = true)]
async fn a_player_who_does_not_come_back_in_time_has_resigned() {
    let (mut t, mut alice, bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    t.close(&bob).await;
    alice.one();
    t.advance(GRACE - MS).await;
    alice.silent();
    t.advance(MS).await;
    let heard = alice.heard();
    assert_eq!(
        end_of(&heard[0]),
        end(None, EndReason::Resign, Winner::First)
    );
    assert_eq!(fields(&heard[1]), (LEAVE, "bob", "left the room", ""));
    assert!(t.room.info().away.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_player_away_when_its_game_ended_hears_the_end_when_it_comes_back() {
    let (mut t, mut alice, bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    t.play(&bob, "F5", "E4").await;
    alice.one();
    t.close(&bob).await;
    alice.one();
    t.send(&alice, RESIGN, "", "").await;
    assert_eq!(
        end_of(&alice.one()),
        end(None, EndReason::Resign, Winner::Second)
    );
    let mut again = Client::page(3, "bob");
    let request = t.request("surakarta", &[]);
    t.ready_with(&again, None, request, Some(BOB_TOKEN)).await;
    let heard = again.heard();
    assert_eq!(heard.len(), 3, "{heard:?}");
    assert_eq!(fields(&heard[0]), (READY, "alice", "WHITE", "1"));
    let state: serde_json::Value = serde_json::from_str(&heard[1].data1).unwrap();
    assert_eq!(state["status"], "over");
    assert_eq!(state["moves"], serde_json::json!(["A2-A3", "F5-E4"]));
    assert_eq!(
        end_of(&heard[2]),
        end(None, EndReason::Resign, Winner::Second)
    );
    // Seated, not ready: a rematch is the players' choice.
    assert!(again.seated());
    assert_eq!(t.room.info().players.iter().filter(|p| p.ready).count(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_player_and_a_spectator_who_join_mid_move_are_told_the_time_left() {
    let (mut t, mut alice, bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    // Bob thinks 11 s of his 60, reloads, and comes back 2 s later.
    t.advance(Duration::from_secs(11)).await;
    t.close(&bob).await;
    alice.one();
    t.advance(Duration::from_secs(2)).await;
    let mut again = Client::page(3, "bob");
    let request = t.request("surakarta", &[]);
    t.ready_with(&again, None, request, Some(BOB_TOKEN)).await;
    let heard = again.heard();
    let state: serde_json::Value = serde_json::from_str(&heard[1].data1).unwrap();
    assert_eq!(state["turn_left_ms"], 47_000, "{state}");
    assert!(state.get("clocks").is_none(), "a clock per move: {state}");
    let mut carol = Client::new(4, "carol");
    t.advance(Duration::from_secs(5)).await;
    t.send(&carol, WATCH, "1", "").await;
    let state: serde_json::Value = serde_json::from_str(&carol.one().data1).unwrap();
    assert_eq!(state["turn_left_ms"], 42_000, "{state}");
    // A game over has no time left to show.
    t.send(&again, RESIGN, "", "").await;
    assert!(t.room.info().turn_left_ms.is_none());
}
