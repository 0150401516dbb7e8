//! Games in SQLite: one writer thread that commits in groups, so a move is on disk (`synchronous
//! = FULL`) before it is forwarded without one disk sync per move; checkpoints on a connection of
//! their own so they never hold a commit up; reads for the HTTP API from a small pool.
//!
//! * Each write of a batch runs in its own savepoint: a write that fails fails alone, and the
//!   rooms whose writes succeeded are not held back by it.
//! * A lock file beside the database keeps a second server off it.
//! * On opening, games a crash or a stop left without an end are closed as `INTERRUPTED`.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

/// A write the store performs; each carries the channel its completion is reported on.
enum Write {
    StartGame {
        room: u32,
        game: String,
        settings: String,
        first: String,
        second: String,
        /// The secret that lets a page add moves to a game it plays itself (AI, one screen).
        owner: Option<String>,
        done: oneshot::Sender<Result<i64, String>>,
    },
    Move {
        game_id: i64,
        ply: usize,
        text: String,
        reason: String,
        done: oneshot::Sender<Result<(), String>>,
    },
    EndGame {
        game_id: i64,
        end_reason: String,
        winner: Option<u8>,
        record: String,
        done: oneshot::Sender<Result<(), String>>,
    },
    /// Forgets a game's moves after the first `keep` (a page's undo).
    TruncateMoves {
        game_id: i64,
        keep: usize,
        done: oneshot::Sender<Result<(), String>>,
    },
    /// Reports once every write queued before it is committed.
    Flush { done: oneshot::Sender<()> },
}

/// How the store is opened.
#[derive(Clone, Debug, Default)]
pub struct StoreOptions {
    /// The database may not grow past this many bytes (writes beyond fail cleanly).
    pub max_bytes: Option<u64>,
}

/// The game store: cheap to clone, shared by every room.
#[derive(Clone)]
pub struct Store {
    writes: mpsc::UnboundedSender<Write>,
    readers: Arc<ReaderPool>,
    /// Games closed as interrupted when the store was opened.
    pub interrupted_at_open: usize,
    _lock: Arc<File>,
}

/// What the store knows of a game a page plays by itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedGame {
    pub owner: Option<String>,
    pub settings: String,
    pub ended: bool,
    pub moves: Vec<String>,
}

/// A stored game, as the HTTP API lists it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StoredGame {
    pub id: i64,
    pub room: u32,
    pub game: String,
    pub settings: serde_json::Value,
    pub first: String,
    pub second: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub end_reason: Option<String>,
    /// 0 first player, 1 second, 2 nobody; absent while the game runs.
    pub winner: Option<u8>,
    pub record: Option<String>,
    pub moves: Vec<StoredMove>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StoredMove {
    pub ply: usize,
    #[serde(rename = "move")]
    pub text: String,
    pub reason: String,
    pub at: i64,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    room INTEGER NOT NULL,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    first_player TEXT NOT NULL,
    second_player TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    end_reason TEXT,
    winner INTEGER,
    record TEXT
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    text TEXT NOT NULL,
    reason TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
);
DROP INDEX IF EXISTS games_by_player;
CREATE INDEX IF NOT EXISTS games_by_first ON games (first_player);
CREATE INDEX IF NOT EXISTS games_by_second ON games (second_player);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (id) WHERE ended_at IS NULL;
";

/// Closes every game without an end as interrupted, its record ending in ` X#`.
const CLOSE_INTERRUPTED: &str = "
UPDATE games SET
    ended_at = ?1,
    end_reason = 'INTERRUPTED',
    winner = 2,
    record = trim(coalesce((SELECT group_concat(text, ' ' ORDER BY ply) FROM moves
                            WHERE moves.game_id = games.id), '') || ' X#')
WHERE ended_at IS NULL AND owner IS NULL";

const READERS: usize = 4;
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);
/// The WAL is started over once it is this large.
const WAL_RESTART_BYTES: u64 = 256 << 20;

fn connect(path: &Path) -> Result<Connection, String> {
    let conn =
        Connection::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    conn.busy_timeout(Duration::from_secs(5))
        .map_err(|e| e.to_string())?;
    Ok(conn)
}

/// Brings a database made by an older arbiter up to date.
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let has_owner = conn
        .prepare("SELECT 1 FROM pragma_table_info('games') WHERE name = 'owner'")?
        .exists([])?;
    if !has_owner {
        conn.execute_batch("ALTER TABLE games ADD COLUMN owner TEXT;")?;
    }
    Ok(())
}

/// Takes the lock file beside the database, or says which server holds it.
fn lock(path: &Path) -> Result<File, String> {
    let lock_path = PathBuf::from(format!("{}.lock", path.display()));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot create the lock {}: {e}", lock_path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "another arbiter server is using {} (it holds {}); stop it or choose another --db",
            path.display(),
            lock_path.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(format!("cannot lock {}: {e}", lock_path.display()))
        }
    }
}

impl Store {
    /// Opens (or creates) the database file, closes games left running, and starts the writer
    /// and checkpoint threads.
    pub fn open(path: &Path, options: &StoreOptions) -> Result<Store, String> {
        let lock = lock(path)?;
        let writer = connect(path)?;
        writer
            .execute_batch(SCHEMA)
            .map_err(|e| format!("cannot set up {}: {e}", path.display()))?;
        migrate(&writer).map_err(|e| format!("cannot update {}: {e}", path.display()))?;
        // Every commit reaches the disk before the move it holds is forwarded; checkpoints run
        // elsewhere so a commit never waits for one.
        writer
            .execute_batch("PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0;")
            .map_err(|e| e.to_string())?;
        if let Some(bytes) = options.max_bytes {
            let page_size: u64 = writer
                .query_row("PRAGMA page_size", [], |r| r.get(0))
                .map_err(|e| e.to_string())?;
            writer
                .execute_batch(&format!(
                    "PRAGMA max_page_count = {};",
                    (bytes / page_size.max(1)).max(1)
                ))
                .map_err(|e| e.to_string())?;
        }
        let interrupted = writer
            .execute(CLOSE_INTERRUPTED, params![now_ms()])
            .map_err(|e| format!("cannot close the games left running: {e}"))?;
        if interrupted > 0 {
            tracing::warn!(
                "closed {interrupted} games left running by the last server as INTERRUPTED"
            );
        }
        let readers = (0..READERS)
            .map(|_| connect(path))
            .collect::<Result<_, _>>()?;
        let checkpointer = connect(path)?;
        let (writes, rx) = mpsc::unbounded_channel();
        std::thread::Builder::new()
            .name("arbiter-store".into())
            .spawn(move || write_loop(writer, rx))
            .map_err(|e| e.to_string())?;
        let alive = writes.downgrade();
        let wal = PathBuf::from(format!("{}-wal", path.display()));
        std::thread::Builder::new()
            .name("arbiter-checkpoint".into())
            .spawn(move || checkpoint_loop(checkpointer, alive, wal))
            .map_err(|e| e.to_string())?;
        Ok(Store {
            writes,
            readers: Arc::new(ReaderPool::new(readers)),
            interrupted_at_open: interrupted,
            _lock: Arc::new(lock),
        })
    }

    async fn request<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, String>>) -> Write,
    ) -> Result<T, String> {
        let (done, wait) = oneshot::channel();
        self.writes
            .send(make(done))
            .map_err(|_| "the store has shut down".to_string())?;
        wait.await
            .map_err(|_| "the store has shut down".to_string())?
    }

    pub async fn start_game(
        &self,
        room: u32,
        game: &str,
        settings: &str,
        first: &str,
        second: &str,
    ) -> Result<i64, String> {
        self.request(|done| Write::StartGame {
            room,
            game: game.into(),
            settings: settings.into(),
            first: first.into(),
            second: second.into(),
            owner: None,
            done,
        })
        .await
    }

    /// Starts a game a page plays by itself (against the AI, at one screen): room 0, and the
    /// owner's secret, without which nobody adds to it.
    pub async fn start_owned_game(
        &self,
        game: &str,
        settings: &str,
        players: [&str; 2],
        owner: &str,
    ) -> Result<i64, String> {
        self.request(|done| Write::StartGame {
            room: 0,
            game: game.into(),
            settings: settings.into(),
            first: players[0].into(),
            second: players[1].into(),
            owner: Some(owner.into()),
            done,
        })
        .await
    }

    /// A page's own game: its owner secret, its settings, whether it ended, its moves so far.
    pub fn owned_game(&self, id: i64) -> Result<Option<OwnedGame>, String> {
        self.readers.read(|conn| {
            let row = conn
                .query_row(
                    "SELECT owner, settings, ended_at IS NOT NULL FROM games WHERE id = ?1",
                    params![id],
                    |r| {
                        Ok((
                            r.get::<_, Option<String>>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, bool>(2)?,
                        ))
                    },
                )
                .optional()?;
            let Some((owner, settings, ended)) = row else {
                return Ok(None);
            };
            let mut stmt =
                conn.prepare_cached("SELECT text FROM moves WHERE game_id = ?1 ORDER BY ply")?;
            let moves = stmt
                .query_map(params![id], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Some(OwnedGame {
                owner,
                settings,
                ended,
                moves,
            }))
        })
    }

    /// Returns once the move is committed.
    pub async fn record_move(
        &self,
        game_id: i64,
        ply: usize,
        text: &str,
        reason: &str,
    ) -> Result<(), String> {
        self.request(|done| Write::Move {
            game_id,
            ply,
            text: text.into(),
            reason: reason.into(),
            done,
        })
        .await
    }

    pub async fn end_game(
        &self,
        game_id: i64,
        end_reason: &str,
        winner: Option<u8>,
        record: &str,
    ) -> Result<(), String> {
        self.request(|done| Write::EndGame {
            game_id,
            end_reason: end_reason.into(),
            winner,
            record: record.into(),
            done,
        })
        .await
    }

    /// Keeps only the first `keep` moves of a game (a page taking moves back in its own game).
    pub async fn truncate_moves(&self, game_id: i64, keep: usize) -> Result<(), String> {
        self.request(|done| Write::TruncateMoves {
            game_id,
            keep,
            done,
        })
        .await
    }

    /// Waits until every write sent so far is committed (for shutdown).
    pub async fn flush(&self) {
        let (done, wait) = oneshot::channel();
        if self.writes.send(Write::Flush { done }).is_ok() {
            let _ = wait.await;
        }
    }

    /// The most recent games first; `player` keeps those where that name played.
    pub fn list_games(
        &self,
        limit: u32,
        offset: u32,
        player: Option<&str>,
    ) -> Result<Vec<StoredGame>, String> {
        self.readers.read(|conn| match player {
            Some(name) => {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, room, game, settings, first_player, second_player, started_at, ended_at, end_reason, winner, record
                     FROM games WHERE first_player = ?3
                     UNION ALL
                     SELECT id, room, game, settings, first_player, second_player, started_at, ended_at, end_reason, winner, record
                     FROM games WHERE second_player = ?3 AND first_player <> ?3
                     ORDER BY id DESC LIMIT ?1 OFFSET ?2",
                )?;
                let rows = stmt.query_map(params![limit, offset, name], game_row)?;
                rows.collect()
            }
            None => {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, room, game, settings, first_player, second_player, started_at, ended_at, end_reason, winner, record
                     FROM games ORDER BY id DESC LIMIT ?1 OFFSET ?2",
                )?;
                let rows = stmt.query_map(params![limit, offset], game_row)?;
                rows.collect()
            }
        })
    }

    /// One game with its moves.
    pub fn game(&self, id: i64) -> Result<Option<StoredGame>, String> {
        self.readers.read(|conn| {
            let game = conn
                .query_row(
                    "SELECT id, room, game, settings, first_player, second_player, started_at, ended_at, end_reason, winner, record
                     FROM games WHERE id = ?1",
                    params![id],
                    game_row,
                )
                .optional()?;
            let Some(mut game) = game else { return Ok(None) };
            let mut stmt = conn.prepare_cached("SELECT ply, text, reason, at FROM moves WHERE game_id = ?1 ORDER BY ply")?;
            game.moves = stmt
                .query_map(params![id], |r| {
                    Ok(StoredMove { ply: r.get::<_, i64>(0)? as usize, text: r.get(1)?, reason: r.get(2)?, at: r.get(3)? })
                })?
                .collect::<rusqlite::Result<_>>()?;
            Ok(Some(game))
        })
    }
}

/// A few read connections, each used by one request at a time.
struct ReaderPool {
    free: Mutex<Vec<Connection>>,
    available: std::sync::Condvar,
}

impl ReaderPool {
    fn new(connections: Vec<Connection>) -> ReaderPool {
        ReaderPool {
            free: Mutex::new(connections),
            available: std::sync::Condvar::new(),
        }
    }

    fn read<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, String> {
        let conn = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(conn) = free.pop() {
                    break conn;
                }
                free = self.available.wait(free).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result = f(&conn).map_err(|e| e.to_string());
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(conn);
        self.available.notify_one();
        result
    }
}

fn game_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredGame> {
    let settings: String = r.get(3)?;
    Ok(StoredGame {
        id: r.get(0)?,
        room: r.get::<_, i64>(1)? as u32,
        game: r.get(2)?,
        settings: serde_json::from_str(&settings).unwrap_or(serde_json::Value::Null),
        first: r.get(4)?,
        second: r.get(5)?,
        started_at: r.get(6)?,
        ended_at: r.get(7)?,
        end_reason: r.get(8)?,
        winner: r.get::<_, Option<i64>>(9)?.map(|w| w as u8),
        record: r.get(10)?,
        moves: Vec::new(),
    })
}

/// Checkpoints the WAL into the database now and then, beside the writer, so a commit never
/// waits for one; ends with the store. A passive checkpoint never brings the WAL back to its start
/// while the writer keeps committing, so once the WAL passes [`WAL_RESTART_BYTES`] a RESTART
/// checkpoint (which waits for the writer between two commits) starts it over: the passive ones
/// have copied almost everything by then, so the writer waits only a moment.
fn checkpoint_loop(conn: Connection, store: mpsc::WeakUnboundedSender<Write>, wal: PathBuf) {
    while store.upgrade().is_some() {
        std::thread::sleep(CHECKPOINT_EVERY);
        let big = std::fs::metadata(&wal).is_ok_and(|m| m.len() > WAL_RESTART_BYTES);
        let mode = if big { "RESTART" } else { "PASSIVE" };
        if let Err(e) = conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |_| Ok(())) {
            tracing::warn!("checkpoint failed: {e}");
        }
    }
}

/// What one write did inside the batch: the new game's id for a start.
type Outcome = Result<Option<i64>, String>;

/// Takes every queued write, commits them in one transaction (each in its own savepoint), then
/// reports each.
fn write_loop(mut conn: Connection, mut rx: mpsc::UnboundedReceiver<Write>) {
    while let Some(first) = rx.blocking_recv() {
        let mut batch = vec![first];
        while batch.len() < 512 {
            match rx.try_recv() {
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
            }
        }
    }
}

/// Runs a batch; each write's outcome, every one failed when the commit itself fails.
fn commit_batch(conn: &mut Connection, batch: &[Write]) -> Vec<Outcome> {
    let result = (|| -> rusqlite::Result<Vec<Outcome>> {
        let mut tx = conn.transaction()?;
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
                    outcomes.push(Err(format!("storage failed: {e}")));
                }
            }
        }
        tx.set_drop_behavior(rusqlite::DropBehavior::Commit);
        tx.commit()?;
        Ok(outcomes)
    })();
    result.unwrap_or_else(|e| {
        let message = format!("storage failed: {e}");
        batch.iter().map(|_| Err(message.clone())).collect()
    })
}

fn apply(tx: &rusqlite::Savepoint<'_>, w: &Write) -> rusqlite::Result<Option<i64>> {
    match w {
        Write::StartGame {
            room,
            game,
            settings,
            first,
            second,
            owner,
            ..
        } => {
            tx.execute(
                "INSERT INTO games (room, game, settings, first_player, second_player, started_at, owner) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![room, game, settings, first, second, now_ms(), owner],
            )?;
            Ok(Some(tx.last_insert_rowid()))
        }
        Write::Move {
            game_id,
            ply,
            text,
            reason,
            ..
        } => {
            tx.execute(
                "INSERT OR REPLACE INTO moves (game_id, ply, text, reason, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![game_id, *ply as i64, text, reason, now_ms()],
            )?;
            Ok(None)
        }
        Write::EndGame {
            game_id,
            end_reason,
            winner,
            record,
            ..
        } => {
            tx.execute(
                "UPDATE games SET ended_at = ?2, end_reason = ?3, winner = ?4, record = ?5 WHERE id = ?1",
                params![game_id, now_ms(), end_reason, winner, record],
            )?;
            Ok(None)
        }
        Write::TruncateMoves { game_id, keep, .. } => {
            tx.execute(
                "DELETE FROM moves WHERE game_id = ?1 AND ply > ?2",
                params![game_id, *keep as i64],
            )?;
            Ok(None)
        }
        Write::Flush { .. } => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("arbiter-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("games.sqlite")
    }

    #[tokio::test]
    async fn a_failing_write_fails_alone_in_its_batch() {
        let path = temp("isolation");
        let store = Store::open(&path, &StoreOptions::default()).unwrap();
        let good = store.start_game(1, "duck", "{}", "a", "b").await.unwrap();
        // Another room's game whose moves the database refuses.
        let bad = store.start_game(2, "duck", "{}", "c", "d").await.unwrap();
        Connection::open(&path)
            .unwrap()
            .execute_batch(&format!(
                "CREATE TRIGGER refuse BEFORE INSERT ON moves WHEN NEW.game_id = {bad}
                 BEGIN SELECT RAISE(ABORT, 'refused'); END;"
            ))
            .unwrap();
        let (a, b, c) = tokio::join!(
            store.record_move(good, 1, "a0-a1", "LEGAL_NON_CAPTURE_MOVE"),
            store.record_move(bad, 1, "a0-a1", "LEGAL_NON_CAPTURE_MOVE"),
            store.record_move(good, 2, "a9-a8", "LEGAL_NON_CAPTURE_MOVE"),
        );
        assert_eq!((a, c), (Ok(()), Ok(())));
        assert!(b.unwrap_err().contains("refused"));
        assert_eq!(store.game(good).unwrap().unwrap().moves.len(), 2);
    }

    #[tokio::test]
    async fn a_second_server_is_refused_and_running_games_are_closed_on_opening() {
        let path = temp("reopen");
        let id = {
            let store = Store::open(&path, &StoreOptions::default()).unwrap();
            let e = Store::open(&path, &StoreOptions::default()).err().unwrap();
            assert!(e.contains("another arbiter server"), "{e}");
            let id = store.start_game(1, "duck", "{}", "a", "b").await.unwrap();
            for (ply, mv) in ["a0-a1", "a9-a8"].iter().enumerate() {
                store.record_move(id, ply + 1, mv, "LEGAL").await.unwrap();
            }
            id
        };
        // The first store is gone (its writer may still hold the file a moment).
        let mut reopened = Err(String::new());
        for _ in 0..50 {
            reopened = Store::open(&path, &StoreOptions::default());
            if reopened.is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let store = reopened.unwrap();
        assert_eq!(store.interrupted_at_open, 1);
        let game = store.game(id).unwrap().unwrap();
        assert_eq!(game.end_reason.as_deref(), Some("INTERRUPTED"));
        assert_eq!(game.record.as_deref(), Some("a0-a1 a9-a8 X#"));
        assert_eq!(game.winner, Some(2));
    }
}
