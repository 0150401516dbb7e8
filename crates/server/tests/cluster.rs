//! Two nodes of a cluster in one process, joined by a real nats-server: a game whose players
//! are connected to different nodes, watched from a third connection, plays to its end.

mod common;

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use arbiter_server::cluster::leases::{Leases, MemoryLeases};
use arbiter_server::cluster::{Cluster, ClusterConfig};
use arbiter_server::games::Registry;
use arbiter_server::protocol::{END, MOVE, READY, RESIGN, STATE, WATCH};
use common::{server, Client, TestServer};

/// A nats-server on a free port, stopped when dropped.
struct Nats {
    child: Child,
    url: String,
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn nats_binary() -> String {
    let found = ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    if let Some(path) = found {
        return path.to_string();
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/ensure-packages.sh"
    );
    let installed = Command::new("bash").args([script, "nats-server"]).status();
    assert!(
        installed.is_ok_and(|s| s.success()),
        "nats-server is missing and {script} could not install it"
    );
    "/usr/sbin/nats-server".to_string()
}

async fn nats() -> Nats {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(nats_binary())
        .args(["-a", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nats-server starts");
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Nats {
        child,
        url: format!("nats://127.0.0.1:{port}"),
    }
}

async fn node(nats: &Nats, name: &str, leases: Arc<dyn Leases>) -> (TestServer, Arc<Cluster>) {
    let s = server().await;
    let config = ClusterConfig {
        nats: nats.url.clone(),
        node: name.into(),
        renew_every: Duration::from_secs(1),
    };
    let registry = Registry::of::<arbiter_ai::Standard>();
    let cluster = Cluster::join(&config, &s.server.hub, registry, leases)
        .await
        .expect("the node joins");
    (s, cluster)
}

#[tokio::test]
async fn players_on_two_nodes_and_a_spectator_on_a_third_connection_see_one_game() {
    let nats = nats().await;
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
    // Node b lists the room node a runs, once.
    let (status, body) = common::http(b.server.http_addr, "GET", "/api/rooms", "", "").await;
    assert_eq!(status, 200, "{body}");
    let listed: serde_json::Value = serde_json::from_str(&body).unwrap();
    let rooms = listed["rooms"].as_array().unwrap();
    assert_eq!(rooms.len(), 1, "{body}");
    assert_eq!(
        (rooms[0]["room"].as_u64(), rooms[0]["status"].as_str()),
        (Some(5), Some("playing"))
    );
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
    // The game is stored once, by the owner, with every move.
    let stored = a.server.store.game(1).await.unwrap();
    let stored = stored.expect("stored on the owner");
    assert_eq!(stored.moves.len(), 4);
    assert_eq!(stored.end_reason.as_deref(), Some("RESIGN"));
    assert!(
        b.server.store.game(1).await.unwrap().is_none(),
        "a twin room on node b"
    );
}
