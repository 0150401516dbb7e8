//! `arbiter serve --cluster`: real nodes (the binary) on one PostgreSQL and one nats-server,
//! started by the test (docs/cluster.md). Players on different nodes play one game; the node
//! that owns the room is killed with SIGKILL, and the game carries on from the store.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_server::cluster::testing::TestNats;
use arbiter_server::protocol::{END, MOVE, READY, RESIGN, STATE, WATCH};
use arbiter_server::storage::postgres::testing::TestPostgres;
use common::{free_port, http};
use serde_json::{json, Value};

/// One `arbiter serve` node; killed when dropped.
struct Node {
    child: Child,
    tcp: u16,
    http: u16,
}

impl Node {
    fn start(name: &str, db: &str, nats: &str, dir: &std::path::Path) -> Node {
        let (tcp, http) = (free_port(), free_port());
        let child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["serve", "--tcp", &format!("127.0.0.1:{tcp}")])
            .args(["--http", &format!("127.0.0.1:{http}")])
            .args(["--db", db, "--cluster", nats, "--node", name])
            .args(["--lease-seconds", "3", "--timeout-ms", "60000"])
            .arg("--log")
            .arg(dir.join(format!("{name}.log")))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        for port in [tcp, http] {
            while TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(Instant::now() < deadline, "node {name} did not start");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Node { child, tcp, http }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A client of the course protocol (with the extension's keys when given).
struct Player {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// The game's moves as this client knows them: its own, those forwarded to it, and those
    /// of a snapshot.
    moves: Vec<String>,
}

impl Player {
    fn connect(node: &Node) -> Player {
        let writer = TcpStream::connect(("127.0.0.1", node.tcp)).unwrap();
        writer
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let reader = BufReader::new(writer.try_clone().unwrap());
        Player {
            reader,
            writer,
            moves: Vec::new(),
        }
    }

    fn send(&mut self, op: i64, d1: &str, d2: &str, d3: &str, extra: Value) {
        let mut m = json!({"op": op, "data1": d1, "data2": d2, "data3": d3});
        if let (Some(m), Some(extra)) = (m.as_object_mut(), extra.as_object()) {
            m.extend(extra.clone());
        }
        writeln!(self.writer, "{m}").unwrap();
        if op == MOVE {
            self.moves.push(format!("{d1}-{d2}"));
        }
    }

    fn next(&mut self) -> Value {
        let mut line = String::new();
        let read = self.reader.read_line(&mut line);
        assert!(read.is_ok_and(|n| n > 0), "the connection ended");
        let m: Value = serde_json::from_str(&line).unwrap();
        if m["op"] == MOVE {
            let text = |k: &str| m[k].as_str().unwrap_or_default().to_string();
            self.moves
                .push(format!("{}-{}", text("data1"), text("data2")));
        } else if m["op"] == STATE {
            let state: Value = serde_json::from_str(m["data1"].as_str().unwrap()).unwrap();
            let moves = state["moves"].as_array().cloned().unwrap_or_default();
            self.moves = moves
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
        }
        m
    }

    /// The next message with this op (others are skipped).
    fn expect(&mut self, op: i64) -> Value {
        loop {
            let m = self.next();
            if m["op"] == op {
                return m;
            }
        }
    }

    /// Waits until the game has `moves`: forwarded one by one, or in the snapshot a page gets
    /// when its room changed owner.
    fn sees_moves(&mut self, moves: &[&str]) {
        while self.moves != moves {
            assert!(
                self.moves.len() <= moves.len(),
                "{:?} is not {moves:?}",
                self.moves
            );
            self.next();
        }
    }
}

fn token(tag: char) -> String {
    std::iter::repeat_n(tag, 32).collect()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The stored game of `room`, from a node's API.
fn stored_game(node: &Node, room: u32) -> Value {
    let (status, body) = http(node.http, "GET", "/api/games?limit=50", "");
    assert_eq!(status, 200, "{body}");
    let listed: Value = serde_json::from_str(&body).unwrap();
    let games = listed.as_array().cloned().unwrap_or_default();
    let id = games
        .iter()
        .find(|g| g["room"] == room)
        .and_then(|g| g["id"].as_i64())
        .unwrap_or_else(|| panic!("no game of room {room} in {body}"));
    let (status, body) = http(node.http, "GET", &format!("/api/games/{id}"), "");
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn moves_of(game: &Value) -> Vec<String> {
    game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_course_client_a_page_and_a_spectator_on_three_nodes_see_one_game() {
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("three");
    let nodes: Vec<Node> = ["a", "b", "c"]
        .iter()
        .map(|n| Node::start(n, &db, &nats.url(), &dir))
        .collect();
    // A course client: no extension, no token.
    let mut alice = Player::connect(&nodes[0]);
    alice.send(READY, "alice", "BLACK", "4", json!({}));
    std::thread::sleep(Duration::from_millis(300));
    let mut bob = Player::connect(&nodes[1]);
    let extension = json!({"game": "surakarta", "token": token('b')});
    bob.send(READY, "bob", "WHITE", "4", extension);
    assert_eq!(alice.expect(READY)["data1"], "bob");
    assert_eq!(bob.expect(READY)["data1"], "alice");
    let mut carol = Player::connect(&nodes[2]);
    carol.send(WATCH, "4", "", "", json!({}));
    carol.expect(STATE);
    let moves = [("A2", "A3"), ("F5", "E4"), ("B2", "B3"), ("E4", "D4")];
    for (i, (from, to)) in moves.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut alice, &mut bob)
        } else {
            (&mut bob, &mut alice)
        };
        mover.send(MOVE, from, to, "", json!({}));
        assert_eq!(other.expect(MOVE)["data1"], *from);
        assert_eq!(carol.expect(MOVE)["data2"], *to);
    }
    alice.send(RESIGN, "", "", "", json!({}));
    for p in [&mut alice, &mut bob, &mut carol] {
        assert_eq!(p.expect(END)["data3"], "1", "white wins");
    }
    for node in &nodes {
        let game = stored_game(node, 4);
        assert_eq!(moves_of(&game), ["A2-A3", "F5-E4", "B2-B3", "E4-D4"]);
        assert_eq!(game["end_reason"], "RESIGN");
    }
}

#[test]
fn the_game_goes_on_when_the_node_owning_its_room_is_killed() {
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("failover");
    let mut nodes: Vec<Node> = ["a", "b", "c"]
        .iter()
        .map(|n| Node::start(n, &db, &nats.url(), &dir))
        .collect();
    let seat = |who: char| json!({"game": "surakarta", "token": token(who)});
    // Alice on node a opens room 9, so node a owns it; Bob plays from node b.
    let mut alice = Player::connect(&nodes[0]);
    alice.send(READY, "alice", "BLACK", "9", seat('a'));
    std::thread::sleep(Duration::from_millis(300));
    let mut bob = Player::connect(&nodes[1]);
    bob.send(READY, "bob", "WHITE", "9", seat('b'));
    alice.expect(READY);
    bob.expect(READY);
    alice.send(MOVE, "A2", "A3", "", json!({}));
    bob.sees_moves(&["A2-A3"]);
    bob.send(MOVE, "F5", "E4", "", json!({}));
    alice.expect(MOVE);
    // The owner dies, and Alice's connection with it.
    nodes[0].kill();
    let killed = Instant::now();
    drop(alice);
    // Alice's page reconnects through another node with its seat token.
    let mut alice = Player::connect(&nodes[2]);
    alice.send(READY, "alice", "BLACK", "9", seat('a'));
    assert_eq!(alice.expect(READY)["data2"], "BLACK");
    let state = alice.expect(STATE);
    let snapshot: Value = serde_json::from_str(state["data1"].as_str().unwrap()).unwrap();
    assert_eq!(snapshot["moves"], json!(["A2-A3", "F5-E4"]), "{snapshot}");
    alice.send(MOVE, "B2", "B3", "", json!({}));
    // Bob kept his connection to node b, which attached him to the room's new owner.
    bob.sees_moves(&["A2-A3", "F5-E4", "B2-B3"]);
    let failover = killed.elapsed();
    bob.send(MOVE, "E4", "D4", "", json!({}));
    assert_eq!(alice.expect(MOVE)["data1"], "E4");
    alice.send(RESIGN, "", "", "", json!({}));
    assert_eq!(bob.expect(END)["data3"], "1");
    let game = stored_game(&nodes[1], 9);
    assert_eq!(moves_of(&game), ["A2-A3", "F5-E4", "B2-B3", "E4-D4"]);
    assert_eq!(game["end_reason"], "RESIGN");
    eprintln!("failover: {failover:?} from the kill to the next move forwarded");
}

/// Sends a signal to a node's process.
fn signal(node: &Node, name: &str) {
    let pid = node.child.id().to_string();
    let sent = Command::new("kill").args([name, &pid]).status().unwrap();
    assert!(sent.success(), "kill {name} {pid}");
}

#[test]
fn an_owner_paused_past_its_lease_gives_the_room_up_and_its_player_moves_over() {
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("paused");
    let nodes: Vec<Node> = ["a", "b"]
        .iter()
        .map(|n| Node::start(n, &db, &nats.url(), &dir))
        .collect();
    let seat = |who: char| json!({"game": "surakarta", "token": token(who)});
    let mut alice = Player::connect(&nodes[0]);
    alice.send(READY, "alice", "BLACK", "11", seat('a'));
    std::thread::sleep(Duration::from_millis(300));
    let mut bob = Player::connect(&nodes[1]);
    bob.send(READY, "bob", "WHITE", "11", seat('b'));
    alice.expect(READY);
    bob.expect(READY);
    alice.send(MOVE, "A2", "A3", "", json!({}));
    bob.sees_moves(&["A2-A3"]);
    // Node a stops past its lease: node b takes the room over and seats Bob again.
    signal(&nodes[0], "-STOP");
    bob.expect(STATE);
    bob.send(MOVE, "F5", "E4", "", json!({}));
    // Node a comes back: it must not run the room any more, and Alice is moved to node b's.
    signal(&nodes[0], "-CONT");
    alice.sees_moves(&["A2-A3", "F5-E4"]);
    alice.send(MOVE, "B2", "B3", "", json!({}));
    bob.sees_moves(&["A2-A3", "F5-E4", "B2-B3"]);
    let game = stored_game(&nodes[1], 11);
    assert_eq!(moves_of(&game), ["A2-A3", "F5-E4", "B2-B3"]);
    let log_a = std::fs::read_to_string(dir.join("a.log")).unwrap();
    assert!(
        log_a.contains("room 11: its lease was not renewed in time")
            || log_a.contains("room 11: lease lost"),
        "node a never gave room 11 up"
    );
}
