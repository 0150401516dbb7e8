//! Ends that could not be written are not forgotten: [`RetryEnds`] wraps any store, keeps the
//! end of every game whose `end_game` failed (a full disk, a size limit) and writes it again
//! with back-off until the store takes it, so such a game is closed — with its stored reason —
//! as soon as the disk accepts writes again, not only at the next start.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;

use super::{
    Fence, GameEnd, GameQuery, GameStore, LiveGame, NameClaim, NewGame, OwnedGame, PlayedMove,
    PlayerRating, PlayerRecord, RatedGame, Rating, Storage, StorageResult, StoredGame, WriteTally,
};

/// The first wait before an end is tried again; it doubles up to [`LONGEST_WAIT`].
const FIRST_WAIT: Duration = Duration::from_millis(250);
const LONGEST_WAIT: Duration = Duration::from_secs(30);

/// A store whose failed ends are written again later.
pub struct RetryEnds {
    inner: Storage,
    pending: Arc<Mutex<Pending>>,
}

#[derive(Default)]
struct Pending {
    /// The latest end of each game not yet written.
    ends: HashMap<i64, GameEnd>,
    /// A task is trying them.
    retrying: bool,
}

impl RetryEnds {
    pub fn wrap(inner: Storage) -> Storage {
        Arc::new(RetryEnds {
            inner,
            pending: Arc::default(),
        })
    }

    /// Keeps `end` and starts the task that writes pending ends, unless it runs.
    fn keep(&self, end: GameEnd) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.ends.insert(end.game_id, end);
        if !std::mem::replace(&mut pending.retrying, true) {
            tokio::spawn(retry(self.inner.clone(), self.pending.clone()));
        }
    }

    /// Games whose end is waiting to be written.
    pub fn pending(&self) -> usize {
        let pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.ends.len()
    }
}

/// Writes the pending ends, waiting longer after each round that left some, until none is left.
async fn retry(store: Storage, pending: Arc<Mutex<Pending>>) {
    let mut wait = FIRST_WAIT;
    loop {
        tokio::time::sleep(wait).await;
        let ends: Vec<GameEnd> = {
            let p = pending.lock().unwrap_or_else(|e| e.into_inner());
            p.ends.values().cloned().collect()
        };
        for end in ends {
            let id = end.game_id;
            match store.end_game(end.clone()).await {
                Ok(()) => {
                    tracing::info!("the end of game {id} is stored at last");
                    let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
                    if p.ends.get(&id) == Some(&end) {
                        p.ends.remove(&id);
                    }
                }
                Err(e) if e.is_permanent() => {
                    tracing::warn!("the end of game {id} is given up: {e}");
                    let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
                    if p.ends.get(&id) == Some(&end) {
                        p.ends.remove(&id);
                    }
                }
                Err(e) => tracing::warn!("the end of game {id} is still not stored: {e}"),
            }
        }
        let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
        if p.ends.is_empty() {
            p.retrying = false;
            return;
        }
        wait = (wait * 2).min(LONGEST_WAIT);
    }
}

impl GameStore for RetryEnds {
    fn start_game(&self, game: NewGame) -> BoxFuture<'_, StorageResult<i64>> {
        self.inner.start_game(game)
    }

    fn record_move(&self, played: PlayedMove) -> BoxFuture<'_, StorageResult<()>> {
        self.inner.record_move(played)
    }

    /// Fails as the store does, but the end is kept and written once the store takes writes
    /// (unless it can never be: a former owner's end, refused by its fence).
    fn end_game(&self, end: GameEnd) -> BoxFuture<'_, StorageResult<()>> {
        Box::pin(async move {
            let result = self.inner.end_game(end.clone()).await;
            if result.as_ref().is_err_and(|e| !e.is_permanent()) {
                self.keep(end);
            }
            result
        })
    }

    fn truncate_moves(
        &self,
        game_id: i64,
        keep: usize,
        fence: Option<Fence>,
    ) -> BoxFuture<'_, StorageResult<()>> {
        self.inner.truncate_moves(game_id, keep, fence)
    }

    fn flush(&self) -> BoxFuture<'_, ()> {
        self.inner.flush()
    }

    fn list_games(&self, query: GameQuery) -> BoxFuture<'_, StorageResult<Vec<StoredGame>>> {
        self.inner.list_games(query)
    }

    fn game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<StoredGame>>> {
        self.inner.game(id)
    }

    fn owned_game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<OwnedGame>>> {
        self.inner.owned_game(id)
    }

    fn check_name(
        &self,
        name: String,
        secret_hash: Option<String>,
    ) -> BoxFuture<'_, StorageResult<NameClaim>> {
        self.inner.check_name(name, secret_hash)
    }

    fn rate_game(&self, rated: RatedGame) -> BoxFuture<'_, StorageResult<[Rating; 2]>> {
        self.inner.rate_game(rated)
    }

    fn leaderboard(
        &self,
        class: String,
        limit: u32,
    ) -> BoxFuture<'_, StorageResult<Vec<PlayerRating>>> {
        self.inner.leaderboard(class, limit)
    }

    fn player(&self, name: String) -> BoxFuture<'_, StorageResult<Option<PlayerRecord>>> {
        self.inner.player(name)
    }

    fn live_game(&self, room: u32) -> BoxFuture<'_, StorageResult<Option<LiveGame>>> {
        self.inner.live_game(room)
    }

    fn write_tally(&self) -> WriteTally {
        self.inner.write_tally()
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
        let store = RetryEnds::wrap(memory.clone());
        let new_game = NewGame {
            room: 1,
            game: "surakarta".into(),
            settings: "{}".into(),
            players: ["a".into(), "b".into()],
            owner: None,
            seat_tokens: [None, None],
            fence: None,
        };
        let id = store.start_game(new_game).await.unwrap();
        memory.failing.store(true, Ordering::Relaxed);
        let end = GameEnd {
            game_id: id,
            end_reason: "INTERRUPTED".into(),
            winner: Winner::Nobody,
            record: "X#".into(),
            fence: None,
        };
        assert!(store.end_game(end).await.is_err());
        // Still full a while later: the game stays open, its end kept.
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(memory.games()[0].ended_at, None);
        // The disk has room again: within the longest wait the end is stored, no restart.
        memory.failing.store(false, Ordering::Relaxed);
        tokio::time::sleep(LONGEST_WAIT + Duration::from_secs(1)).await;
        let game = &memory.games()[0];
        assert!(game.ended_at.is_some(), "{game:?}");
        assert_eq!(game.end_reason.as_deref(), Some("INTERRUPTED"));
    }
}
