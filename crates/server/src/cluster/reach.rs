//! Whose time may run in the rooms owned here. A client of another node acts through that node:
//! while the owner does not hear the node's heartbeat (nats-server frozen or away, the node's
//! link down), the client cannot move, and its rooms hear so ([`RoomEvent::Reach`]) and stop its
//! time from when the node was last heard until it is heard again (docs/cluster.md, "Failures").
//! This is not the judgement that a node stopped (two leases, `watchdog.rs`): it only stops
//! clocks, so a late beat on a loaded node costs nobody anything.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::{lock, Cluster};
use crate::rooms::{ConnId, RoomEvent};

/// A node not heard of this long (nearly two beats of one second) is out of reach: short
/// enough to be noticed before a 3 s move clock runs out.
const UNHEARD_AFTER: Duration = Duration::from_millis(1_800);
/// How often the owner looks.
const LOOK_EVERY: Duration = Duration::from_millis(200);

impl Cluster {
    /// Every [`LOOK_EVERY`]: the rooms of clients whose node fell silent hear so.
    pub(super) async fn watch_reach(self: Arc<Self>) {
        let mut tick = tokio::time::interval(LOOK_EVERY);
        loop {
            tick.tick().await;
            if self.hub().is_none() {
                return;
            }
            for (node, last) in self.newly_unheard() {
                tracing::info!(
                    "node {node} not heard for {UNHEARD_AFTER:?}: its clients' clocks stand"
                );
                self.tell_reach(&node, Some(last));
            }
        }
    }

    /// Nodes just found silent, with when each was last heard.
    fn newly_unheard(&self) -> Vec<(String, Instant)> {
        let alive = lock(&self.alive);
        let mut unheard = lock(&self.unheard);
        alive
            .iter()
            .filter(|(_, last)| last.elapsed() > UNHEARD_AFTER)
            .filter(|(node, _)| unheard.insert(node.to_string()))
            .map(|(node, last)| (node.clone(), *last))
            .collect()
    }

    /// `node` was heard: if it had fell silent, its clients' clocks may run again.
    pub(super) fn heard_again(&self, node: &str) {
        if lock(&self.unheard).remove(node) {
            tracing::info!("node {node} heard again: its clients' clocks run");
            self.tell_reach(node, None);
        }
    }

    /// Tells every room owned here with a client of `node` whether it can be reached.
    fn tell_reach(&self, node: &str, unheard_since: Option<Instant>) {
        // The rooms know a remote client by its stand-in's connection number.
        let clients: Vec<(u32, ConnId)> = lock(&self.stand_ins)
            .iter()
            .filter(|((_, n, _), _)| n == node)
            .map(|((room, _, _), stand_in)| (*room, stand_in.id))
            .collect();
        for (room, conn) in clients {
            self.deliver_here(
                room,
                RoomEvent::Reach {
                    conn,
                    unheard_since,
                },
            );
        }
    }
}
