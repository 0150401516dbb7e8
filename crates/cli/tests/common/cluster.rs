//! A cluster of real `arbiter serve` nodes for the tests (docs/cluster.md), and a course
//! client that keeps the moves it was told of.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command};
use std::time::Duration;

use arbiter_server::protocol::{MOVE, READY, STATE};
use serde_json::{json, Value};

use super::{http, serve_on_free_ports, StderrAfterStart};

/// One `arbiter serve` node; killed when dropped.
pub struct Node {
    pub child: Child,
    pub tcp: u16,
    pub http: u16,
}

impl Node {
    pub fn start(name: &str, db: &str, nats: &str, dir: &std::path::Path) -> Node {
        Node::start_with(name, db, nats, dir, &[])
    }

    /// A node with more `arbiter serve` flags.
    pub fn start_with(
        name: &str,
        db: &str,
        nats: &str,
        dir: &std::path::Path,
        flags: &[&str],
    ) -> Node {
        let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
        command
            .arg("serve")
            .args(["--db", db, "--cluster", nats, "--node", name])
            .args(["--timeout-ms", "60000"])
            // Tests wait for leases to lapse: short ones, unless the test sets its own.
            .args(if flags.contains(&"--lease-seconds") {
                &[][..]
            } else {
                &["--lease-seconds", "3"][..]
            })
            .args(flags)
            // A node restarted under its name writes on in its predecessor's log.
            .arg("--log")
            .arg(dir.join(format!("{name}.log")));
        // A node binds its ports before it opens the database and joins the cluster: it is
        // ready once it says it serves (a test that stops PostgreSQL at once must not stop it
        // in the middle of the start).
        let (child, tcp, http) = serve_on_free_ports(command, StderrAfterStart::Drained);
        Node { child, tcp, http }
    }

    pub fn kill(&mut self) {
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
pub struct Player {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// The game's moves as this client knows them: its own, those forwarded to it, and those
    /// of a snapshot.
    pub moves: Vec<String>,
}

impl Player {
    pub fn connect(node: &Node) -> Player {
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

    pub fn send(&mut self, op: i64, d1: &str, d2: &str, d3: &str, extra: Value) {
        let mut m = json!({"op": op, "data1": d1, "data2": d2, "data3": d3});
        if let (Some(m), Some(extra)) = (m.as_object_mut(), extra.as_object()) {
            m.extend(extra.clone());
        }
        writeln!(self.writer, "{m}").unwrap();
        if op == MOVE {
            self.moves.push(format!("{d1}-{d2}"));
        }
    }

    pub fn next(&mut self) -> Value {
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

    /// Reads until the node closes the connection (messages before it are taken in).
    pub fn until_closed(&mut self) {
        let mut line = String::new();
        loop {
            line.clear();
            match self.reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    }

    /// The next message with this op (others are skipped).
    pub fn expect(&mut self, op: i64) -> Value {
        loop {
            let m = self.next();
            if m["op"] == op {
                return m;
            }
        }
    }

    /// Waits until the game has `moves`: forwarded one by one, or in the snapshot a page gets
    /// when its room changed owner.
    pub fn sees_moves(&mut self, moves: &[&str]) {
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

/// A page's seat: the game and its seat token, made of `who`.
pub fn page_seat(who: char) -> Value {
    json!({"game": "surakarta", "token": token(who)})
}

/// Alice (a page, first) on `owner` opens `room`, so that node owns it; Bob (second) plays
/// from `other`, as a page when `bob_seat` is given, else as a course client; Alice has moved
/// A2-A3.
pub fn started_between(
    owner: &Node,
    other: &Node,
    room: &str,
    bob_seat: Option<Value>,
) -> (Player, Player) {
    let mut alice = Player::connect(owner);
    alice.send(READY, "alice", "BLACK", room, page_seat('a'));
    std::thread::sleep(Duration::from_millis(300));
    let mut bob = Player::connect(other);
    bob.send(READY, "bob", "WHITE", room, bob_seat.unwrap_or(json!({})));
    alice.expect(READY);
    bob.expect(READY);
    alice.send(MOVE, "A2", "A3", "", json!({}));
    bob.sees_moves(&["A2-A3"]);
    (alice, bob)
}

pub fn token(tag: char) -> String {
    std::iter::repeat_n(tag, 32).collect()
}

/// The test's folder for the nodes' logs; declared before the nodes, so that they are killed
/// before it is removed.
pub fn temp(name: &str) -> super::TestDir {
    super::TestDir::new(&format!("arbiter-cluster-{name}-"))
}

/// The stored game of `room`, from a node's API.
pub fn stored_game(node: &Node, room: u32) -> Value {
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

pub fn moves_of(game: &Value) -> Vec<String> {
    game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect()
}

/// Sends a signal to a node's process.
pub fn signal(node: &Node, name: &str) {
    let pid = node.child.id().to_string();
    let sent = Command::new("kill").args([name, &pid]).status().unwrap();
    assert!(sent.success(), "kill {name} {pid}");
}
