//! Whole course games against a cluster for the tests of what a cluster survives (drains,
//! outages): nodes on the course's 3 s move clock, players started on their threads, and the
//! check that every game ended by the players' resignation with every move told stored once.

use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use serde_json::Value;

use super::cluster::{moves_of, stored_game, Node};
use super::course_bots::{Client, Ports, Seen, NO_CAPTURE_LIMIT};

/// END's reason for a resignation.
pub const RESIGNED: &str = "4";

/// A node on the course's move clock (3 s), the default lease (10 s: a hand-over that waited
/// for it would show), room for every test client from one address.
pub fn start_node(name: &str, db: &str, nats: &str, dir: &std::path::Path) -> Node {
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
pub fn start_games(
    rooms: u32,
    placed: impl Fn(u32, usize) -> (usize, bool),
    ports: &Ports,
    stop: &Arc<AtomicBool>,
    dir: &std::path::Path,
) -> mpsc::Receiver<Seen> {
    start_games_thinking(rooms, 30..120, placed, ports, stop, dir)
}

pub fn start_games_thinking(
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
pub fn every_end(seen: &mpsc::Receiver<Seen>, rooms: u32, dir: &std::path::Path) -> Vec<Seen> {
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
pub fn check_games(node: &Node, seen: &[Seen], dir: &std::path::Path) -> usize {
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
    let (status, body) = super::http(node.http, "GET", "/api/games?limit=100", "");
    assert_eq!(status, 200, "{body}");
    let games: Vec<Value> = serde_json::from_str(&body).unwrap();
    let rooms: std::collections::BTreeSet<u32> = seen.iter().map(|s| s.room).collect();
    assert_eq!(games.len(), rooms.len(), "one stored game per room: {body}");
    for game in &games {
        assert_eq!(game["end_reason"], "RESIGN", "{game} ({logs})");
    }
    told
}

/// The longest wait between two moves any client saw.
pub fn longest_pause(seen: &[Seen]) -> Duration {
    seen.iter()
        .map(|s| s.longest_pause)
        .max()
        .unwrap_or_default()
}
