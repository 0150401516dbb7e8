//! READY: starting a game, colours, refusals.

use super::*;

#[tokio::test(start_paused = true)]
async fn two_ready_players_start_a_game_black_to_move() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&alice, Some(Side::First)).await;
    alice.silent();
    assert_eq!(t.status(), "waiting");
    assert!(alice.seated());
    t.ready(&bob, Some(Side::Second)).await;
    let to_alice = alice.one();
    assert_eq!(fields(&to_alice), (READY, "bob", "BLACK", "1"));
    assert_eq!(to_alice.extra_str("game"), Some("surakarta"));
    assert_eq!(to_alice.extra_u64("timeout_ms"), Some(Ok(3000)));
    assert_eq!(fields(&bob.one()), (READY, "alice", "WHITE", "1"));
    assert_eq!(t.status(), "playing");
    assert!(alice.awaited() && !bob.awaited());
    let games = t.store.games();
    assert_eq!(
        (games[0].first.as_str(), games[0].second.as_str()),
        ("alice", "bob")
    );
    assert_eq!(games[0].room, 1);
}

#[tokio::test(start_paused = true)]
async fn colours_follow_requests_else_the_first_ready_plays_black() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&bob, None).await;
    t.ready(&alice, None).await;
    assert_eq!(bob.one().data2, "BLACK");
    assert_eq!(alice.one().data2, "WHITE");

    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&bob, None).await;
    t.ready(&alice, Some(Side::First)).await;
    assert_eq!(alice.one().data2, "BLACK");
    assert_eq!(bob.one().data2, "WHITE");
}

#[tokio::test(start_paused = true)]
async fn a_taken_colour_or_other_settings_are_refused_to_the_later_player() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&alice, Some(Side::First)).await;
    t.ready(&bob, Some(Side::First)).await;
    assert_eq!(
        fields(&bob.one()),
        (REJECT, "bob", "that colour is taken", "")
    );
    let duck = t.request("duck", &[]);
    t.ready_with(&bob, None, duck, None).await;
    let refused = bob.one();
    assert_eq!(refused.op, REJECT);
    assert!(
        refused
            .data2
            .starts_with("the room is set up for surakarta"),
        "{refused:?}"
    );
    alice.silent();
    assert_eq!(t.status(), "waiting");
}

#[tokio::test(start_paused = true)]
async fn a_third_player_is_refused_while_a_game_runs_and_after_it() {
    let (mut t, alice, mut bob) = started().await;
    let mut carol = Client::new(3, "carol");
    t.ready(&carol, None).await;
    assert_eq!(carol.one().data2, "the room is playing a game");
    // A player's own READY during its game is a slip, left unanswered.
    t.ready(&bob, Some(Side::Second)).await;
    bob.silent();
    t.send(&bob, RESIGN, "", "").await;
    t.send(&alice, RESIGN, "", "").await;
    t.ready(&carol, None).await;
    assert_eq!(carol.heard().last().unwrap().data2, "the room is full");
}

#[tokio::test(start_paused = true)]
async fn a_training_room_needs_both_players_to_ask_for_it_and_says_so() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    let training = Requested {
        training: true,
        ..t.request("surakarta", &[])
    };
    t.ready_with(&alice, Some(Side::First), training.clone(), None)
        .await;
    // A joiner that did not ask for training is refused and told why; one that did plays.
    t.ready(&bob, None).await;
    let refused = bob.one();
    assert_eq!(refused.op, REJECT);
    assert!(refused.data2.ends_with(", training)"), "{refused:?}");
    t.ready_with(&bob, None, training, None).await;
    for c in [&mut alice, &mut bob] {
        assert_eq!(c.one().extra_u64("training"), Some(Ok(1)));
    }
    let info = serde_json::to_value(t.room.info()).unwrap();
    assert_eq!(info["settings"]["training"], 1, "{info}");
    // A room without training refuses a joiner that asks for it.
    let mut t = Table::new();
    let (alice, mut carol) = (Client::new(1, "alice"), Client::new(3, "carol"));
    t.ready(&alice, Some(Side::First)).await;
    let asks = Requested {
        training: true,
        ..t.request("surakarta", &[])
    };
    t.ready_with(&carol, None, asks, None).await;
    let refused = carol.one();
    assert_eq!(refused.op, REJECT);
    assert!(refused.data2.ends_with("3 s a move)"), "{refused:?}");
}
