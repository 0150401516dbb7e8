//! Offers between two players of the extension: a draw, a takeback, an abort, a claim; one at a
//! time, lapsing with a move, limited against spam; never with a course client.

use super::seats::{started_with_tokens, BOB_TOKEN};
use super::*;

async fn offer(t: &mut Table, c: &Client, kind: &str, action: &str) {
    t.send(c, OFFER, kind, action).await;
}

/// The OFFER the room announced (to everyone) or refused (to the sender).
fn offer_of(m: &Message) -> (&str, &str, &str) {
    assert_eq!(m.op, OFFER, "{m:?}");
    (m.data1.as_str(), m.data2.as_str(), m.data3.as_str())
}

#[tokio::test(start_paused = true)]
async fn a_draw_offered_and_accepted_ends_the_game_drawn_and_stored() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    bob.one();
    offer(&mut t, &bob, "draw", "offer").await;
    assert_eq!(offer_of(&alice.one()), ("draw", "offer", "bob"));
    assert_eq!(offer_of(&bob.one()), ("draw", "offer", "bob"));
    offer(&mut t, &bob, "draw", "accept").await;
    assert_eq!(
        offer_of(&bob.one()),
        (
            "draw",
            "refused",
            "you made this offer; your opponent answers it"
        )
    );
    offer(&mut t, &alice, "draw", "accept").await;
    let heard = alice.heard();
    assert_eq!(offer_of(&heard[0]), ("draw", "accept", "alice"));
    assert_eq!(
        end_of(&heard[1]),
        end(None, EndReason::Agreed, Winner::Nobody)
    );
    let game = &t.store.games()[0];
    assert_eq!(game.end_reason.as_deref(), Some("AGREED"));
    assert_eq!(game.record.as_deref(), Some("A2-A3 D#"));
}

#[tokio::test(start_paused = true)]
async fn offers_are_one_at_a_time_lapse_with_a_move_and_cannot_be_repeated_at_once() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    offer(&mut t, &alice, "draw", "offer").await;
    offer(&mut t, &bob, "takeback", "offer").await;
    assert_eq!(
        bob.heard().last().map(offer_of),
        Some((
            "takeback",
            "refused",
            "an offer is already waiting for an answer"
        ))
    );
    offer(&mut t, &bob, "draw", "decline").await;
    alice.heard();
    offer(&mut t, &alice, "draw", "offer").await;
    let refused = alice.one();
    // The refusal's code, for a client to decide by (never the words).
    assert_eq!(refused.extra_str("code"), Some("too_soon"));
    assert_eq!(
        offer_of(&refused),
        ("draw", "refused", "play a move before offering that again")
    );
    t.play(&alice, "A2", "A3").await;
    offer(&mut t, &alice, "draw", "offer").await;
    bob.heard();
    // A move lapses the pending offer, for both players.
    t.play(&bob, "F5", "E4").await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[1]), (MOVE, "F5", "E4", ""));
    assert_eq!(offer_of(&heard[2]), ("draw", "lapse", ""));
    offer(&mut t, &bob, "draw", "accept").await;
    assert_eq!(
        offer_of(&bob.heard()[1]),
        ("draw", "refused", "there is no such offer to answer")
    );
    // The third offer of a kind is the last.
    offer(&mut t, &alice, "draw", "offer").await;
    offer(&mut t, &alice, "draw", "withdraw").await;
    t.play(&alice, "A3", "A4").await;
    alice.heard();
    offer(&mut t, &alice, "draw", "offer").await;
    let refused = alice.one();
    assert_eq!(refused.extra_str("code"), Some("too_many"));
    assert_eq!(
        offer_of(&refused),
        (
            "draw",
            "refused",
            "you have made that offer 3 times this game"
        )
    );
}

#[tokio::test(start_paused = true)]
async fn a_takeback_accepted_undoes_the_moves_everywhere_and_the_game_goes_on() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    t.play(&bob, "F5", "E4").await;
    alice.heard();
    bob.heard();
    // Alice is to move: her takeback undoes bob's answer and her move.
    offer(&mut t, &alice, "takeback", "offer").await;
    offer(&mut t, &bob, "takeback", "accept").await;
    let heard = alice.heard();
    assert_eq!(offer_of(&heard[1]), ("takeback", "accept", "bob"));
    assert_eq!(heard[2].op, STATE);
    let state: serde_json::Value = serde_json::from_str(&heard[2].data1).unwrap();
    assert_eq!(state["moves"], serde_json::json!([]));
    assert!(t.store.games()[0].moves.is_empty());
    assert!(alice.awaited() && !bob.awaited());
    // The game goes on from there, stored from ply 1 again.
    t.play(&alice, "B2", "B3").await;
    assert_eq!(fields(bob.heard().last().unwrap()), (MOVE, "B2", "B3", ""));
    let stored = &t.store.games()[0].moves;
    assert_eq!(
        (stored.len(), stored[0].ply, stored[0].text.as_str()),
        (1, 1, "B2-B3")
    );
    // Bob just had a move taken back by nobody; asking now undoes only his own last move.
    t.play(&bob, "F5", "E4").await;
    offer(&mut t, &bob, "takeback", "offer").await;
    offer(&mut t, &alice, "takeback", "accept").await;
    assert_eq!(t.room.info().moves, ["B2-B3"]);
    assert!(bob.awaited());
}

#[tokio::test(start_paused = true)]
async fn a_side_with_no_move_has_nothing_to_take_back() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    bob.heard();
    offer(&mut t, &bob, "takeback", "offer").await;
    assert_eq!(
        offer_of(&bob.one()),
        ("takeback", "refused", "you have no move to take back")
    );
    alice.silent();
}

#[tokio::test(start_paused = true)]
async fn a_game_can_be_aborted_only_before_both_have_moved() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    offer(&mut t, &bob, "abort", "").await;
    let heard = alice.heard();
    assert_eq!(offer_of(&heard[0]), ("abort", "", "bob"));
    assert_eq!(
        end_of(&heard[1]),
        end(None, EndReason::Aborted, Winner::Nobody)
    );
    assert_eq!(t.store.games()[0].end_reason.as_deref(), Some("ABORTED"));
    bob.heard();
    // A rematch, then two moves: too late.
    t.ready_with(&alice, None, t.request("surakarta", &[]), None)
        .await;
    t.ready_with(&bob, None, t.request("surakarta", &[]), None)
        .await;
    alice.heard();
    bob.heard();
    let (first, second) = if t.room.info().players[0].name == "alice" {
        (&alice, &bob)
    } else {
        (&bob, &alice)
    };
    t.play(first, "A2", "A3").await;
    t.play(second, "F5", "E4").await;
    offer(&mut t, first, "abort", "").await;
    let refused = if first.name == "alice" {
        alice.heard()
    } else {
        bob.heard()
    };
    assert_eq!(
        offer_of(refused.last().unwrap()),
        (
            "abort",
            "refused",
            "a game can be aborted only before both players have moved"
        )
    );
}

#[tokio::test(start_paused = true)]
async fn the_game_can_be_claimed_once_the_opponent_has_been_away_long_enough() {
    let (mut t, mut alice, bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    t.close(&bob).await;
    alice.one();
    t.advance(Duration::from_secs(9)).await;
    offer(&mut t, &alice, "claim", "").await;
    assert_eq!(
        offer_of(&alice.one()),
        (
            "claim",
            "refused",
            "your opponent has not been away long enough to claim the game"
        )
    );
    t.advance(Duration::from_secs(1)).await;
    offer(&mut t, &alice, "claim", "").await;
    let heard = alice.heard();
    assert_eq!(offer_of(&heard[0]), ("claim", "", "alice"));
    // A claimed game is one its opponent left: stored and told so, not as a resignation.
    assert_eq!(end_of(&heard[1]), end(None, EndReason::Left, Winner::First));
    assert_eq!(t.store.games()[0].end_reason.as_deref(), Some("LEFT"));
    let record = t.store.games()[0].record.clone().unwrap_or_default();
    assert!(record.ends_with(" L#"), "{record}");
}

#[tokio::test(start_paused = true)]
async fn a_course_client_is_never_offered_anything() {
    let mut t = Table::new();
    let (mut page, mut course) = (Client::page(1, "alice"), Client::new(2, "bob"));
    t.ready(&page, Some(Side::First)).await;
    t.ready(&course, Some(Side::Second)).await;
    page.one();
    course.one();
    offer(&mut t, &page, "draw", "offer").await;
    assert_eq!(
        offer_of(&page.one()),
        (
            "draw",
            "refused",
            "your opponent's client cannot answer offers"
        )
    );
    course.silent();
    offer(&mut t, &course, "draw", "offer").await;
    course.one();
}

/// A page that reloads while an offer waits (or a spectator who comes then) sees the offer in
/// the STATE snapshot, with who made it; once answered it is gone.
#[tokio::test(start_paused = true)]
async fn a_pending_offer_is_in_the_snapshot_of_a_returning_player_and_a_spectator() {
    let (mut t, mut alice, bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    offer(&mut t, &alice, "draw", "offer").await;
    alice.heard();
    t.close(&bob).await;
    alice.heard();
    let mut again = Client::page(3, "bob");
    let request = t.request("surakarta", &[]);
    t.ready_with(&again, None, request, Some(BOB_TOKEN)).await;
    let heard = again.heard();
    assert_eq!(heard[1].op, STATE);
    let state: serde_json::Value = serde_json::from_str(&heard[1].data1).unwrap();
    assert_eq!(
        state["offer"],
        serde_json::json!({"kind": "draw", "by": "alice", "colour": "BLACK"}),
        "{state}"
    );
    let mut carol = Client::new(4, "carol");
    t.send(&carol, WATCH, "1", "").await;
    let state: serde_json::Value = serde_json::from_str(&carol.one().data1).unwrap();
    assert_eq!(state["offer"]["kind"], "draw", "{state}");
    // The returning player answers it like any offer.
    offer(&mut t, &again, "draw", "decline").await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[0]), (NOTICE, "back", "bob", "0"));
    assert_eq!(offer_of(&heard[1]), ("draw", "decline", "bob"));
    assert!(t.room.info().offer.is_none());
    let state = serde_json::to_value(t.room.info()).unwrap();
    assert!(state.get("offer").is_none(), "{state}");
}
