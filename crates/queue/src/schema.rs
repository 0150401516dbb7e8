//! The queue's versioned schema (`crates/queue/migrations`), built into the binary and kept in
//! its own version table, `arena_schema_version`, so the queue and the game server's tables
//! evolve apart in one database.

use tokio_postgres::{Client, GenericClient};

use crate::{QueueError, QueueResult};

/// The migrations, in order; version `i + 1` is `MIGRATIONS[i]`.
const MIGRATIONS: &[(&str, &str)] = &[(
    "0001_arena_queue",
    include_str!("../migrations/0001_arena_queue.sql"),
)];

/// The advisory lock that makes workers starting together migrate one at a time.
const LOCK: i64 = 0x0061_7265_6e61_7175; // "arenaqu"

/// The newest schema version this binary knows.
pub(crate) fn supported() -> i32 {
    MIGRATIONS.len() as i32
}

/// Applies the migrations the database lacks in one transaction under the advisory lock;
/// refuses a database that a newer arbiter migrated.
pub(crate) async fn migrate(client: &mut Client, target: &str) -> QueueResult<()> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS arena_schema_version (
             version INTEGER PRIMARY KEY,
             name TEXT NOT NULL,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
         )",
    )
    .await?;
    let found = found(&tx, target).await?;
    for (i, (name, sql)) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        tx.batch_execute(sql).await?;
        tx.execute(
            "INSERT INTO arena_schema_version (version, name) VALUES ($1, $2)",
            &[&(i as i32 + 1), name],
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The schema version of the database, `None` when it has no queue (for a reader).
pub(crate) async fn version(client: &Client, target: &str) -> QueueResult<Option<i32>> {
    let exists: bool = client
        .query_one(
            "SELECT to_regclass('arena_schema_version') IS NOT NULL",
            &[],
        )
        .await?
        .get(0);
    if !exists {
        return Ok(None);
    }
    Ok(Some(found(client, target).await?))
}

/// The version recorded in `arena_schema_version`; an error when it is newer than this binary.
async fn found(client: &impl GenericClient, target: &str) -> QueueResult<i32> {
    let found: i32 = client
        .query_one(
            "SELECT coalesce(max(version), 0) FROM arena_schema_version",
            &[],
        )
        .await?
        .get(0);
    if found > supported() {
        return Err(QueueError::SchemaTooNew {
            target: target.to_string(),
            found,
            supported: supported(),
        });
    }
    Ok(found)
}
