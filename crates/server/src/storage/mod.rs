//! Stored games. Today one implementation, SQLite ([`sqlite::Store`]).

pub mod sqlite;

pub use sqlite::{OwnedGame, Store, StoreOptions, StoredGame, StoredMove};
