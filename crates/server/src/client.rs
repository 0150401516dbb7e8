//! The headless client of `arbiter connect`: joins a room on any course server, plays with one
//! of arbiter's players until END, and writes the game record.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use arbiter_ai::engine::EngineGame;
use arbiter_ai::{Limits, PlayerSpec};
use arbiter_core::Side;
use arbiter_surakarta::EndReason;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

use crate::games::GameKind;
use crate::protocol::{self, Message, MAX_LINE};

/// A line-based protocol connection that logs every message.
pub struct Connection {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
    pub peer: String,
    /// Moves seen so far, for the log's move number.
    pub moves: usize,
    quiet: bool,
}

impl Connection {
    pub async fn open(host: &str, port: u16, quiet: bool) -> Result<Connection, String> {
        let stream = TcpStream::connect((host, port))
            .await
            .map_err(|e| format!("cannot connect to {host}:{port}: {e}"))?;
        let _ = stream.set_nodelay(true);
        let peer = stream
            .peer_addr()
            .map_or(format!("{host}:{port}"), |a| a.to_string());
        let (r, w) = stream.into_split();
        Ok(Connection {
            reader: BufReader::new(r),
            writer: w,
            peer,
            moves: 0,
            quiet,
        })
    }

    fn log(&self, direction: &str, m: &Message) {
        if !self.quiet {
            crate::room::log_message(Some(self.moves), direction, &self.peer, m);
        }
    }

    pub async fn send(&mut self, m: &Message) -> Result<(), String> {
        self.log("sent", m);
        let mut line = m.to_line();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .await
            .map_err(|e| format!("the connection broke: {e}"))
    }

    /// The next message; `None` when the server closed the connection. Unreadable lines are
    /// logged and skipped.
    pub async fn recv(&mut self) -> Result<Option<Message>, String> {
        loop {
            let mut line = String::new();
            let n = (&mut self.reader)
                .take(MAX_LINE as u64 + 2)
                .read_line(&mut line)
                .await
                .map_err(|e| format!("the connection broke: {e}"))?;
            if n == 0 {
                return Ok(None);
            }
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            match Message::parse(text) {
                Ok(m) => {
                    self.log("recv", &m);
                    return Ok(Some(m));
                }
                Err(e) => tracing::warn!("unreadable line from {}: {e}", self.peer),
            }
        }
    }
}

/// What `arbiter connect` is asked to do.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    pub host: String,
    pub port: u16,
    /// `BLACK`, `WHITE`, `RED`, `BLUE`, or empty to let the server choose.
    pub colour: String,
    pub name: String,
    pub room: Option<u32>,
    pub game: GameKind,
    pub size: Option<u8>,
    pub player: PlayerSpec,
    pub record: Option<PathBuf>,
    pub seed: u64,
}

/// How the game went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectOutcome {
    pub opponent: String,
    pub side: Side,
    pub record: String,
    pub end_reason: Option<EndReason>,
    /// `None` for a draw.
    pub winner: Option<Side>,
}

/// Why the client stopped without a finished game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    #[error("the server refused: {0}")]
    Rejected(String),
    #[error("{0}")]
    Connection(String),
}

/// Plays one game as `options` say.
pub async fn connect(options: &ConnectOptions) -> Result<ConnectOutcome, ClientError> {
    match options.game {
        GameKind::Surakarta => {
            let size = options.size.unwrap_or(6);
            let start = arbiter_surakarta::GameState::new(size, 40).ok_or_else(|| {
                ClientError::Connection(format!(
                    "surakarta size must be 6, 8, 10 or 12, not {size}"
                ))
            })?;
            play(start, options).await
        }
        GameKind::Duck => play(arbiter_duck::Position::initial(), options).await,
        GameKind::Rc02 => {
            let size = options.size.unwrap_or(6);
            let start = arbiter_rc02::Position::initial(size).ok_or_else(|| {
                ClientError::Connection(format!(
                    "rc02 size must be an even number from 4 to 10, not {size}"
                ))
            })?;
            play(start, options).await
        }
    }
}

/// The READY a client sends: plain course fields for a default Surakarta game, the project's
/// extension fields otherwise.
pub fn ready_message(options: &ConnectOptions) -> Message {
    let room = options.room.map_or(String::new(), |r| r.to_string());
    let mut m = Message::new(
        protocol::READY,
        options.name.clone(),
        options.colour.clone(),
        room,
    );
    if options.game != GameKind::Surakarta
        || options.size.is_some()
        || options.room.is_some_and(|r| r > 255)
    {
        m.extra.insert("game".into(), options.game.name().into());
        if let Some(size) = options.size {
            m.extra.insert("size".into(), size.into());
        }
    }
    m
}

fn end_of(m: &Message) -> (Option<EndReason>, Option<Side>) {
    let reason = m.data2.parse::<u8>().ok().and_then(EndReason::from_code);
    let winner = match m.data3.as_str() {
        "0" => Some(Side::First),
        "1" => Some(Side::Second),
        _ => None,
    };
    (reason, winner)
}

async fn play<G: EngineGame>(
    start: G,
    options: &ConnectOptions,
) -> Result<ConnectOutcome, ClientError> {
    let mut conn = Connection::open(&options.host, options.port, false)
        .await
        .map_err(ClientError::Connection)?;
    conn.send(&ready_message(options))
        .await
        .map_err(ClientError::Connection)?;
    let lost =
        |what: &str| ClientError::Connection(format!("the server closed the connection {what}"));
    // Wait for the game to start.
    let (opponent, side, timeout_ms) = loop {
        let m = conn
            .recv()
            .await
            .map_err(ClientError::Connection)?
            .ok_or_else(|| lost("before the game started"))?;
        match m.op {
            protocol::READY => {
                let side = GameKind::parse_colour(&m.data2).ok_or_else(|| {
                    ClientError::Connection(format!(
                        "the server assigned an unknown colour `{}`",
                        m.data2
                    ))
                })?;
                let timeout = m
                    .extra_u64("timeout_ms")
                    .and_then(Result::ok)
                    .unwrap_or(3000);
                break (m.data1.clone(), side, timeout);
            }
            protocol::REJECT => return Err(ClientError::Rejected(m.data2.clone())),
            _ => {}
        }
    };
    let mut player = options
        .player
        .build::<G>(options.seed)
        .map_err(|e| ClientError::Connection(e.to_string()))?;
    // Leave room under the server's clock for the network and the search's own overshoot.
    let budget = options.player.resolve(G::name_of()).limits(Some(500));
    let cap = Duration::from_millis((timeout_ms * 6 / 10).max(50));
    let limits = Limits {
        time: Some(budget.time.map_or(cap, |t| t.min(cap))),
        ..budget
    };
    let mut pos = start;
    let mut record: Vec<String> = Vec::new();
    loop {
        if pos.side_to_move() == side && !pos.status().is_over() {
            let (chosen, back) = tokio::task::spawn_blocking(move || {
                let stop = AtomicBool::new(false);
                let mv = player.choose(&pos, &limits, &stop, &mut |_| {});
                (mv.map(|m| pos.format_move(m)), (player, pos))
            })
            .await
            .map_err(|e| ClientError::Connection(format!("the player failed: {e}")))?;
            (player, pos) = back;
            if let Some(text) = chosen {
                let (from, to) = text.split_once('-').unwrap_or((text.as_str(), ""));
                conn.send(&Message::new(protocol::MOVE, from, to, ""))
                    .await
                    .map_err(ClientError::Connection)?;
                record.push(text.clone());
                conn.moves = record.len();
                if let Ok(mv) = pos.parse_move(&text) {
                    pos.play(mv);
                }
            } else {
                // No legal move: the course expects a trapped side to resign.
                conn.send(&Message::new(protocol::RESIGN, "", "", ""))
                    .await
                    .map_err(ClientError::Connection)?;
            }
        }
        let m = conn
            .recv()
            .await
            .map_err(ClientError::Connection)?
            .ok_or_else(|| lost("before the game ended"))?;
        match m.op {
            protocol::MOVE => {
                let text = format!("{}-{}", m.data1, m.data2);
                record.push(text.clone());
                conn.moves = record.len();
                if let Ok(mv) = pos.parse_move(&text) {
                    pos.play(mv);
                }
            }
            protocol::END => {
                let (end_reason, winner) = end_of(&m);
                // A move sent as the clock ran out never counted; the server says how many did.
                if let Some(Ok(plies)) = m.extra_u64("plies") {
                    record.truncate(usize::try_from(plies).unwrap_or(usize::MAX));
                }
                let mut text = record.join(" ");
                if let Some(letter) = end_reason.and_then(arbiter_surakarta::notation::end_letter) {
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    text.push(letter);
                    text.push('#');
                }
                if let Some(path) = &options.record {
                    std::fs::write(path, format!("{text}\n")).map_err(|e| {
                        ClientError::Connection(format!("cannot write {}: {e}", path.display()))
                    })?;
                }
                return Ok(ConnectOutcome {
                    opponent,
                    side,
                    record: text,
                    end_reason,
                    winner,
                });
            }
            protocol::CHAT => tracing::info!("{} says: {}", m.data1, m.data2),
            protocol::LEAVE => tracing::info!("{} left: {}", m.data1, m.data2),
            _ => {}
        }
    }
}
