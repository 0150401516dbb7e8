//! Games in SQLite: one writer thread that commits in groups, so a move is on disk (`synchronous
//! = FULL`) before it is forwarded without one disk sync per move; checkpoints on a connection of
//! their own so they never hold a commit up; reads for the HTTP API from a small pool.
//!
//! * Each write of a batch runs in its own savepoint: a write that fails fails alone, and the
//!   rooms whose writes succeeded are not held back by it.
//! * An OS lock on the database file itself keeps a second server off it, by any path.
//! * On opening, the newest game without an end of each room is kept for the server to carry on
//!   (a restart loses no game); older ones, which no room can carry on, are closed as
//!   `INTERRUPTED`.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::{mpsc, oneshot};

use super::{
    migrations, AnalysisRecord, Fence, GameEnd, GameQuery, GameStore, LiveGame, NameClaim, NewGame,
    OwnedGame, PlayedMove, PlayerRating, PlayerRecord, RatedGame, Rating, StorageError,
    StorageResult, StoredAnalysis, StoredGame, StoredMove, WriteCounts, WriteKey, WriteTally,
};
use crate::protocol::Winner;
use readers::ReaderPool;
pub(crate) use writer::now_ms;
use writer::{checkpoint_loop, write_loop, WalRestart, Write};

mod analyses;
mod players;
mod readers;
mod writer;

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
    counts: Arc<WriteCounts>,
    /// Games closed as interrupted when the store was opened.
    pub interrupted_at_open: usize,
    _lock: Arc<File>,
}

/// Closes as interrupted (its record ending in ` X#`) every game without an end that no room can
/// carry on: all but the newest of each room. The newest are restored when the server starts
/// (a room plays one game at a time), so a server killed and started again loses no game.
const CLOSE_INTERRUPTED: &str = "
UPDATE games SET
    ended_at = ?1,
    end_reason = 'INTERRUPTED',
    winner = 2,
    record = trim(coalesce((SELECT group_concat(text, ' ' ORDER BY ply) FROM moves
                            WHERE moves.game_id = games.id), '') || ' X#')
WHERE ended_at IS NULL AND owner IS NULL
  AND id NOT IN (SELECT max(id) FROM games WHERE ended_at IS NULL AND owner IS NULL GROUP BY room)";

/// The rooms whose newest game has no end.
const LIVE_ROOMS: &str = "
SELECT DISTINCT room FROM games WHERE ended_at IS NULL AND owner IS NULL ORDER BY room";

const READERS: usize = 4;

/// How the WAL is kept short while the writer keeps committing.
#[derive(Clone, Copy, Debug)]
pub(super) struct WalPolicy {
    /// How often the checkpoint thread copies the WAL into the database.
    checkpoint_every: Duration,
    /// Past this many bytes of frames the writer starts the WAL over.
    restart_bytes: u64,
}

impl WalPolicy {
    const SERVER: WalPolicy = WalPolicy {
        checkpoint_every: Duration::from_millis(500),
        restart_bytes: 64 << 20,
    };

    /// The WAL file is cut back to this size when it starts over (`journal_size_limit`): well
    /// above what it reaches in steady use, so the commits that start it over neither truncate
    /// nor then grow the file again (a commit that grows the file waits for more of the disk
    /// than one that overwrites it), while a WAL once swollen (a reader held it back) shrinks.
    fn file_limit(&self) -> u64 {
        4 * self.restart_bytes
    }
}

/// A connection that waits up to 5 s for a lock; `query_only` for all but the writer's, so
/// that only the writer ever takes SQLite's write lock.
fn connect(path: &Path, query_only: bool) -> StorageResult<Connection> {
    let open = |source| StorageError::Open {
        path: path.to_path_buf(),
        source,
    };
    let conn = Connection::open(path).map_err(open)?;
    conn.busy_timeout(Duration::from_secs(5)).map_err(open)?;
    conn.pragma_update(None, "query_only", query_only)
        .map_err(open)?;
    Ok(conn)
}

/// Brings the database to the newest schema of [`migrations::SQLITE`], each migration in its own
/// transaction with its version (`PRAGMA user_version`); refuses a database a newer arbiter made.
/// A database of an arbiter from before numbered migrations (version 0 with its tables) gets the
/// one column those lacked, then version 1 adopts it as it is.
fn migrate(conn: &mut Connection, path: &Path) -> StorageResult<()> {
    let setup = |action: &'static str| {
        move |source| StorageError::Setup {
            action,
            path: path.to_path_buf(),
            source,
        }
    };
    let found: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(setup("read the schema version of"))?;
    let pending = migrations::pending(migrations::SQLITE, found, &path.display().to_string())?;
    if found == 0 {
        adopt_unversioned(conn).map_err(setup("update"))?;
    }
    for m in pending {
        let apply = |conn: &mut Connection| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            tx.execute_batch(m.sql)?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", m.version))?;
            tx.commit()
        };
        apply(conn).map_err(setup("migrate"))?;
    }
    // A new database is no news; an older one brought up to date is worth a line.
    if let Some(last) = pending.last().filter(|_| found > 0) {
        let (db, to) = (path.display(), last.version);
        tracing::info!("{db}: schema migrated from version {found} to {to}");
    }
    Ok(())
}

/// The one step arbiter took before its migrations were numbered: games got an `owner`.
fn adopt_unversioned(conn: &Connection) -> rusqlite::Result<()> {
    let has_games = conn
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'")?
        .exists([])?;
    let has_owner = conn
        .prepare("SELECT 1 FROM pragma_table_info('games') WHERE name = 'owner'")?
        .exists([])?;
    if has_games && !has_owner {
        conn.execute_batch("ALTER TABLE games ADD COLUMN owner TEXT;")?;
    }
    Ok(())
}

/// Takes an OS lock (`flock`) on the database file itself, or says another server holds it.
/// The lock belongs to the file, not to its name: a symlink or a hard link to the same file
/// finds it taken. (SQLite's own locks are `fcntl` locks, which `flock` does not touch.)
fn lock(path: &Path) -> StorageResult<File> {
    let failed = |source| StorageError::LockFile {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(failed)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(StorageError::Locked {
            db: path.to_path_buf(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(failed(e)),
    }
}

impl Store {
    /// Opens (or creates) the database file, closes games left running, and starts the writer
    /// and checkpoint threads.
    pub fn open(path: &Path, options: &StoreOptions) -> StorageResult<Store> {
        Store::open_with(path, options, WalPolicy::SERVER)
    }

    fn open_with(path: &Path, options: &StoreOptions, wal: WalPolicy) -> StorageResult<Store> {
        let lock = Arc::new(lock(path)?);
        let (writer, interrupted) = prepare(path, options, wal)?;
        let readers = (0..READERS)
            .map(|_| connect(path, true))
            .collect::<Result<_, _>>()?;
        let checkpointer = connect(path, true)?;
        let (writes, rx) = mpsc::unbounded_channel();
        let restart = Arc::new(WalRestart::default());
        // The writer holds the lock too, so it is let go only after the last write.
        let (writer_lock, writer_restart) = (lock.clone(), restart.clone());
        std::thread::Builder::new()
            .name("arbiter-store".into())
            .spawn(move || {
                write_loop(writer, rx, writer_restart);
                drop(writer_lock);
            })
            .map_err(StorageError::Thread)?;
        let alive = writes.downgrade();
        std::thread::Builder::new()
            .name("arbiter-checkpoint".into())
            .spawn(move || checkpoint_loop(checkpointer, alive, wal, restart))
            .map_err(StorageError::Thread)?;
        Ok(Store {
            writes,
            readers: Arc::new(ReaderPool::new(readers)),
            counts: Arc::default(),
            interrupted_at_open: interrupted,
            _lock: lock,
        })
    }

    /// Queues write `key` for the writer thread; its outcome once committed, counted.
    async fn request<T>(
        &self,
        key: WriteKey,
        make: impl FnOnce(oneshot::Sender<StorageResult<T>>) -> Write,
    ) -> StorageResult<T> {
        let (done, wait) = oneshot::channel();
        let sent = self.writes.send(make(done));
        self.counts
            .counted(key, async move {
                sent.map_err(|_| StorageError::ShutDown)?;
                wait.await.map_err(|_| StorageError::ShutDown)?
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

    /// A page's own game: its owner secret, its settings, whether it ended, its moves so far.
    pub fn owned_game(&self, id: i64) -> StorageResult<Option<OwnedGame>> {
        self.readers.read(|conn| {
            let row = conn
                .query_row(
                    "SELECT owner, settings, ended_at IS NOT NULL FROM games WHERE id = ?1",
                    params![id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
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

    /// The most recent games first; `player` keeps those where that name played.
    pub fn list_games(
        &self,
        limit: u32,
        offset: u32,
        player: Option<&str>,
    ) -> StorageResult<Vec<StoredGame>> {
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
    pub fn game(&self, id: i64) -> StorageResult<Option<StoredGame>> {
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
            game.moves = moves_of(conn, id)?;
            Ok(Some(game))
        })
    }

    /// The newest game of `room` without an end (not a page's own), with its moves.
    pub fn live_game(&self, room: u32) -> StorageResult<Option<LiveGame>> {
        self.readers.read(|conn| {
            let row = conn
                .query_row(
                    "SELECT id, game, settings, first_player, second_player, first_token, second_token, started_at
                     FROM games WHERE room = ?1 AND ended_at IS NULL AND owner IS NULL
                     ORDER BY id DESC LIMIT 1",
                    params![room],
                    |r| {
                        Ok(LiveGame {
                            id: r.get(0)?,
                            room,
                            game: r.get(1)?,
                            settings: r.get(2)?,
                            players: [r.get(3)?, r.get(4)?],
                            seat_tokens: [r.get(5)?, r.get(6)?],
                            started_at: r.get(7)?,
                            moves: Vec::new(),
                        })
                    },
                )
                .optional()?;
            let Some(mut game) = row else { return Ok(None) };
            game.moves = moves_of(conn, game.id)?;
            Ok(Some(game))
        })
    }

    /// Runs a read on the blocking pool, so an async caller never waits on SQLite in place.
    fn read_later<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Store) -> StorageResult<T> + Send + 'static,
    ) -> BoxFuture<'static, StorageResult<T>> {
        let store = self.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || read(&store))
                .await
                .map_err(|e| StorageError::Database(format!("a read failed: {e}")))?
        })
    }
}

impl GameStore for Store {
    fn start_game(&self, game: NewGame) -> BoxFuture<'_, StorageResult<i64>> {
        let key = WriteKey::start(&game);
        Box::pin(self.request(key, |done| Write::StartGame { game, done }))
    }

    fn record_move(&self, played: PlayedMove) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::of_move(&played);
        Box::pin(self.request(key, |done| Write::Move { played, done }))
    }

    fn end_game(&self, end: GameEnd) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::end(&end);
        Box::pin(self.request(key, |done| Write::EndGame { end, done }))
    }

    fn truncate_moves(
        &self,
        game_id: i64,
        keep: usize,
        fence: Option<Fence>,
    ) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::Truncate {
            game: game_id,
            keep,
        };
        Box::pin(self.request(key, move |done| Write::TruncateMoves {
            game_id,
            keep,
            fence,
            done,
        }))
    }

    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(Store::flush(self))
    }

    fn list_games(&self, query: GameQuery) -> BoxFuture<'_, StorageResult<Vec<StoredGame>>> {
        self.read_later(move |store| {
            store.list_games(query.limit, query.offset, query.player.as_deref())
        })
    }

    fn game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<StoredGame>>> {
        self.read_later(move |store| store.game(id))
    }

    fn owned_game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<OwnedGame>>> {
        self.read_later(move |store| store.owned_game(id))
    }

    fn live_game(&self, room: u32) -> BoxFuture<'_, StorageResult<Option<LiveGame>>> {
        self.read_later(move |store| store.live_game(room))
    }

    fn live_rooms(&self) -> BoxFuture<'_, StorageResult<Vec<u32>>> {
        self.read_later(|store| {
            store.readers.read(|conn| {
                let mut stmt = conn.prepare_cached(LIVE_ROOMS)?;
                let rooms = stmt.query_map([], |r| r.get(0))?;
                rooms.collect::<Result<Vec<u32>, _>>()
            })
        })
    }

    fn check_name(
        &self,
        name: String,
        secret_hash: Option<String>,
    ) -> BoxFuture<'_, StorageResult<NameClaim>> {
        self.claim_name(name, secret_hash)
    }

    fn rate_game(&self, rated: RatedGame) -> BoxFuture<'_, StorageResult<[Rating; 2]>> {
        self.count_rated(rated)
    }

    fn leaderboard(
        &self,
        class: String,
        limit: u32,
    ) -> BoxFuture<'_, StorageResult<Vec<PlayerRating>>> {
        self.read_later(move |store| Store::leaderboard(store, &class, limit))
    }

    fn player(&self, name: String) -> BoxFuture<'_, StorageResult<Option<PlayerRecord>>> {
        self.read_later(move |store| Store::player(store, &name))
    }

    fn save_analysis(&self, analysis: AnalysisRecord) -> BoxFuture<'_, StorageResult<()>> {
        self.store_analysis(analysis)
    }

    fn analysis(&self, game_id: i64) -> BoxFuture<'_, StorageResult<Option<StoredAnalysis>>> {
        self.read_later(move |store| store.stored_analysis(game_id))
    }

    fn write_tally(&self) -> WriteTally {
        self.counts.tally()
    }
}

/// The writer's connection, the schema set up and brought up to date, the size limit set, and
/// the games a crash left running closed; how many there were.
fn prepare(
    path: &Path,
    options: &StoreOptions,
    wal: WalPolicy,
) -> StorageResult<(Connection, usize)> {
    let setup = |action: &'static str| {
        move |source| StorageError::Setup {
            action,
            path: path.to_path_buf(),
            source,
        }
    };
    let mut writer = connect(path, false)?;
    writer
        .execute_batch("PRAGMA journal_mode = WAL;")
        .map_err(setup("set up"))?;
    migrate(&mut writer, path)?;
    // Every commit reaches the disk before the move it holds is forwarded; checkpoints run
    // elsewhere so a commit never waits for one.
    writer
        .execute_batch(&format!(
            "PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0;
             PRAGMA journal_size_limit = {};",
            wal.file_limit()
        ))
        .map_err(setup("configure"))?;
    if let Some(bytes) = options.max_bytes {
        let page_size: u64 = writer.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        let pages = (bytes / page_size.max(1)).max(1);
        writer
            .execute_batch(&format!("PRAGMA max_page_count = {pages};"))
            .map_err(setup("limit the size of"))?;
    }
    let interrupted = writer
        .execute(CLOSE_INTERRUPTED, params![now_ms()])
        .map_err(setup("close the games left running in"))?;
    if interrupted > 0 {
        tracing::warn!("closed {interrupted} games left running by the last server as INTERRUPTED");
    }
    Ok((writer, interrupted))
}

/// The winner column holds the course's code: 0, 1 or 2.
impl ToSql for Winner {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(i64::from(self.code())))
    }
}

impl FromSql for Winner {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Winner> {
        let code = value.as_i64()?;
        u64::try_from(code)
            .ok()
            .and_then(Winner::from_code)
            .ok_or(FromSqlError::OutOfRange(code))
    }
}

/// A game's moves in ply order.
fn moves_of(conn: &Connection, id: i64) -> rusqlite::Result<Vec<StoredMove>> {
    let mut stmt = conn.prepare_cached(
        "SELECT ply, text, reason, at FROM moves WHERE game_id = ?1 ORDER BY ply",
    )?;
    let moves = stmt.query_map(params![id], |r| {
        Ok(StoredMove {
            ply: r.get::<_, i64>(0)? as usize,
            text: r.get(1)?,
            reason: r.get(2)?,
            at: r.get(3)?,
        })
    })?;
    moves.collect()
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
        winner: r.get(9)?,
        record: r.get(10)?,
        moves: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
