//! The cluster's journal on a store that fails: a write the store takes back while the lease
//! is surely this node's is recorded late; one it never takes, or one a newer owner fenced off,
//! hands the room over and is never told.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::*;
use crate::protocol::Winner;
use crate::storage::memory::MemoryStore;

/// A node that owns room 1 with epoch 1 until `sure_until`.
struct Node {
    sure_until: Instant,
    handed_over: AtomicBool,
}

impl Ownership for Node {
    fn epoch_of(&self, _: u32) -> Option<u64> {
        Some(1)
    }

    fn holds(&self, _: u32) -> bool {
        Instant::now() < self.sure_until && !self.handed_over.load(Ordering::Relaxed)
    }

    fn hand_over(&self, _: u32) {
        self.handed_over.store(true, Ordering::Relaxed);
    }
}

/// A journal on a node sure of its lease for `sure_for`, and a started game.
async fn journal(sure_for: Duration) -> (Arc<ClusterJournal>, Arc<MemoryStore>, Arc<Node>, i64) {
    let store = Arc::new(MemoryStore::default());
    let node = Arc::new(Node {
        sure_until: Instant::now() + sure_for,
        handed_over: AtomicBool::new(false),
    });
    let journal = ClusterJournal::new(store.clone(), node.clone());
    let game = NewGame {
        room: 1,
        game: "surakarta".into(),
        settings: "{}".into(),
        players: ["a".into(), "b".into()],
        owner: None,
        seat_tokens: [None, None],
        fence: None,
    };
    let id = journal.start_game(1, game).await.unwrap();
    (journal, store, node, id)
}

fn first_move(game_id: i64) -> PlayedMove {
    PlayedMove {
        game_id,
        ply: 1,
        text: "A2-A3".into(),
        reason: "LEGAL_NON_CAPTURE_MOVE".into(),
        fence: None,
    }
}

#[tokio::test(start_paused = true)]
async fn a_move_the_store_takes_back_within_the_lease_is_recorded_late() {
    let (journal, store, node, id) = journal(Duration::from_secs(9)).await;
    store.failing.store(true, Ordering::Relaxed);
    let back = store.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        back.failing.store(false, Ordering::Relaxed);
    });
    journal.record_move(1, first_move(id)).await.unwrap();
    assert_eq!(store.games()[0].moves.len(), 1);
    assert!(!node.handed_over.load(Ordering::Relaxed));
}

#[tokio::test(start_paused = true)]
async fn a_move_the_store_never_takes_hands_the_room_over() {
    let (journal, store, node, id) = journal(Duration::from_secs(9)).await;
    store.failing.store(true, Ordering::Relaxed);
    let started = Instant::now();
    let refused = journal.record_move(1, first_move(id)).await;
    assert!(
        matches!(refused, Err(NotRecorded::HandedOver)),
        "{refused:?}"
    );
    assert!(node.handed_over.load(Ordering::Relaxed));
    assert!(
        started.elapsed() >= Duration::from_secs(9),
        "tried while the lease held"
    );
    store.failing.store(false, Ordering::Relaxed);
    assert!(store.games()[0].moves.is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_end_a_newer_owner_fenced_off_hands_the_room_over_at_once() {
    let (journal, store, node, id) = journal(Duration::from_secs(9)).await;
    store.set_lease(1, 2);
    let end = GameEnd {
        game_id: id,
        end_reason: "RESIGN".into(),
        winner: Winner::First,
        record: "R#".into(),
        fence: None,
    };
    let started = Instant::now();
    let refused = journal.record_end(1, end).await;
    assert!(
        matches!(refused, Err(NotRecorded::HandedOver)),
        "{refused:?}"
    );
    assert!(node.handed_over.load(Ordering::Relaxed));
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert!(store.games()[0].end_reason.is_none());
}

#[test]
fn a_minute_of_failed_tries_logs_a_few_lines_not_one_a_second() {
    let (mut waited, mut said, mut attempt) = (Duration::ZERO, 0, 0);
    while waited < LONGEST_STORE_WAIT {
        said += u32::from(is_said(attempt));
        attempt += 1;
        waited += pause_before(attempt);
    }
    assert!(is_said(0), "the first failure is said at once");
    assert!(attempt > 50, "tried about once a second: {attempt}");
    assert!((6..=8).contains(&said), "{said} lines over a minute");
}
