//! One client connection, over TCP (lines) or a WebSocket (text frames): reading, checking
//! and routing its messages, with limits on line length, message rate and silence.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use arbiter_core::{OptionError, Side};

use crate::games::{
    GameClock, GameSettings, Registry, Requested, SettingsError, UnknownGame, CLOCK_RANGE,
    INCREMENT_RANGE,
};
use crate::protocol::{self, FieldError, Message};
use crate::rooms::outbox::{outbox, Inbox};
use crate::rooms::{log_message, send, Hub, Peer, RoomEvent};

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// Server-wide settings a connection needs.
#[derive(Clone)]
pub struct ConnConfig {
    pub registry: Arc<Registry>,
    /// A connection that makes no progress (a READY, a move, a WATCH …) for this long while it
    /// holds no seat and watches nothing is closed; trickled bytes and junk do not count.
    pub idle_timeout: Duration,
    /// Messages per second a client may send on average (with bursts of twice as many).
    pub rate_limit: u32,
    /// The move time of a room opened without one over this transport: the page's people get
    /// `--web-timeout-ms`, TCP bots the course's `--timeout-ms` (None).
    pub opening_timeout_ms: Option<u64>,
}

/// How many bad lines (unparsable, too long) a connection may send before it is closed.
const MAX_BAD_LINES: u32 = 100;
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
    #[error("bad token: 8 to 64 letters, digits, `-` or `_` (the page makes one)")]
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
    #[error("the server is shutting down")]
    ShuttingDown,
    #[error("a connection may watch at most {MAX_WATCHED} rooms at once")]
    WatchingTooMany,
}

/// What a READY asks for, checked.
struct CheckedReady {
    name: String,
    colour: Option<Side>,
    room: u32,
    request: Requested,
    token: Option<String>,
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
}

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
            id: NEXT_CONN.fetch_add(1, Ordering::Relaxed),
            addr,
            outbox: out,
            awaited: Arc::new(AtomicBool::new(false)),
            seated: Arc::new(AtomicBool::new(false)),
            changed: Arc::new(Notify::new()),
            extension: Arc::new(AtomicBool::new(false)),
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
        };
        (session, inbox)
    }

    /// When the connection is closed for making no progress; `None` while it holds a seat (the
    /// room's deadlines govern it) or watches a room.
    pub fn idle_deadline(&self) -> Option<Instant> {
        let busy = self.peer.seated.load(Ordering::Relaxed) || !self.watching.is_empty();
        (!busy).then(|| self.last_progress + self.config.idle_timeout)
    }

    /// Something the connection waits on changed (a seat was freed): recompute the deadline.
    pub async fn changed(&self) {
        self.peer.changed.notified().await;
    }

    /// The client is a browser (or speaks the extension): it may get NOTICE messages.
    pub fn speaks_extension(&self) {
        self.peer.extension.store(true, Ordering::Relaxed);
    }

    /// How long the connection may go without progress.
    pub fn idle_limit(&self) -> Duration {
        self.config.idle_timeout
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
                self.route(message);
                Next::Continue
            }
            Err(e) => self.bad_line(&format!("{e} in `{}`", arbiter_core::text::shorten(text))),
        }
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

    /// Hands a message to the room it is for (or answers it here).
    fn route(&mut self, message: Message) {
        match message.op {
            protocol::READY => self.ready(message),
            protocol::MOVE | protocol::RESIGN | protocol::CHAT => self.play(message),
            protocol::LEAVE => self.leave(message),
            protocol::WATCH => self.watch(message),
            protocol::UNWATCH => self.unwatch(message),
            _ => log_message(None, "recv (ignored)", &self.peer.addr, &message),
        }
    }

    fn not_in_a_room(&self, message: &Message) {
        log_message(
            None,
            "recv (not in a room, ignored)",
            &self.peer.addr,
            message,
        );
    }

    /// MOVE, RESIGN and CHAT go to the connection's room.
    fn play(&mut self, message: Message) {
        let Some(room) = self.room else {
            return self.not_in_a_room(&message);
        };
        if message.op != protocol::CHAT {
            self.progress();
        }
        let peer = self.peer.clone();
        let event = match message.op {
            protocol::MOVE => RoomEvent::Move { peer, message },
            protocol::RESIGN => RoomEvent::Resign { peer, message },
            _ => RoomEvent::Chat { peer, message },
        };
        self.hub.send(room, event);
    }

    fn leave(&mut self, message: Message) {
        let Some(room) = self.room.take() else {
            return self.not_in_a_room(&message);
        };
        self.progress();
        let peer = self.peer.clone();
        let event = RoomEvent::Leave {
            peer,
            message: Some(message),
        };
        self.hub.send(room, event);
    }

    fn watch(&mut self, message: Message) {
        match self.watchable(&message.data1) {
            Ok(room) => {
                self.progress();
                self.watching.insert(room);
                let peer = self.peer.clone();
                self.hub.send(room, RoomEvent::Watch { peer, message });
            }
            Err(reason) => {
                log_message(None, "recv", &self.peer.addr, &message);
                let reject = Message::new(protocol::REJECT, "", reason.to_string(), "");
                send(&self.peer, reject, None);
            }
        }
    }

    /// Stops watching the room named, or every room when none is.
    fn unwatch(&mut self, message: Message) {
        log_message(None, "recv", &self.peer.addr, &message);
        let rooms: Vec<u32> = match parse_room(&message.data1, true) {
            Ok(room) if !message.data1.is_empty() => vec![room],
            _ => self.watching.iter().copied().collect(),
        };
        for room in rooms {
            self.watching.remove(&room);
            self.hub
                .send(room, RoomEvent::Unwatch { conn: self.peer.id });
        }
    }

    /// The room a WATCH names, unless the connection already watches too many.
    fn watchable(&self, text: &str) -> Result<u32, Refused> {
        let room = parse_room(text, true)?;
        if !self.watching.contains(&room) && self.watching.len() >= MAX_WATCHED {
            return Err(Refused::WatchingTooMany);
        }
        Ok(room)
    }

    /// A READY checked here (name, colour, room, game and options, token), then sent to its
    /// room; a bad one is answered with a REJECT to this client only.
    fn ready(&mut self, message: Message) {
        let checked = self.check_ready(&message).and_then(|ready| {
            if self.hub.is_closing() {
                return Err(Refused::ShuttingDown);
            }
            Ok(ready)
        });
        let ready = match checked {
            Ok(ready) => ready,
            Err(reason) => {
                log_message(None, "recv", &self.peer.addr, &message);
                let reject = Message::new(
                    protocol::REJECT,
                    message.data1.clone(),
                    reason.to_string(),
                    "",
                );
                send(&self.peer, reject, None);
                return;
            }
        };
        if let Some(old) = self.room.filter(|&old| old != ready.room) {
            let peer = self.peer.clone();
            self.hub.send(
                old,
                RoomEvent::Leave {
                    peer,
                    message: None,
                },
            );
        }
        self.progress();
        self.room = Some(ready.room);
        let event = RoomEvent::Ready {
            peer: self.peer.clone(),
            message,
            name: ready.name,
            colour: ready.colour,
            request: ready.request,
            token: ready.token,
        };
        self.hub.send(ready.room, event);
    }

    /// A READY's fields, each checked, in the order the course's server checks them.
    fn check_ready(&self, message: &Message) -> Result<CheckedReady, Refused> {
        let name = message.data1.clone();
        if name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(Refused::Username);
        }
        let colour =
            match message.data2.as_str() {
                "" => None,
                word => Some(self.config.registry.parse_colour(word).ok_or_else(|| {
                    Refused::Colour(arbiter_core::text::shorten(word).to_string())
                })?),
            };
        let extended = message.extra.contains_key("game");
        let room = parse_room(&message.data3, extended)?;
        let request = self.request(message)?;
        let token = match message.extra.get("token") {
            None => None,
            Some(value) => {
                let token = value.as_str().filter(|t| valid_token(t));
                Some(token.ok_or(Refused::Token)?.to_string())
            }
        };
        if extended || token.is_some() {
            self.peer.extension.store(true, Ordering::Relaxed);
        }
        Ok(CheckedReady {
            name,
            colour,
            room,
            request,
            token,
        })
    }

    /// What a READY asks for: the extension key `game` (the course's game without it), each
    /// option of that game it names, and the time control; every value checked.
    fn request(&self, message: &Message) -> Result<Requested, Refused> {
        let game = match message.extra.get("game") {
            None => protocol::COURSE_GAME,
            Some(value) => value.as_str().ok_or(Refused::GameNotText)?,
        };
        let def = self.config.registry.find(game)?;
        let number = |key: &str| message.extra_u64(key).transpose();
        let mut options = Vec::new();
        for (key, _) in message.extra.iter() {
            if matches!(
                key.as_str(),
                "game" | "timeout_ms" | "clock_ms" | "increment_ms"
            ) || protocol::is_client_key(key)
            {
                continue;
            }
            let value = number(key)?.expect("the key is present");
            let mut check = def.defaults();
            check.set(key, value)?;
            let option = def.option(key).expect("checked just now");
            options.push((option.name, value as u32));
        }
        let timeout_ms = number("timeout_ms")?
            .map(GameSettings::check_timeout)
            .transpose()?;
        let clock = match (number("clock_ms")?, number("increment_ms")?) {
            (None, None) => None,
            (None, Some(_)) => return Err(Refused::IncrementWithoutClock),
            (Some(initial_ms), increment) => {
                let increment_ms = increment.unwrap_or(0);
                if !CLOCK_RANGE.contains(&initial_ms) || !INCREMENT_RANGE.contains(&increment_ms) {
                    return Err(Refused::Clock);
                }
                Some(GameClock {
                    initial_ms,
                    increment_ms,
                })
            }
        };
        Ok(Requested {
            game: def,
            options,
            timeout_ms,
            clock,
            opening_timeout_ms: self.config.opening_timeout_ms,
        })
    }

    /// The connection has closed: leave the room and stop watching.
    pub fn closed(&mut self) {
        self.peer.outbox.close();
        if let Some(room) = self.room.take() {
            self.hub.send(
                room,
                RoomEvent::Leave {
                    peer: self.peer.clone(),
                    message: None,
                },
            );
        }
        for room in std::mem::take(&mut self.watching) {
            self.hub
                .send(room, RoomEvent::Unwatch { conn: self.peer.id });
        }
        tracing::info!("connection {} closed", self.peer.addr);
    }
}

/// A seat token: long enough not to be guessed by accident, short enough to log.
fn valid_token(token: &str) -> bool {
    (8..=64).contains(&token.len())
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Reads a room number: `""` is room 1; 0-255, or up to [`MAX_EXTENDED_ROOM`] for extension clients.
fn parse_room(text: &str, extended: bool) -> Result<u32, Refused> {
    if text.is_empty() {
        return Ok(1);
    }
    let limit = if extended { MAX_EXTENDED_ROOM } else { 255 };
    match text.parse::<u64>() {
        Ok(n) if n <= limit => Ok(n as u32),
        _ => Err(Refused::Room {
            text: arbiter_core::text::shorten(text).to_string(),
            limit,
        }),
    }
}
