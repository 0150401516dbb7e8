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

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_core::{Game as _, MoveList};
use arbiter_pgtest::TestNats;
use arbiter_pgtest::TestPostgres;
use arbiter_server::protocol::{END, MOVE, READY, REJECT, RESIGN, STATE};
use arbiter_surakarta::Position;
use common::cluster::{moves_of, stored_game, temp, Node};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

const GAMES: u32 = 50;
/// Games whose second player is a course client.
const COURSE_GAMES: u32 = 10;
const KILLS: usize = 20;
const NAMES: [&str; 3] = ["a", "b", "c"];
/// No game ends by the no-capture rule while the nodes are being killed.
const NO_CAPTURE_LIMIT: &str = "100000";

/// The nodes' course ports, `None` while a node is down.
type Ports = Arc<Mutex<Vec<Option<u16>>>>;

/// What one client was told.
#[derive(Debug, Default)]
struct Seen {
    room: u32,
    /// Each move the server told this client of, with its ply (1-based).
    told: Vec<(usize, String)>,
    /// A course client whose node died: its game went on without it.
    lost: bool,
    ended: bool,
}

/// One player of one game, on its own thread.
struct Client {
    room: u32,
    /// 0: the first player (BLACK), 1: the second.
    seat: usize,
    /// A course client: no token, so it cannot come back.
    course: bool,
    home: usize,
    ports: Ports,
    stop: Arc<AtomicBool>,
    /// What the client did and heard, for a failure's reader.
    log: std::fs::File,
}

impl Client {
    fn note(&self, what: std::fmt::Arguments) {
        let now = wall_clock();
        let _ = writeln!(&self.log, "{now} {what}");
    }

    fn ready_line(&self) -> String {
        let colour = ["BLACK", "WHITE"][self.seat];
        let mut m = json!({"op": READY, "data1": format!("p{}s{}", self.room, self.seat),
            "data2": colour, "data3": self.room.to_string()});
        if !self.course {
            m["game"] = "surakarta".into();
            m["token"] = token_of(self.room, self.seat).into();
        }
        m.to_string()
    }

    /// A connection to a live node, trying them in turn from `from`, with the READY sent.
    fn connect(&self, from: usize) -> (TcpStream, usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut i = from;
        loop {
            assert!(Instant::now() < deadline, "no node took a connection");
            let port = self.ports.lock().unwrap()[i % NAMES.len()];
            if let Some(stream) = port.and_then(|p| TcpStream::connect(("127.0.0.1", p)).ok()) {
                stream
                    .set_read_timeout(Some(Duration::from_millis(20)))
                    .unwrap();
                let mut writer = stream.try_clone().unwrap();
                if writeln!(writer, "{}", self.ready_line()).is_ok() {
                    self.note(format_args!(
                        "READY to {} ({port:?})",
                        NAMES[i % NAMES.len()]
                    ));
                    return (stream, i % NAMES.len());
                }
            }
            i += 1;
            std::thread::sleep(Duration::from_millis(100));
        }
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
                Err(e) if self.course => {
                    self.note(format_args!("lost: {e}"));
                    seen.lost = true;
                    return seen;
                }
                Err(e) => {
                    self.note(format_args!("lost: {e}"));
                    let (stream, now) = self.connect(node + 1);
                    node = now;
                    game.reconnected(stream);
                    continue;
                }
            };
            self.note(format_args!("< {}", line.trim_end()));
            if game.hear(&line, &mut seen) {
                seen.ended = true;
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
    /// The READY answered: the game has started for this client.
    started: bool,
    /// Not waiting for the snapshot of a page that came back (it moves only after it).
    synced: bool,
    move_at: Option<Instant>,
    resigned: bool,
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
            Some(END) => return true,
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
    }

    /// Moves when it is this client's turn and its thinking time is up: a random legal move,
    /// one without a capture when there is one (the games must last); after the kills, resigns.
    fn think(&mut self, client: &Client, rng: &mut SmallRng) {
        let my_turn = self.started && self.synced && self.moves.len() % 2 == client.seat;
        if !my_turn || self.resigned {
            self.move_at = None;
            return;
        }
        let at = *self
            .move_at
            .get_or_insert_with(|| Instant::now() + Duration::from_millis(rng.gen_range(50..250)));
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

fn token_of(room: u32, seat: usize) -> String {
    format!("{room:016x}{seat:016x}")
}

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
    let (done, results) = mpsc::channel();
    for room in 1..=GAMES {
        for seat in 0..2 {
            let client = Client {
                room,
                seat,
                course: seat == 1 && room <= COURSE_GAMES,
                home: home_of(room, seat),
                ports: ports.clone(),
                stop: stop.clone(),
                log: std::fs::File::create(dir.join(format!("client-{room}-{seat}.log"))).unwrap(),
            };
            let done = done.clone();
            let seed = u64::from(room) * 2 + seat as u64;
            std::thread::spawn(move || done.send(client.play(seed)));
        }
    }
    drop(done);
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
                !client.lost && client.ended,
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

/// Seconds since the epoch, to line up with the nodes' logs (which say UTC).
fn wall_clock() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    format!("{:.6}", now.unwrap_or_default().as_secs_f64())
}
