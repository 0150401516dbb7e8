//! The room's one way to make something durable — a new game, a move, a takeback, an end — and
//! the one place that decides what happens when the store does not take it. Nothing is told
//! before the journal says it is recorded.
//!
//! One server's journal ([`LocalJournal`]) tries a move a few times, then the game cannot go on;
//! an end it cannot write is kept and written again later (a full disk that frees up closes the
//! game without a restart), and the players are told. A cluster's journal (`cluster/journal.rs`)
//! fences every write with the room's lease, tries again while the lease is surely its own, and
//! otherwise hands the room over untold, so the next owner carries the game on from the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;

use crate::storage::{GameEnd, NewGame, PlayedMove, Storage, StorageError};

/// Why something was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum NotRecorded {
    /// The store refused it and the game cannot go on here: the players are told so.
    #[error(transparent)]
    Refused(#[from] StorageError),
    /// The room went to another node, which carries the game on from the store: nobody may be
    /// told anything more here.
    #[error("the room was handed over to another node")]
    HandedOver,
}

/// Where a room's writes go.
pub trait Journal: Send + Sync + 'static {
    /// A new game in `room`: its number.
    fn start_game(&self, room: u32, game: NewGame) -> BoxFuture<'_, Result<i64, NotRecorded>>;
    /// A move, which must follow the recorded ones.
    fn record_move(&self, room: u32, played: PlayedMove) -> BoxFuture<'_, Result<(), NotRecorded>>;
    /// A takeback: the game keeps its first `keep` moves.
    fn take_back(
        &self,
        room: u32,
        game_id: i64,
        keep: usize,
    ) -> BoxFuture<'_, Result<(), NotRecorded>>;
    /// A game's end; `Ok` when the players may be told.
    fn record_end(&self, room: u32, end: GameEnd) -> BoxFuture<'_, Result<(), NotRecorded>>;
}

/// How often one server tries a move before the game is given up.
const MOVE_ATTEMPTS: u32 = 3;
/// The first wait before a kept end is tried again; it doubles up to [`LONGEST_END_WAIT`].
const FIRST_END_WAIT: Duration = Duration::from_millis(250);
const LONGEST_END_WAIT: Duration = Duration::from_secs(30);

/// The wait before attempt `attempt + 1`: 400 ms, then a second between attempts.
pub fn pause_before(attempt: u32) -> Duration {
    Duration::from_millis(100 << (2 * attempt.min(2))).min(Duration::from_secs(1))
}

/// One server's journal over its store.
pub struct LocalJournal {
    store: Storage,
    pending: Arc<Mutex<PendingEnds>>,
}

/// Ends the store refused, kept until it takes them.
#[derive(Default)]
struct PendingEnds {
    /// The latest end of each game not yet written.
    ends: HashMap<i64, GameEnd>,
    /// A task is trying them.
    retrying: bool,
}

impl LocalJournal {
    pub fn new(store: Storage) -> Arc<LocalJournal> {
        Arc::new(LocalJournal {
            store,
            pending: Arc::default(),
        })
    }

    /// Keeps `end` and starts the task that writes kept ends, unless it runs.
    fn keep(&self, end: GameEnd) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.ends.insert(end.game_id, end);
        if !std::mem::replace(&mut pending.retrying, true) {
            tokio::spawn(write_kept_ends(self.store.clone(), self.pending.clone()));
        }
    }

    async fn record_move_now(&self, room: u32, played: PlayedMove) -> Result<(), NotRecorded> {
        let mut attempt = 0;
        loop {
            match self.store.record_move(played.clone()).await {
                Ok(()) => return Ok(()),
                Err(e) if e.is_permanent() || attempt + 1 >= MOVE_ATTEMPTS => return Err(e.into()),
                Err(e) => tracing::warn!("room {room}: move {} not stored yet: {e}", played.ply),
            }
            attempt += 1;
            tokio::time::sleep(pause_before(attempt)).await;
        }
    }
}

impl Journal for LocalJournal {
    fn start_game(&self, _: u32, game: NewGame) -> BoxFuture<'_, Result<i64, NotRecorded>> {
        Box::pin(async move { Ok(self.store.start_game(game).await?) })
    }

    fn record_move(&self, room: u32, played: PlayedMove) -> BoxFuture<'_, Result<(), NotRecorded>> {
        Box::pin(self.record_move_now(room, played))
    }

    fn take_back(
        &self,
        _: u32,
        game_id: i64,
        keep: usize,
    ) -> BoxFuture<'_, Result<(), NotRecorded>> {
        Box::pin(async move { Ok(self.store.truncate_moves(game_id, keep, None).await?) })
    }

    /// An end the store refuses is kept and written later; the players are told now (one
    /// server has no one to hand the game to, and it cannot go on).
    fn record_end(&self, room: u32, end: GameEnd) -> BoxFuture<'_, Result<(), NotRecorded>> {
        Box::pin(async move {
            if let Err(e) = self.store.end_game(end.clone()).await {
                tracing::error!("room {room}: end of game {} not stored: {e}", end.game_id);
                if !e.is_permanent() {
                    self.keep(end);
                }
            }
            Ok(())
        })
    }
}

/// Writes the kept ends, waiting longer after each round that left some, until none is left.
async fn write_kept_ends(store: Storage, pending: Arc<Mutex<PendingEnds>>) {
    let mut wait = FIRST_END_WAIT;
    loop {
        tokio::time::sleep(wait).await;
        let ends: Vec<GameEnd> = {
            let p = pending.lock().unwrap_or_else(|e| e.into_inner());
            p.ends.values().cloned().collect()
        };
        for end in ends {
            let id = end.game_id;
            let written = match store.end_game(end.clone()).await {
                Ok(()) => {
                    tracing::info!("the end of game {id} is stored at last");
                    true
                }
                Err(e) if e.is_permanent() => {
                    tracing::warn!("the end of game {id} is given up: {e}");
                    true
                }
                Err(e) => {
                    tracing::warn!("the end of game {id} is still not stored: {e}");
                    false
                }
            };
            let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
            if written && p.ends.get(&id) == Some(&end) {
                p.ends.remove(&id);
            }
        }
        let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
        if p.ends.is_empty() {
            p.retrying = false;
            return;
        }
        wait = (wait * 2).min(LONGEST_END_WAIT);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::protocol::Winner;
    use crate::storage::memory::MemoryStore;

    #[tokio::test(start_paused = true)]
    async fn an_end_the_full_disk_refused_is_written_once_the_disk_takes_writes() {
        let memory = Arc::new(MemoryStore::default());
        let journal = LocalJournal::new(memory.clone());
        let new_game = NewGame {
            room: 1,
            game: "surakarta".into(),
            settings: "{}".into(),
            players: ["a".into(), "b".into()],
            owner: None,
            seat_tokens: [None, None],
            fence: None,
        };
        let id = journal.start_game(1, new_game).await.unwrap();
        memory.failing.store(true, Ordering::Relaxed);
        let end = GameEnd {
            game_id: id,
            end_reason: "INTERRUPTED".into(),
            winner: Winner::Nobody,
            record: "X#".into(),
            fence: None,
        };
        assert!(journal.record_end(1, end).await.is_ok(), "told anyway");
        // Still full a while later: the game stays open, its end kept.
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(memory.games()[0].ended_at, None);
        // The disk has room again: within the longest wait the end is stored, no restart.
        memory.failing.store(false, Ordering::Relaxed);
        tokio::time::sleep(LONGEST_END_WAIT + Duration::from_secs(1)).await;
        let game = &memory.games()[0];
        assert!(game.ended_at.is_some());
        assert_eq!(game.end_reason.as_deref(), Some("INTERRUPTED"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_move_is_tried_three_times_then_refused() {
        let memory = Arc::new(MemoryStore::default());
        let journal = LocalJournal::new(memory.clone());
        memory.failing.store(true, Ordering::Relaxed);
        let played = PlayedMove {
            game_id: 1,
            ply: 1,
            text: "A2-A3".into(),
            reason: "LEGAL".into(),
            fence: None,
        };
        let started = tokio::time::Instant::now();
        let refused = journal.record_move(1, played).await;
        assert!(
            matches!(refused, Err(NotRecorded::Refused(_))),
            "{refused:?}"
        );
        assert_eq!(started.elapsed(), pause_before(1) + pause_before(2));
    }
}
