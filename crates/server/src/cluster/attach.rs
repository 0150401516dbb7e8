//! Keeping a node's clients in their rooms when a room changes owner (docs/cluster.md,
//! "Failover"). The gateway remembers what attached each local connection to each room (its
//! READY, with a seat token, or its WATCH) and under which owner's epoch; when the room answers
//! with a newer epoch, or nobody answers and this node takes the room over, the attachment is
//! sent again, so the client takes its seat back (or watches again) in the new owner's room.
//!
//! A course client sends no seat token; the gateway gives it one the client never sees, so it
//! can be re-seated the same way. Such a client closing its socket has left its game (the
//! course's rule), so its gateway says so explicitly instead of letting the seat wait.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rand::Rng;

use super::wire::{Command, WireEvent};
use super::{lock, Cluster};
use crate::protocol::{LeaveCommand, MoveCommand, WatchCommand};
use crate::rooms::{ConnId, Peer, Ready, RoomEvent};

/// What attached a connection to a room.
#[derive(Clone)]
pub(super) struct Attachment {
    /// Its READY or WATCH, as it goes on the wire.
    event: WireEvent,
    /// The peer it came from (the local connection).
    peer: Peer,
    /// The owner's epoch it reached; 0 until an owner answered.
    epoch: u64,
    /// The seat token was made by this gateway (a course client).
    hidden_token: bool,
    /// A course client's last MOVE and the ply it meant it as, sent again after its seat when
    /// the room changes owner: the former owner may have taken it and never stored it.
    last_move: Option<(MoveCommand, usize)>,
}

impl Cluster {
    /// Notes what `event` changes in the connection's attachments and returns the event as it
    /// must travel: a course client's READY with its hidden token, a course client's closed
    /// socket as the LEAVE it means.
    pub(super) fn note_attachment(&self, conn: ConnId, room: u32, event: RoomEvent) -> RoomEvent {
        match event {
            RoomEvent::Ready { peer, ready } => {
                let ready = self.attach_seat(conn, room, &peer, ready);
                RoomEvent::Ready { peer, ready }
            }
            RoomEvent::Move { peer, mv, .. } => {
                peer.knows_a_move();
                let ply = self.note_move(conn, room, &peer, &mv);
                RoomEvent::Move { peer, mv, ply }
            }
            RoomEvent::Watch { peer, watch } => {
                self.attach_watcher(conn, room, &peer, &watch);
                RoomEvent::Watch { peer, watch }
            }
            RoomEvent::Leave { peer, leave } => {
                let leave = self.detach(conn, room, leave);
                RoomEvent::Leave { peer, leave }
            }
            RoomEvent::Unwatch { conn } => {
                let mut attached = lock(&self.attachments);
                if !attached.get(&(conn, room)).is_some_and(is_seat) {
                    attached.remove(&(conn, room));
                }
                RoomEvent::Unwatch { conn }
            }
            other => other,
        }
    }

    /// A READY: remembered with its seat token (made here for a course client); the READY
    /// with that token.
    fn attach_seat(&self, conn: ConnId, room: u32, peer: &Peer, ready: Ready) -> Ready {
        let mut attached = lock(&self.attachments);
        // A READY sent again for a course client keeps its token hidden.
        let hidden_token = ready.token.is_none()
            || attached
                .get(&(conn, room))
                .is_some_and(|a| a.hidden_token && a.token() == ready.token.as_deref());
        let ready = Ready {
            token: Some(ready.token.unwrap_or_else(hidden_seat_token)),
            ..ready
        };
        let attachment = Attachment {
            event: WireEvent::ready(ready.clone()),
            peer: peer.clone(),
            epoch: 0,
            hidden_token,
            last_move: None,
        };
        attached.insert((conn, room), attachment);
        ready
    }

    /// A course client's MOVE: remembered with the ply it means (the moves its game had, its
    /// own included), which travels with it. `None` for a page (it resyncs from a snapshot).
    fn note_move(&self, conn: ConnId, room: u32, peer: &Peer, mv: &MoveCommand) -> Option<usize> {
        let mut attached = lock(&self.attachments);
        let seat = attached
            .get_mut(&(conn, room))
            .filter(|a| a.hidden_token && is_seat(a))?;
        let ply = peer.moves_known.load(Ordering::Relaxed);
        seat.last_move = Some((mv.clone(), ply));
        Some(ply)
    }

    /// A course client's last move, to send again to a room's new owner after its seat.
    pub(super) fn last_move(&self, conn: ConnId, room: u32) -> Option<Command> {
        let a = lock(&self.attachments).get(&(conn, room))?.clone();
        let (mv, ply) = a.last_move?;
        Some(Command {
            room,
            conn: self.conn_ref(conn, Some(&a.peer)),
            event: WireEvent::Move { mv, ply: Some(ply) },
            seq: 0,
            epoch: a.epoch,
        })
    }

    /// A WATCH, unless the connection already plays in the room.
    fn attach_watcher(&self, conn: ConnId, room: u32, peer: &Peer, watch: &WatchCommand) {
        let mut attached = lock(&self.attachments);
        if attached.get(&(conn, room)).is_some_and(is_seat) {
            return;
        }
        let attachment = Attachment {
            event: WireEvent::Watch {
                watch: watch.clone(),
            },
            peer: peer.clone(),
            epoch: 0,
            hidden_token: false,
            last_move: None,
        };
        attached.insert((conn, room), attachment);
    }

    /// A LEAVE (`None`: the connection closed): the attachment forgotten; the LEAVE to send.
    fn detach(&self, conn: ConnId, room: u32, leave: Option<LeaveCommand>) -> Option<LeaveCommand> {
        let mut attached = lock(&self.attachments);
        let gone = attached.remove(&(conn, room));
        let leave = leave.or_else(|| gone.and_then(|a| left_socket(&a)));
        if leave.is_none() {
            attached.retain(|(c, _), _| *c != conn);
        }
        leave
    }

    /// The owner of `room` answered `conn`'s command with `epoch`: true when the connection
    /// was attached under another owner and its attachment must be sent again.
    pub(super) fn moved_on(&self, conn: ConnId, room: u32, epoch: u64) -> bool {
        let mut attached = lock(&self.attachments);
        let Some(a) = attached.get_mut(&(conn, room)) else {
            return false;
        };
        let moved = a.epoch != 0 && a.epoch != epoch;
        a.epoch = epoch;
        moved
    }

    /// The owner's epoch `conn` is attached to `room` under (0: none answered yet).
    pub(super) fn attached_epoch(&self, conn: ConnId, room: u32) -> u64 {
        lock(&self.attachments)
            .get(&(conn, room))
            .map_or(0, |a| a.epoch)
    }

    /// Local connections attached to `room` under its former owner, now that this node owns
    /// it: each takes its seat again (or watches again) in the room restored here.
    pub(super) fn attach_local_again(self: &Arc<Self>, room: u32, epoch: u64) {
        let conns: Vec<ConnId> = lock(&self.attachments)
            .keys()
            .filter(|(_, r)| *r == room)
            .map(|(conn, _)| *conn)
            .collect();
        for conn in conns {
            if self.moved_on(conn, room, epoch) {
                self.attach_here(conn, room);
            }
        }
    }

    /// The attachment of `conn` to `room`, to send again.
    pub(super) fn attachment(&self, conn: ConnId, room: u32) -> Option<Command> {
        let a = lock(&self.attachments).get(&(conn, room))?.clone();
        // A seat whose game is over is not taken again: in the next owner's room its READY
        // would be a new seek, and a game nobody asked for would start.
        if game_over(&a) {
            return None;
        }
        let mut event = a.event;
        if let (WireEvent::Ready { known_moves, .. }, true) = (&mut event, a.hidden_token) {
            *known_moves = Some(a.peer.moves_known.load(Ordering::Relaxed));
        }
        Some(Command {
            room,
            conn: self.conn_ref(conn, Some(&a.peer)),
            event,
            seq: 0,
            epoch: a.epoch,
        })
    }

    /// Rooms other nodes own that local connections are attached to, with those connections.
    pub(super) fn attached_elsewhere(&self) -> Vec<(u32, Vec<ConnId>)> {
        let owned = lock(&self.owned);
        let mut rooms: std::collections::BTreeMap<u32, Vec<ConnId>> = Default::default();
        for ((conn, room), a) in lock(&self.attachments).iter() {
            // A seat whose game is over needs no owner: its room may close.
            if !owned.contains_key(room) && !game_over(a) {
                rooms.entry(*room).or_default().push(*conn);
            }
        }
        rooms.into_iter().collect()
    }

    /// Local connections attached to `room`.
    pub(super) fn attached_to(&self, room: u32) -> Vec<ConnId> {
        let attached = lock(&self.attachments);
        attached
            .keys()
            .filter(|(_, r)| *r == room)
            .map(|(c, _)| *c)
            .collect()
    }

    /// Open local connections that hold a seat somewhere (waiting, playing, or just after a
    /// game): a draining node serves them until they leave it.
    pub(super) fn seated_here(&self) -> usize {
        let attached = lock(&self.attachments);
        let seated = attached.iter().filter(|(_, a)| {
            is_seat(a) && !a.peer.outbox.is_closed() && a.peer.seated.load(Ordering::Relaxed)
        });
        let conns: HashSet<ConnId> = seated.map(|((c, _), _)| *c).collect();
        conns.len()
    }

    /// The rooms in which open local connections hold a seat (waiting, playing, or just after
    /// a game).
    pub(super) fn seated_rooms_here(&self) -> Vec<u32> {
        let attached = lock(&self.attachments);
        let seated = attached.iter().filter(|(_, a)| {
            is_seat(a) && !a.peer.outbox.is_closed() && a.peer.seated.load(Ordering::Relaxed)
        });
        let playing = seated.filter(|(_, a)| !game_over(a));
        let rooms: std::collections::BTreeSet<u32> = playing.map(|((_, room), _)| *room).collect();
        rooms.into_iter().collect()
    }

    /// Open local connections that can come back through another node: a page (its seat has
    /// a token of its own) or a spectator — every one but a course client with a seat.
    pub(super) fn able_to_come_back(&self) -> Vec<Peer> {
        let attached = lock(&self.attachments);
        let course_seats: HashSet<ConnId> = attached
            .iter()
            .filter(|(_, a)| a.hidden_token && is_seat(a))
            .map(|((c, _), _)| *c)
            .collect();
        let mut peers: HashMap<ConnId, Peer> = HashMap::new();
        for ((conn, _), a) in attached.iter() {
            if !a.peer.outbox.is_closed() && !course_seats.contains(conn) {
                peers.entry(*conn).or_insert_with(|| a.peer.clone());
            }
        }
        peers.into_values().collect()
    }

    /// Forgets every attachment of a connection whose peer has closed.
    pub(super) fn forget_closed(&self) {
        lock(&self.attachments).retain(|_, a| !a.peer.outbox.is_closed());
        let peers = lock(&self.local_peers);
        let open = |conn| peers.get(&conn).is_some_and(|p| !p.outbox.is_closed());
        lock(&self.received).retain(open);
    }
}

impl Attachment {
    fn token(&self) -> Option<&str> {
        match &self.event {
            WireEvent::Ready { token, .. } => token.as_deref(),
            _ => None,
        }
    }
}

fn is_seat(a: &Attachment) -> bool {
    matches!(a.event, WireEvent::Ready { .. })
}

/// A seat whose game ended (the END was passed on, and no READY since).
fn game_over(a: &Attachment) -> bool {
    is_seat(a) && a.peer.game_over.load(Ordering::Relaxed)
}

/// A course client's socket closed: it left its game, as the course's rules say.
fn left_socket(a: &Attachment) -> Option<LeaveCommand> {
    match (&a.event, a.hidden_token) {
        (WireEvent::Ready { name, .. }, true) => Some(LeaveCommand::new(name, "disconnected")),
        _ => None,
    }
}

/// 128 random bits, as a page's seat token.
fn hidden_seat_token() -> String {
    let bits: u128 = rand::thread_rng().gen();
    format!("{bits:032x}")
}
