//! The reader pool: a few read connections for the HTTP API, each used by one request at a time.

use std::sync::Mutex;

use rusqlite::Connection;

use crate::storage::{StorageError, StorageResult};

/// A few read connections, each used by one request at a time.
pub(super) struct ReaderPool {
    free: Mutex<Vec<Connection>>,
    available: std::sync::Condvar,
}

impl ReaderPool {
    pub(super) fn new(connections: Vec<Connection>) -> ReaderPool {
        ReaderPool {
            free: Mutex::new(connections),
            available: std::sync::Condvar::new(),
        }
    }

    pub(super) fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> StorageResult<T> {
        let conn = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(conn) = free.pop() {
                    break conn;
                }
                free = self.available.wait(free).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result = f(&conn).map_err(StorageError::from);
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(conn);
        self.available.notify_one();
        result
    }
}
