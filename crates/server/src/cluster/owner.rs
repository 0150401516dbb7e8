//! The owner's side: claiming a room, answering the commands other nodes send for it, and a
//! stand-in [`Peer`] for each remote client whose lines go back to the client's node.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures_util::StreamExt;

use super::gateway::{ACCEPTED, ATTACH_FIRST};
use super::resend::{SentLog, SharedLog, RESEND};
use super::wire::{Command, ConnRef, Delivery};
use super::{lock, node_subject, room_subject, Cluster, Owned};
use crate::protocol;
use crate::rooms::outbox::{outbox, Inbox};
use crate::rooms::RestoredGame;
use crate::rooms::{next_conn_id, Peer};

/// A command that only asks who owns the room (the gateway's watchdog).
pub(super) const PING: &[u8] = b"ping";

impl Cluster {
    /// Sees that `room`, which nobody answers for, gets an owner; true when it has one now. A
    /// node claims it itself, but a draining node asks another node to (and claims it only
    /// when no other node is there); a room this node is handing over waits for its next owner.
    pub(super) async fn claim(self: &Arc<Self>, room: u32) -> bool {
        if let Some(leaving) = lock(&self.owned).get(&room).map(|o| o.leaving) {
            return !leaving;
        }
        if self.is_draining() {
            return self.claim_elsewhere(room).await;
        }
        self.claim_here(room).await
    }

    /// Takes `room` when nobody holds it; true when this node owns it now. Its running game is
    /// restored before the room answers any command, so no command can open a fresh room
    /// under it (until then a command finds no owner and is sent again).
    pub(super) async fn claim_here(self: &Arc<Self>, room: u32) -> bool {
        if self.epoch_of(room).is_some() {
            return true;
        }
        let Some(_claiming) = Claiming::start(self, room) else {
            return false;
        };
        let sent = tokio::time::Instant::now();
        let epoch = match self.leases.claim(room, &self.node).await {
            Ok(Some(epoch)) => epoch,
            Ok(None) => return false,
            Err(e) => {
                self.warn_room(room, "claim", format!("cannot claim: {e}"));
                return false;
            }
        };
        self.take_over(room).await;
        let commands = match self.nats.subscribe(room_subject(room)).await {
            Ok(commands) => commands,
            Err(e) => {
                tracing::error!("room {room}: cannot take its commands: {e}");
                if let Some(hub) = self.hub() {
                    hub.abandon(room);
                }
                let _ = self.leases.release(room, &self.node, epoch).await;
                return false;
            }
        };
        tracing::info!("room {room}: owned by {} (epoch {epoch})", self.node);
        let owned = Owned {
            epoch,
            commands: self.serve_commands(room, commands),
            sure_until: sent + self.lease.saturating_sub(super::LEASE_MARGIN),
            leaving: false,
        };
        lock(&self.owned).insert(room, owned);
        self.attach_local_again(room, epoch);
        true
    }

    /// Answers the commands other nodes send for `room`, while this node lives.
    fn serve_commands(
        self: &Arc<Self>,
        room: u32,
        mut commands: async_nats::Subscriber,
    ) -> tokio::task::AbortHandle {
        let me = Arc::downgrade(self);
        let task = tokio::spawn(async move {
            while let Some(message) = commands.next().await {
                let Some(me) = me.upgrade() else { return };
                let answer = me.serve_command(room, &message.payload);
                if let (Some(reply), Some(answer)) = (message.reply, answer) {
                    let _ = me.nats.publish(reply, answer.into()).await;
                }
            }
        });
        task.abort_handle()
    }

    /// A room just claimed: its running game, if the store has one, is restored here.
    async fn take_over(&self, room: u32) {
        let live = match self.store.live_game(room).await {
            Ok(Some(live)) => live,
            Ok(None) => return,
            Err(e) => {
                let text = format!("its running game cannot be read: {e}");
                self.warn_room(room, "restore", text);
                return;
            }
        };
        let Some(hub) = self.hub() else { return };
        let restored =
            RestoredGame::from_live(live, &self.registry, true).and_then(|g| hub.restore(room, g));
        if let Err(e) = restored {
            tracing::error!("room {room}: not taken over: {e}");
        }
    }

    /// One command for `room`, handed to the hub with the client's stand-in; the answer says
    /// this node's epoch (a `ping` only asks for it). No answer at all from a node that is not
    /// the owner (any more): the owner's answer is the only one, so a command is never taken
    /// twice because a former owner answered first.
    fn serve_command(self: &Arc<Self>, room: u32, payload: &[u8]) -> Option<Vec<u8>> {
        let epoch = self.epoch_of(room)?;
        if !self.holds(room) {
            // Paused or cut off past its lease: another node may own the room by now.
            self.give_up(room);
            return None;
        }
        let accepted = format!("{ACCEPTED}{epoch}").into_bytes();
        if payload == PING {
            return Some(accepted);
        }
        if let Some(request) = payload.strip_prefix(RESEND) {
            let (me, request) = (self.clone(), request.to_vec());
            tokio::spawn(async move { me.send_again(room, &request).await });
            return Some(accepted);
        }
        let command: Command = match serde_json::from_slice(payload) {
            Ok(command) => command,
            Err(e) => {
                tracing::warn!("room {room}: a command that is not one: {e}");
                return Some(accepted);
            }
        };
        if command.event.needs_a_seat() && !self.has_stand_in(room, &command.conn) {
            // Taken over since the client was seated: it must be seated here first.
            return Some(format!("{ATTACH_FIRST}{epoch}").into_bytes());
        }
        if command.stale_for_a_page(epoch) || self.seen_before(room, &command) {
            // Sent again because its answer came late: taken once.
            return Some(accepted);
        }
        self.take_command(room, command);
        Some(accepted)
    }

    /// Whether this connection's command was taken already (commands of one connection carry
    /// rising numbers; 0 is never remembered).
    fn seen_before(&self, room: u32, command: &Command) -> bool {
        if command.seq == 0 {
            return false;
        }
        let key = (room, command.conn.node.clone(), command.conn.id);
        let mut seen = lock(&self.seen_seq);
        let last = seen.entry(key).or_default();
        let again = command.seq <= *last;
        *last = (*last).max(command.seq);
        again
    }

    fn take_command(self: &Arc<Self>, room: u32, command: Command) {
        let closes = command.event.ends_the_stand_in();
        let leaves = closes || command.event.leaves_the_room();
        let key = (room, command.conn.node.clone(), command.conn.id);
        let Some(peer) = self.stand_in(room, &command.conn) else {
            return;
        };
        match command.event.into_event(peer.clone(), &self.registry) {
            Ok(event) => self.deliver_here(room, event),
            Err(e) => tracing::warn!("room {room}: {e}"),
        }
        // A seated client that stops watching its own room still plays there.
        let still_plays = !closes && peer.seated.load(Ordering::Relaxed);
        if leaves && !still_plays {
            lock(&self.seen_seq).remove(&key);
            lock(&self.sent_logs).remove(&key);
            lock(&self.stand_ins).remove(&key);
        }
        if closes {
            peer.outbox.close();
        }
    }

    fn has_stand_in(&self, room: u32, conn: &ConnRef) -> bool {
        let key = (room, conn.node.clone(), conn.id);
        lock(&self.stand_ins).contains_key(&key)
    }

    /// The stand-in of a remote client in `room`, made on its first command (not for an
    /// UNWATCH: a client that watched nothing here has nothing to stop).
    fn stand_in(self: &Arc<Self>, room: u32, conn: &ConnRef) -> Option<Peer> {
        let key = (room, conn.node.clone(), conn.id);
        let mut stand_ins = lock(&self.stand_ins);
        if let Some(peer) = stand_ins.get(&key) {
            return Some(peer.clone());
        }
        if conn.addr.is_empty() {
            return None;
        }
        self.heard_of(&conn.node);
        let (out, inbox) = outbox();
        let peer = Peer {
            id: next_conn_id(),
            addr: conn.addr.clone(),
            outbox: out,
            awaited: Default::default(),
            seated: Default::default(),
            changed: Default::default(),
            extension: Arc::new(conn.extension.into()),
            moves_known: Default::default(),
            game_over: Default::default(),
        };
        let flags = Flags {
            awaited: peer.awaited.clone(),
            seated: peer.seated.clone(),
            changed: peer.changed.clone(),
        };
        let log: SharedLog = Arc::new(std::sync::Mutex::new(SentLog::new()));
        lock(&self.sent_logs).insert(key.clone(), log.clone());
        tokio::spawn(
            self.clone()
                .send_back(flags, inbox, conn.clone(), room, log),
        );
        stand_ins.insert(key, peer.clone());
        Some(peer)
    }

    /// Sends what the room writes to a stand-in, and its flags when they change, to the
    /// client's node, until the stand-in is closed or every holder of it has dropped it.
    async fn send_back(
        self: Arc<Self>,
        peer: Flags,
        mut inbox: Inbox,
        conn: ConnRef,
        room: u32,
        log: SharedLog,
    ) {
        let subject = node_subject(&conn.node);
        loop {
            let line = tokio::select! {
                line = inbox.next() => match line {
                    Some(line) => Some(line),
                    None => break,
                },
                _ = peer.changed.notified() => None,
            };
            if let Some(line) = &line {
                inbox.written(line);
            }
            let delivery = lock(&log).record(Delivery {
                conn: conn.id,
                room,
                lossy: line.as_deref().is_some_and(is_chat),
                line: line.map(|l| l.to_string()),
                awaited: peer.awaited.load(Ordering::Relaxed),
                seated: peer.seated.load(Ordering::Relaxed),
                stream: 0,
                seq: 0,
            });
            let payload = serde_json::to_vec(&delivery).expect("deliveries serialise");
            if let Err(e) = self.nats.publish(subject.clone(), payload.into()).await {
                tracing::warn!("a delivery to {} was lost: {e}", conn.node);
            }
        }
    }
}

/// A claim of a room under way on this node; over when dropped.
struct Claiming<'a> {
    cluster: &'a Cluster,
    room: u32,
}

impl<'a> Claiming<'a> {
    /// `None` when the room is being claimed here already.
    fn start(cluster: &'a Cluster, room: u32) -> Option<Claiming<'a>> {
        let started = lock(&cluster.claiming).insert(room);
        // Made only when started: a dropped one ends the claim.
        started.then(|| Claiming { cluster, room })
    }
}

impl Drop for Claiming<'_> {
    fn drop(&mut self) {
        lock(&self.cluster.claiming).remove(&self.room);
    }
}

/// A stand-in's flags, without its outbox (holding that would keep the stand-in alive).
struct Flags {
    awaited: Arc<std::sync::atomic::AtomicBool>,
    seated: Arc<std::sync::atomic::AtomicBool>,
    changed: Arc<tokio::sync::Notify>,
}

/// Chat may be dropped for a slow client (as [`crate::rooms::send`] queues it). A line starts
/// with its op.
fn is_chat(line: &str) -> bool {
    protocol::Message::line_has_op(line, protocol::CHAT)
}
