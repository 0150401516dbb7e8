//! How long a game stands still when the node owning its room is killed, with the default lease
//! (docs/cluster.md, "Failover"). A benchmark, not a timed test: it asserts only that every game
//! goes on, and prints the times. Run it on an idle machine:
//!
//! ```sh
//! cargo test --release -p arbiter-cli --test failover_times -- --ignored --nocapture
//! ```
//!
//! `FAILOVER_KILLS` (default 20) and `FAILOVER_LEASE_SECONDS` (default 10, the server's own
//! default) change the run.

mod common;

use std::time::{Duration, Instant};

use arbiter_pgtest::TestNats;
use arbiter_pgtest::TestPostgres;
use arbiter_server::protocol::{MOVE, READY, STATE};
use common::cluster::{moves_of, page_seat, started_between, stored_game, temp, Node, Player};
use serde_json::json;

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore = "a benchmark of a few minutes: run it on purpose, on an idle machine"]
fn failover_times_with_the_default_lease() {
    let kills = setting("FAILOVER_KILLS", 20) as usize;
    let lease = setting("FAILOVER_LEASE_SECONDS", 10).to_string();
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("failover-times");
    let flags = ["--lease-seconds", lease.as_str()];
    let start = |name: &str| Node::start_with(name, &db, &nats.url(), &dir, &flags);
    let names = ["a", "b", "c"];
    let mut nodes: Vec<Node> = names.iter().map(|n| start(n)).collect();
    let mut times = Vec::with_capacity(kills);
    for round in 0..kills {
        let (owner, other, third) = (round % 3, (round + 1) % 3, (round + 2) % 3);
        let room = (100 + round).to_string();
        let failover = one_failover(&mut nodes, [owner, other, third], &room);
        nodes[owner] = start(names[owner]);
        eprintln!("kill {}: {failover:?}", round + 1);
        times.push(failover);
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1];
    eprintln!(
        "failover with a {lease} s lease over {kills} kills: min {:?}, p50 {:?}, p99 {:?}, max {:?}",
        times[0],
        at(0.5),
        at(0.99),
        times[times.len() - 1]
    );
}

/// Alice opens `room` on node `owner` and plays Bob on node `other`; the owner is killed, Alice
/// comes back through node `third` with her token and moves: the time from the kill until Bob
/// hears that move.
fn one_failover(nodes: &mut [Node], [owner, other, third]: [usize; 3], room: &str) -> Duration {
    let (mut alice, mut bob) =
        started_between(&nodes[owner], &nodes[other], room, Some(page_seat('b')));
    bob.send(MOVE, "F5", "E4", "", json!({}));
    alice.expect(MOVE);
    nodes[owner].kill();
    let killed = Instant::now();
    drop(alice);
    let mut alice = Player::connect(&nodes[third]);
    alice.send(READY, "alice", "BLACK", room, page_seat('a'));
    assert_eq!(alice.expect(READY)["data2"], "BLACK");
    alice.expect(STATE);
    alice.send(MOVE, "B2", "B3", "", json!({}));
    bob.sees_moves(&["A2-A3", "F5-E4", "B2-B3"]);
    let failover = killed.elapsed();
    let stored = stored_game(&nodes[other], room.parse().unwrap());
    assert_eq!(moves_of(&stored), ["A2-A3", "F5-E4", "B2-B3"]);
    failover
}
