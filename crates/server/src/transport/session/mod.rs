//! One client connection, over TCP (lines) or a WebSocket (text frames): reading each message
//! into a typed command (the one place a line is read), checking it and routing it to its
//! room, with limits on line length, message rate and silence.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use arbiter_core::OptionError;

use crate::games::{Registry, SettingsError, UnknownGame, CLOCK_RANGE, INCREMENT_RANGE};
use crate::protocol::{self, FieldError, Message, ParseError};
use crate::rooms::outbox::{outbox, Inbox};
use crate::rooms::{send, Hub, Peer, RoomEvent};

/// Server-wide settings a connection needs.
#[derive(Clone)]
pub struct ConnConfig {
    pub registry: Arc<Registry>,
    /// A connection that makes no progress (a READY, a move, a WATCH …) for this long while it
    /// holds no seat and watches nothing is closed; trickled bytes and junk do not count.
    pub idle_timeout: Duration,
    /// A connection that watches rooms (and holds no seat) is closed after this long with no
    /// message either way: a live game's moves keep it open, an empty or finished room not.
    pub watch_idle_timeout: Duration,
    /// Messages per second a client may send on average (with bursts of twice as many).
    pub rate_limit: u32,
    /// The move time of a room opened without one over this transport: the page's people get
    /// `--web-timeout-ms`, TCP bots the course's `--timeout-ms` (None).
    pub opening_timeout_ms: Option<u64>,
    /// The server's own AI, seated by a READY with `"opponent":"ai"`; `None` refuses such READYs.
    pub house: Option<super::house::HouseAi>,
}

/// How many bad lines (unparsable, too long) a connection may send before it is closed.
const MAX_BAD_LINES: u32 = 100;
/// How long a connection the server closes may take to write what was queued before it.
const FLUSH_ON_CLOSE: Duration = Duration::from_secs(1);
/// Room numbers extension clients (those that name a `game`) may use.
pub const MAX_EXTENDED_ROOM: u64 = 1_000_000;
/// Rooms one connection may watch at once.
pub const MAX_WATCHED: usize = 64;

/// Why a connection's READY or WATCH is refused; the text goes to the client in a REJECT.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("bad username: letters, digits and _ only, at most 64")]
    Username,
    #[error("bad colour `{0}`: BLACK, WHITE (or RED, BLUE) or empty")]
    Colour(String),
    #[error("bad room `{text}`: a number from 0 to {limit}")]
    Room { text: String, limit: u64 },
    #[error("bad token: 32 lowercase hex digits, 128 random bits (the page makes one)")]
    Token,
    #[error("`game` must be a string")]
    GameNotText,
    #[error(transparent)]
    UnknownGame(#[from] UnknownGame),
    #[error(transparent)]
    Field(#[from] FieldError),
    #[error(transparent)]
    Option(#[from] OptionError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error("increment_ms needs clock_ms")]
    IncrementWithoutClock,
    #[error(
        "clock_ms must be from {} to {} and increment_ms up to {}",
        CLOCK_RANGE.start(),
        CLOCK_RANGE.end(),
        INCREMENT_RANGE.end()
    )]
    Clock,
    #[error("{0} must be 0 or 1")]
    YesOrNo(&'static str),
    #[error(transparent)]
    Name(#[from] crate::storage::players::NameError),
    #[error("secret must be 32 lowercase hexadecimal digits")]
    Secret,
    #[error("the server is shutting down")]
    ShuttingDown,
    #[error("opponent must be \"ai\" (the server's own player)")]
    Opponent,
    #[error("level must be easy, medium or hard")]
    Level,
    #[error("level needs \"opponent\":\"ai\"")]
    LevelWithoutOpponent,
    #[error("a game against the server's AI is not rated")]
    RatedAgainstAi,
    #[error("this server seats no AI (started with --no-house-ai)")]
    NoHouseAi,
    #[error("a connection may watch at most {MAX_WATCHED} rooms at once")]
    WatchingTooMany,
}

/// A connection's reading side.
pub struct Session {
    peer: Peer,
    hub: Arc<Hub>,
    config: ConnConfig,
    room: Option<u32>,
    watching: HashSet<u32>,
    bad_lines: u32,
    tokens: f64,
    last_refill: Instant,
    dropped: u32,
    /// The last real protocol progress (not any byte: a trickle must not keep a socket alive).
    last_progress: Instant,
    /// The last message read from or written to the client.
    traffic: Arc<Traffic>,
    /// A balancer's health check: its close is logged at debug level only.
    quiet: bool,
}

/// When a connection last carried a message either way (pings and junk do not count); the
/// writer marks each line it writes.
#[derive(Debug)]
pub struct Traffic {
    opened: Instant,
    last_ms: AtomicU64,
}

impl Traffic {
    fn new() -> Traffic {
        Traffic {
            opened: Instant::now(),
            last_ms: AtomicU64::new(0),
        }
    }

    /// A message went through, now.
    pub fn mark(&self) {
        let ms = self.opened.elapsed().as_millis() as u64;
        self.last_ms.fetch_max(ms, Ordering::Relaxed);
    }

    fn last(&self) -> Instant {
        self.opened + Duration::from_millis(self.last_ms.load(Ordering::Relaxed))
    }
}

mod commands;
mod ready;

/// What the reading loop should do after a line.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    Continue,
    Close,
}

impl Session {
    /// A new session and the writer's end of its outbox.
    pub fn new(addr: String, hub: Arc<Hub>, config: ConnConfig) -> (Session, Inbox) {
        let (out, inbox) = outbox();
        let peer = Peer {
            id: crate::rooms::next_conn_id(),
            addr,
            outbox: out,
            awaited: Arc::new(AtomicBool::new(false)),
            seated: Arc::new(AtomicBool::new(false)),
            changed: Arc::new(Notify::new()),
            extension: Arc::new(AtomicBool::new(false)),
            moves_known: Default::default(),
            game_over: Default::default(),
        };
        let tokens = 2.0 * config.rate_limit as f64;
        let session = Session {
            peer,
            hub,
            config,
            room: None,
            watching: HashSet::new(),
            bad_lines: 0,
            tokens,
            last_refill: Instant::now(),
            dropped: 0,
            last_progress: Instant::now(),
            traffic: Arc::new(Traffic::new()),
            quiet: false,
        };
        (session, inbox)
    }

    /// The connection is a balancer's health check (one a second per node): its close is no
    /// news for the log.
    pub fn log_quietly(&mut self) {
        self.quiet = true;
    }

    /// When the connection is closed for making no progress; `None` while it holds a seat (the
    /// room's deadlines govern it). A connection that watches rooms is closed when no message
    /// has gone either way for the watch deadline instead.
    pub fn idle_deadline(&self) -> Option<Instant> {
        if self.peer.seated.load(Ordering::Relaxed) {
            None
        } else if self.watching.is_empty() {
            Some(self.last_progress + self.config.idle_timeout)
        } else {
            let last = self.last_progress.max(self.traffic.last());
            Some(last + self.config.watch_idle_timeout)
        }
    }

    /// Whether the connection's idle deadline has passed (a writer may have moved it since it
    /// was last asked).
    pub fn idle_expired(&self) -> bool {
        self.idle_deadline()
            .is_some_and(|deadline| deadline <= Instant::now())
    }

    /// What the connection's writer marks each line it writes on.
    pub fn traffic(&self) -> Arc<Traffic> {
        self.traffic.clone()
    }

    /// Something the connection waits on changed (a seat was freed): recompute the deadline.
    pub async fn changed(&self) {
        self.peer.changed.notified().await;
    }

    /// The client is a browser (or speaks the extension): it may get NOTICE messages.
    pub fn speaks_extension(&self) {
        self.peer.extension.store(true, Ordering::Relaxed);
    }

    /// Why an idle connection is closed, for the log.
    pub fn idle_reason(&self) -> String {
        if self.watching.is_empty() {
            let limit = self.config.idle_timeout.as_secs();
            format!("no protocol progress for {limit} s")
        } else {
            let limit = self.config.watch_idle_timeout.as_secs();
            format!("watching, no message either way for {limit} s")
        }
    }

    fn progress(&mut self) {
        self.last_progress = Instant::now();
    }

    /// A line that could not be read (too long, not UTF-8).
    pub fn bad_line(&mut self, why: &str) -> Next {
        self.bad_lines += 1;
        tracing::warn!(target: "arbiter::message", "move=- recv peer={} dropped: {why}", self.peer.addr);
        if self.bad_lines > MAX_BAD_LINES {
            tracing::warn!("closing {}: too many bad lines", self.peer.addr);
            Next::Close
        } else {
            Next::Continue
        }
    }

    /// Refills the token bucket; false when this message must be dropped.
    fn within_rate(&mut self) -> bool {
        let now = Instant::now();
        let rate = self.config.rate_limit as f64;
        self.tokens = (self.tokens + now.duration_since(self.last_refill).as_secs_f64() * rate)
            .min(2.0 * rate);
        self.last_refill = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Handles one line of text from the client.
    pub fn line(&mut self, text: &str) -> Next {
        let message = Message::parse(text);
        // The one move the game waits for is free; everything else is charged.
        let awaited_move = matches!(&message, Ok(m) if m.op == protocol::MOVE)
            && self.peer.awaited.swap(false, Ordering::Relaxed);
        if !awaited_move && !self.within_rate() {
            return self.flooded();
        }
        match message {
            Ok(message) => {
                self.traffic.mark();
                self.route(message);
                Next::Continue
            }
            Err(e) => {
                self.answer_unreadable(&e);
                self.bad_line(&format!("{e} in `{}`", arbiter_core::text::shorten(text)))
            }
        }
    }

    /// A line that is no message is answered, never met with silence: a READY whose field is
    /// wrong with REJECT naming the field (as any bad READY); anything else with the
    /// extension's `NOTICE("error", "", why)`, which course clients ignore.
    fn answer_unreadable(&self, e: &ParseError) {
        let answer = match e.op() {
            Some(protocol::READY) => Message::new(protocol::REJECT, "", e.to_string(), ""),
            _ => Message::new(protocol::NOTICE, "error", "", e.to_string()),
        };
        send(&self.peer, answer, None);
    }

    /// A message over the rate was dropped; a client that keeps flooding is closed.
    fn flooded(&mut self) -> Next {
        self.dropped += 1;
        if self.dropped % 100 == 1 {
            tracing::warn!(
                "{} floods: {} messages dropped so far",
                self.peer.addr,
                self.dropped
            );
        }
        if self.dropped > 10 * self.config.rate_limit.max(10) {
            Next::Close
        } else {
            Next::Continue
        }
    }

    /// The connection has closed: leave the room and stop watching.
    /// Waits (a second at most) for the lines already queued to be written, so a connection
    /// the server closes still hears why: an idle tab's seat is freed and the connection closed
    /// in the same instant, and the NOTICE saying so must not be dropped with it.
    pub async fn flush_queued(&self) {
        let _ = tokio::time::timeout(FLUSH_ON_CLOSE, self.peer.outbox.flushed()).await;
    }

    pub fn closed(&mut self) {
        self.peer.outbox.close();
        if let Some(room) = self.room.take() {
            self.hub.send(
                room,
                RoomEvent::Leave {
                    peer: self.peer.clone(),
                    leave: None,
                },
            );
        }
        for room in std::mem::take(&mut self.watching) {
            self.hub
                .send(room, RoomEvent::Unwatch { conn: self.peer.id });
        }
        if self.quiet {
            tracing::debug!("connection {} closed", self.peer.addr);
        } else {
            tracing::info!("connection {} closed", self.peer.addr);
        }
    }
}

#[cfg(test)]
mod tests;
