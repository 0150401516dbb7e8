//! The writer thread, which commits queued writes in groups (each in its own savepoint, so one
//! that fails fails alone), and the checkpoint thread beside it. The writer's connection is the
//! only one that ever takes SQLite's write lock, and takes it when a transaction begins, so no
//! write of one server is ever refused as "database is locked".

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use tokio::sync::{mpsc, oneshot};

use super::{Store, WalPolicy};
use crate::storage::{Fence, GameEnd, NewGame, PlayedMove, StorageError, StorageResult, WriteKey};

/// A write the store performs; each carries the channel its completion is reported on.
pub(super) enum Write {
    StartGame {
        game: NewGame,
        done: oneshot::Sender<StorageResult<i64>>,
    },
    Move {
        played: PlayedMove,
        done: oneshot::Sender<StorageResult<()>>,
    },
    EndGame {
        end: GameEnd,
        done: oneshot::Sender<StorageResult<()>>,
    },
    /// Forgets a game's moves after the first `keep` (a page's undo).
    TruncateMoves {
        game_id: i64,
        keep: usize,
        fence: Option<Fence>,
        done: oneshot::Sender<StorageResult<()>>,
    },
    /// Reports once every write queued before it is committed.
    Flush { done: oneshot::Sender<()> },
    /// A write of its own (a name, ratings, an analysis): run alone, in its own transaction,
    /// between batches; it answers on the channel it holds.
    Job(Box<dyn FnOnce(&mut Connection) + Send>),
}

impl Store {
    /// Runs `job` (the write `key` names) on the writer's connection, in a transaction that
    /// holds the write lock from its start; its answer.
    pub(super) fn job<T: Send + 'static>(
        &self,
        key: WriteKey,
        job: impl FnOnce(&Transaction<'_>) -> StorageResult<T> + Send + 'static,
    ) -> BoxFuture<'static, StorageResult<T>> {
        let store = self.clone();
        Box::pin(async move {
            let make = |done: oneshot::Sender<_>| {
                Write::Job(Box::new(move |conn| {
                    let _ = done.send(in_write_transaction(conn, job));
                }))
            };
            store.request(key, make).await
        })
    }
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Checkpoints the WAL into the database every `policy.checkpoint_every`, beside the writer, so
/// a commit never waits for one; ends with the store. Only PASSIVE checkpoints: the others
/// (FULL, RESTART, TRUNCATE) hold the write lock while they wait and copy, and a write
/// transaction that has read already is then refused at once ("database is locked": SQLite does
/// not call the busy handler for that upgrade). Passive checkpoints alone never bring the WAL back
/// to its start while the writer keeps committing, so once it holds more than
/// `policy.restart_bytes` this asks the writer to ([`WalRestart`]).
pub(super) fn checkpoint_loop(
    conn: Connection,
    store: mpsc::WeakUnboundedSender<Write>,
    policy: WalPolicy,
    restart: Arc<WalRestart>,
) {
    let frame_bytes = conn
        .query_row("PRAGMA page_size", [], |r| r.get::<_, u64>(0))
        .map_or(4096, |page| page + 24);
    while store.upgrade().is_some() {
        std::thread::sleep(policy.checkpoint_every);
        match passive_checkpoint(&conn) {
            Ok(done) if done.frames.max(0) as u64 * frame_bytes > policy.restart_bytes => {
                restart.wanted.store(true, Ordering::Relaxed);
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("checkpoint failed: {e}"),
        }
    }
}

/// The checkpoint thread's request that the writer start the WAL over.
#[derive(Default)]
pub(super) struct WalRestart {
    wanted: AtomicBool,
}

/// What a checkpoint did: whether another checkpoint held it off, the frames in the WAL, and
/// how many of them are in the database now.
struct Checkpoint {
    busy: bool,
    frames: i64,
    copied: i64,
}

fn passive_checkpoint(conn: &Connection) -> rusqlite::Result<Checkpoint> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
        Ok(Checkpoint {
            busy: r.get::<_, i64>(0)? != 0,
            frames: r.get(1)?,
            copied: r.get(2)?,
        })
    })
}

/// Between two of its own transactions, so no frame is added meanwhile, the writer copies into
/// the database the few frames the checkpoint thread has not yet; with the whole WAL copied,
/// SQLite's next write transaction writes the WAL from its start, over the frames already there.
/// A reader still on an older snapshot, or the checkpoint thread at work, puts it off to after
/// the next batch.
fn restart_wal(conn: &Connection, restart: &WalRestart) {
    if !restart.wanted.load(Ordering::Relaxed) {
        return;
    }
    let started = std::time::Instant::now();
    match passive_checkpoint(conn) {
        Ok(c) if !c.busy && c.frames == c.copied => {
            restart.wanted.store(false, Ordering::Relaxed);
            let waited = started.elapsed();
            tracing::debug!("the WAL starts over after {} frames ({waited:?})", c.frames);
        }
        Ok(_) => {}
        Err(e) => tracing::warn!("checkpoint before starting the WAL over failed: {e}"),
    }
}

/// Runs `f` in a transaction that takes the write lock at its start (`BEGIN IMMEDIATE`), so a
/// busy database is waited for (the busy timeout) rather than refused: a deferred transaction
/// that reads first and then writes is refused at once when the lock is taken.
pub(super) fn in_write_transaction<T>(
    conn: &mut Connection,
    f: impl FnOnce(&Transaction<'_>) -> StorageResult<T>,
) -> StorageResult<T> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let answer = f(&tx)?;
    tx.commit()?;
    Ok(answer)
}

/// What one write did inside the batch: the new game's id for a start.
type Outcome = StorageResult<Option<i64>>;

/// Takes every queued write, commits them in one transaction (each in its own savepoint), then
/// reports each.
/// Between batches, starts the WAL over when the checkpoint thread asks.
pub(super) fn write_loop(
    mut conn: Connection,
    mut rx: mpsc::UnboundedReceiver<Write>,
    restart: Arc<WalRestart>,
) {
    // A job met while a batch was gathered, run after that batch.
    let mut held = None;
    while let Some(first) = held.take().or_else(|| rx.blocking_recv()) {
        if let Write::Job(job) = first {
            job(&mut conn);
            restart_wal(&conn, &restart);
            continue;
        }
        let mut batch = vec![first];
        while batch.len() < 512 {
            match rx.try_recv() {
                Ok(job @ Write::Job(_)) => {
                    held = Some(job);
                    break;
                }
                Ok(w) => batch.push(w),
                Err(_) => break,
            }
        }
        let outcomes = commit_batch(&mut conn, &batch);
        for (w, outcome) in batch.into_iter().zip(outcomes) {
            match w {
                Write::StartGame { done, .. } => {
                    let _ = done.send(outcome.map(|id| id.unwrap_or_default()));
                }
                Write::Move { done, .. }
                | Write::EndGame { done, .. }
                | Write::TruncateMoves { done, .. } => {
                    let _ = done.send(outcome.map(drop));
                }
                Write::Flush { done } => {
                    let _ = done.send(());
                }
                Write::Job(_) => {}
            }
        }
        restart_wal(&conn, &restart);
    }
}

/// Runs a batch; each write's outcome, every one failed when the commit itself fails.
fn commit_batch(conn: &mut Connection, batch: &[Write]) -> Vec<Outcome> {
    let result = (|| -> rusqlite::Result<Vec<Outcome>> {
        let mut tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut outcomes = Vec::with_capacity(batch.len());
        for w in batch {
            let sp = tx.savepoint()?;
            let outcome = apply(&sp, w);
            match outcome {
                Ok(id) => {
                    sp.commit()?;
                    outcomes.push(Ok(id));
                }
                Err(e) => {
                    drop(sp);
                    outcomes.push(Err(e));
                }
            }
        }
        tx.set_drop_behavior(rusqlite::DropBehavior::Commit);
        tx.commit()?;
        Ok(outcomes)
    })();
    result.unwrap_or_else(|e| {
        let message = e.to_string();
        batch
            .iter()
            .map(|_| Err(StorageError::Database(message.clone())))
            .collect()
    })
}

fn apply(tx: &rusqlite::Savepoint<'_>, w: &Write) -> Outcome {
    match w {
        Write::StartGame { game, .. } => {
            check_fence(tx, game.fence)?;
            let [first, second] = &game.players;
            let [first_token, second_token] = &game.seat_tokens;
            tx.execute(
                "INSERT INTO games (room, game, settings, first_player, second_player, started_at, owner, first_token, second_token)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![game.room, game.game, game.settings, first, second, now_ms(), game.owner, first_token, second_token],
            )?;
            Ok(Some(tx.last_insert_rowid()))
        }
        Write::Move { played: m, .. } => {
            check_fence(tx, m.fence)?;
            if !follows_stored(tx, m)? {
                return Ok(None);
            }
            tx.execute(
                "INSERT INTO moves (game_id, ply, text, reason, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![m.game_id, m.ply as i64, m.text, m.reason, now_ms()],
            )?;
            Ok(None)
        }
        Write::EndGame { end, .. } => {
            check_fence(tx, end.fence)?;
            tx.execute(
                "UPDATE games SET ended_at = ?2, end_reason = ?3, winner = ?4, record = ?5 WHERE id = ?1",
                params![end.game_id, now_ms(), end.end_reason, end.winner, end.record],
            )?;
            Ok(None)
        }
        Write::TruncateMoves {
            game_id,
            keep,
            fence,
            ..
        } => {
            check_fence(tx, *fence)?;
            tx.execute(
                "DELETE FROM moves WHERE game_id = ?1 AND ply > ?2",
                params![game_id, *keep as i64],
            )?;
            Ok(None)
        }
        Write::Flush { .. } | Write::Job(_) => Ok(None),
    }
}

/// Refuses a write of a room's former owner: the room's lease holds a newer epoch.
fn check_fence(tx: &rusqlite::Savepoint<'_>, fence: Option<Fence>) -> StorageResult<()> {
    let Some(fence) = fence else { return Ok(()) };
    let epoch: Option<i64> = tx
        .query_row(
            "SELECT epoch FROM room_leases WHERE room = ?1",
            params![fence.room],
            |r| r.get(0),
        )
        .optional()?;
    match epoch.map(|e| e as u64) {
        Some(epoch) if epoch > fence.epoch => Err(StorageError::Fenced {
            room: fence.room,
            epoch,
        }),
        _ => Ok(()),
    }
}

/// Whether move `m` is new and follows the stored moves: `false` when the very same move is
/// stored already (a retry), an error when another move holds its ply or its previous ply is
/// missing.
fn follows_stored(tx: &rusqlite::Savepoint<'_>, m: &PlayedMove) -> StorageResult<bool> {
    let (game, ply) = (m.game_id, m.ply);
    let stored: Option<(String, String)> = tx
        .query_row(
            "SELECT text, reason FROM moves WHERE game_id = ?1 AND ply = ?2",
            params![game, ply as i64],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    if let Some((text, reason)) = stored {
        return if text == m.text && reason == m.reason {
            Ok(false)
        } else {
            Err(StorageError::PlyTaken { game, ply })
        };
    }
    let previous_stored = match ply {
        0 => false,
        1 => {
            let exists = tx
                .prepare_cached("SELECT 1 FROM games WHERE id = ?1")?
                .exists(params![game])?;
            if !exists {
                return Err(StorageError::NoGame(game));
            }
            true
        }
        _ => tx
            .prepare_cached("SELECT 1 FROM moves WHERE game_id = ?1 AND ply = ?2")?
            .exists(params![game, ply as i64 - 1])?,
    };
    if previous_stored {
        Ok(true)
    } else {
        Err(StorageError::PlySkipped { game, ply })
    }
}
