//! Draining a cluster node (docs/cluster.md, "Draining"; issue 75): SIGTERM on a node hands
//! every room it owns to another node at once, and the node stays its course clients' gateway
//! until their games end; pages are sent to another node and keep their seats. A rolling
//! restart of every node during play ends no game.
//!
//! The games are real: course clients (no token, no extension) and pages (a seat token) on
//! their own threads play random legal moves on the course's 3 s move clock, and resign once
//! the test says so — every game must end by that resignation, with every move any client was
//! told stored once at its ply.

mod common;

use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_pgtest::{TestNats, TestPostgres};
use common::cluster::{moves_of, signal, stored_game, temp, Node};
use common::course_bots::{Client, Ports, Seen, NO_CAPTURE_LIMIT};
use serde_json::Value;

/// END's reason for a resignation.
const RESIGNED: &str = "4";

/// A node on the course's move clock (3 s), the default lease (10 s: a hand-over that waited
/// for it would show), room for every test client from one address.
fn start_node(name: &str, db: &str, nats: &str, dir: &std::path::Path) -> Node {
    let mut flags = vec![
        "--timeout-ms",
        "3000",
        "--lease-seconds",
        "10",
        "--drain-seconds",
        "120",
        "--max-no-capture-round",
        NO_CAPTURE_LIMIT,
    ];
    for cap in [
        "--max-connections-per-ip",
        "--max-connections-per-network",
        "--max-seats-per-ip",
        "--max-seats-per-network",
    ] {
        flags.extend([cap, "1000"]);
    }
    Node::start_with(name, db, nats, dir, &flags)
}

/// The players of `rooms` games, thinking 30–120 ms a move, started on their threads;
/// `(room, seat) -> (home node, page?)`.
fn start_games(
    rooms: u32,
    placed: impl Fn(u32, usize) -> (usize, bool),
    ports: &Ports,
    stop: &Arc<AtomicBool>,
    dir: &std::path::Path,
) -> mpsc::Receiver<Seen> {
    start_games_thinking(rooms, 30..120, placed, ports, stop, dir)
}

fn start_games_thinking(
    rooms: u32,
    think: std::ops::Range<u64>,
    placed: impl Fn(u32, usize) -> (usize, bool),
    ports: &Ports,
    stop: &Arc<AtomicBool>,
    dir: &std::path::Path,
) -> mpsc::Receiver<Seen> {
    let (done, seen) = mpsc::channel();
    for room in 1..=rooms {
        for seat in 0..2 {
            let (home, page) = placed(room, seat);
            let client = Client {
                room,
                seat,
                page,
                home,
                think: think.clone(),
                ports: ports.clone(),
                stop: stop.clone(),
                log: std::fs::File::create(dir.join(format!("client-{room}-{seat}.log"))).unwrap(),
            };
            let done = done.clone();
            let seed = u64::from(room) * 2 + seat as u64;
            std::thread::spawn(move || done.send(client.play(seed)));
            if seat == 0 {
                // The first player's READY opens the room on its node, which owns it.
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    seen
}

/// Every client's game, as it ended (within a minute).
fn every_end(seen: &mpsc::Receiver<Seen>, rooms: u32, dir: &std::path::Path) -> Vec<Seen> {
    let mut all = Vec::new();
    while all.len() < rooms as usize * 2 {
        match seen.recv_timeout(Duration::from_secs(60)) {
            Ok(s) => all.push(s),
            Err(_) => panic!("not every game ended (logs in {})", dir.display()),
        }
    }
    all
}

/// Every game ended by the resignation, no course client lost its connection, and each room's
/// one stored game holds every move any client was told, at its ply. How many moves were told.
fn check_games(node: &Node, seen: &[Seen], dir: &std::path::Path) -> usize {
    let logs = dir.display();
    let mut told = 0;
    for client in seen {
        told += client.told.len();
        let room = client.room;
        assert_eq!(
            client.lost, None,
            "room {room}: a course client lost ({logs})"
        );
        let end = client.end.as_ref().expect("an END");
        assert_eq!(
            end["data2"], RESIGNED,
            "room {room}: ended by {end} ({logs})"
        );
        let stored = moves_of(&stored_game(node, room));
        for (ply, told) in &client.told {
            assert_eq!(
                stored.get(ply - 1),
                Some(told),
                "room {room}: told {told} as move {ply}; stored {stored:?} ({logs})"
            );
        }
    }
    let (status, body) = common::http(node.http, "GET", "/api/games?limit=100", "");
    assert_eq!(status, 200, "{body}");
    let games: Vec<Value> = serde_json::from_str(&body).unwrap();
    let rooms: std::collections::BTreeSet<u32> = seen.iter().map(|s| s.room).collect();
    assert_eq!(games.len(), rooms.len(), "one stored game per room: {body}");
    for game in &games {
        assert_eq!(game["end_reason"], "RESIGN", "{game} ({logs})");
    }
    told
}

/// Waits until nothing listens on `port` any more (a draining node closed its listener).
fn wait_closed(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(Instant::now() < deadline, "{what} still takes connections");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until a draining node has ended by itself, successfully.
fn wait_exit(node: &mut Node, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = node.child.try_wait().unwrap() {
            assert!(status.success(), "{what} ended with {status}");
            return;
        }
        assert!(Instant::now() < deadline, "{what} did not end once drained");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn longest_pause(seen: &[Seen]) -> Duration {
    seen.iter()
        .map(|s| s.longest_pause)
        .max()
        .unwrap_or_default()
}

#[test]
fn sigterm_hands_the_rooms_over_at_once_and_their_games_end_normally() {
    const ROOMS: u32 = 6;
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("drain");
    let mut nodes: Vec<Node> = ["a", "b"]
        .iter()
        .map(|n| start_node(n, &db, &nats.url(), &dir))
        .collect();
    let ports: Ports = Arc::new(Mutex::new(nodes.iter().map(|n| Some(n.tcp)).collect()));
    let stop = Arc::new(AtomicBool::new(false));
    // Every player is a course client on node a, which owns every room.
    let seen = start_games(ROOMS, |_, _| (0, false), &ports, &stop, &dir);
    std::thread::sleep(Duration::from_secs(2));
    signal(&nodes[0], "-TERM");
    ports.lock().unwrap()[0] = None;
    wait_closed(nodes[0].tcp, "node a, draining,");
    std::thread::sleep(Duration::from_secs(2));
    stop.store(true, Ordering::Relaxed);
    let seen = every_end(&seen, ROOMS, &dir);
    check_games(&nodes[1], &seen, &dir);
    // The rooms moved without waiting for a's leases (10 s) to lapse.
    let pause = longest_pause(&seen);
    assert!(pause < Duration::from_secs(5), "a pause of {pause:?}");
    wait_exit(&mut nodes[0], "node a");
    let log_b = std::fs::read_to_string(dir.join("b.log")).unwrap();
    for room in 1..=ROOMS {
        assert!(
            log_b.contains(&format!("room {room}: owned by b-")),
            "room {room}"
        );
    }
    eprintln!("drained: the longest pause between two moves a client saw: {pause:?}");
}

#[test]
fn a_rolling_restart_of_every_node_ends_no_game() {
    let pause = rolling_restart(&["a", "b"], 8, 30..120, Duration::from_secs(2));
    eprintln!("rolling restart: the longest pause between two moves a client saw: {pause:?}");
}

/// The longer run of docs/cluster.md: `DRAIN_NODES` nodes (3), `DRAIN_GAMES` games (40) whose
/// players think 0.3–1.5 s a move on the 3 s clock, each node drained and started again in turn
/// `DRAIN_GAP_SECONDS` (20) apart: `cargo test --release -p arbiter-cli --test cluster_drain
/// -- --ignored --nocapture`.
#[test]
#[ignore]
fn a_rolling_restart_under_forty_games_measured() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let names: Vec<String> = (0..env("DRAIN_NODES", 3))
        .map(|i| format!("n{i}"))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let gap = Duration::from_secs(env("DRAIN_GAP_SECONDS", 20));
    let started = Instant::now();
    let pause = rolling_restart(&names, env("DRAIN_GAMES", 40) as u32, 300..1500, gap);
    eprintln!(
        "{} nodes restarted one after another under the games: every game ended by its \
         resignation, stored whole; the longest pause between two moves a client saw: \
         {pause:?}; {:?} in all",
        names.len(),
        started.elapsed()
    );
}

/// Plays `rooms` games on nodes `names` and restarts every node in turn (SIGTERM, the new
/// process started once the old one's port is closed, `gap` before the next), then has the
/// players resign: every game must end by it, stored whole, and every old process must exit
/// by itself. The longest pause between two moves any client saw.
fn rolling_restart(
    names: &[&str],
    rooms: u32,
    think: std::ops::Range<u64>,
    gap: Duration,
) -> Duration {
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("rolling");
    let mut nodes: Vec<Node> = names
        .iter()
        .map(|n| start_node(n, &db, &nats.url(), &dir))
        .collect();
    let ports: Ports = Arc::new(Mutex::new(nodes.iter().map(|n| Some(n.tcp)).collect()));
    let stop = Arc::new(AtomicBool::new(false));
    // Rooms open on every node; players of one game on one node or on two; a page as the
    // second player of every fourth game.
    let count = names.len();
    let placed = |room: u32, seat: usize| match seat {
        0 => (room as usize % count, false),
        _ => ((room as usize / count) % count, room % 4 == 3),
    };
    let seen = start_games_thinking(rooms, think, placed, &ports, &stop, &dir);
    std::thread::sleep(gap);
    let mut drained = Vec::new();
    for (i, name) in names.iter().enumerate() {
        signal(&nodes[i], "-TERM");
        ports.lock().unwrap()[i] = None;
        wait_closed(nodes[i].tcp, name);
        let fresh = start_node(name, &db, &nats.url(), &dir);
        ports.lock().unwrap()[i] = Some(fresh.tcp);
        drained.push(std::mem::replace(&mut nodes[i], fresh));
        std::thread::sleep(gap);
    }
    stop.store(true, Ordering::Relaxed);
    let seen = every_end(&seen, rooms, &dir);
    let told = check_games(&nodes[0], &seen, &dir);
    eprintln!("{told} moves told to clients, each stored once at its ply");
    for (node, name) in drained.iter_mut().zip(names) {
        wait_exit(node, name);
    }
    longest_pause(&seen)
}
