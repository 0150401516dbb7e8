//! A cluster room's journal (docs/cluster.md, "PostgreSQL restarts"): every write carries the
//! room's lease epoch, so a former owner's is refused; a write the store does not take is tried
//! again for as long as the lease is surely this node's (at most a minute), and otherwise the
//! room is handed over untold — the node that claims it next carries the game on from what the
//! store has, never from what players were told and the store never heard.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::time::Instant;

use crate::rooms::journal::{pause_before, Journal, NotRecorded};
use crate::storage::{Fence, GameEnd, NewGame, PlayedMove, Storage, StorageError};

/// A room waits at most this long for a store that fails while its lease is renewed (the store
/// takes leases but not this room's writes), then hands the room over.
const LONGEST_STORE_WAIT: Duration = Duration::from_secs(60);

/// What the journal needs of the node: the rooms it owns and under which lease.
pub trait Ownership: Send + Sync + 'static {
    /// The epoch of this node's lease on `room`, if it owns it.
    fn epoch_of(&self, room: u32) -> Option<u64>;
    /// Whether the lease on `room` is surely still this node's.
    fn holds(&self, room: u32) -> bool;
    /// Gives `room` up at once (its lease released), for another node to carry it on.
    fn hand_over(&self, room: u32);
}

pub struct ClusterJournal {
    store: Storage,
    owner: Arc<dyn Ownership>,
}

impl ClusterJournal {
    pub fn new(store: Storage, owner: Arc<dyn Ownership>) -> Arc<ClusterJournal> {
        Arc::new(ClusterJournal { store, owner })
    }

    /// A room this node no longer owns writes as epoch 0, which every lease outranks.
    fn fence(&self, room: u32) -> Option<Fence> {
        let epoch = self.owner.epoch_of(room).unwrap_or(0);
        Some(Fence { room, epoch })
    }

    /// Runs `write` until the store takes it, while the lease is surely this node's; else the
    /// room is handed over.
    async fn until_taken<T, F>(&self, room: u32, what: &str, write: F) -> Result<T, NotRecorded>
    where
        F: Fn() -> BoxFuture<'static, Result<T, StorageError>>,
    {
        let (since, mut attempt) = (Instant::now(), 0);
        loop {
            let e = match write().await {
                Ok(done) => return Ok(done),
                Err(e) => e,
            };
            let patient = self.owner.holds(room) && since.elapsed() < LONGEST_STORE_WAIT;
            if e.is_permanent() || !patient {
                tracing::warn!("room {room}: {what} not stored ({e}); handed over untold");
                self.owner.hand_over(room);
                return Err(NotRecorded::HandedOver);
            }
            if is_said(attempt) {
                tracing::warn!(
                    "room {room}: {what} not stored yet (try {}): {e}",
                    attempt + 1
                );
            }
            attempt += 1;
            tokio::time::sleep(pause_before(attempt)).await;
        }
    }
}

/// Whether a failed try is logged: the first, then every tenth (about every 10 s once the
/// pauses reach a second), so a minute's outage reads as a few lines per room, not sixty.
fn is_said(attempt: u32) -> bool {
    attempt.is_multiple_of(SAID_EVERY)
}

const SAID_EVERY: u32 = 10;

impl Journal for ClusterJournal {
    fn start_game(&self, room: u32, mut game: NewGame) -> BoxFuture<'_, Result<i64, NotRecorded>> {
        game.fence = self.fence(room);
        Box::pin(async move {
            match self.store.start_game(game).await {
                Ok(id) => Ok(id),
                Err(e @ StorageError::Fenced { .. }) => {
                    tracing::warn!("room {room}: a new game refused ({e}); handed over");
                    self.owner.hand_over(room);
                    Err(NotRecorded::HandedOver)
                }
                Err(e) => Err(e.into()),
            }
        })
    }

    fn record_move(
        &self,
        room: u32,
        mut played: PlayedMove,
    ) -> BoxFuture<'_, Result<(), NotRecorded>> {
        played.fence = self.fence(room);
        let what = format!("move {}", played.ply);
        Box::pin(async move {
            let store = self.store.clone();
            self.until_taken(room, &what, move || {
                let (store, played) = (store.clone(), played.clone());
                Box::pin(async move { store.record_move(played).await })
            })
            .await
        })
    }

    fn take_back(
        &self,
        room: u32,
        game_id: i64,
        keep: usize,
    ) -> BoxFuture<'_, Result<(), NotRecorded>> {
        let fence = self.fence(room);
        Box::pin(async move {
            match self.store.truncate_moves(game_id, keep, fence).await {
                Ok(()) => Ok(()),
                Err(e @ StorageError::Fenced { .. }) => {
                    tracing::warn!("room {room}: takeback refused ({e}); handed over");
                    self.owner.hand_over(room);
                    Err(NotRecorded::HandedOver)
                }
                Err(e) => Err(e.into()),
            }
        })
    }

    fn record_end(&self, room: u32, mut end: GameEnd) -> BoxFuture<'_, Result<(), NotRecorded>> {
        end.fence = self.fence(room);
        let what = format!("end of game {}", end.game_id);
        Box::pin(async move {
            let store = self.store.clone();
            self.until_taken(room, &what, move || {
                let (store, end) = (store.clone(), end.clone());
                Box::pin(async move { store.end_game(end).await })
            })
            .await
        })
    }
}

#[cfg(test)]
mod tests;
