//! Stored games behind one interface, [`GameStore`]: rooms and the API call the trait, never a
//! database. SQLite ([`sqlite::Store`]) is the embedded default; a server database (PostgreSQL,
//! for a cluster) goes behind the same trait.
//!
//! Every method returns a boxed future so the trait works as `Arc<dyn GameStore>` and fits both
//! an async driver (PostgreSQL) and one that runs blocking calls on its own threads (SQLite).
//! A write's future completes once the write is durable: a room forwards a move only then.

mod error;
#[cfg(test)]
pub mod memory;
pub mod retry;
pub mod sqlite;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde::Serialize;

pub use error::StorageError;
pub use sqlite::{Store, StoreOptions};

use crate::protocol::Winner;

pub type StorageResult<T> = Result<T, StorageError>;

/// The store as the layers above hold it.
pub type Storage = Arc<dyn GameStore>;

/// The interface every game store implements.
pub trait GameStore: Send + Sync + 'static {
    /// Starts a game; its number.
    fn start_game(&self, game: NewGame) -> BoxFuture<'_, StorageResult<i64>>;
    /// Stores (or replaces) the move at `ply`.
    fn record_move(&self, played: PlayedMove) -> BoxFuture<'_, StorageResult<()>>;
    fn end_game(&self, end: GameEnd) -> BoxFuture<'_, StorageResult<()>>;
    /// Forgets a game's moves after the first `keep` (a page's takeback in its own game).
    fn truncate_moves(&self, game_id: i64, keep: usize) -> BoxFuture<'_, StorageResult<()>>;
    /// Completes once every write started before it is durable (for shutdown).
    fn flush(&self) -> BoxFuture<'_, ()>;
    /// The most recent games first.
    fn list_games(&self, query: GameQuery) -> BoxFuture<'_, StorageResult<Vec<StoredGame>>>;
    /// One game with its moves.
    fn game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<StoredGame>>>;
    /// What a page needs to add to a game it plays by itself.
    fn owned_game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<OwnedGame>>>;
}

/// A game to start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// The room it is played in; 0 for a page's own game.
    pub room: u32,
    pub game: String,
    /// The settings as JSON.
    pub settings: String,
    pub players: [String; 2],
    /// The secret that lets a page add moves to a game it plays itself (AI, one screen).
    pub owner: Option<String>,
}

/// A move to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    pub game_id: i64,
    /// 1 for the first move.
    pub ply: usize,
    pub text: String,
    /// The judge's reason, by name (`LEGAL_NON_CAPTURE_MOVE`).
    pub reason: String,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub game_id: i64,
    /// By name (`CHECKMATE`).
    pub end_reason: String,
    pub winner: Winner,
    /// The course notation of the whole game.
    pub record: String,
}

/// Which games to list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameQuery {
    pub limit: u32,
    pub offset: u32,
    /// Only games this name played.
    pub player: Option<String>,
}

/// What the store knows of a game a page plays by itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedGame {
    pub owner: Option<String>,
    pub settings: String,
    pub ended: bool,
    pub moves: Vec<String>,
}

/// A stored game, as the HTTP API lists it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StoredGame {
    pub id: i64,
    pub room: u32,
    pub game: String,
    pub settings: serde_json::Value,
    pub first: String,
    pub second: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub end_reason: Option<String>,
    /// Absent while the game runs; a number on the wire (see [`Winner`]).
    pub winner: Option<Winner>,
    pub record: Option<String>,
    pub moves: Vec<StoredMove>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StoredMove {
    pub ply: usize,
    #[serde(rename = "move")]
    pub text: String,
    pub reason: String,
    pub at: i64,
}

/// What every implementation of [`GameStore`] must do, run against each (a new implementation
/// adds its own line to the tests below).
#[cfg(test)]
mod contract {
    use super::*;

    fn new_game(players: [&str; 2], owner: Option<&str>) -> NewGame {
        NewGame {
            room: 3,
            game: "surakarta".into(),
            settings: r#"{"game":"surakarta","size":6}"#.into(),
            players: players.map(String::from),
            owner: owner.map(String::from),
        }
    }

    fn played(game_id: i64, ply: usize, text: &str) -> PlayedMove {
        PlayedMove {
            game_id,
            ply,
            text: text.into(),
            reason: "LEGAL_NON_CAPTURE_MOVE".into(),
        }
    }

    async fn keeps_games_moves_and_ends(store: &dyn GameStore) {
        let a = store
            .start_game(new_game(["ann", "bob"], None))
            .await
            .unwrap();
        let b = store
            .start_game(new_game(["cid", "ann"], Some("secret")))
            .await
            .unwrap();
        for (ply, text) in [(1, "A2-A3"), (2, "F5-E4"), (3, "B2-B3")] {
            store.record_move(played(a, ply, text)).await.unwrap();
        }
        store.truncate_moves(a, 2).await.unwrap();
        let end = GameEnd {
            game_id: a,
            end_reason: "RESIGN".into(),
            winner: Winner::Second,
            record: "A2-A3 F5-E4 R#".into(),
        };
        store.end_game(end).await.unwrap();
        store.flush().await;
        let game = store.game(a).await.unwrap().unwrap();
        let moves: Vec<&str> = game.moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(moves, ["A2-A3", "F5-E4"]);
        assert_eq!(game.winner, Some(Winner::Second));
        assert_eq!(game.end_reason.as_deref(), Some("RESIGN"));
        assert_eq!((game.room, game.first.as_str()), (3, "ann"));
        assert_eq!(game.settings["size"], 6);
        let everyone = GameQuery {
            limit: 10,
            ..GameQuery::default()
        };
        let ids: Vec<i64> = store
            .list_games(everyone)
            .await
            .unwrap()
            .iter()
            .map(|g| g.id)
            .collect();
        assert_eq!(ids, [b, a]);
        let bobs = GameQuery {
            limit: 10,
            offset: 0,
            player: Some("bob".into()),
        };
        assert_eq!(store.list_games(bobs).await.unwrap().len(), 1);
        let owned = store.owned_game(b).await.unwrap().unwrap();
        assert_eq!(
            (owned.owner.as_deref(), owned.ended),
            (Some("secret"), false)
        );
        assert!(store.game(b + 100).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn sqlite_keeps_the_contract() {
        let dir = std::env::temp_dir().join(format!("arbiter-contract-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&dir.join("games.sqlite"), &StoreOptions::default()).unwrap();
        keeps_games_moves_and_ends(&store).await;
    }

    #[tokio::test]
    async fn memory_keeps_the_contract() {
        keeps_games_moves_and_ends(&memory::MemoryStore::default()).await;
    }
}
