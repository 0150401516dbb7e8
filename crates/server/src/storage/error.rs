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
    /// The database was upgraded by a newer arbiter.
    #[error(
        "{db} has schema version {found}, newer than this arbiter's version {supported}: it was \
         upgraded by a newer arbiter; run that one (or choose another --db)"
    )]
    SchemaTooNew {
        db: String,
        found: u32,
        supported: u32,
    },
    /// A write of a room's former owner: the lease holds a newer epoch (see [`super::Fence`]).
    #[error("room {room} has a newer owner (epoch {epoch})")]
    Fenced { room: u32, epoch: u64 },
    /// A move at a ply the game already has, and not the same move.
    #[error("game {game} already has another move {ply}")]
    PlyTaken { game: i64, ply: usize },
    /// A move whose previous ply is not stored (or ply 0).
    #[error("move {ply} of game {game} does not follow its stored moves")]
    PlySkipped { game: i64, ply: usize },
    #[error("no game {0}")]
    NoGame(i64),
    /// A `--db` that looks like a PostgreSQL URL but is not one.
    #[error("invalid PostgreSQL URL (expected postgres://USER@HOST:PORT/DATABASE): {0}")]
    BadUrl(String),
    /// A `--db` URL whose scheme names no store arbiter has (a typo such as `postgress://`).
    #[error(
        "`{0}://` is not a database arbiter knows: give postgres://USER@HOST:PORT/DATABASE \
         (or postgresql://…) for PostgreSQL, or a file path (no scheme) for SQLite"
    )]
    UnknownScheme(String),
    /// PostgreSQL cannot be reached (`target` is `host:port/database`, never a password).
    #[error("cannot reach PostgreSQL at {target}: {reason}")]
    Unreachable { target: String, reason: String },
}

impl StorageError {
    /// The write can never succeed as it is, so trying it again is pointless: a former owner's
    /// write, or a move that does not fit the stored ones.
    pub fn is_permanent(&self) -> bool {
        matches!(
            self,
            StorageError::Fenced { .. }
                | StorageError::PlyTaken { .. }
                | StorageError::PlySkipped { .. }
                | StorageError::NoGame(_)
        )
    }
}

impl From<rusqlite::Error> for StorageError {
    fn from(e: rusqlite::Error) -> StorageError {
        StorageError::Database(e.to_string())
    }
}
