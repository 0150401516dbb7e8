//! What a store's writes met, counted by the store itself so an operator (and `arbiter
//! loadtest`, through `GET /api/metrics`) sees how often the database refused a write and how
//! often a refused write was tried again — whoever tried it (a room, [`super::retry::RetryEnds`]).
//!
//! A refusal is a write that failed for a reason that may pass (the database busy or locked, a
//! full disk, PostgreSQL away); a write that can never succeed as it is (a former owner's, a
//! move that does not follow the stored ones) is an answer, not a refusal. A retry is a write
//! given again after the store refused the very same write (same game and ply, same end, ...).

use std::collections::HashSet;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{GameEnd, NewGame, PlayedMove, StorageResult};

/// At most this many refused writes are remembered to recognise their retries; past it a retry
/// may go uncounted (its refusal was counted).
const REMEMBERED_REFUSALS: usize = 100_000;

/// A snapshot of the counts, as `GET /api/metrics` shows them under `store`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteTally {
    /// Writes given to the store (each retry counts again).
    pub writes: u64,
    /// Writes the database refused for a reason that may pass.
    pub refusals: u64,
    /// Writes given again after the store refused the same write.
    pub retries: u64,
}

/// Which write a write is, to tell a retry from a new write.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WriteKey {
    Start {
        room: u32,
        game: String,
        players: [String; 2],
    },
    Move {
        game: i64,
        ply: usize,
    },
    End(i64),
    Truncate {
        game: i64,
        keep: usize,
    },
    Claim(String),
    Rate(i64),
    /// A game's analysis.
    Analysis(i64),
}

impl WriteTally {
    /// What happened between `earlier` and this tally.
    pub fn since(&self, earlier: &WriteTally) -> WriteTally {
        WriteTally {
            writes: self.writes.saturating_sub(earlier.writes),
            refusals: self.refusals.saturating_sub(earlier.refusals),
            retries: self.retries.saturating_sub(earlier.retries),
        }
    }
}

impl WriteKey {
    pub fn start(game: &NewGame) -> WriteKey {
        WriteKey::Start {
            room: game.room,
            game: game.game.clone(),
            players: game.players.clone(),
        }
    }

    pub fn of_move(played: &PlayedMove) -> WriteKey {
        WriteKey::Move {
            game: played.game_id,
            ply: played.ply,
        }
    }

    pub fn end(end: &GameEnd) -> WriteKey {
        WriteKey::End(end.game_id)
    }
}

/// The live counts of one store.
#[derive(Default)]
pub struct WriteCounts {
    writes: AtomicU64,
    refusals: AtomicU64,
    retries: AtomicU64,
    /// The writes refused and not yet given again.
    refused: Mutex<HashSet<WriteKey>>,
}

impl WriteCounts {
    pub fn tally(&self) -> WriteTally {
        WriteTally {
            writes: self.writes.load(Ordering::Relaxed),
            refusals: self.refusals.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
        }
    }

    /// Runs `write` (the write `key` names), counting it, its refusal and whether it retries
    /// one.
    pub async fn counted<T>(
        &self,
        key: WriteKey,
        write: impl Future<Output = StorageResult<T>>,
    ) -> StorageResult<T> {
        self.writes.fetch_add(1, Ordering::Relaxed);
        if self.refused().remove(&key) {
            self.retries.fetch_add(1, Ordering::Relaxed);
        }
        let result = write.await;
        if let Err(e) = &result {
            if !e.is_permanent() {
                tracing::debug!("write {key:?} refused: {e}");
                self.refusals.fetch_add(1, Ordering::Relaxed);
                let mut refused = self.refused();
                if refused.len() < REMEMBERED_REFUSALS {
                    refused.insert(key);
                }
            }
        }
        result
    }

    fn refused(&self) -> std::sync::MutexGuard<'_, HashSet<WriteKey>> {
        self.refused.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::StorageError;

    fn refused() -> StorageResult<()> {
        Err(StorageError::Database("database is locked".into()))
    }

    #[tokio::test]
    async fn a_refusal_and_its_retry_are_counted_and_an_answer_is_neither() {
        let counts = WriteCounts::default();
        let first = WriteKey::Move { game: 1, ply: 3 };
        let other = WriteKey::Move { game: 2, ply: 3 };
        assert!(counts
            .counted(first.clone(), async { refused() })
            .await
            .is_err());
        // Another game's move is not a retry of it.
        counts
            .counted(other.clone(), async { Ok(()) })
            .await
            .unwrap();
        counts
            .counted(first.clone(), async { Ok(()) })
            .await
            .unwrap();
        // Once taken, the same write again is a new write, not a retry.
        counts.counted(first, async { Ok(()) }).await.unwrap();
        let taken = async { Err::<(), _>(StorageError::PlyTaken { game: 2, ply: 3 }) };
        assert!(counts.counted(other, taken).await.is_err());
        let tally = counts.tally();
        let expected = WriteTally {
            writes: 5,
            refusals: 1,
            retries: 1,
        };
        assert_eq!(tally, expected);
    }
}
