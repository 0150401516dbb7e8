//! Course clients and pages playing Surakarta against a cluster, each on its own thread: they
//! move at random (quiet moves, so games last), follow their seat to another node when theirs
//! goes away (pages) or record that they lost it (course clients), and keep every move they were
//! told for the test to compare with the store.

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_core::{Game as _, MoveList};
use arbiter_server::protocol::{END, MOVE, READY, REJECT, RESIGN, STATE};
use arbiter_surakarta::Position;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// No game ends by the no-capture rule while a test runs.
pub const NO_CAPTURE_LIMIT: &str = "100000";

/// The nodes' course ports, `None` while a node is draining or down.
pub type Ports = Arc<Mutex<Vec<Option<u16>>>>;

/// What one client saw of its game.
#[derive(Debug, Default)]
pub struct Seen {
    pub room: u32,
    /// Each move the server told this client of, with its ply (1-based).
    pub told: Vec<(usize, String)>,
    /// The longest wait between two moves this client heard or made.
    pub longest_pause: Duration,
    /// The END it was sent.
    pub end: Option<Value>,
    /// Why a course client's connection ended before its game did.
    pub lost: Option<String>,
}

/// One player of one game, on its own thread.
pub struct Client {
    pub room: u32,
    /// 0: the first player (BLACK), 1: the second.
    pub seat: usize,
    /// A page: it has a seat token and comes back through another node when its node drains.
    pub page: bool,
    pub home: usize,
    /// How long it thinks before a move, in ms.
    pub think: std::ops::Range<u64>,
    pub ports: Ports,
    /// Set when the players are to resign (the first to move from then on does).
    pub stop: Arc<AtomicBool>,
    pub log: std::fs::File,
}

impl Client {
    pub fn note(&self, what: std::fmt::Arguments) {
        let _ = writeln!(&self.log, "{} {what}", wall_clock());
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
        let deadline = Instant::now() + Duration::from_secs(60);
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

    pub fn play(self, seed: u64) -> Seen {
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

pub fn start() -> Position {
    Position::new(6, NO_CAPTURE_LIMIT.parse().unwrap()).unwrap()
}

pub fn quiet_move(position: &Position, rng: &mut SmallRng) -> String {
    let mut list = MoveList::new();
    position.legal_moves(&mut list);
    let quiet: Vec<_> = list.iter().filter(|m| !position.is_capture(**m)).collect();
    let mv = match quiet.is_empty() {
        true => list[rng.gen_range(0..list.len())],
        false => *quiet[rng.gen_range(0..quiet.len())],
    };
    position.format_move(mv)
}

/// Seconds since the epoch, to line up with the nodes' logs (which say UTC).
pub fn wall_clock() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    format!("{:.6}", now.unwrap_or_default().as_secs_f64())
}
