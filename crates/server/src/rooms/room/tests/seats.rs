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
    // A course client is told a resignation, as its protocol says; the game is stored as left.
    assert_eq!(
        end_of(&heard[1]),
        end(None, EndReason::Resign, Winner::First)
    );
    assert_eq!(t.store.games()[0].end_reason.as_deref(), Some("LEFT"));
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
async fn a_player_who_does_not_come_back_in_time_has_left() {
    let (mut t, mut alice, bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    t.play(&bob, "F5", "E4").await;
    t.play(&alice, "B2", "B3").await;
    alice.heard();
    t.close(&bob).await;
    alice.one();
    t.advance(GRACE - MS).await;
    alice.silent();
    t.advance(MS).await;
    let heard = alice.heard();
    // Told and stored as what happened: bob left (not a resignation).
    assert_eq!(end_of(&heard[0]), end(None, EndReason::Left, Winner::First));
    assert_eq!(fields(&heard[1]), (LEAVE, "bob", "left the room", ""));
    assert!(t.room.info().away.is_empty());
    assert_eq!(t.store.games()[0].end_reason.as_deref(), Some("LEFT"));
}

/// A page away during its first move (off the clock) does not lose: the game is aborted when
/// the first-move time is up, without a result.
#[tokio::test(start_paused = true)]
async fn a_page_that_misses_its_first_move_aborts_the_game_without_a_result() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    bob.heard();
    t.advance(FIRST_MOVE - MS).await;
    alice.silent();
    t.advance(MS).await;
    let heard = alice.heard();
    assert_eq!(
        end_of(&heard[0]),
        end(None, EndReason::Aborted, Winner::Nobody)
    );
    assert_eq!(heard[0].extra["error"], "bob did not play a first move");
    let game = &t.store.games()[0];
    assert_eq!(game.end_reason.as_deref(), Some("ABORTED"));
    assert_eq!(game.winner, Some(Winner::Nobody));
}

/// A course client's first move is on the course's clock: missing it loses on time.
#[tokio::test(start_paused = true)]
async fn a_course_clients_first_move_is_on_the_clock() {
    let (mut t, mut alice, _bob) = started().await;
    t.advance(MOVE_TIME).await;
    assert_eq!(
        end_of(&alice.one()),
        end(None, EndReason::Timeout, Winner::Second)
    );
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
    // Past both first moves (off the clock for pages).
    t.play(&alice, "A2", "A3").await;
    t.play(&bob, "F5", "E4").await;
    t.play(&alice, "B2", "B3").await;
    alice.heard();
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

/// A second tab of the same browser (the same seat token) takes the seat; the first tab is
/// told and watches from then on: it sees the moves, and its own moves count for nothing.
#[tokio::test(start_paused = true)]
async fn a_second_tab_takes_the_seat_and_the_first_one_watches() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    bob.heard();
    let mut tab = Client::page(3, "alice");
    t.come_back(&tab, ALICE_TOKEN).await;
    assert_eq!(fields(&alice.one()), (NOTICE, "moved", "", ""));
    let heard = tab.heard();
    assert_eq!(fields(&heard[0]).0, READY, "{heard:?}");
    assert_eq!(fields(&heard[1]).0, STATE, "{heard:?}");
    t.play(&bob, "F5", "E4").await;
    assert_eq!(fields(&tab.one()), (MOVE, "F5", "E4", ""));
    assert_eq!(fields(&alice.one()).0, MOVE, "the first tab watches");
    t.play(&alice, "B2", "B3").await;
    assert_eq!(t.room.info().moves.len(), 2, "a watching tab does not move");
    t.play(&tab, "B2", "B3").await;
    assert_eq!(t.room.info().moves.len(), 3);
}

/// A finished game's page that comes back (a reload, a lost connection) hears the game and its
/// end again and keeps its seat: it asks the opponent for nothing and starts nothing.
#[tokio::test(start_paused = true)]
async fn a_page_back_after_its_game_hears_the_end_and_seeks_nothing() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    t.send(&alice, RESIGN, "", "").await;
    alice.heard();
    bob.heard();
    t.close(&alice).await;
    bob.heard();
    let mut again = Client::page(3, "alice");
    t.come_back(&again, ALICE_TOKEN).await;
    let heard = again.heard();
    assert_eq!(fields(heard.last().unwrap()).0, END, "{heard:?}");
    bob.silent();
    assert_eq!(t.room.info().players.iter().filter(|p| p.ready).count(), 0);
}

/// After the rematch window a page's seat is freed and the page hears so; coming back later
/// with its token it is told its seat is gone, and no seek appears in the room.
#[tokio::test(start_paused = true)]
async fn a_seat_freed_after_the_game_is_told_and_never_sought_again() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    t.send(&alice, RESIGN, "", "").await;
    alice.heard();
    bob.heard();
    t.advance(REMATCH).await;
    let heard = alice.heard();
    let unseated = heard.iter().find(|m| m.op == NOTICE).expect("told");
    assert_eq!(
        fields(unseated),
        (
            NOTICE,
            "unseated",
            "",
            "the time to ask for a rematch is over"
        )
    );
    assert!(t.room.info().players.is_empty());
    let mut later = Client::page(3, "alice");
    t.come_back(&later, ALICE_TOKEN).await;
    let heard = later.heard();
    assert_eq!(
        fields(&heard[1]),
        (NOTICE, "unseated", "", "your seat in this room is gone")
    );
    assert!(t.room.info().players.is_empty(), "no seek");
}

/// A seeker nobody came to play is told when its wait is over.
#[tokio::test(start_paused = true)]
async fn a_seeker_nobody_came_to_is_told_its_wait_is_over() {
    let mut t = Table::new();
    let mut alice = Client::page(1, "alice");
    let request = t.request("surakarta", &[]);
    t.ready_with(&alice, None, request, Some(ALICE_TOKEN)).await;
    t.advance(WAIT).await;
    let heard = alice.heard();
    assert_eq!(
        fields(&heard[1]),
        (
            NOTICE,
            "unseated",
            "",
            "nobody came to play: the wait is over"
        )
    );
}
