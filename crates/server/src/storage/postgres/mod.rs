//! Games in PostgreSQL, for a cluster: every node writes to one database through a pool of
//! connections (`tokio-postgres` with `deadpool-postgres`, no TLS; docs/cluster.md#storage says
//! why). Each write is one transaction that commits before its future completes, so a move is
//! durable on the server before a room forwards it.
//!
//! * Times are taken on the database's clock (milliseconds since the Unix epoch), the one clock
//!   every node shares, so the moves of a game that changed owner are measured alike.
//! * A fenced write reads the room's lease `FOR SHARE` in its own transaction: a newer claim
//!   ([`PgLeases`]) waits for the write to commit, and a write after the claim sees its epoch.
//! * Opening the store closes no running game: other nodes may be playing them, and a room's
//!   next owner carries its game on ([`GameStore::live_game`]).

mod analyses;
mod errors;
mod leases;
mod players;
mod url;

use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures_util::future::BoxFuture;
use tokio_postgres::error::SqlState;
use tokio_postgres::{NoTls, Row};

use errors::{db_error, is_code, pool_error_text};
pub use leases::PgLeases;
use url::describe;
pub(crate) use url::{check_url, describe_url};

use super::{
    migrations, AnalysisRecord, Fence, GameEnd, GameQuery, GameStore, LiveGame, NameClaim, NewGame,
    OwnedGame, PlayedMove, PlayerRating, PlayerRecord, RatedGame, Rating, StorageError,
    StorageResult, StoredAnalysis, StoredGame, StoredMove, WriteCounts, WriteKey, WriteTally,
};
use crate::protocol::Winner;

/// Connections each store keeps at most.
const POOL_SIZE: usize = 16;
/// How long connecting may take, unless the URL says (`connect_timeout=`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a write waits for a free connection before it fails.
const WAIT_TIMEOUT: Duration = Duration::from_secs(10);
/// The advisory lock nodes starting together take to migrate one at a time.
const MIGRATION_LOCK: i64 = 0x0061_7262_6974_6572; // "arbiter"

/// Now on the database's clock, in milliseconds since the Unix epoch.
const NOW_MS: &str = "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/// The game store on PostgreSQL: cheap to clone, shared by every room.
#[derive(Clone)]
pub struct PgStore {
    pool: Pool,
    /// `host:port/database`, for messages.
    target: String,
    counts: Arc<WriteCounts>,
}

/// A pool of connections to `url`, one connection made to prove the database is there, and the
/// schema brought up to date.
async fn pool(url: &str, size: usize) -> StorageResult<(Pool, String)> {
    let mut config = check_url(url)?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("arbiter");
    }
    let target = describe(&config);
    let manager = Manager::from_config(
        config,
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    let pool = Pool::builder(manager)
        .max_size(size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(WAIT_TIMEOUT))
        .create_timeout(Some(CONNECT_TIMEOUT))
        .build()
        .map_err(|e| StorageError::Database(e.to_string()))?;
    let mut client = pool.get().await.map_err(|e| StorageError::Unreachable {
        target: target.clone(),
        reason: pool_error_text(&e),
    })?;
    migrate(&mut client, &target).await?;
    Ok((pool, target))
}

/// Applies the migrations of [`migrations::POSTGRES`] the database lacks, all in one transaction
/// holding an advisory lock, so nodes that start together migrate once; refuses a database a
/// newer arbiter migrated.
async fn migrate(client: &mut deadpool_postgres::Client, target: &str) -> StorageResult<()> {
    let tx = client.transaction().await.map_err(db_error)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db_error)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_version (
             version INTEGER PRIMARY KEY,
             name TEXT NOT NULL,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
         )",
    )
    .await
    .map_err(db_error)?;
    let found: i32 = tx
        .query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
        .await
        .map_err(db_error)?
        .get(0);
    let pending = migrations::pending(migrations::POSTGRES, found as u32, target)?;
    for m in pending {
        tx.batch_execute(m.sql).await.map_err(db_error)?;
        tx.execute(
            "INSERT INTO schema_version (version, name) VALUES ($1, $2)",
            &[&(m.version as i32), &m.name],
        )
        .await
        .map_err(db_error)?;
    }
    tx.commit().await.map_err(db_error)?;
    // A new database is no news; an older one brought up to date is worth a line.
    if let Some(last) = pending.last().filter(|_| found > 0) {
        let to = last.version;
        tracing::info!("{target}: schema migrated from version {found} to {to}");
    }
    Ok(())
}

/// Refuses a write of a room's former owner. The lease row is read `FOR SHARE`: a claim that
/// would change it waits until this transaction ends.
async fn check_fence(
    tx: &deadpool_postgres::Transaction<'_>,
    fence: Option<Fence>,
) -> StorageResult<()> {
    let Some(fence) = fence else { return Ok(()) };
    let stmt = tx
        .prepare_cached("SELECT epoch FROM room_leases WHERE room = $1 FOR SHARE")
        .await
        .map_err(db_error)?;
    let row = tx
        .query_opt(&stmt, &[&i64::from(fence.room)])
        .await
        .map_err(db_error)?;
    match row.map(|r| r.get::<_, i64>(0) as u64) {
        Some(epoch) if epoch > fence.epoch => Err(StorageError::Fenced {
            room: fence.room,
            epoch,
        }),
        _ => Ok(()),
    }
}

/// Whether move `m` (at `ply`) is new and follows the stored moves: `false` when the very same
/// move is stored already (a retry whose answer was lost), an error when another move holds its
/// ply or its previous ply is missing.
async fn follows_stored(
    tx: &deadpool_postgres::Transaction<'_>,
    m: &PlayedMove,
    ply: i32,
) -> StorageResult<bool> {
    let game = m.game_id;
    let query = |sql: &'static str| async move { tx.prepare_cached(sql).await.map_err(db_error) };
    let stmt = query("SELECT text, reason FROM moves WHERE game_id = $1 AND ply = $2").await?;
    if let Some(row) = tx
        .query_opt(&stmt, &[&game, &ply])
        .await
        .map_err(db_error)?
    {
        let (text, reason): (String, String) = (row.get(0), row.get(1));
        return if text == m.text && reason == m.reason {
            Ok(false)
        } else {
            Err(StorageError::PlyTaken { game, ply: m.ply })
        };
    }
    let previous = match ply {
        0 => None,
        1 => {
            let stmt = query("SELECT 1 FROM games WHERE id = $1").await?;
            let found = tx.query_opt(&stmt, &[&game]).await.map_err(db_error)?;
            if found.is_none() {
                return Err(StorageError::NoGame(game));
            }
            Some(())
        }
        _ => {
            let stmt = query("SELECT 1 FROM moves WHERE game_id = $1 AND ply = $2").await?;
            let found = tx.query_opt(&stmt, &[&game, &(ply - 1)]).await;
            found.map_err(db_error)?.map(drop)
        }
    };
    match previous {
        Some(()) => Ok(true),
        None => Err(StorageError::PlySkipped { game, ply: m.ply }),
    }
}

const GAME_COLUMNS: &str = "id, room, game, settings, first_player, second_player, started_at, \
                            ended_at, end_reason, winner, record";

fn game_row(r: &Row) -> StoredGame {
    let settings: String = r.get(3);
    StoredGame {
        id: r.get(0),
        room: r.get::<_, i64>(1) as u32,
        game: r.get(2),
        settings: serde_json::from_str(&settings).unwrap_or(serde_json::Value::Null),
        first: r.get(4),
        second: r.get(5),
        started_at: r.get(6),
        ended_at: r.get(7),
        end_reason: r.get(8),
        winner: r
            .get::<_, Option<i16>>(9)
            .and_then(|w| u64::try_from(w).ok())
            .and_then(Winner::from_code),
        record: r.get(10),
        moves: Vec::new(),
    }
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://USER@HOST:PORT/DATABASE`) with a pool of
    /// connections and brings its schema up to date. Fails with a message naming `host:port`
    /// when the database cannot be reached.
    pub async fn connect(url: &str) -> StorageResult<PgStore> {
        let (pool, target) = pool(url, POOL_SIZE).await?;
        Ok(PgStore {
            pool,
            target,
            counts: Arc::default(),
        })
    }

    /// `host:port/database`.
    pub fn target(&self) -> &str {
        &self.target
    }

    pub(crate) fn pool(&self) -> &Pool {
        &self.pool
    }

    async fn client(&self) -> StorageResult<deadpool_postgres::Client> {
        self.pool.get().await.map_err(|e| {
            StorageError::Database(format!(
                "no connection to PostgreSQL at {}: {}",
                self.target,
                pool_error_text(&e)
            ))
        })
    }

    async fn start_game(&self, game: NewGame) -> StorageResult<i64> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        check_fence(&tx, game.fence).await?;
        let stmt = tx
            .prepare_cached(&format!(
                "INSERT INTO games (room, game, settings, first_player, second_player, started_at,
                                    owner, first_token, second_token)
                 VALUES ($1, $2, $3, $4, $5, {NOW_MS}, $6, $7, $8) RETURNING id"
            ))
            .await
            .map_err(db_error)?;
        let [first, second] = &game.players;
        let [first_token, second_token] = &game.seat_tokens;
        let row = tx
            .query_one(
                &stmt,
                &[
                    &i64::from(game.room),
                    &game.game,
                    &game.settings,
                    first,
                    second,
                    &game.owner,
                    first_token,
                    second_token,
                ],
            )
            .await
            .map_err(db_error)?;
        tx.commit().await.map_err(db_error)?;
        Ok(row.get(0))
    }

    async fn record_move(&self, m: PlayedMove) -> StorageResult<()> {
        let Ok(ply) = i32::try_from(m.ply) else {
            return Err(StorageError::PlySkipped {
                game: m.game_id,
                ply: m.ply,
            });
        };
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        check_fence(&tx, m.fence).await?;
        if !follows_stored(&tx, &m, ply).await? {
            return Ok(());
        }
        let stmt = tx
            .prepare_cached(&format!(
                "INSERT INTO moves (game_id, ply, text, reason, at)
                 VALUES ($1, $2, $3, $4, {NOW_MS})"
            ))
            .await
            .map_err(db_error)?;
        match tx
            .execute(&stmt, &[&m.game_id, &ply, &m.text, &m.reason])
            .await
        {
            // Another writer stored this ply between the check and the insert.
            Err(e) if is_code(&e, &SqlState::UNIQUE_VIOLATION) => Err(StorageError::PlyTaken {
                game: m.game_id,
                ply: m.ply,
            }),
            Err(e) => Err(db_error(e)),
            Ok(_) => tx.commit().await.map_err(db_error),
        }
    }

    async fn end_game(&self, end: GameEnd) -> StorageResult<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        check_fence(&tx, end.fence).await?;
        let stmt = tx
            .prepare_cached(&format!(
                "UPDATE games SET ended_at = {NOW_MS}, end_reason = $2, winner = $3, record = $4
                 WHERE id = $1"
            ))
            .await
            .map_err(db_error)?;
        let winner = end.winner.code() as i16;
        tx.execute(
            &stmt,
            &[&end.game_id, &end.end_reason, &winner, &end.record],
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)
    }

    async fn truncate_moves(
        &self,
        game_id: i64,
        keep: usize,
        fence: Option<Fence>,
    ) -> StorageResult<()> {
        let keep = i32::try_from(keep).unwrap_or(i32::MAX);
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        check_fence(&tx, fence).await?;
        let stmt = tx
            .prepare_cached("DELETE FROM moves WHERE game_id = $1 AND ply > $2")
            .await
            .map_err(db_error)?;
        tx.execute(&stmt, &[&game_id, &keep])
            .await
            .map_err(db_error)?;
        tx.commit().await.map_err(db_error)
    }

    async fn list_games(&self, query: GameQuery) -> StorageResult<Vec<StoredGame>> {
        let client = self.client().await?;
        let (limit, offset) = (i64::from(query.limit), i64::from(query.offset));
        let rows = match &query.player {
            Some(name) => {
                let stmt = client
                    .prepare_cached(&format!(
                        "SELECT {GAME_COLUMNS} FROM games WHERE first_player = $3
                         UNION ALL
                         SELECT {GAME_COLUMNS} FROM games
                         WHERE second_player = $3 AND first_player <> $3
                         ORDER BY id DESC LIMIT $1 OFFSET $2"
                    ))
                    .await
                    .map_err(db_error)?;
                client.query(&stmt, &[&limit, &offset, name]).await
            }
            None => {
                let stmt = client
                    .prepare_cached(&format!(
                        "SELECT {GAME_COLUMNS} FROM games ORDER BY id DESC LIMIT $1 OFFSET $2"
                    ))
                    .await
                    .map_err(db_error)?;
                client.query(&stmt, &[&limit, &offset]).await
            }
        };
        Ok(rows.map_err(db_error)?.iter().map(game_row).collect())
    }

    async fn moves_of(
        client: &deadpool_postgres::Client,
        id: i64,
    ) -> StorageResult<Vec<StoredMove>> {
        let stmt = client
            .prepare_cached(
                "SELECT ply, text, reason, at FROM moves WHERE game_id = $1 ORDER BY ply",
            )
            .await
            .map_err(db_error)?;
        let rows = client.query(&stmt, &[&id]).await.map_err(db_error)?;
        Ok(rows
            .iter()
            .map(|r| StoredMove {
                ply: r.get::<_, i32>(0) as usize,
                text: r.get(1),
                reason: r.get(2),
                at: r.get(3),
            })
            .collect())
    }

    async fn game(&self, id: i64) -> StorageResult<Option<StoredGame>> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(&format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1"))
            .await
            .map_err(db_error)?;
        let Some(row) = client.query_opt(&stmt, &[&id]).await.map_err(db_error)? else {
            return Ok(None);
        };
        let mut game = game_row(&row);
        game.moves = Self::moves_of(&client, id).await?;
        Ok(Some(game))
    }

    async fn owned_game(&self, id: i64) -> StorageResult<Option<OwnedGame>> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached("SELECT owner, settings, ended_at IS NOT NULL FROM games WHERE id = $1")
            .await
            .map_err(db_error)?;
        let Some(row) = client.query_opt(&stmt, &[&id]).await.map_err(db_error)? else {
            return Ok(None);
        };
        let moves = Self::moves_of(&client, id).await?;
        Ok(Some(OwnedGame {
            owner: row.get(0),
            settings: row.get(1),
            ended: row.get(2),
            moves: moves.into_iter().map(|m| m.text).collect(),
        }))
    }

    async fn live_rooms(&self) -> StorageResult<Vec<u32>> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT DISTINCT room FROM games WHERE ended_at IS NULL AND owner IS NULL
                 ORDER BY room",
                &[],
            )
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .filter_map(|r| u32::try_from(r.get::<_, i64>(0)).ok())
            .collect())
    }

    async fn live_game(&self, room: u32) -> StorageResult<Option<LiveGame>> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(
                "SELECT id, game, settings, first_player, second_player, first_token,
                        second_token, started_at
                 FROM games WHERE room = $1 AND ended_at IS NULL AND owner IS NULL
                 ORDER BY id DESC LIMIT 1",
            )
            .await
            .map_err(db_error)?;
        let row = client
            .query_opt(&stmt, &[&i64::from(room)])
            .await
            .map_err(db_error)?;
        let Some(r) = row else { return Ok(None) };
        let id: i64 = r.get(0);
        Ok(Some(LiveGame {
            id,
            room,
            game: r.get(1),
            settings: r.get(2),
            players: [r.get(3), r.get(4)],
            seat_tokens: [r.get(5), r.get(6)],
            started_at: r.get(7),
            moves: Self::moves_of(&client, id).await?,
        }))
    }
}

impl GameStore for PgStore {
    fn start_game(&self, game: NewGame) -> BoxFuture<'_, StorageResult<i64>> {
        let key = WriteKey::start(&game);
        Box::pin(self.counts.counted(key, PgStore::start_game(self, game)))
    }

    fn record_move(&self, played: PlayedMove) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::of_move(&played);
        Box::pin(self.counts.counted(key, PgStore::record_move(self, played)))
    }

    fn end_game(&self, end: GameEnd) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::end(&end);
        Box::pin(self.counts.counted(key, PgStore::end_game(self, end)))
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
        let write = PgStore::truncate_moves(self, game_id, keep, fence);
        Box::pin(self.counts.counted(key, write))
    }

    /// Every write is committed before its future completes: nothing to wait for.
    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn list_games(&self, query: GameQuery) -> BoxFuture<'_, StorageResult<Vec<StoredGame>>> {
        Box::pin(PgStore::list_games(self, query))
    }

    fn game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<StoredGame>>> {
        Box::pin(PgStore::game(self, id))
    }

    fn owned_game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<OwnedGame>>> {
        Box::pin(PgStore::owned_game(self, id))
    }

    fn live_game(&self, room: u32) -> BoxFuture<'_, StorageResult<Option<LiveGame>>> {
        Box::pin(PgStore::live_game(self, room))
    }

    fn live_rooms(&self) -> BoxFuture<'_, StorageResult<Vec<u32>>> {
        Box::pin(PgStore::live_rooms(self))
    }

    fn check_name(
        &self,
        name: String,
        secret_hash: Option<String>,
    ) -> BoxFuture<'_, StorageResult<NameClaim>> {
        let key = WriteKey::Claim(name.clone());
        Box::pin(self.counts.counted(key, self.claim_name(name, secret_hash)))
    }

    fn rate_game(&self, rated: RatedGame) -> BoxFuture<'_, StorageResult<[Rating; 2]>> {
        let key = WriteKey::Rate(rated.game_id);
        Box::pin(self.counts.counted(key, self.count_rated(rated)))
    }

    fn leaderboard(
        &self,
        class: String,
        limit: u32,
    ) -> BoxFuture<'_, StorageResult<Vec<PlayerRating>>> {
        Box::pin(PgStore::leaderboard(self, class, limit))
    }

    fn player(&self, name: String) -> BoxFuture<'_, StorageResult<Option<PlayerRecord>>> {
        Box::pin(PgStore::player(self, name))
    }

    fn save_analysis(&self, analysis: AnalysisRecord) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::Analysis(analysis.game_id);
        Box::pin(self.counts.counted(key, self.store_analysis(analysis)))
    }

    fn analysis(&self, game_id: i64) -> BoxFuture<'_, StorageResult<Option<StoredAnalysis>>> {
        Box::pin(PgStore::stored_analysis(self, game_id))
    }

    fn write_tally(&self) -> WriteTally {
        self.counts.tally()
    }
}

#[cfg(test)]
mod tests;
