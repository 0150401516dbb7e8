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

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_core::{Game as _, MoveList};
use arbiter_pgtest::{TestNats, TestPostgres};
use arbiter_server::protocol::{END, MOVE, READY, REJECT, RESIGN, STATE};
use arbiter_surakarta::Position;
use common::cluster::{moves_of, signal, stored_game, temp, Node};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// No game ends by the no-capture rule while the test runs.
const NO_CAPTURE_LIMIT: &str = "100000";
/// END's reason for a resignation.
const RESIGNED: &str = "4";

/// The nodes' course ports, `None` while a node is draining or down.
type Ports = Arc<Mutex<Vec<Option<u16>>>>;

/// What one client saw of its game.
#[derive(Debug, Default)]
struct Seen {
    room: u32,
    /// Each move the server told this client of, with its ply (1-based).
    told: Vec<(usize, String)>,
    /// The longest wait between two moves this client heard or made.
    longest_pause: Duration,
    /// The END it was sent.
    end: Option<Value>,
    /// Why a course client's connection ended before its game did.
    lost: Option<String>,
}

/// One player of one game, on its own thread.
struct Client {
    room: u32,
    /// 0: the first player (BLACK), 1: the second.
    seat: usize,
    /// A page: it has a seat token and comes back through another node when its node drains.
    page: bool,
    home: usize,
    /// How long it thinks before a move, in ms.
    think: std::ops::Range<u64>,
    ports: Ports,
    /// Set when the players are to resign (the first to move from then on does).
    stop: Arc<AtomicBool>,
    log: std::fs::File,
}

impl Client {
    fn note(&self, what: std::fmt::Arguments) {
        let _ = writeln!(&self.log, "{:?} {what}", std::time::SystemTime::now());
    }

    fn ready_line(&self) -> String {
        let colour = ["BLACK", "WHITE"][self.seat];
        let mut m = json!({"op": READY, "data1": format!("p{}s{}", self.room, self.seat),
            "data2": colour, "data3": self.room.to_string()});
        if self.page {
            m["game"] = "surakarta".into();
            m["token"] = format!("{:016x}{:016x}", self.room, self.seat).into();
        }
        m.to_string()
    }

    /// A connection to a node that listens, trying them in turn from `from`, READY sent.
    fn connect(&self, from: usize) -> (TcpStream, usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let count = self.ports.lock().unwrap().len();
        for i in (from..).map(|i| i % count) {
            assert!(Instant::now() < deadline, "no node took a connection");
            let port = self.ports.lock().unwrap()[i];
            if let Some(stream) = port.and_then(|p| TcpStream::connect(("127.0.0.1", p)).ok()) {
                stream
                    .set_read_timeout(Some(Duration::from_millis(20)))
                    .unwrap();
                let mut writer = stream.try_clone().unwrap();
                if writeln!(writer, "{}", self.ready_line()).is_ok() {
                    self.note(format_args!("READY to node {i} ({port:?})"));
                    return (stream, i);
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        unreachable!()
    }

    fn play(self, seed: u64) -> Seen {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut seen = Seen {
            room: self.room,
            ..Seen::default()
        };
        let (stream, mut node) = self.connect(self.home);
        let mut game = Game::new(stream);
        let give_up = Instant::now() + Duration::from_secs(600);
        while Instant::now() < give_up {
            let line = match game.read_line() {
                Ok(Some(line)) => line,
                Ok(None) => {
                    game.think(&self, &mut rng);
                    continue;
                }
                Err(e) if !self.page => {
                    self.note(format_args!("lost: {e}"));
                    seen.lost = Some(e.to_string());
                    return seen;
                }
                Err(e) => {
                    self.note(format_args!("sent elsewhere: {e}"));
                    let (stream, now) = self.connect(node + 1);
                    node = now;
                    game.reconnected(stream);
                    continue;
                }
            };
            self.note(format_args!("< {}", line.trim_end()));
            if game.hear(&line, &mut seen) {
                seen.longest_pause = game.longest_pause;
                return seen;
            }
        }
        panic!("room {}: the game did not end", self.room);
    }
}

/// A client's game as it knows it.
struct Game {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    partial: Vec<u8>,
    moves: Vec<String>,
    position: Position,
    started: bool,
    /// Not waiting for the snapshot of a page that came back (it moves only after it).
    synced: bool,
    move_at: Option<Instant>,
    resigned: bool,
    last_move: Option<Instant>,
    longest_pause: Duration,
}

impl Game {
    fn new(stream: TcpStream) -> Game {
        Game {
            writer: stream.try_clone().unwrap(),
            reader: BufReader::new(stream),
            partial: Vec::new(),
            moves: Vec::new(),
            position: start(),
            started: false,
            synced: true,
            move_at: None,
            resigned: false,
            last_move: None,
            longest_pause: Duration::ZERO,
        }
    }

    fn reconnected(&mut self, stream: TcpStream) {
        self.writer = stream.try_clone().unwrap();
        self.reader = BufReader::new(stream);
        self.partial.clear();
        self.synced = false;
        self.move_at = None;
        self.resigned = false;
    }

    /// The next whole line; `None` when none came yet; an error when the connection ended.
    fn read_line(&mut self) -> std::io::Result<Option<String>> {
        match self.reader.read_until(b'\n', &mut self.partial) {
            Ok(0) => Err(ErrorKind::UnexpectedEof.into()),
            Ok(_) if self.partial.ends_with(b"\n") => {
                let line = String::from_utf8(std::mem::take(&mut self.partial)).unwrap();
                Ok(Some(line))
            }
            Ok(_) => Ok(None),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Takes one message in; true when the game ended.
    fn hear(&mut self, line: &str, seen: &mut Seen) -> bool {
        let m: Value = serde_json::from_str(line).unwrap();
        let text = |k: &str| m[k].as_str().unwrap_or_default().to_string();
        match m["op"].as_i64() {
            Some(READY) => self.started = true,
            Some(MOVE) => {
                let played = format!("{}-{}", text("data1"), text("data2"));
                self.play(&played);
                seen.told.push((self.moves.len(), played));
            }
            Some(STATE) => {
                let state: Value = serde_json::from_str(&text("data1")).unwrap();
                let moves = state["moves"].as_array().cloned().unwrap_or_default();
                self.synced = true;
                self.moves.clear();
                self.position = start();
                for (i, played) in moves.iter().enumerate() {
                    let played = played.as_str().unwrap();
                    self.play(played);
                    seen.told.push((i + 1, played.to_string()));
                }
            }
            Some(END) => {
                seen.end = Some(m);
                return true;
            }
            Some(REJECT) => panic!("room {}: {line}", seen.room),
            _ => {}
        }
        false
    }

    fn play(&mut self, text: &str) {
        let mv = self.position.parse_move(text);
        let mv = mv.unwrap_or_else(|e| panic!("{text} after {:?}: {e}", self.moves));
        self.position.play(mv);
        self.moves.push(text.to_string());
        let now = Instant::now();
        if let Some(last) = self.last_move.replace(now) {
            self.longest_pause = self.longest_pause.max(now - last);
        }
    }

    /// On its turn, after its thinking time: a random legal move without a capture when there is one
    /// (the games must last), or, once the test says so, RESIGN.
    fn think(&mut self, client: &Client, rng: &mut SmallRng) {
        let my_turn = self.started && self.synced && self.moves.len() % 2 == client.seat;
        if !my_turn || self.resigned {
            self.move_at = None;
            return;
        }
        let at = *self.move_at.get_or_insert_with(|| {
            Instant::now() + Duration::from_millis(rng.gen_range(client.think.clone()))
        });
        if Instant::now() < at {
            return;
        }
        self.move_at = None;
        if client.stop.load(Ordering::Relaxed) {
            self.resigned = true;
            let _ = writeln!(self.writer, "{}", json!({"op": RESIGN}));
            client.note(format_args!("> RESIGN"));
            return;
        }
        let text = quiet_move(&self.position, rng);
        let (from, to) = text.split_once('-').unwrap();
        let _ = writeln!(
            self.writer,
            "{}",
            json!({"op": MOVE, "data1": from, "data2": to})
        );
        client.note(format_args!("> {text}"));
        self.play(&text);
    }
}

fn start() -> Position {
    Position::new(6, NO_CAPTURE_LIMIT.parse().unwrap()).unwrap()
}

fn quiet_move(position: &Position, rng: &mut SmallRng) -> String {
    let mut list = MoveList::new();
    position.legal_moves(&mut list);
    let quiet: Vec<_> = list.iter().filter(|m| !position.is_capture(**m)).collect();
    let mv = match quiet.is_empty() {
        true => list[rng.gen_range(0..list.len())],
        false => *quiet[rng.gen_range(0..quiet.len())],
    };
    position.format_move(mv)
}

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
