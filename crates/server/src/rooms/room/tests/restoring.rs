//! A room taken over from a node that stopped: the game from the store, seats waiting for their
//! tokens, clocks as of the last stored move.

use super::seats::{ALICE_TOKEN, BOB_TOKEN};
use super::*;
use crate::rooms::RestoredGame;

/// Surakarta with a 60 s + 1 s clock: two moves stored, the first after 4 s, the second 7 s
/// later; then the owner died.
fn stored_game(t: &Table) -> RestoredGame {
    let request = Requested {
        clock: Some(GameClock {
            initial_ms: 60_000,
            increment_ms: 1_000,
        }),
        ..t.request("surakarta", &[])
    };
    let defaults = t.room.ctx.setup.defaults;
    RestoredGame {
        game_id: 7,
        settings: request.fresh(&defaults).unwrap(),
        names: ["alice".into(), "bob".into()],
        tokens: [Some(ALICE_TOKEN.into()), Some(BOB_TOKEN.into())],
        started_at_ms: 1_000_000,
        moves: vec![("A2-A3".into(), 1_004_000), ("F5-E4".into(), 1_011_000)],
    }
}

fn restored_table() -> Table {
    let t = Table::new();
    let stored = stored_game(&t);
    let ctx = t.room.ctx.clone();
    Table {
        room: Room::restored(1, ctx, stored).unwrap(),
        store: t.store,
    }
}

#[tokio::test(start_paused = true)]
async fn a_player_back_with_its_token_hears_the_game_and_the_clocks_of_the_last_stored_move() {
    let mut t = restored_table();
    assert_eq!(t.status(), "playing");
    assert_eq!(t.room.info().away, ["alice", "bob"]);
    // A minute of outage before anyone comes back costs nobody anything.
    t.advance(Duration::from_secs(20)).await;
    let mut alice = Client::page(11, "alice");
    let request = t.request("surakarta", &[]);
    t.ready_with(&alice, None, request, Some(ALICE_TOKEN)).await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[0]).0, READY);
    let state: serde_json::Value = serde_json::from_str(&heard[1].data1).unwrap();
    assert_eq!(state["moves"], serde_json::json!(["A2-A3", "F5-E4"]));
    assert_eq!(
        state["clocks"],
        serde_json::json!([57_000, 54_000]),
        "{state}"
    );
    assert_eq!(fields(&heard[2]), (NOTICE, "restored", "", ""));
    assert!(alice.awaited() && alice.seated());
    t.play(&alice, "B2", "B3").await;
    assert_eq!(
        t.store.games().len(),
        0,
        "stored by the game's first owner, not here"
    );
}

#[tokio::test(start_paused = true)]
async fn a_player_who_never_comes_back_has_resigned_after_the_seat_grace() {
    let mut t = restored_table();
    let mut bob = Client::page(12, "bob");
    let request = t.request("surakarta", &[]);
    t.ready_with(&bob, None, request, Some(BOB_TOKEN)).await;
    bob.heard();
    t.advance(GRACE).await;
    let heard = bob.heard();
    assert_eq!(
        end_of(&heard[0]),
        end(None, EndReason::Resign, Winner::Second)
    );
}

#[test]
fn a_stored_line_that_is_not_legal_is_not_taken_over() {
    let t = Table::new();
    let mut stored = stored_game(&t);
    stored.moves.push(("A1-F6".into(), 1_012_000));
    stored.moves.push(("F6-F5".into(), 1_013_000));
    let refused = Room::restored(1, t.room.ctx.clone(), stored).err().unwrap();
    assert!(refused.to_string().contains("move 3 `A1-F6`"), "{refused}");
}

/// The owner stored a move that ended the game (here an illegal one, which loses) and stopped
/// before it stored the end: the next owner stores it, and a player back with its token hears it.
#[tokio::test(start_paused = true)]
async fn a_game_its_last_stored_move_ended_is_closed_and_its_players_hear_how() {
    use crate::storage::{GameStore, NewGame};
    let t = Table::new();
    let mut stored = stored_game(&t);
    let new_game = NewGame {
        room: 1,
        game: "surakarta".into(),
        settings: "{}".into(),
        players: ["alice".into(), "bob".into()],
        owner: None,
        seat_tokens: [None, None],
        fence: None,
    };
    stored.game_id = t.store.start_game(new_game).await.unwrap();
    stored.moves.push(("A1-F6".into(), 1_012_000));
    let ctx = t.room.ctx.clone();
    let mut t = Table {
        room: Room::restored(1, ctx, stored).unwrap(),
        store: t.store,
    };
    t.room.settle().await;
    let game = &t.store.games()[0];
    assert_eq!(game.end_reason.as_deref(), Some("ILLIGAL_MOVE"), "{game:?}");
    assert_eq!(t.status(), "over");
    let mut alice = Client::page(11, "alice");
    let request = t.request("surakarta", &[]);
    t.ready_with(&alice, None, request, Some(ALICE_TOKEN)).await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[0]).0, READY, "{heard:?}");
    let state: serde_json::Value = serde_json::from_str(&heard[1].data1).unwrap();
    assert_eq!(state["moves"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        end_of(heard.last().unwrap()),
        end(None, EndReason::IllegalMove, Winner::Second)
    );
}

#[tokio::test(start_paused = true)]
async fn a_course_client_seated_again_hears_only_the_moves_it_missed() {
    let t = Table::new();
    let mut stored = stored_game(&t);
    stored.moves.push(("B2-B3".into(), 1_012_000));
    let ctx = t.room.ctx.clone();
    let mut t = Table {
        room: Room::restored(1, ctx, stored).unwrap(),
        store: t.store,
    };
    // Bob (second) made F5-E4 and knew A2-A3; he never heard B2-B3. His gateway seats him
    // again with the token it keeps for him, saying he knows two moves.
    let mut bob = Client::new(12, "bob");
    bob.peer.moves_known.store(2, Ordering::Relaxed);
    let request = t.request("surakarta", &[]);
    t.ready_with(&bob, None, request, Some(BOB_TOKEN)).await;
    let heard = bob.heard();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(fields(&heard[0]), (MOVE, "B2", "B3", ""));
    assert!(bob.awaited());
    // One that knew every move hears nothing again.
    let mut again = Client::new(13, "bob");
    again.peer.moves_known.store(3, Ordering::Relaxed);
    let request = t.request("surakarta", &[]);
    t.ready_with(&again, None, request, Some(BOB_TOKEN)).await;
    assert!(again.heard().is_empty());
}
