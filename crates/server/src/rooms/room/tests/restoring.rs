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
        course_clients_return: true,
    }
}

fn restored_table() -> Table {
    let t = Table::new();
    let mut stored = stored_game(&t);
    // Past both first moves (off the clock for pages): black thinks 9 s, white 4 s.
    stored.moves.push(("B2-B3".into(), 1_020_000));
    stored.moves.push(("A5-A4".into(), 1_024_000));
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
    assert_eq!(
        state["moves"],
        serde_json::json!(["A2-A3", "F5-E4", "B2-B3", "A5-A4"])
    );
    // Each side's first move cost nothing (pages); then 9 s and 4 s, with 1 s increments.
    assert_eq!(
        state["clocks"],
        serde_json::json!([52_000, 57_000]),
        "{state}"
    );
    assert_eq!(fields(&heard[2]), (NOTICE, "restored", "", ""));
    assert!(alice.awaited() && alice.seated());
    t.play(&alice, "C2", "C3").await;
    assert_eq!(
        t.store.games().len(),
        0,
        "stored by the game's first owner, not here"
    );
}

#[tokio::test(start_paused = true)]
async fn a_player_who_never_comes_back_has_left_after_the_seat_grace() {
    let mut t = restored_table();
    let mut bob = Client::page(12, "bob");
    let request = t.request("surakarta", &[]);
    t.ready_with(&bob, None, request, Some(BOB_TOKEN)).await;
    bob.heard();
    t.advance(GRACE).await;
    let heard = bob.heard();
    assert_eq!(
        end_of(&heard[0]),
        end(None, EndReason::Left, Winner::Second)
    );
}

/// Nobody comes back to a restored game: nobody finished it, so it has no result (it was
/// stored as a loss for the side to move).
#[tokio::test(start_paused = true)]
async fn a_restored_game_nobody_comes_back_to_is_abandoned_without_a_result() {
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
    let mut t = Table {
        room: Room::restored(1, t.room.ctx.clone(), stored).unwrap(),
        store: t.store,
    };
    t.advance(GRACE).await;
    let game = &t.store.games()[0];
    assert_eq!(game.end_reason.as_deref(), Some("ABANDONED"), "{game:?}");
    assert_eq!(game.winner, Some(Winner::Nobody), "no one won");
    let record = game.record.as_deref().unwrap_or_default();
    assert!(record.ends_with(" N#"), "{record}");
}

/// One server started again: a course client's socket died with it and it cannot come back,
/// so its game ends at once as its leaving does; the page opposite wins.
#[tokio::test(start_paused = true)]
async fn after_a_restart_a_course_clients_seat_ends_at_once_as_a_disconnect() {
    use crate::storage::{GameStore, NewGame};
    let t = Table::new();
    let mut stored = stored_game(&t);
    stored.tokens[1] = None;
    stored.course_clients_return = false;
    let new_game = NewGame {
        room: 1,
        game: "surakarta".into(),
        settings: "{}".into(),
        players: ["alice".into(), "bob".into()],
        owner: None,
        seat_tokens: [Some(ALICE_TOKEN.into()), None],
        fence: None,
    };
    stored.game_id = t.store.start_game(new_game).await.unwrap();
    let mut t = Table {
        room: Room::restored(1, t.room.ctx.clone(), stored).unwrap(),
        store: t.store,
    };
    t.advance(MS).await;
    let game = &t.store.games()[0];
    assert_eq!(game.end_reason.as_deref(), Some("LEFT"), "{game:?}");
    assert_eq!(game.winner, Some(Winner::First));
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

/// A course client's move sent again by its gateway to the room's next owner, with the ply it
/// meant: a move the former owner stored is not played twice, one it never stored is played,
/// and one meant for another ply is not taken.
#[tokio::test(start_paused = true)]
async fn a_move_sent_again_with_its_ply_is_played_once_and_only_as_that_ply() {
    use crate::storage::{GameStore, NewGame, PlayedMove};
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
    for (ply, (text, _)) in stored.moves.iter().enumerate() {
        let played = PlayedMove {
            game_id: stored.game_id,
            ply: ply + 1,
            text: text.clone(),
            reason: "LEGAL".into(),
            fence: None,
        };
        t.store.record_move(played).await.unwrap();
    }
    let ctx = t.room.ctx.clone();
    let mut t = Table {
        room: Room::restored(1, ctx, stored).unwrap(),
        store: t.store,
    };
    let (mut alice, mut bob) = (Client::new(11, "alice"), Client::new(12, "bob"));
    for (c, token) in [(&alice, ALICE_TOKEN), (&bob, BOB_TOKEN)] {
        c.peer.moves_known.store(2, Ordering::Relaxed);
        let request = t.request("surakarta", &[]);
        t.ready_with(c, None, request, Some(token)).await;
    }
    alice.heard();
    bob.heard();
    // Bob's F5-E4 (ply 2) was stored by the former owner: not a second move.
    t.play_as_ply(&bob, "F5", "E4", 2).await;
    assert_eq!(t.room.info().moves.len(), 2);
    // Alice's B2-B3 as ply 3, which the former owner took and never stored: played.
    t.play_as_ply(&alice, "B2", "B3", 3).await;
    assert_eq!(t.room.info().moves.len(), 3);
    assert_eq!(fields(&bob.one()), (MOVE, "B2", "B3", ""));
    // The same move again, and one meant for a ply the game is not at: nothing.
    t.play_as_ply(&alice, "B2", "B3", 3).await;
    t.play_as_ply(&bob, "A5", "A4", 6).await;
    assert_eq!(t.room.info().moves.len(), 3);
    alice.silent();
}
