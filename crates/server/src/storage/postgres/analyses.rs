//! Whole-game analyses in PostgreSQL: every node reads the one a node stored, so a replay
//! reopened on any node gets its analysis at once.

use tokio_postgres::error::SqlState;

use super::{db_error, is_code, PgStore};
use crate::storage::analyses::sql;
use crate::storage::{AnalysisRecord, StorageError, StorageResult, StoredAnalysis};

/// `created_at` in milliseconds since the Unix epoch.
const CREATED_MS: &str = "floor(extract(epoch FROM created_at) * 1000)::bigint";

impl PgStore {
    pub(super) async fn store_analysis(&self, a: AnalysisRecord) -> StorageResult<()> {
        let client = self.client().await?;
        let depth = i32::try_from(a.max_depth).unwrap_or(i32::MAX);
        let per_position = i64::try_from(a.per_position_ms).unwrap_or(i64::MAX);
        let saved = client
            .execute(
                &sql::save("clock_timestamp()"),
                &[&a.game_id, &a.engine, &depth, &per_position, &a.result],
            )
            .await;
        match saved {
            Err(e) if is_code(&e, &SqlState::FOREIGN_KEY_VIOLATION) => {
                Err(StorageError::NoGame(a.game_id))
            }
            Err(e) => Err(db_error(e)),
            Ok(_) => Ok(()),
        }
    }

    pub(super) async fn stored_analysis(
        &self,
        game_id: i64,
    ) -> StorageResult<Option<StoredAnalysis>> {
        let client = self.client().await?;
        let row = client
            .query_opt(&sql::load(CREATED_MS), &[&game_id])
            .await
            .map_err(db_error)?;
        Ok(row.map(|r| StoredAnalysis {
            record: AnalysisRecord {
                game_id,
                engine: r.get(0),
                max_depth: r.get::<_, i32>(1).max(0) as u32,
                per_position_ms: r.get::<_, i64>(2).max(0) as u64,
                result: r.get(3),
            },
            created_at: r.get(4),
        }))
    }
}
