//! Outages of what a cluster stands on (docs/cluster.md, "Failures"; issues 74 and 75):
//! PostgreSQL stopped for 5 s and for 30 s (three leases), nats-server frozen for 12 s
//! (SIGSTOP: its connections stay open and carry nothing), and a node owning a third of the
//! rooms killed (SIGKILL: its leases lapse, 10 s), each while course games run on the course's
//! 3 s move clock. No game may be decided by the outage: every game ends by the
//! players' resignation once the test says so, no course client loses its connection, and
//! every move any client was told is stored once, at its ply.
//!
//! The players of a game sit on different nodes (so moves cross NATS), most are course clients
//! (no token: they cannot come back), every fourth second player a page. When a node is
//! killed, every player on it is a page (a course client there would lose its connection,
//! which is what a kill does to it, not a game the cluster decided).

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_pgtest::{TestNats, TestPostgres};
use common::cluster::{temp, Node};
use common::course_bots::Ports;
use common::course_games::{check_games, every_end, longest_pause, start_games, start_node};

/// One outage at a time: each test runs three nodes, PostgreSQL, nats-server and its players,
/// and two at once on two cores would make the 3 s clock the test, not the outage.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// What the test does to the cluster while the games run.
enum Outage {
    PostgresStopped(Duration),
    NatsFrozen(Duration),
    /// Node a killed with SIGKILL, started again under its name after this long.
    OwnerKilled(Duration),
}

#[test]
fn postgresql_stopped_for_five_seconds_decides_no_game() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    survive(Outage::PostgresStopped(Duration::from_secs(5)), 9);
}

#[test]
fn postgresql_stopped_for_thirty_seconds_decides_no_game() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    survive(Outage::PostgresStopped(Duration::from_secs(30)), 9);
}

#[test]
fn nats_server_frozen_for_twelve_seconds_decides_no_game() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    survive(Outage::NatsFrozen(Duration::from_secs(12)), 9);
}

#[test]
fn a_killed_owner_decides_no_game() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    survive(Outage::OwnerKilled(Duration::from_secs(1)), 9);
}

/// The longer runs of docs/cluster.md: 40 games through each outage,
/// `cargo test --release -p arbiter-cli --test cluster_outages -- --ignored --nocapture`.
#[test]
#[ignore]
fn every_outage_under_forty_games_measured() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for outage in [
        Outage::PostgresStopped(Duration::from_secs(5)),
        Outage::PostgresStopped(Duration::from_secs(30)),
        Outage::NatsFrozen(Duration::from_secs(12)),
        Outage::OwnerKilled(Duration::from_secs(1)),
    ] {
        survive(outage, 40);
    }
}

/// Plays `rooms` games on three nodes, causes `outage` once they run, lets them go on a few
/// seconds after it, then has the players resign; checks what every client saw and the store.
fn survive(outage: Outage, rooms: u32) {
    let (db, mut pg) = TestPostgres::start();
    let mut nats = TestNats::start();
    let dir = temp("outage");
    let names = ["a", "b", "c"];
    let mut nodes: Vec<Node> = names
        .iter()
        .map(|n| start_node(n, &db, &nats.url(), &dir))
        .collect();
    let ports: Ports = Arc::new(Mutex::new(nodes.iter().map(|n| Some(n.tcp)).collect()));
    let stop = Arc::new(AtomicBool::new(false));
    let pages_on_a = matches!(outage, Outage::OwnerKilled(_));
    let placed = |room: u32, seat: usize| {
        let home = (room as usize + seat) % names.len();
        let page = seat == 1 && room.is_multiple_of(4) || pages_on_a && home == 0;
        (home, page)
    };
    let seen = start_games(rooms, placed, &ports, &stop, &dir);
    std::thread::sleep(Duration::from_secs(3));
    let started = Instant::now();
    let what = match outage {
        Outage::PostgresStopped(away) => {
            pg.stop();
            std::thread::sleep(away);
            pg.restart();
            format!("PostgreSQL stopped for {away:?}")
        }
        Outage::NatsFrozen(away) => {
            nats.freeze();
            std::thread::sleep(away);
            nats.thaw();
            format!("nats-server frozen for {away:?}")
        }
        Outage::OwnerKilled(down) => {
            ports.lock().unwrap()[0] = None;
            nodes[0].kill();
            std::thread::sleep(down);
            nodes[0] = start_node(names[0], &db, &nats.url(), &dir);
            ports.lock().unwrap()[0] = Some(nodes[0].tcp);
            format!("node a killed, started again after {down:?}")
        }
    };
    eprintln!("{what} ({:?} with the restart)", started.elapsed());
    // The games go on after it, long enough for a room taken over from the store to run again.
    std::thread::sleep(Duration::from_secs(15));
    stop.store(true, Ordering::Relaxed);
    let seen = every_end(&seen, rooms, &dir);
    let told = check_games(&nodes[0], &seen, &dir);
    eprintln!(
        "{what}: {rooms} games ended by their players' resignation; {told} moves told to \
         clients, each stored once at its ply; the longest pause between two moves a client \
         saw: {:?}",
        longest_pause(&seen)
    );
}
