//! Rematches between pages: the offer told to the other player, declined or accepted, and the
//! colours swapped.

use super::seats::started_with_tokens;
use super::*;

#[tokio::test(start_paused = true)]
async fn a_rematch_is_offered_to_the_other_page_declined_then_accepted_with_colours_swapped() {
    let (mut t, mut alice, mut bob) = started_with_tokens().await;
    // Asked for during the game, a decline is refused: nobody asked for a rematch.
    t.send(&bob, OFFER, "rematch", "decline").await;
    assert_eq!(
        fields(&bob.one()),
        (
            OFFER,
            "rematch",
            "refused",
            "nobody asked you for a rematch"
        )
    );
    t.send(&alice, RESIGN, "", "").await;
    assert_eq!(alice.one().op, END);
    assert_eq!(bob.one().op, END);
    // Alice (black) asks: bob hears who asked, alice hears nothing yet.
    t.ready(&alice, None).await;
    assert_eq!(fields(&bob.one()), (OFFER, "rematch", "offer", "alice"));
    alice.silent();
    t.send(&bob, OFFER, "rematch", "decline").await;
    assert_eq!(fields(&alice.one()), (OFFER, "rematch", "decline", "bob"));
    assert_eq!(fields(&bob.one()), (OFFER, "rematch", "decline", "bob"));
    // Bob changes his mind and accepts with READY: the colours swap.
    t.ready(&bob, None).await;
    assert_eq!(fields(&bob.one()), (READY, "alice", "BLACK", "1"));
    assert_eq!(fields(&alice.one()), (READY, "bob", "WHITE", "1"));
    assert_eq!(t.store.games().len(), 2);
    assert_eq!(
        (
            t.store.games()[1].first.as_str(),
            t.store.games()[1].second.as_str()
        ),
        ("bob", "alice")
    );
    // And swap back at the next rematch, whoever asks first.
    t.send(&bob, RESIGN, "", "").await;
    alice.one();
    bob.one();
    t.ready(&bob, None).await;
    assert_eq!(fields(&alice.one()), (OFFER, "rematch", "offer", "bob"));
    t.ready(&alice, None).await;
    assert_eq!(fields(&alice.one()), (READY, "bob", "BLACK", "1"));
    assert_eq!(fields(&bob.one()), (READY, "alice", "WHITE", "1"));
}

#[tokio::test(start_paused = true)]
async fn a_requested_colour_wins_over_the_swap_and_course_clients_hear_no_offer() {
    let (mut t, mut alice, mut bob) = started().await;
    t.send(&alice, RESIGN, "", "").await;
    alice.one();
    bob.one();
    t.ready(&alice, Some(Side::First)).await;
    bob.silent();
    t.ready(&bob, None).await;
    assert_eq!(fields(&alice.one()), (READY, "bob", "BLACK", "1"));
    assert_eq!(fields(&bob.one()), (READY, "alice", "WHITE", "1"));
}
