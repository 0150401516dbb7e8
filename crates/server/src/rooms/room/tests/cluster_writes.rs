//! A cluster's room tells nothing the store did not take: it tries again while its lease is
//! surely its own, then hands the room over untold (docs/cluster.md, "PostgreSQL restarts").

use std::sync::atomic::AtomicBool;

use futures_util::future::BoxFuture;
use tokio::time::Instant;

use super::*;
use crate::rooms::{Elsewhere, RoomsPage};
use crate::storage::Fence;

/// A cluster node that owns room 1 with epoch 1 until `sure_until`.
struct Node {
    sure_until: Instant,
    handed_over: AtomicBool,
}

impl Elsewhere for Node {
    fn route(&self, _: u32, _: RoomEvent) {}

    fn fence(&self, room: u32) -> Option<Fence> {
        Some(Fence { room, epoch: 1 })
    }

    fn may_run(&self, _: u32) -> bool {
        Instant::now() < self.sure_until && !self.handed_over.load(Ordering::Relaxed)
    }

    fn hand_over(&self, _: u32) {
        self.handed_over.store(true, Ordering::Relaxed);
    }

    fn rooms_page(&self, _: Option<u32>, _: usize) -> BoxFuture<'_, RoomsPage> {
        Box::pin(async { (Vec::new(), None) })
    }
}

/// A game started in a room of a node whose lease is sure for `sure_for`.
async fn started_on_a_node(sure_for: Duration) -> (Table, Client, Client, Arc<Node>) {
    let (t, alice, bob) = started().await;
    let node = Arc::new(Node {
        sure_until: Instant::now() + sure_for,
        handed_over: AtomicBool::new(false),
    });
    t.room.ctx.hub.route_through(node.clone());
    (t, alice, bob, node)
}

#[tokio::test(start_paused = true)]
async fn a_move_the_store_takes_back_within_the_lease_is_told_late_not_lost() {
    let (mut t, mut alice, mut bob, node) = started_on_a_node(Duration::from_secs(9)).await;
    t.store.failing.store(true, Ordering::Relaxed);
    let store = t.store.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        store.failing.store(false, Ordering::Relaxed);
    });
    t.play(&alice, "A2", "A3").await;
    assert_eq!(fields(&bob.one()), (MOVE, "A2", "A3", ""));
    alice.silent();
    assert_eq!(t.store.games()[0].moves.len(), 1);
    assert!(!node.handed_over.load(Ordering::Relaxed));
    assert_eq!(t.status(), "playing");
}

#[tokio::test(start_paused = true)]
async fn a_move_the_store_never_took_is_never_told_and_the_room_is_handed_over() {
    let (mut t, mut alice, mut bob, node) = started_on_a_node(Duration::from_secs(9)).await;
    t.store.failing.store(true, Ordering::Relaxed);
    t.play(&alice, "A2", "A3").await;
    bob.silent();
    alice.silent();
    assert!(node.handed_over.load(Ordering::Relaxed));
    t.store.failing.store(false, Ordering::Relaxed);
    let game = &t.store.games()[0];
    assert!(
        game.moves.is_empty() && game.end_reason.is_none(),
        "{game:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_end_the_store_never_took_is_never_told() {
    let (mut t, mut alice, mut bob, node) = started_on_a_node(Duration::from_secs(9)).await;
    t.play(&alice, "A2", "A3").await;
    bob.one();
    t.store.failing.store(true, Ordering::Relaxed);
    t.send(&bob, RESIGN, "", "").await;
    alice.silent();
    bob.silent();
    assert!(node.handed_over.load(Ordering::Relaxed));
    let game = &t.store.games()[0];
    assert!(game.end_reason.is_none(), "{game:?}");
}
