//! The hub: routes each message to its room's task, starting the task on first use and
//! forgetting it once the room is empty; lists rooms and stops them all on shutdown.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::guard::Guard;
use super::journal::{Journal, LocalJournal};
use super::room::{RestoreError, RestoredGame, Room};
use super::{log_command, send, Peer, RoomContext, RoomEvent, RoomInfo, RoomSetup};
use crate::games::Registry;
use crate::storage::Storage;

/// Routes events to rooms, starting a room's task on first use and forgetting it once empty.
///
/// Events are sent and rooms forgotten under one lock, so an event can never land in a room
/// that is shutting down: it either reaches the room before it checks its queue, or starts a new
/// one.
#[derive(Default)]
pub struct Hub {
    rooms: std::sync::Mutex<HashMap<u32, mpsc::UnboundedSender<RoomEvent>>>,
    weak_self: std::sync::OnceLock<std::sync::Weak<Hub>>,
    context: std::sync::OnceLock<(Storage, Arc<Registry>, RoomSetup, Arc<Guard>)>,
    /// Where rooms write: one server's journal, or the cluster's once this node joins one.
    journal: std::sync::RwLock<Option<Arc<dyn Journal>>>,
    closing: AtomicBool,
    /// Spectators of rooms that have no task (no one has sat down there): a peer each, handed
    /// to the room when it starts, so watching empty rooms costs no room.
    idle_watchers: std::sync::Mutex<HashMap<u32, Vec<Peer>>>,
    /// In a cluster: where every event goes first, to find the room's owner.
    elsewhere: std::sync::OnceLock<Arc<dyn Elsewhere>>,
}

/// A cluster's router (see [`crate::cluster`]): events for rooms go through it, and those of
/// rooms this node owns come back through [`Hub::deliver`]. Defined here so the rooms do not
/// depend on the cluster.
pub trait Elsewhere: Send + Sync + 'static {
    fn route(&self, id: u32, event: RoomEvent);
    /// One page of the open rooms of every node, as the API shows them.
    fn rooms_page(&self, after: Option<u32>, limit: usize) -> BoxFuture<'_, RoomsPage>;
}

/// A page of rooms as JSON, and the number to ask the next page after.
pub type RoomsPage = (Vec<serde_json::Value>, Option<u32>);

impl Hub {
    pub fn new(store: Storage, registry: Arc<Registry>, setup: RoomSetup) -> Arc<Hub> {
        let hub = Arc::new(Hub::default());
        let _ = hub.weak_self.set(Arc::downgrade(&hub));
        let guard = Guard::new(setup.seat_limits);
        *hub.journal.write().unwrap_or_else(|e| e.into_inner()) =
            Some(LocalJournal::new(store.clone()));
        let _ = hub.context.set((store, registry, setup, guard));
        hub
    }

    fn room_context(&self) -> Arc<RoomContext> {
        let hub = self
            .weak_self
            .get()
            .and_then(|w| w.upgrade())
            .expect("hub alive while used");
        let (store, registry, setup, guard) =
            self.context.get().cloned().expect("hub has a context");
        let journal = self.journal.read().unwrap_or_else(|e| e.into_inner());
        Arc::new(RoomContext {
            journal: journal.clone().expect("a journal from the start"),
            store,
            hub,
            registry,
            setup,
            guard,
        })
    }

    /// Starts room `id`'s task, with the spectators that were waiting for it.
    fn spawn_room(&self, id: u32) -> mpsc::UnboundedSender<RoomEvent> {
        let room = Room::new(id, self.room_context());
        self.run_room(id, room)
    }

    /// Runs `room`'s task, with the spectators that were waiting for it.
    fn run_room(&self, id: u32, room: Room) -> mpsc::UnboundedSender<RoomEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        let watchers = self
            .idle_watchers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id)
            .unwrap_or_default();
        tokio::spawn(room.with_spectators(watchers).run(rx, tx.downgrade()));
        tx
    }

    /// A spectator's event for a room with no task: kept or dropped here, no room started.
    /// `None` when it was handled; the event back when a room must take it.
    fn idle_room_event(&self, id: u32, event: RoomEvent) -> Option<RoomEvent> {
        let mut idle = self.idle_watchers.lock().unwrap_or_else(|e| e.into_inner());
        let forget = |idle: &mut HashMap<u32, Vec<Peer>>, conn| {
            if let Some(peers) = idle.get_mut(&id) {
                peers.retain(|p| p.id != conn && !p.outbox.is_closed());
                if peers.is_empty() {
                    idle.remove(&id);
                }
            }
        };
        match event {
            RoomEvent::Watch { peer, watch } => {
                log_command(None, &peer.addr, &watch);
                forget(&mut idle, peer.id);
                let snapshot = Room::new(id, self.room_context()).snapshot();
                send(&peer, snapshot, None);
                idle.entry(id).or_default().push(peer);
                None
            }
            RoomEvent::Unwatch { conn } => {
                forget(&mut idle, conn);
                None
            }
            RoomEvent::Leave { peer, .. } => {
                forget(&mut idle, peer.id);
                None
            }
            other => Some(other),
        }
    }

    /// Sends every event through `router` first, and rooms write through `journal` (a cluster
    /// node, before any room runs).
    pub fn route_through(&self, router: Arc<dyn Elsewhere>, journal: Arc<dyn Journal>) {
        let _ = self.elsewhere.set(router);
        *self.journal.write().unwrap_or_else(|e| e.into_inner()) = Some(journal);
    }

    /// Sends an event to room `id`: here, or in a cluster to whichever node owns the room.
    pub fn send(&self, id: u32, event: RoomEvent) {
        match self.elsewhere.get() {
            Some(router) => router.route(id, event),
            None => self.deliver(id, event),
        }
    }

    /// Whether room `id` has a task or spectators waiting here.
    pub fn is_active(&self, id: u32) -> bool {
        let running = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        let idle = self.idle_watchers.lock().unwrap_or_else(|e| e.into_inner());
        running.contains_key(&id) || idle.contains_key(&id)
    }

    /// Delivers an event to room `id` on this node, starting the room if needed (not for
    /// spectators of a room where no one sits: they wait in the hub).
    pub fn deliver(&self, id: u32, event: RoomEvent) {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        let event = match rooms.contains_key(&id) {
            true => event,
            false => match self.idle_room_event(id, event) {
                Some(event) => event,
                None => return,
            },
        };
        let tx = rooms.entry(id).or_insert_with(|| self.spawn_room(id));
        if let Err(mpsc::error::SendError(event)) = tx.send(event) {
            let fresh = self.spawn_room(id);
            let _ = fresh.send(event);
            rooms.insert(id, fresh);
        }
    }

    /// Takes over room `id`'s running game from the store (its owner stopped): false when the
    /// room already runs here. Spectators waiting for the room join it.
    pub fn restore(&self, id: u32, stored: RestoredGame) -> Result<bool, RestoreError> {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        if rooms.contains_key(&id) {
            return Ok(false);
        }
        let room = Room::restored(id, self.room_context(), stored)?;
        rooms.insert(id, self.run_room(id, room));
        Ok(true)
    }

    /// One server started again: each game its store holds without an end carries on in its
    /// room, as a cluster node takes a room over (pages come back with their seat tokens;
    /// course clients cannot, and their games end as a disconnect does). How many were.
    pub async fn restore_stored_games(&self) -> usize {
        let (store, registry, ..) = self.context.get().cloned().expect("hub has a context");
        let rooms = match store.live_rooms().await {
            Ok(rooms) => rooms,
            Err(e) => {
                tracing::error!("the games left running cannot be read: {e}");
                return 0;
            }
        };
        let mut restored = 0;
        for room in rooms {
            let live = match store.live_game(room).await {
                Ok(Some(live)) => live,
                Ok(None) => continue,
                Err(e) => {
                    tracing::error!("room {room}: its running game cannot be read: {e}");
                    continue;
                }
            };
            let taken =
                RestoredGame::from_live(live, &registry, false).and_then(|g| self.restore(room, g));
            match taken {
                Ok(_) => restored += 1,
                Err(e) => tracing::error!("room {room}: its running game not restored: {e}"),
            }
        }
        if restored > 0 {
            tracing::warn!("restored {restored} games left running by the last server");
        }
        restored
    }

    /// Drops room `id` without a word to anyone (another node owns it now): its task ends once
    /// it has nothing left to do, and its writes are refused by the store's fencing anyway.
    pub fn abandon(&self, id: u32) {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        if rooms.remove(&id).is_some() {
            // Why is the caller's to say (a drain hands rooms over as planned; a lost lease
            // warns): this only records that the room left this node.
            tracing::info!("room {id}: let go here; its next owner carries its game on");
        }
    }

    /// Forgets an empty room unless an event is already waiting for it; true when forgotten.
    pub(super) fn try_forget(
        &self,
        id: u32,
        me: &mpsc::WeakUnboundedSender<RoomEvent>,
        rx: &mpsc::UnboundedReceiver<RoomEvent>,
    ) -> bool {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        if !rx.is_empty() {
            return false;
        }
        let mine = me
            .upgrade()
            .is_some_and(|m| rooms.get(&id).is_some_and(|t| t.same_channel(&m)));
        if mine {
            rooms.remove(&id);
        }
        true
    }

    /// The guard all rooms share (seat limits, token back-off).
    pub fn guard(&self) -> Option<Arc<Guard>> {
        self.context.get().map(|c| c.3.clone())
    }

    /// Whether the server is stopping (no new games start).
    pub fn is_closing(&self) -> bool {
        self.closing.load(AtomicOrdering::Relaxed)
    }

    fn senders(&self) -> Vec<mpsc::UnboundedSender<RoomEvent>> {
        let rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        rooms.values().cloned().collect()
    }

    /// Every open room's state.
    pub async fn rooms(&self) -> Vec<RoomInfo> {
        let mut out = Vec::new();
        for tx in self.senders() {
            let (reply, wait) = oneshot::channel();
            if tx.send(RoomEvent::Info { reply }).is_ok() {
                if let Ok(Ok(info)) = tokio::time::timeout(Duration::from_secs(2), wait).await {
                    out.push(info);
                }
            }
        }
        out.sort_by_key(|r| r.room);
        out
    }

    /// One page of the open rooms as the API shows them: this node's, or in a cluster every
    /// node's.
    pub async fn rooms_everywhere(&self, after: Option<u32>, limit: usize) -> RoomsPage {
        if let Some(router) = self.elsewhere.get() {
            return router.rooms_page(after, limit).await;
        }
        self.rooms_json(after, limit).await
    }

    /// This node's page of rooms, as JSON.
    pub async fn rooms_json(&self, after: Option<u32>, limit: usize) -> RoomsPage {
        let (rooms, next) = self.rooms_page(after, limit).await;
        let rooms = rooms
            .iter()
            .map(|r| serde_json::to_value(r).expect("rooms serialise"));
        (rooms.collect(), next)
    }

    /// One page of the open rooms: those numbered above `after`, at most `limit`, in order, and
    /// the number of the last one when more follow (only the page's rooms are asked).
    pub async fn rooms_page(
        &self,
        after: Option<u32>,
        limit: usize,
    ) -> (Vec<RoomInfo>, Option<u32>) {
        let mut numbered: Vec<(u32, mpsc::UnboundedSender<RoomEvent>)> = {
            let rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
            rooms
                .iter()
                .filter(|(id, _)| after.is_none_or(|a| **id > a))
                .map(|(id, tx)| (*id, tx.clone()))
                .collect()
        };
        numbered.sort_unstable_by_key(|(id, _)| *id);
        let more = numbered.len() > limit;
        numbered.truncate(limit);
        let next = numbered.last().map(|(id, _)| *id).filter(|_| more);
        let mut out = Vec::with_capacity(numbered.len());
        for (_, tx) in numbered {
            let (reply, wait) = oneshot::channel();
            if tx.send(RoomEvent::Info { reply }).is_ok() {
                if let Ok(Ok(info)) = tokio::time::timeout(Duration::from_secs(2), wait).await {
                    out.push(info);
                }
            }
        }
        (out, next)
    }

    /// Stops new games, lets running ones go on for up to `grace`, then ends the rest as
    /// interrupted (END with reason INTERRUPTED to their players).
    pub async fn shut_down(&self, grace: Duration) {
        self.closing.store(true, AtomicOrdering::Relaxed);
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if !self.rooms().await.iter().any(|r| r.status == "playing") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut waits = Vec::new();
        for tx in self.senders() {
            let (done, wait) = oneshot::channel();
            if tx.send(RoomEvent::Shutdown { done }).is_ok() {
                waits.push(wait);
            }
        }
        for wait in waits {
            let _ = tokio::time::timeout(Duration::from_secs(5), wait).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::protocol::{Message, WatchCommand, STATE};
    use crate::rooms::guard::SeatLimits;
    use crate::rooms::outbox::{outbox, Inbox};
    use crate::rooms::Peer;
    use crate::rooms::Ready;
    use crate::storage::memory::MemoryStore;

    fn hub() -> Arc<Hub> {
        let setup = RoomSetup::for_tests();
        let registry = Registry::of::<arbiter_ai::Standard>();
        Hub::new(Arc::new(MemoryStore::default()), registry, setup)
    }

    fn peer(id: u64) -> (Peer, Inbox) {
        let (out, inbox) = outbox();
        let peer = Peer {
            id,
            addr: format!("10.0.{}.{}:1", id >> 8, id & 255),
            outbox: out,
            awaited: Default::default(),
            seated: Default::default(),
            changed: Default::default(),
            extension: Default::default(),
            moves_known: Default::default(),
            game_over: Default::default(),
        };
        (peer, inbox)
    }

    async fn next_state(inbox: &mut Inbox) -> Message {
        let line = tokio::time::timeout(Duration::from_secs(5), inbox.next())
            .await
            .expect("a message in time")
            .expect("open");
        inbox.written(&line);
        let m = Message::parse(&line).unwrap();
        assert_eq!(m.op, STATE, "{m:?}");
        m
    }

    #[tokio::test]
    async fn watching_empty_rooms_starts_no_room_and_a_game_there_is_still_seen() {
        let hub = hub();
        let mut inboxes = Vec::new();
        for room in 1..=2000u32 {
            let (peer, inbox) = peer(u64::from(room));
            let watch = WatchCommand::new(room.to_string());
            hub.send(room, RoomEvent::Watch { peer, watch });
            inboxes.push(inbox);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            hub.senders().len(),
            0,
            "a room task for each watched empty room"
        );
        // Every spectator has its snapshot; room 5's sees the game that starts there.
        let first = next_state(&mut inboxes[0]).await;
        assert!(first.data1.contains(r#""status":"waiting""#), "{first:?}");
        let watcher = &mut inboxes[4];
        next_state(watcher).await;
        let request = crate::games::Requested {
            game: hub
                .context
                .get()
                .unwrap()
                .1
                .definition("surakarta")
                .unwrap(),
            options: Vec::new(),
            timeout_ms: None,
            clock: None,
            opening_timeout_ms: None,
            training: false,
            rated: false,
        };
        for (id, colour) in [
            (9001, arbiter_core::Side::First),
            (9002, arbiter_core::Side::Second),
        ] {
            let (peer, inbox) = peer(id);
            std::mem::forget(inbox);
            let name = format!("p{id}");
            let ready = Ready::for_tests(&name, "5", Some(colour), request.clone());
            let event = RoomEvent::Ready { peer, ready };
            hub.send(5, event);
        }
        let started = next_state(watcher).await;
        assert!(
            started.data1.contains(r#""status":"playing""#),
            "{started:?}"
        );
        // Unwatching an idle room forgets the spectator without starting a room.
        hub.send(7, RoomEvent::Unwatch { conn: 7 });
        assert_eq!(hub.senders().len(), 1);
    }

    /// READY in a fresh room starts that room, so rooms one address or one network can keep
    /// alive are capped by its seats: a refused READY leaves no room behind.
    #[tokio::test]
    async fn rooms_started_by_ready_are_capped_per_address_and_per_network() {
        let hub = hub();
        let request = surakarta_request(&hub);
        let limits = SeatLimits::default();
        let ready = |room: u32, id: u64, addr: String| {
            let (mut peer, inbox) = peer(id);
            peer.addr = addr;
            std::mem::forget(inbox);
            hub.send(room, ready_event(peer, &room.to_string(), request.clone()));
        };
        for room in 1..=1000u32 {
            ready(room, u64::from(room), "10.0.0.1:1".into());
        }
        settle(&hub, limits.per_ip).await;
        assert_eq!(hub.senders().len(), limits.per_ip, "rooms of one address");
        for room in 1001..=2000u32 {
            ready(
                room,
                u64::from(room),
                format!("10.0.0.{}:1", 2 + room % 200),
            );
        }
        settle(&hub, limits.per_net).await;
        assert_eq!(hub.senders().len(), limits.per_net, "rooms of one /24");
        // Another network still starts rooms.
        ready(3000, 3000, "10.9.9.9:1".into());
        settle(&hub, limits.per_net + 1).await;
        assert_eq!(hub.senders().len(), limits.per_net + 1);
    }

    fn surakarta_request(hub: &Hub) -> crate::games::Requested {
        let game = hub.context.get().unwrap().1.definition("surakarta");
        crate::games::Requested {
            game: game.unwrap(),
            options: Vec::new(),
            timeout_ms: None,
            clock: None,
            opening_timeout_ms: None,
            training: false,
            rated: false,
        }
    }

    fn ready_event(peer: Peer, room: &str, request: crate::games::Requested) -> RoomEvent {
        let ready = Ready::for_tests(&format!("p{}", peer.id), room, None, request);
        RoomEvent::Ready { peer, ready }
    }

    /// A stopping server returns only once END has been written to a player that reads
    /// slowly; before, it returned with END still queued and the process ended without it.
    #[tokio::test]
    async fn shutting_down_waits_until_the_players_are_written_their_end() {
        let hub = hub();
        let request = surakarta_request(&hub);
        let written = Arc::new(std::sync::Mutex::new(Vec::<(u64, String)>::new()));
        let mut readers = Vec::new();
        for id in [1, 2] {
            let (player, mut inbox) = peer(id);
            hub.send(5, ready_event(player, "5", request.clone()));
            let written = written.clone();
            readers.push(tokio::spawn(async move {
                while let Some(line) = inbox.next().await {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    written.lock().unwrap().push((id, line.to_string()));
                    inbox.written(&line);
                }
            }));
        }
        settle_playing(&hub).await;
        hub.shut_down(Duration::ZERO).await;
        let lines = written.lock().unwrap().clone();
        let end =
            |(_, l): &&(u64, String)| Message::parse(l).is_ok_and(|m| m.op == crate::protocol::END);
        let ended: Vec<u64> = lines.iter().filter(end).map(|(id, _)| *id).collect();
        assert_eq!(ended.len(), 2, "{lines:?}");
        readers.iter().for_each(|r| r.abort());
    }

    async fn settle_playing(hub: &Hub) {
        for _ in 0..500 {
            if hub.rooms().await.iter().any(|r| r.status == "playing") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no game started");
    }

    /// Waits until refused rooms have closed (at most a few seconds).
    async fn settle(hub: &Hub, expected: usize) {
        for _ in 0..200 {
            if hub.senders().len() <= expected {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
