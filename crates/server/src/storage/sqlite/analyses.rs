//! Whole-game analyses in SQLite: saved as a job of the writer thread (the one connection that
//! writes), read from the reader pool.

use futures_util::future::BoxFuture;
use rusqlite::{params, OptionalExtension};

use super::writer::now_ms;
use super::Store;
use crate::storage::analyses::sql;
use crate::storage::{AnalysisRecord, StorageError, StorageResult, StoredAnalysis, WriteKey};

impl Store {
    pub(super) fn store_analysis(
        &self,
        a: AnalysisRecord,
    ) -> BoxFuture<'static, StorageResult<()>> {
        self.job(WriteKey::Analysis(a.game_id), move |tx| {
            let known = tx
                .query_row(sql::GAME_EXISTS, [a.game_id], |_| Ok(()))
                .optional()?;
            known.ok_or(StorageError::NoGame(a.game_id))?;
            let values = params![
                a.game_id,
                a.engine,
                a.max_depth,
                a.per_position_ms,
                a.result,
                now_ms()
            ];
            tx.execute(&sql::save("$6"), values)?;
            Ok(())
        })
    }

    pub(super) fn stored_analysis(&self, game_id: i64) -> StorageResult<Option<StoredAnalysis>> {
        self.readers.read(|conn| {
            let mut stmt = conn.prepare_cached(&sql::load("created_at"))?;
            stmt.query_row([game_id], |r| {
                Ok(StoredAnalysis {
                    record: AnalysisRecord {
                        game_id,
                        engine: r.get(0)?,
                        max_depth: r.get(1)?,
                        per_position_ms: r.get(2)?,
                        result: r.get(3)?,
                    },
                    created_at: r.get(4)?,
                })
            })
            .optional()
        })
    }
}
