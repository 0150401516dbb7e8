//! Noticing that another node stopped. Every node sends a heartbeat on `arbiter.alive`; an
//! owner whose remote clients' node went silent lets their seats wait as for a dropped
//! connection. A gateway asks the owners of its clients' rooms who they are, so a room that
//! moved (or has no owner, which this node then takes over) gets its clients attached again
//! even when they are only waiting.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::gateway::{accepted_by, owner_gone};
use super::owner::PING;
use super::{lock, room_subject, Cluster, ClusterError};
use crate::rooms::RoomEvent;

const ALIVE: &str = "arbiter.alive";
/// How often a node says it is alive, and checks on the rest.
const BEAT: Duration = Duration::from_secs(1);
/// A node not heard of for two leases, and at least this long, has stopped: an overloaded node
/// (1,000 games on two shared cores) can miss several beats and must not lose its clients.
const SILENT_AT_LEAST: Duration = Duration::from_secs(10);

impl Cluster {
    /// Hears the other nodes' heartbeats, and sends this node's.
    pub(super) async fn hear_heartbeats(self: &Arc<Self>) -> Result<(), ClusterError> {
        self.on_each(ALIVE.to_string(), |me, beat| async move {
            if let Ok(node) = std::str::from_utf8(&beat.payload) {
                me.heard_of(node);
            }
        })
        .await
    }

    pub(super) fn heard_of(&self, node: &str) {
        if node != self.node {
            lock(&self.alive).insert(node.to_string(), Instant::now());
            self.heard_again(node);
        }
    }

    /// Every beat: says this node is alive, lets the seats of silent nodes' clients wait, and
    /// attaches local clients again to rooms that changed owner.
    pub(super) async fn watch_owners(self: Arc<Self>) {
        let mut tick = tokio::time::interval(BEAT);
        loop {
            tick.tick().await;
            if self.hub().is_none() {
                return;
            }
            let _ = self.nats.publish(ALIVE, self.node.clone().into()).await;
            self.drop_silent_nodes_clients();
            self.forget_closed();
            if self.reconnected.swap(false, Ordering::Relaxed) {
                let me = self.clone();
                tokio::spawn(async move { me.ask_every_stream_again().await });
            }
            for (room, conns) in self.attached_elsewhere() {
                self.check_owner(room, &conns).await;
            }
        }
    }

    /// The stand-ins of clients whose node went silent: their connections are as good as
    /// closed, and the room hears so (a page's seat waits for it to come back elsewhere).
    fn drop_silent_nodes_clients(&self) {
        let after = (self.lease * 2).max(SILENT_AT_LEAST);
        let silent: Vec<String> = lock(&self.alive)
            .iter()
            .filter(|(_, seen)| seen.elapsed() > after)
            .map(|(node, _)| node.clone())
            .collect();
        if silent.is_empty() {
            return;
        }
        let gone: Vec<(u32, crate::rooms::Peer)> = {
            let mut stand_ins = lock(&self.stand_ins);
            let keys: Vec<_> = stand_ins
                .keys()
                .filter(|(_, node, _)| silent.contains(node))
                .cloned()
                .collect();
            keys.into_iter()
                .filter_map(|k| stand_ins.remove(&k).map(|p| (k.0, p)))
                .collect()
        };
        for (room, peer) in gone {
            tracing::warn!(
                "room {room}: a client's node stopped answering; its connection is closed"
            );
            peer.outbox.close();
            self.deliver_here(room, RoomEvent::Leave { peer, leave: None });
        }
        lock(&self.seen_seq).retain(|(_, node, _), _| !silent.contains(node));
        lock(&self.sent_logs).retain(|(_, node, _), _| !silent.contains(node));
        let mut alive = lock(&self.alive);
        silent.iter().for_each(|n| {
            alive.remove(n);
        });
    }

    /// Asks who owns `room`; attaches `conns` again when that changed, taking the room over
    /// when nobody owns it.
    pub(super) async fn check_owner(self: &Arc<Self>, room: u32, conns: &[crate::rooms::ConnId]) {
        let asked = self.nats.request(room_subject(room), PING.into()).await;
        match asked {
            Ok(answer) => {
                let Some(epoch) = accepted_by(&answer.payload) else {
                    return;
                };
                for &conn in conns {
                    if self.moved_on(conn, room, epoch) {
                        let peer = lock(&self.local_peers).get(&conn).cloned();
                        self.send_attachment_again(conn, room, peer).await;
                    }
                }
            }
            Err(e) if owner_gone(&e) => {
                // Its local clients are attached again by the claim.
                self.claim(room).await;
            }
            Err(e) => tracing::debug!("room {room}: its owner did not answer: {e}"),
        }
    }
}
