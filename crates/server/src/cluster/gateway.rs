//! The gateway's side: a local client's events go, one connection's in order, to the room's
//! owner — this node's hub, or another node over NATS — and the lines owners send back for
//! local clients are queued on their connections.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::resend::Admit;
use super::wire::{Command, ConnRef, Delivery, WireEvent};
use super::{lock, node_subject, room_subject, Cluster, ClusterError};
use crate::protocol::{self, Message};
use crate::rooms::outbox::Kind;
use crate::rooms::{ConnId, Peer, RoomEvent};

/// How long a connection's event waits for its room to find an owner before it is dropped.
const ROUTE_PATIENCE: Duration = Duration::from_secs(20);
/// A connection's forwarder ends after this long with nothing to send once it has closed.
const FORWARDER_IDLE: Duration = Duration::from_secs(30);

/// What an owner answers to a command it took: `ok:` and its epoch.
pub(super) const ACCEPTED: &str = "ok:";
/// What an owner answers to a player's command from a connection it has not seated (it took
/// the room over since): `attach:` and its epoch; the gateway seats the client, then sends the
/// command again.
pub(super) const ATTACH_FIRST: &str = "attach:";

/// An owner's answer to a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Answer {
    Took { epoch: u64 },
    AttachFirst { epoch: u64 },
}

impl Answer {
    fn of(answer: &[u8]) -> Option<Answer> {
        let text = std::str::from_utf8(answer).ok()?;
        if let Some(epoch) = text.strip_prefix(ACCEPTED) {
            return Some(Answer::Took {
                epoch: epoch.parse().ok()?,
            });
        }
        let epoch = text.strip_prefix(ATTACH_FIRST)?.parse().ok()?;
        Some(Answer::AttachFirst { epoch })
    }
}

/// The owner's epoch in its answer; `None` when it did not take the command.
pub(super) fn accepted_by(answer: &[u8]) -> Option<u64> {
    match Answer::of(answer)? {
        Answer::Took { epoch } => Some(epoch),
        Answer::AttachFirst { .. } => None,
    }
}

/// Nobody answers for the room: it has no owner, or its owner is dead, paused or cut off — a
/// claim settles which (it succeeds only once the lease has lapsed).
pub(super) fn owner_gone(e: &async_nats::RequestError) -> bool {
    use async_nats::RequestErrorKind::{NoResponders, TimedOut};
    matches!(e.kind(), NoResponders | TimedOut)
}

/// Whether the event attaches its connection to the room (a READY or a WATCH).
fn attaches(event: &RoomEvent) -> bool {
    matches!(event, RoomEvent::Ready { .. } | RoomEvent::Watch { .. })
}

impl Cluster {
    /// Queues `event` behind the connection's earlier ones.
    pub(super) fn forward(self: &Arc<Self>, room: u32, event: RoomEvent) {
        let conn = match &event {
            RoomEvent::Unwatch { conn } => *conn,
            other => match peer_of(other) {
                Some(peer) => peer.id,
                // The hub's own events never come here; deliver them where they are.
                None => return self.deliver_here(room, event),
            },
        };
        let event = self.note_attachment(conn, room, event);
        let mut forwarders = lock(&self.forwarders);
        let queue = forwarders.entry(conn).or_insert_with(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(self.clone().forward_in_order(conn, rx));
            tx
        });
        let _ = queue.send((room, event));
    }

    pub(super) fn deliver_here(&self, room: u32, event: RoomEvent) {
        if let Some(hub) = self.hub() {
            hub.deliver(room, event);
        }
    }

    async fn forward_in_order(
        self: Arc<Self>,
        conn: ConnId,
        mut queue: mpsc::UnboundedReceiver<(u32, RoomEvent)>,
    ) {
        let mut seq = 0;
        loop {
            match tokio::time::timeout(FORWARDER_IDLE, queue.recv()).await {
                Ok(Some((room, event))) => {
                    seq += 1;
                    self.route_one(conn, room, event, seq).await
                }
                Ok(None) => break,
                Err(_) => {
                    let closed = lock(&self.local_peers)
                        .get(&conn)
                        .is_none_or(|p| p.outbox.is_closed());
                    if closed && queue.is_empty() {
                        break;
                    }
                }
            }
        }
        lock(&self.forwarders).remove(&conn);
        lock(&self.local_peers).remove(&conn);
    }

    /// Delivers one event to its room's owner, claiming the room when it has none. A client
    /// whose room changed owner since it attached is attached again first.
    async fn route_one(self: &Arc<Self>, conn: ConnId, room: u32, event: RoomEvent, seq: u64) {
        let attaches = attaches(&event);
        let Some((peer, wire)) = WireEvent::of(event) else {
            return;
        };
        let command = Command {
            room,
            conn: self.conn_ref(conn, peer.as_ref()),
            event: wire,
            seq,
            epoch: self.attached_epoch(conn, room),
        };
        match self.command(command.clone(), peer.clone()).await {
            // `moved_on` notes the epoch even for a READY or WATCH: it is what they attached to.
            Some(Answer::Took { epoch }) if self.moved_on(conn, room, epoch) && !attaches => {
                self.attach_again(command, peer).await
            }
            Some(Answer::AttachFirst { epoch }) => {
                self.moved_on(conn, room, epoch);
                self.attach_again(command, peer).await
            }
            _ => {}
        }
    }

    /// Seats (or sets watching) the command's connection in the room's new owner's room, then
    /// sends a course client's command again (taken once: it carries the same number). A page
    /// learns the game from the snapshot its seat brings; its command from before would land
    /// after that snapshot and contradict it, so it is dropped — the page sees its turn again.
    async fn attach_again(self: &Arc<Self>, command: Command, peer: Option<Peer>) {
        self.send_attachment_again(command.conn.id, command.room, peer.clone())
            .await;
        if !command.conn.extension {
            self.command(command, peer).await;
        }
    }

    /// Seats `conn` again in the new owner's room and, for a course client, sends its last move
    /// again (with its ply: played only when the former owner never stored it).
    pub(super) async fn send_attachment_again(
        self: &Arc<Self>,
        conn: ConnId,
        room: u32,
        peer: Option<Peer>,
    ) {
        if let Some(attachment) = self.attachment(conn, room) {
            self.command(attachment, peer.clone()).await;
        }
        if let Some(last_move) = self.last_move(conn, room) {
            self.command(last_move, peer).await;
        }
    }

    /// Sends one command to its room's owner, claiming the room when nobody owns it: the
    /// owner's answer (`None` when dropped, or taken here).
    pub(super) async fn command(
        self: &Arc<Self>,
        command: Command,
        peer: Option<Peer>,
    ) -> Option<Answer> {
        let room = command.room;
        let until = Instant::now() + ROUTE_PATIENCE;
        let mut payload = None;
        while Instant::now() < until {
            if let Some(epoch) = self.serving_epoch(room) {
                self.deliver_own_again(command, peer, epoch);
                return None;
            }
            let payload = payload
                .get_or_insert_with(|| serde_json::to_vec(&command).expect("commands serialise"));
            match self
                .nats
                .request(room_subject(room), payload.clone().into())
                .await
            {
                Ok(answer) => {
                    if let Some(answer) = Answer::of(&answer.payload) {
                        return Some(answer);
                    }
                }
                Err(e) if owner_gone(&e) => {
                    if self.claim(room).await {
                        continue;
                    }
                }
                Err(e) => {
                    let text = format!("command not delivered yet: {e}");
                    self.warn_room(room, "deliver", text);
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tracing::error!("room {room}: no owner within {ROUTE_PATIENCE:?}; an event was dropped");
        None
    }

    /// A command for a room this node owns, from a connection attached to it under another
    /// owner: the connection is attached here first (a page's command is then dropped, see
    /// [`Command::epoch`]).
    fn deliver_own_again(self: &Arc<Self>, command: Command, peer: Option<Peer>, epoch: u64) {
        let (conn, room) = (command.conn.id, command.room);
        if self.moved_on(conn, room, epoch) && !command.event.attaches() {
            self.attach_here(conn, room);
        }
        if !command.stale_for_a_page(epoch) {
            self.deliver_own(command, peer);
        }
    }

    /// Attaches a local connection again to a room this node has taken over.
    pub(super) fn attach_here(self: &Arc<Self>, conn: ConnId, room: u32) {
        let Some(attachment) = self.attachment(conn, room) else {
            return;
        };
        let peer = lock(&self.local_peers).get(&conn).cloned();
        if let Some(peer) = peer {
            self.deliver_own(attachment, Some(peer.clone()));
            if let Some(last_move) = self.last_move(conn, room) {
                self.deliver_own(last_move, Some(peer));
            }
        }
    }

    /// A local client's command for a room this node has just claimed: to the hub with the
    /// client's own peer (no stand-in needed).
    fn deliver_own(&self, command: Command, peer: Option<Peer>) {
        let event = match peer {
            Some(peer) => command.event.into_event(peer, &self.registry),
            None => Ok(RoomEvent::Unwatch {
                conn: command.conn.id,
            }),
        };
        match event {
            Ok(event) => self.deliver_here(command.room, event),
            Err(e) => tracing::error!("room {}: {e}", command.room),
        }
    }

    /// The connection as other nodes know it; remembered so their deliveries find it.
    pub(super) fn conn_ref(&self, conn: ConnId, peer: Option<&Peer>) -> ConnRef {
        let mut peers = lock(&self.local_peers);
        if let Some(p) = peer {
            peers.entry(p.id).or_insert_with(|| p.clone());
        }
        let known = peers.get(&conn);
        ConnRef {
            node: self.node.clone(),
            id: conn,
            addr: known.map_or_else(String::new, |p| p.addr.clone()),
            extension: known.is_some_and(|p| p.extension.load(Ordering::Relaxed)),
        }
    }

    /// Takes this node's deliveries from NATS and queues each on its connection.
    pub(super) async fn take_deliveries(self: &Arc<Self>) -> Result<(), ClusterError> {
        self.on_each(node_subject(&self.node), |me, message| async move {
            match serde_json::from_slice::<Delivery>(&message.payload) {
                Ok(delivery) => me.hand_over(delivery),
                Err(e) => tracing::warn!("a delivery that is not one: {e}"),
            }
        })
        .await
    }

    fn hand_over(self: &Arc<Self>, delivery: Delivery) {
        let Some(peer) = lock(&self.local_peers).get(&delivery.conn).cloned() else {
            return;
        };
        match lock(&self.received).admit(&delivery) {
            Admit::Next => {}
            Admit::Again => return,
            Admit::Gap(from) => {
                let (conn, room, stream) = (delivery.conn, delivery.room, delivery.stream);
                return self.ask_again(conn, room, stream, from);
            }
        }
        peer.awaited.store(delivery.awaited, Ordering::Relaxed);
        let was_seated = peer.seated.swap(delivery.seated, Ordering::Relaxed);
        if let Some(line) = delivery.line {
            let counted = [protocol::READY, protocol::MOVE, protocol::END];
            if let Some(op) = counted
                .into_iter()
                .find(|op| Message::line_has_op(&line, *op))
            {
                peer.counts_op(op);
            }
            let kind = if delivery.lossy {
                Kind::Lossy
            } else {
                Kind::Essential
            };
            peer.outbox.send(line.into(), kind);
        }
        if was_seated != delivery.seated {
            peer.changed.notify_one();
        }
    }
}

fn peer_of(event: &RoomEvent) -> Option<&Peer> {
    match event {
        RoomEvent::Ready { peer, .. }
        | RoomEvent::Move { peer, .. }
        | RoomEvent::Resign { peer, .. }
        | RoomEvent::Chat { peer, .. }
        | RoomEvent::Offer { peer, .. }
        | RoomEvent::Leave { peer, .. }
        | RoomEvent::Watch { peer, .. } => Some(peer),
        RoomEvent::Unwatch { .. }
        | RoomEvent::Reach { .. }
        | RoomEvent::Info { .. }
        | RoomEvent::Shutdown { .. } => None,
    }
}
