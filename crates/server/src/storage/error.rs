//! What can go wrong with stored games. The texts are for the log and the operator (opening the
//! database at start-up); the API answers a client with a generic message instead.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("cannot open {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot {action} {path}: {source}")]
    Setup {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot open {path} to lock it: {source}")]
    LockFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "another arbiter server is using {db} (it holds the file's lock, whatever path or \
         link it was opened by); stop it or choose another --db"
    )]
    Locked { db: PathBuf },
    #[error("cannot start the storage thread: {0}")]
    Thread(#[source] std::io::Error),
    /// The database refused or failed a statement (the text is the database's own).
    #[error("storage failed: {0}")]
    Database(String),
    #[error("the store has shut down")]
    ShutDown,
}

impl From<rusqlite::Error> for StorageError {
    fn from(e: rusqlite::Error) -> StorageError {
        StorageError::Database(e.to_string())
    }
}
