//! Owners killed with SIGKILL again and again while 50 games run on three nodes (docs/cluster.md,
//! "Failures"). Every move a client was told of (forwarded to it, or in a snapshot) is stored
//! once, at its ply; every game ends with a stored reason; and no two nodes ever ran one room —
//! a twin would have told some client a move the store does not hold at that ply.
//!
//! Pages come back through any node with their seat tokens. Ten games have a course client
//! (no token, no extension) as their second player, on node a, which is never killed (a course
//! client cannot come back): it plays on through its room's moves and hears the moves it missed
//! while the room moved. Nodes b and c are killed, each restarted under its name a moment later.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter_core::Game as _;
use arbiter_pgtest::{TestNats, TestPostgres};
use common::cluster::{moves_of, stored_game, temp, Node};
use common::course_bots::{start, wall_clock, Ports, Seen, NO_CAPTURE_LIMIT};
use common::course_games::start_games_thinking;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

const GAMES: u32 = 50;
/// Games whose second player is a course client.
const COURSE_GAMES: u32 = 10;
const KILLS: usize = 20;
const NAMES: [&str; 3] = ["a", "b", "c"];

fn start_node(name: &str, db: &str, nats: &str, dir: &std::path::Path) -> Node {
    let caps = [
        "--max-connections-per-ip",
        "--max-connections-per-network",
        "--max-seats-per-ip",
        "--max-seats-per-network",
    ];
    let mut flags = vec![
        "--seat-grace",
        "6",
        "--max-no-capture-round",
        NO_CAPTURE_LIMIT,
    ];
    for cap in caps {
        flags.extend([cap, "1000"]);
    }
    Node::start_with(name, db, nats, dir, &flags)
}

#[test]
fn acknowledged_moves_survive_twenty_owner_kills_over_fifty_games() {
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("kills");
    let mut nodes: Vec<Node> = NAMES
        .iter()
        .map(|n| start_node(n, &db, &nats.url(), &dir))
        .collect();
    let ports: Ports = Arc::new(Mutex::new(nodes.iter().map(|n| Some(n.tcp)).collect()));
    let stop = Arc::new(AtomicBool::new(false));
    let placed =
        |room: u32, seat: usize| (home_of(room, seat), !(seat == 1 && room <= COURSE_GAMES));
    let results = start_games_thinking(GAMES, 50..250, placed, &ports, &stop, &dir);
    kill_owners(&mut nodes, &ports, &db, &nats.url(), &dir);
    stop.store(true, Ordering::Relaxed);
    let mut seen: Vec<Seen> = Vec::new();
    while seen.len() < (GAMES * 2) as usize {
        match results.recv_timeout(Duration::from_secs(120)) {
            Ok(s) => seen.push(s),
            Err(_) => {
                let ended: Vec<u32> = seen.iter().map(|s| s.room).collect();
                let open: Vec<u32> = (1..=GAMES)
                    .filter(|r| ended.iter().filter(|e| *e == r).count() < 2)
                    .collect();
                panic!(
                    "the games of rooms {open:?} did not end (logs in {})",
                    dir.display()
                );
            }
        }
    }
    check_the_store(&nodes[0], &seen, &dir);
}

/// Course clients on node a; the first player of every game on b or c (its READY opens the room
/// there, so that node owns it).
fn home_of(room: u32, seat: usize) -> usize {
    match (seat, room <= COURSE_GAMES) {
        (1, true) => 0,
        (0, _) => 1 + room as usize % 2,
        _ => (room as usize + seat) % NAMES.len(),
    }
}

/// SIGKILL of node b or c, `KILLS` times, each started again under its name (a new process:
/// new connection numbers, nothing held) a moment later.
fn kill_owners(nodes: &mut [Node], ports: &Ports, db: &str, nats: &str, dir: &std::path::Path) {
    let mut rng = SmallRng::seed_from_u64(28);
    // Let every game start first.
    std::thread::sleep(Duration::from_secs(3));
    for kill in 0..KILLS {
        std::thread::sleep(Duration::from_millis(rng.gen_range(1_000..4_000)));
        let i = rng.gen_range(1..nodes.len());
        ports.lock().unwrap()[i] = None;
        nodes[i].kill();
        eprintln!("{} kill {}: node {}", wall_clock(), kill + 1, NAMES[i]);
        std::thread::sleep(Duration::from_millis(300));
        nodes[i] = start_node(NAMES[i], db, nats, dir);
        ports.lock().unwrap()[i] = Some(nodes[i].tcp);
    }
}

/// Every game was stored once per room, ended with a reason, holds each move any client was
/// told at the ply it was told, and replays legally from the start.
fn check_the_store(node: &Node, seen: &[Seen], dir: &std::path::Path) {
    let logs = dir.display();
    let (status, body) = common::http(node.http, "GET", "/api/games?limit=100", "");
    assert_eq!(status, 200, "{body}");
    let listed: Vec<Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(
        listed.len(),
        GAMES as usize,
        "one stored game per room: {body}"
    );
    let (mut stored_moves, mut checked) = (0, 0);
    for room in 1..=GAMES {
        let game = stored_game(node, room);
        let stored = moves_of(&game);
        assert!(
            game["end_reason"].as_str().is_some_and(|r| !r.is_empty()),
            "room {room} never ended: {game} (logs in {logs})"
        );
        stored_moves += stored.len();
        let mut position = start();
        for text in &stored {
            let mv = position.parse_move(text);
            let mv = mv.unwrap_or_else(|e| panic!("room {room}: stored {text}: {e} ({logs})"));
            position.play(mv);
        }
        for client in seen.iter().filter(|s| s.room == room) {
            assert!(
                client.lost.is_none() && client.end.is_some(),
                "room {room}: {client:?} ({logs})"
            );
            checked += client.told.len();
            for (ply, told) in &client.told {
                assert_eq!(
                    stored.get(ply - 1),
                    Some(told),
                    "room {room}: a client was told {told} as move {ply}; stored: {stored:?} ({logs})"
                );
            }
        }
    }
    eprintln!(
        "every game ended and was stored whole: {stored_moves} moves stored, {checked} moves \
         told to clients found at their plies"
    );
}
