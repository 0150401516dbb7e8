//! The headless client of `arbiter connect`: joins a room on any course server, plays with one
//! of arbiter's players until END, and writes the game record.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use arbiter_ai::registry::{self, Catalogue, FullGame, GameVisitor};
use arbiter_ai::{Limits, PlayerSpec};
use arbiter_core::outcome::record_with_end;
use arbiter_core::{EndReason, Options, Side};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::api::gate::CpuGate;

use crate::protocol::{self, Message, MAX_LINE};

mod http;
mod think;

pub use http::http_get;

use think::{think, Shared};

/// One side of a connection, read or written: a TCP socket's half, or an in-process pipe's.
type Reading = Box<dyn AsyncRead + Send + Unpin>;
type Writing = Box<dyn AsyncWrite + Send + Unpin>;

/// A line-based protocol connection that logs every message.
pub struct Connection {
    reader: BufReader<Reading>,
    writer: Writing,
    pub peer: String,
    /// Moves seen so far, for the log's move number.
    pub moves: usize,
    quiet: bool,
}

impl Connection {
    pub async fn open(host: &str, port: u16, quiet: bool) -> Result<Connection, ClientError> {
        let stream =
            TcpStream::connect((host, port))
                .await
                .map_err(|source| ClientError::Connect {
                    host: host.to_string(),
                    port,
                    source,
                })?;
        let _ = stream.set_nodelay(true);
        let peer = stream
            .peer_addr()
            .map_or(format!("{host}:{port}"), |a| a.to_string());
        let (r, w) = stream.into_split();
        Ok(Connection::over(Box::new(r), Box::new(w), peer, quiet))
    }

    /// A connection over any byte stream (the server's own AI speaks through an in-process pipe).
    pub fn over(reader: Reading, writer: Writing, peer: String, quiet: bool) -> Connection {
        Connection {
            reader: BufReader::new(reader),
            writer,
            peer,
            moves: 0,
            quiet,
        }
    }

    fn log(&self, direction: &str, m: &Message) {
        if !self.quiet {
            crate::rooms::log_message(Some(self.moves), direction, &self.peer, m);
        }
    }

    pub async fn send(&mut self, m: &Message) -> Result<(), ClientError> {
        self.log("sent", m);
        let mut line = m.to_line();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .await
            .map_err(ClientError::Broken)
    }

    /// The next message; `None` when the server closed the connection. Unreadable lines are
    /// logged and skipped.
    pub async fn recv(&mut self) -> Result<Option<Message>, ClientError> {
        loop {
            let mut line = String::new();
            let n = (&mut self.reader)
                .take(MAX_LINE as u64 + 2)
                .read_line(&mut line)
                .await
                .map_err(ClientError::Broken)?;
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
    /// The room; the course's clients send 1 when told nothing.
    pub room: u32,
    /// The game to ask for (the extension's `game` key); `None` sends the course's plain READY.
    pub game: Option<String>,
    /// Options to ask for, by name (`size`); the server's READY has the last word.
    pub options: Vec<(String, u64)>,
    pub player: PlayerSpec,
    pub record: Option<PathBuf>,
    pub seed: u64,
    /// How long to wait for an opponent before giving up.
    pub wait: Duration,
    /// No log line per message (the summary and errors still go to standard error).
    pub quiet: bool,
    /// The server's gate for CPU-heavy work, when the server itself plays: every search waits
    /// its turn there, and a full gate gets a quick move instead of a loss on time.
    pub gate: Option<Arc<CpuGate>>,
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
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("the server refused: {0}")]
    Rejected(String),
    #[error("{0}")]
    Connection(String),
    #[error("cannot connect to {host}:{port}: {source}")]
    Connect {
        host: String,
        port: u16,
        source: std::io::Error,
    },
    #[error("the connection broke: {0}")]
    Broken(#[source] std::io::Error),
    #[error("the server closed the connection before the game started")]
    ClosedBeforeStart,
    #[error("the server closed the connection before the game ended")]
    ClosedBeforeEnd,
    /// The server said nothing for this many seconds.
    #[error("the server said nothing for {0} s")]
    Silence(u64),
    /// No READY came within this many seconds.
    #[error("no game started within {0} s (no opponent?)")]
    NoStart(u64),
    #[error("the player failed: {0}")]
    Player(#[source] tokio::task::JoinError),
    #[error("cannot create the folder {}: {source}", dir.display())]
    RecordFolder {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the record {}: {source}", path.display())]
    Record {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The HTTP exchange itself failed.
    #[error("{0}")]
    Http(#[source] std::io::Error),
    #[error("a malformed HTTP response")]
    HttpMalformed,
    /// An answer other than 200: the path asked for and the status line.
    #[error("GET {path}: {status}")]
    HttpStatus { path: String, status: String },
    /// The game started but never ended; the record of the moves played was still written.
    #[error("{reason}; the record so far: {record}")]
    Unfinished { reason: String, record: String },
}

/// Plays one game as `options` say, with the games of catalogue `C`.
pub async fn connect<C: Catalogue>(
    options: &ConnectOptions,
) -> Result<ConnectOutcome, ClientError> {
    if let Some(path) = &options.record {
        prepare_record(path)?;
    }
    let conn = Connection::open(&options.host, options.port, options.quiet).await?;
    play_over::<C>(conn, &ready_message(options), options).await
}

/// Sends `ready` over a connection already open, then plays the game as `options` say.
pub async fn play_over<C: Catalogue>(
    mut conn: Connection,
    ready: &Message,
    options: &ConnectOptions,
) -> Result<ConnectOutcome, ClientError> {
    conn.send(ready).await?;
    let start = wait_for_start(&mut conn, options.wait).await?;
    let game_options =
        options_of_start::<C>(&start.message, options.game.as_deref(), &options.options)?;
    let play = PlayGame {
        conn,
        options,
        side: start.side,
        opponent: start.opponent,
        timeout_ms: start.timeout_ms,
    };
    registry::with_game::<C, _>(&game_options, play)
        .map_err(|e| ClientError::Connection(format!("the server started {e}")))?
        .await
}

/// Creates the record's folder and checks the file can be written, before any game is played.
fn prepare_record(path: &std::path::Path) -> Result<(), ClientError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| ClientError::RecordFolder {
            dir: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(drop)
        .map_err(|source| ClientError::Record {
            path: path.to_path_buf(),
            source,
        })
}

/// The READY a client sends: the course's plain fields for a plain Surakarta game, the project's
/// extension keys when another game or options are asked for.
pub fn ready_message(options: &ConnectOptions) -> Message {
    let mut m = Message::new(
        protocol::READY,
        options.name.clone(),
        options.colour.clone(),
        options.room.to_string(),
    );
    let extended = options.game.is_some() || !options.options.is_empty() || options.room > 255;
    if extended {
        let game = options.game.as_deref().unwrap_or(protocol::COURSE_GAME);
        m.extra.insert("game".into(), game.into());
        for (name, value) in &options.options {
            m.extra.insert(name.clone(), (*value).into());
        }
    }
    m
}

/// The server's READY that starts the game.
pub struct Start {
    pub message: Message,
    pub opponent: String,
    pub side: Side,
    pub timeout_ms: u64,
}

/// How often a client waiting for an opponent says it still waits.
const SAY_WAITING_EVERY: Duration = Duration::from_secs(10);

/// Waits (at most `wait`) for the server's READY that starts the game, saying every 10 s that
/// it still waits (unless the connection is quiet).
pub async fn wait_for_start(conn: &mut Connection, wait: Duration) -> Result<Start, ClientError> {
    let started = tokio::time::Instant::now();
    let mut ticks = tokio::time::interval_at(started + SAY_WAITING_EVERY, SAY_WAITING_EVERY);
    loop {
        let quiet = conn.quiet;
        let next = {
            let recv = tokio::time::timeout_at(started + wait, conn.recv());
            tokio::pin!(recv);
            loop {
                tokio::select! {
                    m = &mut recv => break m,
                    _ = ticks.tick(), if !quiet => tracing::info!(
                        "still waiting for an opponent: {} s of {} s",
                        started.elapsed().as_secs(),
                        wait.as_secs()
                    ),
                }
            }
        };
        let m = next
            .map_err(|_| ClientError::NoStart(wait.as_secs()))??
            .ok_or(ClientError::ClosedBeforeStart)?;
        match m.op {
            protocol::READY => {
                let side = side_of_word(&m.data2).ok_or_else(|| {
                    ClientError::Connection(format!(
                        "the server assigned an unknown colour `{}`",
                        arbiter_core::text::shorten(&m.data2)
                    ))
                })?;
                let timeout_ms = m
                    .extra_u64("timeout_ms")
                    .and_then(Result::ok)
                    .unwrap_or(3000);
                return Ok(Start {
                    opponent: m.data1.clone(),
                    side,
                    timeout_ms,
                    message: m,
                });
            }
            protocol::REJECT => return Err(ClientError::Rejected(m.data2.clone())),
            _ => {}
        }
    }
}

/// `BLACK`/`RED` play first, `WHITE`/`BLUE` second.
fn side_of_word(word: &str) -> Option<Side> {
    match word.to_ascii_uppercase().as_str() {
        "BLACK" | "RED" => Some(Side::First),
        "WHITE" | "BLUE" => Some(Side::Second),
        _ => None,
    }
}

/// The game the server started: every option from its READY; what was asked for (the game
/// `asked_game` with `asked_options`, or the game's default) only where a server that does not
/// speak the extension says nothing.
pub fn options_of_start<C: Catalogue>(
    ready: &Message,
    asked_game: Option<&str>,
    asked_options: &[(String, u64)],
) -> Result<Options, ClientError> {
    let id = ready
        .extra_str("game")
        .or(asked_game)
        .unwrap_or(protocol::COURSE_GAME);
    let def = registry::definition::<C>(id).map_err(|e| ClientError::Connection(e.to_string()))?;
    let mut options = def.defaults();
    for option in def.options {
        let from_server = ready.extra_u64(option.name).and_then(Result::ok);
        let asked_for = asked_options
            .iter()
            .find(|(name, _)| def.option(name).is_some_and(|o| o.name == option.name))
            .map(|&(_, v)| v);
        if let Some(value) = from_server.or(asked_for) {
            options
                .set(option.name, value)
                .map_err(|e| ClientError::Connection(format!("the server's READY: {e}")))?;
        }
    }
    Ok(options)
}

fn end_of(m: &Message) -> (Option<EndReason>, Option<Side>) {
    let reason = m.data2.parse::<u8>().ok().and_then(EndReason::from_code);
    let winner = protocol::Winner::parse(&m.data3).and_then(protocol::Winner::side);
    (reason, winner)
}

type Playing<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<ConnectOutcome, ClientError>> + Send + 'a>,
>;

/// Plays the started game with the game's own type.
struct PlayGame<'a> {
    conn: Connection,
    options: &'a ConnectOptions,
    side: Side,
    opponent: String,
    timeout_ms: u64,
}

impl<'a> GameVisitor for PlayGame<'a> {
    type Output = Playing<'a>;
    fn visit<G: FullGame>(self, start: G) -> Playing<'a> {
        Box::pin(play(start, self))
    }
}

/// Writes the record (the course's files have no final newline).
fn write_record(path: Option<&PathBuf>, text: &str) -> Result<(), ClientError> {
    match path {
        Some(path) => std::fs::write(path, text).map_err(|source| ClientError::Record {
            path: path.clone(),
            source,
        }),
        None => Ok(()),
    }
}

/// What the client does with one message during the game.
enum Heard {
    Move(String),
    End(Option<EndReason>, Option<Side>, Option<u64>),
    Other,
}

fn hear(m: &Message) -> Heard {
    match m.op {
        protocol::MOVE => Heard::Move(format!("{}-{}", m.data1, m.data2)),
        protocol::END => {
            let (reason, winner) = end_of(m);
            let plies = m.extra_u64("plies").and_then(Result::ok);
            Heard::End(reason, winner, plies)
        }
        protocol::CHAT => {
            tracing::info!("{} says: {}", m.data1, m.data2);
            Heard::Other
        }
        protocol::LEAVE => {
            tracing::info!("{} left: {}", m.data1, m.data2);
            Heard::Other
        }
        _ => Heard::Other,
    }
}

/// The search's limits: the player's own, capped to leave room under the server's clock for the
/// network and the search's own overshoot.
fn move_limits<G: FullGame>(player: &PlayerSpec, timeout_ms: u64) -> Limits {
    let budget = player.resolve(G::definition().id).limits(Some(500));
    let cap = Duration::from_millis((timeout_ms * 6 / 10).max(50));
    Limits {
        time: Some(budget.time.map_or(cap, |t| t.min(cap))),
        ..budget
    }
}

/// A game under way: the position, the record so far and the move last sent.
struct Board<G: FullGame> {
    pos: G,
    record: Vec<String>,
    last_sent: Option<String>,
}

impl<G: FullGame> Board<G> {
    /// Adds a move (sent or received) to the record and plays it.
    fn push(&mut self, conn: &mut Connection, text: String) {
        if let Ok(mv) = self.pos.parse_move(&text) {
            self.pos.play(mv);
        }
        self.record.push(text);
        conn.moves = self.record.len();
    }

    /// Writes the record so far and says why the game stopped.
    fn unfinished(&self, path: Option<&PathBuf>, reason: ClientError) -> ClientError {
        let text = self.record.join(" ");
        match write_record(path, &text) {
            Ok(()) => ClientError::Unfinished {
                reason: reason.to_string(),
                record: text,
            },
            Err(e) => ClientError::Connection(format!("{reason}; {e}")),
        }
    }
}

/// Lets `player` choose a move (off the async threads) and sends it, or RESIGN when there is
/// none.
async fn our_move<G: FullGame>(
    conn: &mut Connection,
    board: &mut Board<G>,
    player: &Shared<G>,
    limits: Limits,
    gate: Option<&Arc<CpuGate>>,
) -> Result<(), ClientError> {
    let chosen = think(board.pos.clone(), player, limits, gate).await?;
    match chosen {
        Some(text) => {
            let (from, to) = arbiter_core::rules::split_move(&text);
            conn.send(&Message::new(protocol::MOVE, from, to, ""))
                .await?;
            board.push(conn, text.clone());
            board.last_sent = Some(text);
        }
        // No legal move: the course expects a trapped side to resign.
        None => {
            conn.send(&Message::new(protocol::RESIGN, "", "", ""))
                .await?
        }
    }
    Ok(())
}

/// The record of a finished game: a move sent as the clock ran out never counted, and the
/// server says how many did (`plies`).
fn finished(mut record: Vec<String>, end_reason: Option<EndReason>, plies: Option<u64>) -> String {
    if let Some(plies) = plies {
        record.truncate(usize::try_from(plies).unwrap_or(usize::MAX));
    }
    record_with_end(&record, end_reason.unwrap_or(EndReason::None))
}

/// The server's next message; an error when it closed the connection or said nothing for
/// `silence`.
async fn next_message(conn: &mut Connection, silence: Duration) -> Result<Message, ClientError> {
    match tokio::time::timeout(silence, conn.recv()).await {
        Err(_) => Err(ClientError::Silence(silence.as_secs())),
        Ok(Err(e)) => Err(e),
        Ok(Ok(None)) => Err(ClientError::ClosedBeforeEnd),
        Ok(Ok(Some(m))) => Ok(m),
    }
}

async fn play<G: FullGame>(start: G, game: PlayGame<'_>) -> Result<ConnectOutcome, ClientError> {
    let PlayGame {
        mut conn,
        options,
        side,
        opponent,
        timeout_ms,
    } = game;
    let player = options
        .player
        .build::<G>(options.seed)
        .map_err(|e| ClientError::Connection(e.to_string()))?;
    let player: Shared<G> = Arc::new(std::sync::Mutex::new(player));
    let limits = move_limits::<G>(&options.player, timeout_ms);
    // A server that says nothing for twice its own clock (and then some) is gone.
    let silence = Duration::from_millis(timeout_ms.saturating_mul(2)) + Duration::from_secs(10);
    let mut board = Board {
        pos: start,
        record: Vec::new(),
        last_sent: None,
    };
    let (path, gate) = (options.record.as_ref(), options.gate.as_ref());
    loop {
        if board.pos.side_to_move() == side && !board.pos.status().is_over() {
            our_move(&mut conn, &mut board, &player, limits, gate)
                .await
                .map_err(|e| board.unfinished(path, e))?;
        }
        let received = next_message(&mut conn, silence)
            .await
            .map_err(|e| board.unfinished(path, e))?;
        match hear(&received) {
            Heard::Move(text) => {
                // Some servers echo a move back to its sender; the opponent can never send the
                // same move (its start square is empty now).
                if board.last_sent.take().as_deref() == Some(text.as_str()) {
                    tracing::info!("ignored the server's echo of our own move {text}");
                    continue;
                }
                board.push(&mut conn, text);
            }
            Heard::End(end_reason, winner, plies) => {
                let record = finished(board.record, end_reason, plies);
                write_record(path, &record)?;
                return Ok(ConnectOutcome {
                    opponent,
                    side,
                    record,
                    end_reason,
                    winner,
                });
            }
            Heard::Other => {}
        }
    }
}
