//! The contract for names and ratings, run on every store by `keeps_the_contract`.

use super::*;
use crate::storage::players::{rate, secret_hash};

/// Names in any script are claimed by a secret, matched without regard to case, and kept from
/// every other secret (and from a READY with none).
pub(super) async fn keeps_names(store: &dyn GameStore) {
    let (mine, theirs) = (secret_hash(&"a".repeat(32)), secret_hash(&"b".repeat(32)));
    let check = |name: &str, hash: Option<&String>| store.check_name(name.into(), hash.cloned());
    assert_eq!(check("中文😀", None).await.unwrap(), NameClaim::Free);
    assert_eq!(
        check("中文😀", Some(&mine)).await.unwrap(),
        NameClaim::Claimed
    );
    assert_eq!(
        check("中文😀", Some(&mine)).await.unwrap(),
        NameClaim::Confirmed
    );
    assert_eq!(
        check("中文😀", Some(&theirs)).await.unwrap(),
        NameClaim::Taken
    );
    assert_eq!(check("中文😀", None).await.unwrap(), NameClaim::Taken);
    assert_eq!(check("Ann", Some(&mine)).await.unwrap(), NameClaim::Claimed);
    assert_eq!(check("ANN", Some(&theirs)).await.unwrap(), NameClaim::Taken);
    assert_eq!(
        check("bob", Some(&theirs)).await.unwrap(),
        NameClaim::Claimed
    );
    let ann = store.player("ann".into()).await.unwrap().expect("held");
    assert_eq!((ann.name.as_str(), ann.ratings.len()), ("Ann", 0));
    assert!(store.player("nobody".into()).await.unwrap().is_none());
}

/// A rated game moves both ratings by Glicko-2, once however often it is counted; the
/// leaderboard and the player's page show them.
pub(super) async fn keeps_ratings(store: &dyn GameStore) {
    let id = store
        .start_game(new_game(["Ann", "bob"], None))
        .await
        .unwrap();
    store.end_game(ended(id, "a0-a1 R#")).await.unwrap();
    let rated = RatedGame {
        game_id: id,
        class: "duck/blitz".into(),
        players: ["Ann".into(), "bob".into()],
        winner: Winner::Second,
    };
    let after = store.rate_game(rated.clone()).await.unwrap();
    assert_eq!(after, rate([Rating::default(); 2], Winner::Second));
    assert!(
        after[0].rating < 1500.0 && after[1].rating > 1500.0,
        "{after:?}"
    );
    assert_eq!((after[0].games, after[1].games), (1, 1));
    assert_eq!(store.rate_game(rated).await.unwrap(), after, "counted once");
    let board = store.leaderboard("duck/blitz".into(), 10).await.unwrap();
    let names: Vec<(&str, f64)> = board
        .iter()
        .map(|p| (p.name.as_str(), p.rating.rating))
        .collect();
    assert_eq!(names, [("bob", after[1].rating), ("Ann", after[0].rating)]);
    assert!(store
        .leaderboard("rc02/rapid".into(), 10)
        .await
        .unwrap()
        .is_empty());
    let ann = store.player("ANN".into()).await.unwrap().expect("held");
    assert_eq!(ann.ratings.len(), 1);
    assert_eq!(
        (ann.ratings[0].class.as_str(), ann.ratings[0].rating),
        ("duck/blitz", after[0])
    );
}
