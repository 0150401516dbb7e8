//! Many nodes, one owner per room (docs/cluster.md). Every node accepts every client; each room
//! runs on the one node that holds its lease ([`crate::storage::leases`]). A client's events go through the
//! hub's router ([`crate::rooms::Elsewhere`]), here: to the local hub when this node owns the
//! room, else over NATS to the owner (request/reply on the room's subject, which only the owner
//! subscribes to; a former owner that lingers stays silent and gives the room up). A room
//! nobody owns is claimed by the node that first needs it. The owner's room writes to a stand-in for each remote client, whose lines travel back to
//! the client's node ([`wire::Delivery`]).
//!
//! Subjects: `arbiter.room.<room>` (commands for the room's owner), `arbiter.node.<node>`
//! (deliveries for a node's clients), `arbiter.rooms` (every node's list of its rooms),
//! `arbiter.alive` (every node's heartbeat).

pub mod journal;
pub mod wire;

mod attach;
mod drain;
mod gateway;
mod identity;
mod owner;
mod reach;
mod repeats;
mod resend;
mod rooms;
mod watchdog;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::games::Registry;
use crate::rooms::{ConnId, Elsewhere, Hub, Peer, RoomEvent};
use crate::storage::leases::{LeaseError, Leases};
use crate::storage::Storage;
pub use drain::Drained;
use journal::{ClusterJournal, Ownership};

/// How a node joins a cluster.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    /// The NATS server (`nats://host:port`).
    pub nats: String,
    /// This node's name, unique in the cluster.
    pub node: String,
    /// How often this node renews its leases (a third of their length).
    pub renew_every: Duration,
    /// How long a lease lasts unrenewed.
    pub lease: Duration,
    /// The cluster this node's database belongs to, announced on NATS; `None` skips the
    /// check (nodes of one process on leases in memory, in tests).
    pub identity: Option<ClusterIdentity>,
}

/// A cluster's identity: the id its database holds (made with the database) and that database,
/// for messages. A node refuses to join a NATS whose nodes announce another.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClusterIdentity {
    pub id: String,
    /// `host:port/database`, never a password.
    pub db: String,
}

impl ClusterConfig {
    /// A node of the cluster at `nats` named `node`, whose leases last `lease`.
    pub fn new(nats: String, node: String, lease: Duration) -> ClusterConfig {
        ClusterConfig {
            nats,
            node,
            renew_every: lease / 3,
            lease,
            identity: None,
        }
    }

    /// A node's name must be one NATS subject token.
    pub fn check_node_name(name: &str) -> Result<(), BadNodeName> {
        let fits = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if name.is_empty() || name.len() > 64 || !name.chars().all(fits) {
            return Err(BadNodeName(name.to_string()));
        }
        Ok(())
    }
}

/// A node name that cannot be a NATS subject token.
#[derive(Debug, thiserror::Error)]
#[error("`{0}`: a node's name is 1 to 64 letters, digits, - and _")]
pub struct BadNodeName(String);

/// Why a node could not join its cluster.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("cannot reach NATS at {url}: {source}")]
    Nats {
        url: String,
        source: async_nats::ConnectError,
    },
    #[error(transparent)]
    OtherCluster(Box<OtherCluster>),
    #[error("cannot subscribe to {subject}: {source}")]
    Subscribe {
        subject: String,
        source: async_nats::SubscribeError,
    },
}

/// A NATS that carries another cluster than this node's database holds.
#[derive(Debug, thiserror::Error)]
#[error(
    "NATS at {nats} already carries cluster {} (node {node} on database {}), but this node's \
     database {} holds cluster {}: a cluster's nodes share one database and one NATS; give \
     this node the others' --db, or a NATS of its own",
    theirs.id, theirs.db, ours.db, ours.id
)]
pub struct OtherCluster {
    pub nats: String,
    pub ours: ClusterIdentity,
    pub theirs: ClusterIdentity,
    /// The node that answered for the other cluster.
    pub node: String,
}

/// This node's part of the cluster.
pub struct Cluster {
    node: String,
    nats: async_nats::Client,
    hub: Weak<Hub>,
    registry: Arc<Registry>,
    leases: Arc<dyn Leases>,
    store: Storage,
    /// How long a lease lasts unrenewed.
    lease: Duration,
    /// Rooms this node owns, with their epochs.
    owned: Mutex<HashMap<u32, Owned>>,
    /// Each local connection's events, in order, to wherever their rooms are.
    forwarders: Mutex<HashMap<ConnId, mpsc::UnboundedSender<(u32, RoomEvent)>>>,
    /// Local connections that sent events to other nodes: where their deliveries go.
    local_peers: Mutex<HashMap<ConnId, Peer>>,
    /// Stand-ins for other nodes' clients in rooms owned here, by (room, node, connection).
    stand_ins: Mutex<HashMap<(u32, String, ConnId), Peer>>,
    /// The last command taken from each remote connection, by (room, node, connection).
    seen_seq: Mutex<HashMap<(u32, String, ConnId), u64>>,
    /// What attached each local connection to each room, to send again to a new owner.
    attachments: Mutex<HashMap<(ConnId, u32), attach::Attachment>>,
    /// When each other node was last heard of (its heartbeat on `arbiter.alive`).
    alive: Mutex<HashMap<String, tokio::time::Instant>>,
    /// Other nodes not heard of lately: their clients' time stands in rooms owned here.
    unheard: Mutex<std::collections::HashSet<String>>,
    /// What each stand-in here sent, to send again (by room, node, connection).
    sent_logs: Mutex<HashMap<(u32, String, ConnId), resend::SharedLog>>,
    /// The last delivery passed on to each local connection, per stream.
    received: Mutex<resend::Received>,
    /// Set when this node has connected to NATS again: lines may have been lost meanwhile.
    reconnected: Arc<std::sync::atomic::AtomicBool>,
    /// Rooms being claimed here right now (one claim at a time: the lease is granted again to
    /// its holder, so a second would restore and serve the room twice).
    claiming: Mutex<std::collections::HashSet<u32>>,
    /// Per-room warnings said lately, so retries every 100 ms do not repeat them.
    repeats: Mutex<repeats::Repeats>,
    /// Set once this node drains (SIGTERM): it claims no room itself and hands its own over.
    draining: std::sync::atomic::AtomicBool,
    /// Stops the task taking rooms other nodes hand over (when this node drains); answered
    /// once NATS has taken its unsubscription.
    taking: Mutex<Option<tokio::sync::oneshot::Sender<tokio::sync::oneshot::Sender<()>>>>,
}

struct Owned {
    epoch: u64,
    /// The task answering the room's commands; aborted when the room is given up.
    commands: tokio::task::AbortHandle,
    /// Until when the lease is surely this node's, by this node's clock: the last claim or
    /// renewal was sent before the database stamped it, so its lease lasts at least this long.
    sure_until: tokio::time::Instant,
    /// Being handed to another node (a drain): it takes no new command, but what it was sent
    /// already is still stored under its epoch.
    leaving: bool,
}

/// How long a node waits for another node's answer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// A lease is taken as lapsed this long before it would by the database's clock (clock drift,
/// the time a request takes).
const LEASE_MARGIN: Duration = Duration::from_secs(1);
/// How soon a failed renewal of the leases is tried again.
const RENEW_AGAIN: Duration = Duration::from_millis(500);

fn room_subject(room: u32) -> String {
    format!("arbiter.room.{room}")
}

/// This process's identity in the cluster: the node's name and a number drawn at start. A node
/// restarted under its name is a new node to the others — connection numbers start again at 1,
/// so its predecessor's clients must never be taken for its own; they are dropped once the
/// predecessor is silent (the watchdog).
fn incarnation(name: &str) -> String {
    format!("{name}-{:08x}", rand::random::<u32>())
}

/// Connects to NATS at `url`; `reconnected` is set each time the connection is made again.
async fn connect(
    url: &str,
    reconnected: Arc<std::sync::atomic::AtomicBool>,
) -> Result<async_nats::Client, ClusterError> {
    async_nats::ConnectOptions::new()
        .event_callback(move |event| {
            if matches!(event, async_nats::Event::Connected) {
                reconnected.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            async {}
        })
        // A live owner answers in milliseconds; one that does not within this is paused,
        // cut off or dead, and its room may be claimed once its lease lapses.
        .request_timeout(Some(REQUEST_TIMEOUT))
        .connect(url)
        .await
        .map_err(|source| ClusterError::Nats {
            url: url.to_string(),
            source,
        })
}

fn node_subject(node: &str) -> String {
    format!("arbiter.node.{node}")
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Cluster {
    /// Joins the cluster: connects to NATS, takes this node's deliveries, renews its leases,
    /// and routes `hub`'s events from now on.
    pub async fn join(
        config: &ClusterConfig,
        hub: &Arc<Hub>,
        registry: Arc<Registry>,
        leases: Arc<dyn Leases>,
        store: Storage,
    ) -> Result<Arc<Cluster>, ClusterError> {
        let reconnected = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let nats = connect(&config.nats, reconnected.clone()).await?;
        if let Some(ours) = &config.identity {
            identity::refuse_other_cluster(&nats, &config.nats, ours).await?;
        }
        identity::warn_if_name_taken(&nats, &config.node).await;
        let cluster = Arc::new(Cluster {
            node: incarnation(&config.node),
            nats,
            hub: Arc::downgrade(hub),
            registry,
            leases,
            store,
            lease: config.lease,
            owned: Mutex::default(),
            forwarders: Mutex::default(),
            local_peers: Mutex::default(),
            stand_ins: Mutex::default(),
            seen_seq: Mutex::default(),
            attachments: Mutex::default(),
            alive: Mutex::default(),
            unheard: Mutex::default(),
            sent_logs: Mutex::default(),
            received: Mutex::default(),
            reconnected,
            claiming: Mutex::default(),
            repeats: Mutex::default(),
            draining: Default::default(),
            taking: Mutex::default(),
        });
        cluster.answer_to_name(&config.node).await?;
        if let Some(ours) = config.identity.clone() {
            cluster.announce(ours).await?;
        }
        cluster.take_deliveries().await?;
        cluster.answer_room_lists().await?;
        cluster.hear_heartbeats().await?;
        cluster.take_handed_rooms().await?;
        tokio::spawn(cluster.clone().keep_leases(config.renew_every));
        tokio::spawn(cluster.clone().watch_owners());
        tokio::spawn(cluster.clone().watch_reach());
        let journal = ClusterJournal::new(cluster.store.clone(), Arc::new(Owner(cluster.clone())));
        hub.route_through(Arc::new(Router(cluster.clone())), journal);
        Ok(cluster)
    }

    /// Subscribes to `subject` and hands each message to `handle` with this node, while the
    /// node lives.
    async fn on_each<F, Fut>(
        self: &Arc<Self>,
        subject: String,
        handle: F,
    ) -> Result<(), ClusterError>
    where
        F: Fn(Arc<Cluster>, async_nats::Message) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send,
    {
        let mut messages = self
            .nats
            .subscribe(subject.clone())
            .await
            .map_err(|source| ClusterError::Subscribe { subject, source })?;
        let me = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(message) = futures_util::StreamExt::next(&mut messages).await {
                let Some(me) = me.upgrade() else { return };
                handle(me, message).await;
            }
        });
        Ok(())
    }

    /// Warns about `room`, unless a warning of this `kind` was said for it within the last
    /// 10 s (see [`repeats`]): the next one says how many were held back.
    fn warn_room(&self, room: u32, kind: &'static str, text: impl std::fmt::Display) {
        let now = tokio::time::Instant::now();
        if let Some(held) = lock(&self.repeats).say(room, kind, now) {
            let more = repeats::held_back(held);
            tracing::warn!("room {room}: {text}{more}");
        }
    }

    fn hub(&self) -> Option<Arc<Hub>> {
        self.hub.upgrade()
    }

    fn epoch_of(&self, room: u32) -> Option<u64> {
        lock(&self.owned).get(&room).map(|o| o.epoch)
    }

    /// The epoch of a room this node owns and runs commands for (not one it is handing over).
    fn serving_epoch(&self, room: u32) -> Option<u64> {
        let owned = lock(&self.owned);
        owned.get(&room).filter(|o| !o.leaving).map(|o| o.epoch)
    }

    /// Renews the leases of the rooms owned here; gives up those lost (another node took them)
    /// and those whose room has closed. A renewal that failed is tried again soon: once the
    /// database is back the leases are renewed before they lapse, so a short outage drops no
    /// room.
    async fn keep_leases(self: Arc<Self>, every: Duration) {
        let mut wait = every;
        let mut failed_in_a_row = 0u32;
        loop {
            tokio::time::sleep(wait).await;
            let Some(hub) = self.hub() else { return };
            let still = self.release_closed(&hub).await;
            match self.renew_held(still).await {
                Ok(()) => {
                    wait = every;
                    if std::mem::take(&mut failed_in_a_row) > 0 {
                        tracing::info!("leases renewed again");
                    }
                }
                Err(e) => {
                    wait = RENEW_AGAIN;
                    failed_in_a_row += 1;
                    // Said once, then every 10 s while it lasts.
                    if failed_in_a_row % 20 == 1 {
                        tracing::error!("leases not renewed ({failed_in_a_row} tries): {e}");
                    }
                }
            }
            self.give_up_unsure();
        }
    }

    /// Releases the leases of rooms closed here; the rooms still running, with their epochs.
    async fn release_closed(&self, hub: &Hub) -> Vec<(u32, u64)> {
        let held: Vec<(u32, u64)> = lock(&self.owned)
            .iter()
            .map(|(room, o)| (*room, o.epoch))
            .collect();
        let (still, closed): (Vec<_>, Vec<_>) =
            held.into_iter().partition(|(room, _)| hub.is_active(*room));
        for (room, epoch) in closed {
            self.give_up(room);
            if let Err(e) = self.leases.release(room, &self.node, epoch).await {
                tracing::warn!("room {room}: lease not released: {e}");
            }
        }
        still
    }

    /// Renews the leases of `still`; the rooms whose lease was lost are dropped here.
    async fn renew_held(&self, still: Vec<(u32, u64)>) -> Result<(), LeaseError> {
        let sent = tokio::time::Instant::now();
        let renewing: Vec<u32> = still.iter().map(|(room, _)| *room).collect();
        let lost = self.leases.renew(&self.node, still.clone()).await?;
        self.renewed(&renewing, sent);
        for room in lost {
            let epoch = still.iter().find(|(r, _)| *r == room).map(|(_, e)| *e);
            self.lost_lease(room, epoch.unwrap_or_default()).await;
        }
        Ok(())
    }

    /// A renewal of `room`'s lease at `epoch` failed. A room this node claimed again since
    /// (a newer epoch, its own) is kept without a word; otherwise the room is dropped here,
    /// and the log says why: another node holds it, or the lease lapsed unrenewed.
    async fn lost_lease(&self, room: u32, epoch: u64) {
        if self.epoch_of(room) != Some(epoch) {
            return;
        }
        let holder = self.leases.holder(room).await.ok().flatten();
        if let Some(note) = lost_lease_note(&self.node, holder) {
            tracing::warn!("room {room}: {note}; dropped here");
        }
        self.give_up(room);
    }

    /// The leases renewed by a request sent at `sent` last at least a lease from then.
    fn renewed(&self, rooms: &[u32], sent: tokio::time::Instant) {
        let sure_until = sent + self.lease.saturating_sub(LEASE_MARGIN);
        let mut owned = lock(&self.owned);
        for room in rooms {
            if let Some(o) = owned.get_mut(room) {
                o.sure_until = sure_until;
            }
        }
    }

    /// Gives up the rooms whose lease this node cannot be sure of any more (it was paused, or
    /// cut off from the database): another node may own them by now.
    fn give_up_unsure(&self) {
        let now = tokio::time::Instant::now();
        let unsure: Vec<u32> = lock(&self.owned)
            .iter()
            .filter(|(_, o)| o.sure_until <= now)
            .map(|(room, _)| *room)
            .collect();
        for room in unsure {
            tracing::warn!("room {room}: its lease was not renewed in time; dropped here");
            self.give_up(room);
        }
    }

    /// Whether this node may act for `room` now: it owns the room and its lease is surely
    /// still its own.
    fn holds(&self, room: u32) -> bool {
        let now = tokio::time::Instant::now();
        lock(&self.owned)
            .get(&room)
            .is_some_and(|o| o.sure_until > now)
    }

    /// Stops answering for `room`; a room still running here (its lease was lost to another
    /// node) is dropped, so it can never run twice: its clients are attached to the new owner
    /// by the watchdog.
    fn give_up(&self, room: u32) {
        if let Some(owned) = lock(&self.owned).remove(&room) {
            owned.commands.abort();
        }
        if let Some(hub) = self.hub() {
            hub.abandon(room);
        }
    }
}

/// Why this node (`me`) lost a lease, given who holds it now; `None` when it is this node's
/// own again (nothing was lost: the log would only alarm).
fn lost_lease_note(me: &str, holder: Option<(String, u64)>) -> Option<String> {
    match holder {
        Some((node, _)) if node == me => None,
        Some((node, epoch)) => Some(format!("lease lost to node {node} (epoch {epoch})")),
        None => Some(
            "its lease lapsed before this node renewed it (the database or this node was slow)"
                .into(),
        ),
    }
}

/// What the cluster's journal asks of this node: its leases.
struct Owner(Arc<Cluster>);

impl Ownership for Owner {
    fn epoch_of(&self, room: u32) -> Option<u64> {
        self.0.epoch_of(room)
    }

    fn holds(&self, room: u32) -> bool {
        self.0.holds(room)
    }

    fn hand_over(&self, room: u32) {
        let Some(epoch) = self.0.epoch_of(room) else {
            return;
        };
        self.0.give_up(room);
        let cluster = self.0.clone();
        tokio::spawn(async move {
            // When the store is away this fails, and the lease lapses instead.
            if let Err(e) = cluster.leases.release(room, &cluster.node, epoch).await {
                tracing::warn!("room {room}: lease not released: {e}");
            }
        });
    }
}

/// The hub's way into the cluster.
struct Router(Arc<Cluster>);

impl Elsewhere for Router {
    fn route(&self, id: u32, event: RoomEvent) {
        self.0.forward(id, event);
    }

    fn rooms_page(
        &self,
        after: Option<u32>,
        limit: usize,
    ) -> futures_util::future::BoxFuture<'_, crate::rooms::RoomsPage> {
        self.0.rooms_of_all(after, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_lost_names_its_new_holder_and_is_no_news_when_that_is_this_node() {
        let me = "a-0000000a";
        assert_eq!(lost_lease_note(me, Some((me.into(), 4))), None);
        let other = lost_lease_note(me, Some(("b-0000000b".into(), 4))).unwrap();
        assert_eq!(other, "lease lost to node b-0000000b (epoch 4)");
        let lapsed = lost_lease_note(me, None).unwrap();
        assert!(
            lapsed.contains("lapsed") && !lapsed.contains("another node"),
            "{lapsed}"
        );
    }
}
