//! Nothing is told before it is stored. A move or an end the store does not take is tried again:
//! one server a few times (then the game cannot go on; an end it tells anyway is written later
//! by `RetryEnds`, and a restart closes the game); a cluster's room for as long as its lease is
//! surely its own, and then it is handed over untold, so the node that takes the room next
//! carries the game on from what the store has — never from what players were told and the store
//! never heard (docs/cluster.md, "PostgreSQL restarts").

use std::time::Duration;

use arbiter_core::MoveReason;
use tokio::time::Instant;

use super::{Room, STORE_ATTEMPTS};
use crate::storage::{GameEnd, PlayedMove, StorageError};

/// A cluster's room waits at most this long for a store that fails while its lease is renewed
/// (the store takes leases but not this room's writes), then hands the room over.
const LONGEST_STORE_WAIT: Duration = Duration::from_secs(60);

/// The wait before attempt `attempt + 1`: 400 ms, then a second between attempts.
fn pause_before(attempt: u32) -> Duration {
    Duration::from_millis(100 << (2 * attempt.min(2))).min(Duration::from_secs(1))
}

impl Room {
    /// Whether another node could carry this room on from the store (a cluster node's room).
    pub(super) fn is_fenced(&self) -> bool {
        self.ctx.hub.fence_of(self.id).is_some()
    }

    /// Whether a write that failed `attempt + 1` times since `since` is tried again.
    fn tries_again(&self, attempt: u32, since: Instant) -> bool {
        if self.is_fenced() {
            self.ctx.hub.may_run(self.id) && since.elapsed() < LONGEST_STORE_WAIT
        } else {
            attempt + 1 < STORE_ATTEMPTS
        }
    }

    /// Stores a move, trying again while the database is busy or away.
    pub(super) async fn store_move(
        &self,
        id: i64,
        ply: usize,
        text: &str,
        reason: MoveReason,
    ) -> Result<(), StorageError> {
        let (since, mut attempt) = (Instant::now(), 0);
        loop {
            let played = PlayedMove {
                game_id: id,
                ply,
                text: text.to_string(),
                reason: reason.name().to_string(),
                fence: self.ctx.hub.fence_of(self.id),
            };
            match self.ctx.store.record_move(played).await {
                Ok(()) => return Ok(()),
                Err(e) if e.is_permanent() || !self.tries_again(attempt, since) => return Err(e),
                Err(e) => tracing::warn!("room {}: move {ply} not stored yet: {e}", self.id),
            }
            attempt += 1;
            tokio::time::sleep(pause_before(attempt)).await;
        }
    }

    /// Stores the end of a game; false when it could not be and the room was handed over, so
    /// no one may be told of it. One server's end is tried once here: its store writes a
    /// failed end again later, and the players are told.
    pub(super) async fn store_end(&mut self, end: GameEnd) -> bool {
        let (id, since, mut attempt) = (end.game_id, Instant::now(), 0);
        loop {
            let e = match self.ctx.store.end_game(end.clone()).await {
                Ok(()) => return true,
                Err(e) => e,
            };
            tracing::error!("room {}: end of game {id} not stored: {e}", self.id);
            if !self.is_fenced() {
                return true;
            }
            if e.is_permanent() || !self.tries_again(attempt, since) {
                self.hand_over();
                return false;
            }
            attempt += 1;
            tokio::time::sleep(pause_before(attempt)).await;
        }
    }

    /// Gives the room up on this node at once: its game goes on from the store on whichever node
    /// claims the room next.
    pub(super) fn hand_over(&mut self) {
        tracing::warn!("room {}: handed over untold", self.id);
        self.ctx.hub.hand_over(self.id);
    }
}
