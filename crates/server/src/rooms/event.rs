//! What rooms hear and say: a connection as rooms see it ([`Peer`]), the typed commands a
//! transport sends a room ([`RoomEvent`]), and sending a protocol message to a peer, logged.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::{oneshot, Notify};

use super::outbox::{Kind, Outbox};
use super::RoomInfo;
use crate::games::Requested;
use crate::protocol::{
    self, ChatCommand, Command, LeaveCommand, Message, MoveCommand, OfferCommand, Op, ReadyCommand,
    ResignCommand, WatchCommand,
};
use arbiter_core::Side;

pub type ConnId = u64;

static NEXT_CONN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A number for a new connection (or a cluster's stand-in for another node's), unique in
/// this process.
pub fn next_conn_id() -> ConnId {
    NEXT_CONN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A connection as rooms see it.
#[derive(Clone, Debug)]
pub struct Peer {
    pub id: ConnId,
    pub addr: String,
    pub outbox: Outbox,
    /// Set while the room waits for this peer's move. Such a move is paced by the game itself,
    /// so the connection lets it past the rate limit: a fast bot in a long game must never lose
    /// a legal move to flood protection.
    pub awaited: Arc<AtomicBool>,
    /// Set while the peer holds a seat in a room (waiting, playing, or just after a game): the
    /// room's deadlines then govern it, not the connection's idle limit.
    pub seated: Arc<AtomicBool>,
    /// Wakes the connection when the room changed what it depends on (a seat freed).
    pub changed: Arc<Notify>,
    /// The client speaks the project's extension (a WebSocket, or a READY with `game` or
    /// `token`): it may be sent the extension's messages (NOTICE).
    pub extension: Arc<AtomicBool>,
    /// How many MOVEs this connection sent or was sent: a course client's cluster gateway
    /// says so when it seats the client again in a room that changed owner, so the client
    /// hears the moves it missed meanwhile (it cannot read a snapshot).
    pub moves_known: Arc<AtomicUsize>,
    /// The peer was sent the END of its game and no READY since: a cluster gateway does not
    /// seat it again in a room that changed owner (its game is over; a new one starts only
    /// when it asks).
    pub game_over: Arc<AtomicBool>,
}

impl Peer {
    /// The peer heard or made one more move.
    pub fn knows_a_move(&self) {
        self.moves_known.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts the moves of the peer's current game in a message it is sent: a READY starts a
    /// game (none known yet), a MOVE is one more.
    pub fn counts(&self, m: &Message) {
        self.counts_op(m.op);
    }

    /// [`Peer::counts`] for a message known by its op.
    pub fn counts_op(&self, op: i64) {
        if op == Op::Ready.code() {
            self.moves_known.store(0, Ordering::Relaxed);
            self.game_over.store(false, Ordering::Relaxed);
        } else if op == Op::Move.code() {
            self.knows_a_move();
        } else if op == Op::End.code() {
            self.game_over.store(true, Ordering::Relaxed);
        }
    }
}

/// How long a field of a message may be in the log.
const LOGGED_FIELD: usize = 200;

fn logged(field: &str) -> String {
    if field.len() <= LOGGED_FIELD {
        return format!("{field:?}");
    }
    let mut cut = LOGGED_FIELD;
    while !field.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{:?}…({} bytes)", &field[..cut], field.len())
}

/// Writes the log line of one message (long fields cut short).
pub fn log_message(move_no: Option<usize>, direction: &str, peer: &str, m: &Message) {
    let fields = [&*m.data1, &*m.data2, &*m.data3];
    log_fields(move_no, direction, peer, m.op_name(), fields);
}

/// Writes the log line of a received command: the message it was read from, as it came.
pub fn log_command<C: Command>(move_no: Option<usize>, peer: &str, c: &C) {
    log_fields(move_no, "recv", peer, C::OP.name(), c.fields());
}

/// Writes the log line of a message given by its op's name and its fields.
pub fn log_fields(
    move_no: Option<usize>,
    direction: &str,
    peer: &str,
    op: &str,
    [data1, data2, data3]: [&str; 3],
) {
    let move_no = move_no.map_or("-".to_string(), |n| n.to_string());
    tracing::info!(
        target: "arbiter::message",
        "move={move_no} {direction} peer={peer} op={op} data1={} data2={} data3={}",
        logged(data1),
        logged(data2),
        logged(data3)
    );
}

/// Chat may be dropped for a slow client; everything else must arrive.
fn kind_of(m: &Message) -> Kind {
    if m.op == protocol::CHAT {
        Kind::Lossy
    } else {
        Kind::Essential
    }
}

/// Sends a message and logs it; false when the connection cannot take it (gone or not reading).
pub fn send(peer: &Peer, m: Message, move_no: Option<usize>) -> bool {
    log_message(move_no, "sent", &peer.addr, &m);
    peer.counts(&m);
    peer.outbox.send(m.to_line().into(), kind_of(&m))
}

/// A READY, checked by the connection it came on: what the room reads of it.
#[derive(Clone, Debug)]
pub struct Ready {
    /// The READY as the client sent it, for the log alone: its colour and room words are not
    /// recoverable from the checked values, and the room reads none of its extension keys.
    pub sent: ReadyCommand,
    pub name: String,
    pub colour: Option<Side>,
    pub request: Requested,
    /// A seat token: the same READY again (a reloaded page) takes the seat back.
    pub token: Option<String>,
    /// Only take back the seat the token holds (the extension key `resume`), never seek.
    pub resume: bool,
    /// The secret that proves the player holds its name (the extension key `secret`).
    pub secret: Option<String>,
}

#[cfg(test)]
impl Ready {
    /// A READY of `name` for room `room`, with no token, secret or `resume`.
    pub(crate) fn for_tests(
        name: &str,
        room: &str,
        colour: Option<Side>,
        request: Requested,
    ) -> Ready {
        Ready {
            sent: ReadyCommand {
                name: name.into(),
                colour: String::new(),
                room: room.into(),
                extra: Default::default(),
            },
            name: name.into(),
            colour,
            request,
            token: None,
            resume: false,
            secret: None,
        }
    }
}

/// An event for a room: a client's command, typed (read once, where the connection read the
/// line), or the server's own.
#[derive(Debug)]
pub enum RoomEvent {
    Ready {
        peer: Peer,
        ready: Ready,
    },
    Move {
        peer: Peer,
        mv: MoveCommand,
        /// The ply the client meant this move as, when a cluster gateway says so (a course
        /// client's moves): a move sent again to a room's next owner is played only if it is
        /// exactly the next move (its former owner never stored it), and is not a second move
        /// if it was stored.
        ply: Option<usize>,
    },
    Resign {
        peer: Peer,
        resign: ResignCommand,
    },
    Chat {
        peer: Peer,
        chat: ChatCommand,
    },
    /// An offer between the players (the extension's OFFER).
    Offer {
        peer: Peer,
        offer: OfferCommand,
    },
    /// A LEAVE, or the connection closed (`leave` is `None`).
    Leave {
        peer: Peer,
        leave: Option<LeaveCommand>,
    },
    Watch {
        peer: Peer,
        watch: WatchCommand,
    },
    Unwatch {
        conn: ConnId,
    },
    /// A player's connection runs through another node that fell silent (`unheard_since`: when
    /// it was last heard), or that was heard again (`None`). A cluster's owner says so: time
    /// while a player cannot be reached is charged to no one.
    Reach {
        conn: ConnId,
        unheard_since: Option<tokio::time::Instant>,
    },
    Info {
        reply: oneshot::Sender<RoomInfo>,
    },
    /// The server is stopping: a running game ends as interrupted.
    Shutdown {
        done: oneshot::Sender<()>,
    },
}
