//! Moves, clocks, resignation, a draw and a rematch.

use super::*;

#[tokio::test(start_paused = true)]
async fn a_legal_move_is_stored_then_forwarded_to_the_opponent_only() {
    let (mut t, mut alice, mut bob) = started().await;
    t.play(&alice, "A2", "A3").await;
    assert_eq!(fields(&bob.one()), (MOVE, "A2", "A3", ""));
    alice.silent();
    let stored = &t.store.games()[0].moves;
    assert_eq!(
        (
            stored[0].ply,
            stored[0].text.as_str(),
            stored[0].reason.as_str()
        ),
        (1, "A2-A3", "LEGAL_NON_CAPTURE_MOVE")
    );
    assert!(bob.awaited() && !alice.awaited());
    t.play(&bob, "F5", "E4").await;
    assert_eq!(fields(&alice.one()), (MOVE, "F5", "E4", ""));
    assert_eq!(t.room.info().moves, ["A2-A3", "F5-E4"]);
}

#[tokio::test(start_paused = true)]
async fn an_illegal_move_is_forwarded_and_its_sender_loses() {
    let (mut t, mut alice, mut bob) = started().await;
    t.play(&alice, "A2", "A4").await;
    let heard = bob.heard();
    assert_eq!(fields(&heard[0]), (MOVE, "A2", "A4", END_MARKER));
    let expected = end(
        Some(MoveReason::IllegalNonCaptureMove),
        EndReason::IllegalMove,
        Winner::Second,
    );
    assert_eq!(end_of(&heard[1]), expected);
    assert_eq!(end_of(&alice.one()), expected);
    let game = &t.store.games()[0];
    assert_eq!(game.end_reason.as_deref(), Some("ILLIGAL_MOVE"));
    assert_eq!(game.winner, Some(Winner::Second));
    assert_eq!(game.record.as_deref(), Some("A2-A4 I#"));
    assert_eq!(t.status(), "over");
}

#[tokio::test(start_paused = true)]
async fn a_move_out_of_turn_loses_for_its_sender() {
    let (mut t, mut alice, mut bob) = started().await;
    t.play(&bob, "F5", "E4").await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[0]), (MOVE, "F5", "E4", END_MARKER));
    let expected = end(
        Some(MoveReason::NotPlayerTurn),
        EndReason::IllegalMove,
        Winner::First,
    );
    assert_eq!(end_of(&heard[1]), expected);
    assert_eq!(end_of(&bob.one()), expected);
}

#[tokio::test(start_paused = true)]
async fn moves_from_spectators_and_after_the_end_are_ignored() {
    let (mut t, mut alice, mut bob) = started().await;
    let carol = Client::new(3, "carol");
    t.play(&carol, "A2", "A3").await;
    alice.silent();
    bob.silent();
    t.send(&alice, RESIGN, "", "").await;
    alice.one();
    bob.one();
    t.play(&bob, "F5", "E4").await;
    alice.silent();
    assert!(t.store.games()[0].moves.is_empty());
}

#[tokio::test(start_paused = true)]
async fn the_side_to_move_loses_when_its_time_runs_out() {
    let (mut t, mut alice, mut bob) = started().await;
    t.advance(MOVE_TIME - MS).await;
    alice.silent();
    t.advance(MS).await;
    let expected = end(None, EndReason::Timeout, Winner::Second);
    assert_eq!(end_of(&alice.one()), expected);
    assert_eq!(end_of(&bob.one()), expected);
    assert_eq!(t.store.games()[0].end_reason.as_deref(), Some("TIMEOUT"));
}

#[tokio::test(start_paused = true)]
async fn each_move_gives_the_opponent_a_full_move_time() {
    let (mut t, mut alice, mut bob) = started().await;
    t.advance(MOVE_TIME - 100 * MS).await;
    t.play(&alice, "A2", "A3").await;
    bob.one();
    t.advance(MOVE_TIME - MS).await;
    bob.silent();
    t.advance(MS).await;
    assert_eq!(
        end_of(&alice.one()),
        end(None, EndReason::Timeout, Winner::First)
    );
}

#[tokio::test(start_paused = true)]
async fn a_game_clock_runs_down_for_the_side_to_move_and_credits_the_increment() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    let clocked = || Requested {
        clock: Some(GameClock {
            initial_ms: 10_000,
            increment_ms: 1_000,
        }),
        ..t.request("surakarta", &[])
    };
    let (first, second) = (clocked(), clocked());
    t.ready_with(&alice, Some(Side::First), first, None).await;
    t.ready_with(&bob, Some(Side::Second), second, None).await;
    assert_eq!(alice.one().extra_u64("clock_ms"), Some(Ok(10_000)));
    bob.one();
    t.advance(Duration::from_secs(2)).await;
    assert_eq!(t.room.info().clocks, Some([8_000, 10_000]));
    t.play(&alice, "A2", "A3").await;
    let forwarded = bob.one();
    assert_eq!(
        forwarded.extra["clocks"],
        serde_json::json!([9_000, 10_000])
    );
    // Bob's ten seconds, not the three of a move.
    t.advance(Duration::from_secs(9)).await;
    bob.silent();
    t.advance(Duration::from_secs(1)).await;
    assert_eq!(
        end_of(&bob.one()),
        end(None, EndReason::Timeout, Winner::First)
    );
}

/// A course client resigns on its own turn only (the course ignores it off turn).
#[tokio::test(start_paused = true)]
async fn resigning_counts_only_on_ones_own_turn() {
    let (mut t, mut alice, mut bob) = started().await;
    t.send(&bob, RESIGN, "", "").await;
    alice.silent();
    bob.silent();
    t.send(&alice, RESIGN, "", "").await;
    let expected = end(None, EndReason::Resign, Winner::Second);
    assert_eq!(end_of(&alice.one()), expected);
    assert_eq!(end_of(&bob.one()), expected);
    assert_eq!(t.store.games()[0].record.as_deref(), Some("R#"));
}

/// A page (the extension) resigns at any time, as on lichess: on the opponent's turn too.
#[tokio::test(start_paused = true)]
async fn a_page_resigns_on_the_opponents_turn_at_once() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::page(1, "alice"), Client::page(2, "bob"));
    t.ready(&alice, Some(Side::First)).await;
    t.ready(&bob, Some(Side::Second)).await;
    alice.heard();
    bob.heard();
    t.send(&bob, RESIGN, "", "").await;
    let expected = end(None, EndReason::Resign, Winner::First);
    let told = |c: &mut Client| c.heard().iter().find(|m| m.op == END).map(end_of);
    assert_eq!(told(&mut alice), Some(expected.clone()));
    assert_eq!(told(&mut bob), Some(expected));
    assert_eq!(t.store.games()[0].end_reason.as_deref(), Some("RESIGN"));
}

#[tokio::test(start_paused = true)]
async fn a_game_drawn_by_the_no_capture_rule_has_no_winner() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    let quick = || t.request("surakarta", &[("max_no_capture_round", 1)]);
    let (first, second) = (quick(), quick());
    t.ready_with(&alice, Some(Side::First), first, None).await;
    t.ready_with(&bob, Some(Side::Second), second, None).await;
    alice.one();
    bob.one();
    let quiet = [("A2", "A3"), ("F5", "F4"), ("B2", "B3"), ("E5", "E4")];
    for (i, (from, to)) in quiet.iter().enumerate() {
        let mover = if i % 2 == 0 { &alice } else { &bob };
        t.play(mover, from, to).await;
        if t.status() == "over" {
            break;
        }
    }
    let last = alice.heard().pop().unwrap();
    assert_eq!(
        end_of(&last),
        end(
            Some(MoveReason::LegalNonCaptureMove),
            EndReason::Stalemate,
            Winner::Nobody
        )
    );
    assert_eq!(t.store.games()[0].winner, Some(Winner::Nobody));
}

#[tokio::test(start_paused = true)]
async fn both_ready_again_after_the_end_is_a_rematch_in_the_same_room() {
    let (mut t, mut alice, mut bob) = started().await;
    t.send(&alice, RESIGN, "", "").await;
    alice.one();
    bob.one();
    t.ready(&bob, None).await;
    bob.silent();
    t.ready(&alice, None).await;
    assert_eq!(fields(&bob.one()), (READY, "alice", "BLACK", "1"));
    assert_eq!(fields(&alice.one()), (READY, "bob", "WHITE", "1"));
    assert_eq!(t.store.games().len(), 2);
    assert!(t.room.info().moves.is_empty());
    t.play(&bob, "A2", "A3").await;
    assert_eq!(alice.one().op, MOVE);
}
