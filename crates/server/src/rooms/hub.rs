//! The hub: routes each message to its room's task, starting the task on first use and
//! forgetting it once the room is empty; lists rooms and stops them all on shutdown.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::guard::Guard;
use super::room::Room;
use super::{RoomContext, RoomEvent, RoomInfo, RoomSetup};
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
    closing: AtomicBool,
}

impl Hub {
    pub fn new(store: Storage, registry: Arc<Registry>, setup: RoomSetup) -> Arc<Hub> {
        let hub = Arc::new(Hub::default());
        let _ = hub.weak_self.set(Arc::downgrade(&hub));
        let guard = Guard::new(setup.seat_limits);
        let _ = hub.context.set((store, registry, setup, guard));
        hub
    }

    fn spawn_room(&self, id: u32) -> mpsc::UnboundedSender<RoomEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        let hub = self
            .weak_self
            .get()
            .and_then(|w| w.upgrade())
            .expect("hub alive while used");
        let (store, registry, setup, guard) =
            self.context.get().cloned().expect("hub has a context");
        let ctx = Arc::new(RoomContext {
            store,
            hub,
            registry,
            setup,
            guard,
        });
        let room = Room::new(id, ctx);
        tokio::spawn(room.run(rx, tx.downgrade()));
        tx
    }

    /// Delivers an event to room `id`, starting the room if needed.
    pub fn send(&self, id: u32, event: RoomEvent) {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        let tx = rooms.entry(id).or_insert_with(|| self.spawn_room(id));
        if let Err(mpsc::error::SendError(event)) = tx.send(event) {
            let fresh = self.spawn_room(id);
            let _ = fresh.send(event);
            rooms.insert(id, fresh);
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
