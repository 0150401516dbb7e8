//! Two nodes of a cluster in one process, joined by a real nats-server: a game whose players
//! are connected to different nodes, watched from a third connection, plays to its end.

mod common;

use std::sync::Arc;
use std::time::Duration;

use arbiter_pgtest::TestNats;
use arbiter_server::cluster::{Cluster, ClusterConfig};
use arbiter_server::games::Registry;
use arbiter_server::protocol::{END, MOVE, READY, RESIGN, STATE, WATCH};
use arbiter_server::storage::leases::{Leases, MemoryLeases};
use common::{server, Client, TestServer};

async fn node(nats: &TestNats, name: &str, leases: Arc<dyn Leases>) -> (TestServer, Arc<Cluster>) {
    let s = server().await;
    let config = ClusterConfig::new(nats.url(), name.into(), Duration::from_secs(3));
    let registry = Registry::of::<arbiter_ai::Standard>();
    let store = s.server.store.clone();
    let cluster = Cluster::join(&config, &s.server.hub, registry, leases, store)
        .await
        .expect("the node joins");
    (s, cluster)
}

#[tokio::test]
async fn players_on_two_nodes_and_a_spectator_on_a_third_connection_see_one_game() {
    let nats = TestNats::start();
    let leases: Arc<dyn Leases> = Arc::new(MemoryLeases::new(Duration::from_secs(10)));
    let (a, _ca) = node(&nats, "a", leases.clone()).await;
    let (b, _cb) = node(&nats, "b", leases.clone()).await;
    let mut alice = Client::connect(&a).await;
    alice.send(READY, "alice", "BLACK", "5").await;
    // Node a owns room 5 now; bob on node b is forwarded there.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut bob = Client::connect(&b).await;
    bob.send(READY, "bob", "WHITE", "5").await;
    let (ra, rb) = (alice.recv().await, bob.recv().await);
    assert_eq!(
        (ra.op, ra.data1.as_str(), ra.data2.as_str()),
        (READY, "bob", "BLACK")
    );
    assert_eq!(
        (rb.op, rb.data1.as_str(), rb.data2.as_str()),
        (READY, "alice", "WHITE")
    );
    assert_lists_one_playing_room(&b, 5).await;
    let mut carol = Client::connect(&b).await;
    carol.send(WATCH, "5", "", "").await;
    assert_eq!(carol.recv().await.op, STATE);
    let moves = [("A2", "A3"), ("F5", "E4"), ("B2", "B3"), ("E4", "D4")];
    for (i, (from, to)) in moves.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut alice, &mut bob)
        } else {
            (&mut bob, &mut alice)
        };
        mover.send(MOVE, from, to, "").await;
        let seen = other.recv().await;
        assert_eq!(
            (seen.op, seen.data1.as_str(), seen.data2.as_str()),
            (MOVE, *from, *to)
        );
        let watched = carol.recv().await;
        assert_eq!((watched.op, watched.data1.as_str()), (MOVE, *from));
    }
    alice.send(RESIGN, "", "", "").await;
    assert_eq!(alice.recv().await.op, END);
    assert_eq!(bob.recv().await.op, END);
    assert_eq!(carol.recv().await.op, END);
    assert_stored_once_by(&a, &b).await;
}

/// Node `node` lists room `room`, run by another node, once.
async fn assert_lists_one_playing_room(node: &TestServer, room: u64) {
    let (status, body) = common::http(node.server.http_addr, "GET", "/api/rooms", "", "").await;
    assert_eq!(status, 200, "{body}");
    let listed: serde_json::Value = serde_json::from_str(&body).unwrap();
    let rooms = listed["rooms"].as_array().unwrap();
    assert_eq!(rooms.len(), 1, "{body}");
    assert_eq!(
        (rooms[0]["room"].as_u64(), rooms[0]["status"].as_str()),
        (Some(room), Some("playing"))
    );
}

/// The game is stored once, by the owner `a` (each node has a store of its own here), with
/// every move.
async fn assert_stored_once_by(a: &TestServer, b: &TestServer) {
    let stored = a
        .server
        .store
        .game(1)
        .await
        .unwrap()
        .expect("stored on the owner");
    assert_eq!(stored.moves.len(), 4);
    assert_eq!(stored.end_reason.as_deref(), Some("RESIGN"));
    assert!(
        b.server.store.game(1).await.unwrap().is_none(),
        "a twin room on node b"
    );
}
