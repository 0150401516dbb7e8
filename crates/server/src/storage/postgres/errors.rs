//! PostgreSQL's failures in the store's words: the database's own message and code when it
//! answered, the pool's reason when it gave no connection.

use deadpool_postgres::PoolError;
use tokio_postgres::error::SqlState;

use super::StorageError;

/// A statement's failure: the database's own words (code and message) when it answered.
pub(super) fn db_error(e: tokio_postgres::Error) -> StorageError {
    match e.as_db_error() {
        Some(db) => StorageError::Database(format!("{} ({})", db.message(), db.code().code())),
        None => {
            let source = std::error::Error::source(&e).map(|s| format!(": {s}"));
            StorageError::Database(format!("{e}{}", source.unwrap_or_default()))
        }
    }
}

pub(super) fn pool_error_text(e: &PoolError) -> String {
    match e {
        PoolError::Backend(e) => match db_error_ref(e) {
            Some(text) => text,
            None => {
                let source = std::error::Error::source(e).map(|s| format!(": {s}"));
                format!("{e}{}", source.unwrap_or_default())
            }
        },
        PoolError::Timeout(_) => "no connection within the time allowed".into(),
        other => other.to_string(),
    }
}

fn db_error_ref(e: &tokio_postgres::Error) -> Option<String> {
    e.as_db_error()
        .map(|db| format!("{} ({})", db.message(), db.code().code()))
}

pub(super) fn is_code(e: &tokio_postgres::Error, code: &SqlState) -> bool {
    e.code() == Some(code)
}
