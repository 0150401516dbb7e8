//! Draining a node (docs/cluster.md, "Draining"): on SIGTERM or Ctrl-C a node hands every room
//! it owns to another node at once — each room first does what it was sent (a move being stored
//! is stored under this node's epoch), then its lease is released and another node is asked to
//! claim it, restoring its game from the store exactly as after a failover but without waiting
//! for the lease to lapse. The node stays its clients' gateway: its course clients (which cannot
//! come back through another node) play on in their rooms' new owners until their games end;
//! pages and spectators are closed and come back through another node with their seat tokens.
//!
//! Handing over goes through NATS subject `arbiter.take`, answered by one node of the queue
//! group `takers` (every node that is not draining): it claims the room and answers `took`.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::{lock, Cluster, ClusterError};

/// Where a node asks another to take a room over.
const TAKE_SUBJECT: &str = "arbiter.take";
/// The queue group of the nodes that take rooms over: each request reaches one of them.
const TAKERS: &str = "takers";
/// Asks only whether any node would take rooms.
const PROBE: &[u8] = b"probe";
/// A taker's answer: it owns the room now (or, to a probe, it would take rooms).
const TOOK: &[u8] = b"took";
const DECLINED: &[u8] = b"declined";
/// Rooms handed over at once (each a lease release and a claim by another node, a few ms).
const HANDED_AT_ONCE: usize = 16;
/// How often a draining node checks whether its clients are done.
const DRAIN_TICK: Duration = Duration::from_secs(1);

/// What came of asking another node to take a room.
#[derive(Debug, PartialEq, Eq)]
enum Taken {
    ByAnother,
    /// Not now: the lease is still held (it is being handed over), or the taker failed.
    Declined,
    /// No node takes rooms (this one is alone, or every other drains too).
    NoOtherNode,
}

/// How a drain ended, for the operator.
#[derive(Debug, Default)]
pub struct Drained {
    /// Rooms handed to other nodes.
    pub handed_over: usize,
    /// Local clients closed so that they come back through another node (pages, spectators).
    pub sent_elsewhere: usize,
    /// Seated clients still playing here when the drain's time ran out.
    pub still_seated: usize,
    /// Seated clients with no game to play (waiting for an opponent, or after their game),
    /// closed once every game here was over.
    pub closed_idle: usize,
}

impl Cluster {
    /// Whether this node is draining.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Takes the rooms draining nodes hand over, while this node does not drain itself.
    pub(super) async fn take_handed_rooms(self: &Arc<Self>) -> Result<(), ClusterError> {
        let subject = TAKE_SUBJECT.to_string();
        let subscribed = self.nats.queue_subscribe(subject.clone(), TAKERS.into());
        let mut asked = subscribed
            .await
            .map_err(|source| ClusterError::Subscribe { subject, source })?;
        let me = Arc::downgrade(self);
        let nats = self.nats.clone();
        let (stop, mut stopped) = oneshot::channel::<oneshot::Sender<()>>();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    message = asked.next() => {
                        let (Some(message), Some(me)) = (message, me.upgrade()) else { return };
                        // A claim reads the store: the next request must not wait for it.
                        tokio::spawn(async move { me.take_handed(message).await });
                    }
                    done = &mut stopped => {
                        // Out of the queue group for sure before the drain asks it: a request
                        // the group handed to this node would go unanswered.
                        let _ = asked.unsubscribe().await;
                        let _ = nats.flush().await;
                        if let Ok(done) = done {
                            let _ = done.send(());
                        }
                        return;
                    }
                }
            }
        });
        *lock(&self.taking) = Some(stop);
        Ok(())
    }

    /// Leaves the queue group of the nodes that take rooms, and waits (a bounded time) until
    /// NATS has taken that in.
    async fn stop_taking_rooms(&self) {
        let Some(stop) = lock(&self.taking).take() else {
            return;
        };
        let (done, left) = oneshot::channel();
        if stop.send(done).is_ok() {
            let _ = tokio::time::timeout(Duration::from_secs(2), left).await;
        }
    }

    /// Answers a draining node: claims the room it names (or only says it would, to a probe).
    async fn take_handed(self: Arc<Self>, message: async_nats::Message) {
        let Some(reply) = message.reply else { return };
        let took = match room_named(&message.payload) {
            _ if self.is_draining() => false,
            None => true,
            Some(room) => self.claim(room).await,
        };
        let answer = if took { TOOK } else { DECLINED };
        let _ = self.nats.publish(reply, answer.into()).await;
    }

    /// Asks another node to take `room` over (`None`: whether any would).
    async fn ask_another_to_take(&self, room: Option<u32>) -> Taken {
        let payload = room.map_or_else(|| PROBE.to_vec(), |r| r.to_string().into_bytes());
        match self.nats.request(TAKE_SUBJECT, payload.into()).await {
            Ok(answer) if answer.payload.as_ref() == TOOK => Taken::ByAnother,
            Ok(_) => Taken::Declined,
            Err(e) if e.kind() == async_nats::RequestErrorKind::NoResponders => Taken::NoOtherNode,
            Err(e) => {
                tracing::debug!("{TAKE_SUBJECT}: no answer ({e})");
                Taken::Declined
            }
        }
    }

    /// A room nobody answers for, seen by a draining node: another node is asked to claim it;
    /// this node claims it only when no other node takes rooms. True when it has an owner now.
    pub(super) async fn claim_elsewhere(self: &Arc<Self>, room: u32) -> bool {
        match self.ask_another_to_take(Some(room)).await {
            Taken::ByAnother => true,
            Taken::Declined => false,
            Taken::NoOtherNode => self.claim_here(room).await,
        }
    }

    /// Drains this node until `until`: it stops taking rooms, hands over those it owns, sends
    /// the clients that can come back elsewhere, and returns once no local client plays a game
    /// and no room here runs one — or at `until`, closing the clients still here (their games
    /// end as a disconnect does). Clients seated with no game to play (waiting for an opponent,
    /// or after their game) are closed at the end either way. Rooms no other node takes stay here and keep running.
    pub async fn drain(self: &Arc<Self>, until: Instant) -> Drained {
        self.draining.store(true, Ordering::Relaxed);
        self.stop_taking_rooms().await;
        let mut drained = Drained::default();
        let mut alone_said = false;
        loop {
            if self.ask_another_to_take(None).await == Taken::ByAnother {
                drained.handed_over += self.hand_off_rooms().await;
                drained.sent_elsewhere += self.send_elsewhere();
            } else if !std::mem::replace(&mut alone_said, true) {
                tracing::warn!(
                    "no other node takes rooms: this node's rooms stay here until their games end"
                );
            }
            if self.is_idle().await {
                drained.closed_idle = self.seated_here();
                break;
            }
            if Instant::now() >= until {
                drained.still_seated = self.seated_here();
                break;
            }
            tokio::time::sleep(DRAIN_TICK).await;
        }
        if drained.still_seated + drained.closed_idle > 0 {
            self.close_local_clients();
            // Their gateway tells the rooms' owners they left before this process ends.
            tokio::time::sleep(DRAIN_TICK).await;
        }
        drained
    }

    /// No local client plays a game, and no room here runs one. A client seated in a room that
    /// waits for an opponent or whose game is over has nothing to lose (it is closed when the
    /// drain ends); a room no node described in time counts as playing, so a slow answer never
    /// ends a game.
    async fn is_idle(&self) -> bool {
        let seated = self.seated_rooms_here();
        if !seated.is_empty() {
            let states = self.room_states().await;
            let playing = |room: &u32| states.get(room).is_none_or(|s| s == "playing");
            if seated.iter().any(playing) {
                return false;
            }
        }
        let Some(hub) = self.hub() else { return true };
        !hub.rooms().await.iter().any(|r| r.status == "playing")
    }

    /// Hands every room this node owns to another node; how many another node took.
    async fn hand_off_rooms(self: &Arc<Self>) -> usize {
        let leaving = self.stop_taking_commands();
        if leaving.is_empty() {
            return 0;
        }
        // Each room answers after the events sent to it before: a move being stored is stored
        // (under this node's epoch) and told before the room is let go.
        if let Some(hub) = self.hub() {
            hub.rooms().await;
        }
        let handed = futures_util::stream::iter(leaving)
            .map(|(room, epoch)| self.hand_off(room, epoch))
            .buffer_unordered(HANDED_AT_ONCE);
        let taken = handed
            .filter(|taken| std::future::ready(*taken))
            .count()
            .await;
        tracing::info!("handed {taken} rooms to other nodes");
        taken
    }

    /// Marks every owned room as leaving: commands from other nodes find no owner, and this
    /// node's own clients' commands wait for the next owner. The rooms with their epochs.
    fn stop_taking_commands(&self) -> Vec<(u32, u64)> {
        let mut owned = lock(&self.owned);
        let mut leaving = Vec::new();
        for (room, o) in owned.iter_mut().filter(|(_, o)| !o.leaving) {
            o.leaving = true;
            o.commands.abort();
            leaving.push((*room, o.epoch));
        }
        leaving
    }

    /// Lets `room` go and has another node claim it at once; this node's clients in it are
    /// seated in the new owner's room. When no other node took it, this node claims it back
    /// (restoring it from the store) unless another node holds it by now. True when another
    /// node took it.
    async fn hand_off(self: &Arc<Self>, room: u32, epoch: u64) -> bool {
        if let Some(hub) = self.hub() {
            hub.abandon(room);
        }
        lock(&self.owned).remove(&room);
        self.forget_stand_ins(room);
        if let Err(e) = self.leases.release(room, &self.node, epoch).await {
            // The next owner claims it once the lease lapses.
            tracing::warn!("room {room}: lease not released: {e}");
        }
        let taken = self.ask_another_to_take(Some(room)).await == Taken::ByAnother;
        if !taken && self.claim_here(room).await {
            tracing::warn!("room {room}: no other node took it; it runs here again");
        }
        let conns = self.attached_to(room);
        if !conns.is_empty() {
            self.check_owner(room, &conns).await;
        }
        taken
    }

    /// Forgets the stand-ins of other nodes' clients in `room`: their gateways seat them in
    /// its next owner's room.
    fn forget_stand_ins(&self, room: u32) {
        let gone: Vec<crate::rooms::Peer> = {
            let mut stand_ins = lock(&self.stand_ins);
            let keys: Vec<_> = stand_ins.keys().filter(|k| k.0 == room).cloned().collect();
            keys.iter().filter_map(|k| stand_ins.remove(k)).collect()
        };
        gone.iter().for_each(|peer| peer.outbox.close());
        lock(&self.seen_seq).retain(|k, _| k.0 != room);
        lock(&self.sent_logs).retain(|k, _| k.0 != room);
    }

    /// Closes the local connections that can come back through another node (pages keep
    /// their seats by their tokens; spectators watch again); how many.
    fn send_elsewhere(&self) -> usize {
        let peers = self.able_to_come_back();
        for peer in &peers {
            peer.outbox.close();
        }
        if !peers.is_empty() {
            tracing::info!(
                "closed {} pages and spectators: they come back through other nodes",
                peers.len()
            );
        }
        peers.len()
    }

    /// Closes every local connection (the drain's time is up).
    fn close_local_clients(&self) {
        let peers: Vec<crate::rooms::Peer> = lock(&self.local_peers).values().cloned().collect();
        for peer in peers {
            peer.outbox.close();
        }
    }
}

/// The room a take request names; `None` for a probe.
fn room_named(payload: &[u8]) -> Option<u32> {
    std::str::from_utf8(payload).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_take_request_names_a_room_or_is_a_probe() {
        assert_eq!(room_named(b"42"), Some(42));
        assert_eq!(room_named(PROBE), None);
        assert_eq!(room_named(b""), None);
    }
}
