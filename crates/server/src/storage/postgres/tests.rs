//! The PostgreSQL store on a server of its own: fencing under a race, a restart, URLs.

use std::sync::Arc;

use super::*;
use crate::storage::leases::Leases;
use arbiter_pgtest::TestPostgres;

fn new_game(room: u32) -> NewGame {
    NewGame {
        room,
        game: "surakarta".into(),
        settings: "{}".into(),
        players: ["a".into(), "b".into()],
        owner: None,
        seat_tokens: [None, None],
        fence: None,
    }
}

/// Stores move after move of game `id` with `fence` until one is refused: when each started,
/// and how it went.
async fn write_until_refused(
    store: Arc<PgStore>,
    id: i64,
    fence: Fence,
) -> Vec<(tokio::time::Instant, StorageResult<()>)> {
    let mut outcomes = Vec::new();
    for ply in 1..=20_000 {
        let started = tokio::time::Instant::now();
        let played = PlayedMove {
            game_id: id,
            ply,
            text: "A2-A3".into(),
            reason: "LEGAL_NON_CAPTURE_MOVE".into(),
            fence: Some(fence),
        };
        let result = store.record_move(played).await;
        let refused = result.is_err();
        outcomes.push((started, result));
        if refused {
            break;
        }
    }
    outcomes
}

/// An owner keeps writing while its lease lapses and another node takes the room: from the
/// first refusal on, none of its writes commits, nor any that started after the claim.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_write_of_the_old_owner_commits_after_a_newer_claim() {
    let (url, _pg) = TestPostgres::start();
    let store = Arc::new(PgStore::connect(&url).await.unwrap());
    let leases = PgLeases::new(&store, Duration::from_millis(300));
    let old = Fence {
        room: 5,
        epoch: leases.claim(5, "a").await.unwrap().unwrap(),
    };
    let game = NewGame {
        fence: Some(old),
        ..new_game(5)
    };
    let id = store.start_game(game).await.unwrap();
    let writer = tokio::spawn(write_until_refused(store.clone(), id, old));
    let claimed = loop {
        if let Some(epoch) = leases.claim(5, "b").await.unwrap() {
            break (tokio::time::Instant::now(), epoch);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let outcomes = writer.await.unwrap();
    let (last_started, last) = outcomes.last().unwrap();
    assert!(
        matches!(last, Err(StorageError::Fenced { room: 5, epoch }) if *epoch == claimed.1),
        "{last:?}"
    );
    assert!(*last_started <= claimed.0 + Duration::from_secs(5));
    for (started, result) in &outcomes {
        assert!(
            *started <= claimed.0 || result.is_err(),
            "a write after the claim"
        );
    }
    let stored = store.game(id).await.unwrap().unwrap().moves.len();
    assert_eq!(
        stored,
        outcomes.len() - 1,
        "every acknowledged write, no other"
    );
    assert!(stored > 0);
}

/// PostgreSQL restarts (an immediate shutdown, as a crash): what was committed is there, and
/// the pool's connections are made again — a write fails at most while the database is down.
#[tokio::test]
async fn the_store_carries_on_after_postgres_restarts() {
    let (url, mut pg) = TestPostgres::start();
    let store = PgStore::connect(&url).await.unwrap();
    let game = NewGame {
        seat_tokens: [Some("t".into()), None],
        ..new_game(2)
    };
    let id = store.start_game(game).await.unwrap();
    let played = |ply| PlayedMove {
        game_id: id,
        ply,
        text: format!("m{ply}"),
        reason: "LEGAL".into(),
        fence: None,
    };
    store.record_move(played(1)).await.unwrap();
    pg.stop();
    let down = store.record_move(played(2)).await.unwrap_err();
    assert!(matches!(down, StorageError::Database(_)), "{down}");
    assert!(!down.is_permanent());
    pg.restart();
    let mut result = Err(down);
    for _ in 0..20 {
        result = store.record_move(played(2)).await;
        if result.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    result.unwrap();
    let live = store.live_game(2).await.unwrap().unwrap();
    let texts: Vec<&str> = live.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["m1", "m2"]);
}

#[test]
fn urls_are_described_without_user_or_password() {
    let url = "postgres://ann:s3cret@db.example:6543/games";
    assert_eq!(describe_url(url), "db.example:6543/games");
    assert_eq!(describe_url("postgresql://ann@h/x"), "h:5432/x");
    assert!(!describe_url(url).contains("s3cret"));
    assert!(matches!(
        check_url("postgres:///x"),
        Err(StorageError::BadUrl(_))
    ));
}
