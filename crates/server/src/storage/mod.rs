//! Stored games behind one interface, [`GameStore`]: rooms and the API call the trait, never a
//! database. SQLite ([`sqlite::Store`]) is the embedded default; PostgreSQL
//! ([`postgres::PgStore`], for a cluster) is behind the same trait. [`open`] opens the one a
//! [`DbLocation`] names. Both apply the versioned migrations of [`migrations`] when they open.
//!
//! What every store guarantees (the `contract` tests below run against each):
//!
//! * Moves are keyed by (game, ply), ply 1 first: a ply is never stored twice or skipped. A move
//!   whose previous ply is missing is refused ([`StorageError::PlySkipped`]); another move at a
//!   stored ply is refused ([`StorageError::PlyTaken`]) — a takeback truncates first. The very
//!   same move again is accepted and stored once, so a write retried after its answer was lost
//!   does no harm.
//! * A write with a [`Fence`] is refused ([`StorageError::Fenced`]) when the room's lease holds a
//!   newer epoch, checked in the same transaction as the write.
//! * Move times are milliseconds since the Unix epoch.
//! * A game has at most one stored analysis: saving another replaces it. Saving one for a game
//!   the store does not have is refused ([`StorageError::NoGame`]).
//!
//! Every method returns a boxed future so the trait works as `Arc<dyn GameStore>` and fits both
//! an async driver (PostgreSQL) and one that runs blocking calls on its own threads (SQLite).
//! A write's future completes once the write is durable: a room forwards a move only then.

mod analyses;
mod counts;
mod error;
pub mod leases;
#[cfg(test)]
pub mod memory;
pub mod migrations;
pub mod players;
pub mod postgres;
pub mod sqlite;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde::Serialize;

pub use analyses::{AnalysisRecord, StoredAnalysis};
pub use counts::{WriteCounts, WriteKey, WriteTally};
pub use error::StorageError;
pub use players::{NameClaim, PlayerRating, RatedGame, Rating};
pub use postgres::{PgLeases, PgStore};
pub use sqlite::{Store, StoreOptions};

use crate::protocol::Winner;

pub type StorageResult<T> = Result<T, StorageError>;

/// The store as the layers above hold it.
pub type Storage = Arc<dyn GameStore>;

/// The interface every game store implements.
pub trait GameStore: Send + Sync + 'static {
    /// Starts a game; its number.
    fn start_game(&self, game: NewGame) -> BoxFuture<'_, StorageResult<i64>>;
    /// Stores the move at `ply`, which must follow the stored ones (see the module's rules).
    fn record_move(&self, played: PlayedMove) -> BoxFuture<'_, StorageResult<()>>;
    fn end_game(&self, end: GameEnd) -> BoxFuture<'_, StorageResult<()>>;
    /// Forgets a game's moves after the first `keep` (a takeback); fenced like the other writes.
    fn truncate_moves(
        &self,
        game_id: i64,
        keep: usize,
        fence: Option<Fence>,
    ) -> BoxFuture<'_, StorageResult<()>>;
    /// Completes once every write started before it is durable (for shutdown).
    fn flush(&self) -> BoxFuture<'_, ()>;
    /// The most recent games first.
    fn list_games(&self, query: GameQuery) -> BoxFuture<'_, StorageResult<Vec<StoredGame>>>;
    /// One game with its moves.
    fn game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<StoredGame>>>;
    /// What a page needs to add to a game it plays by itself.
    fn owned_game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<OwnedGame>>>;
    /// The newest game of room `room` that has no end (a page's own game never counts), with
    /// everything a room's next owner needs to carry it on.
    fn live_game(&self, room: u32) -> BoxFuture<'_, StorageResult<Option<LiveGame>>>;
    /// The rooms that have a game without an end (pages' own games never count), in order: a
    /// server started again carries their games on.
    fn live_rooms(&self) -> BoxFuture<'_, StorageResult<Vec<u32>>>;
    /// Looks `name` up; with a secret's hash, claims it for that secret (or confirms it is its).
    fn check_name(
        &self,
        name: String,
        secret_hash: Option<String>,
    ) -> BoxFuture<'_, StorageResult<NameClaim>>;
    /// Counts a rated game once: both players' ratings in its class updated together; the new
    /// ratings (a game counted already leaves them as they are).
    fn rate_game(&self, rated: RatedGame) -> BoxFuture<'_, StorageResult<[Rating; 2]>>;
    /// The best-rated players of a class, highest first.
    fn leaderboard(
        &self,
        class: String,
        limit: u32,
    ) -> BoxFuture<'_, StorageResult<Vec<PlayerRating>>>;
    /// A held name as chosen and its ratings in every class it played; `None` when nobody holds it.
    fn player(&self, name: String) -> BoxFuture<'_, StorageResult<Option<PlayerRecord>>>;
    /// Stores a finished game's whole-game analysis, replacing the one it had.
    fn save_analysis(&self, analysis: AnalysisRecord) -> BoxFuture<'_, StorageResult<()>>;
    /// A game's stored analysis; `None` when it has none.
    fn analysis(&self, game_id: i64) -> BoxFuture<'_, StorageResult<Option<StoredAnalysis>>>;
    /// How many writes the store was given, refused and was given again since it opened.
    fn write_tally(&self) -> WriteTally;
}

/// A player as its page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerRecord {
    pub name: String,
    pub ratings: Vec<PlayerRating>,
}

/// The owner of a room as a write names it: the write is refused when the room's lease
/// (`room_leases`) holds a newer epoch, i.e. another node has taken the room since.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fence {
    pub room: u32,
    pub epoch: u64,
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
    /// The seat tokens the players sent in READY (first, second), for a room's next owner.
    pub seat_tokens: [Option<String>; 2],
    pub fence: Option<Fence>,
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
    pub fence: Option<Fence>,
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
    pub fence: Option<Fence>,
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
    /// When it was stored: milliseconds since the Unix epoch (PostgreSQL: the database's clock).
    pub at: i64,
}

/// A game still running in a room, as stored: what a room's next owner restores it from.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveGame {
    pub id: i64,
    pub room: u32,
    pub game: String,
    /// The settings as JSON, as [`NewGame::settings`] had them.
    pub settings: String,
    pub players: [String; 2],
    pub seat_tokens: [Option<String>; 2],
    /// Milliseconds since the Unix epoch, on the same clock as the moves' `at`.
    pub started_at: i64,
    /// In ply order.
    pub moves: Vec<StoredMove>,
}

/// Where the games are: `--db` as given. Shown (`Display` and `Debug`) without a password.
#[derive(Clone, PartialEq, Eq)]
pub enum DbLocation {
    /// A SQLite file (the default, `arbiter.sqlite`).
    Sqlite(PathBuf),
    /// A PostgreSQL URL, `postgres://USER@HOST:PORT/DATABASE` (or `postgresql://`).
    Postgres(String),
}

impl DbLocation {
    /// A URL starting `postgres://` or `postgresql://` names PostgreSQL (checked here, so a
    /// malformed one is refused before anything starts); any other `scheme://` is refused by
    /// name — a typo such as `postgress://` would otherwise become a SQLite file of that name
    /// and a node that quietly stores its games apart from the cluster's; anything else is a
    /// SQLite file.
    pub fn parse(text: &str) -> StorageResult<DbLocation> {
        match url_scheme(text) {
            Some("postgres" | "postgresql") => {
                postgres::check_url(text)?;
                Ok(DbLocation::Postgres(text.to_string()))
            }
            Some(scheme) => Err(StorageError::UnknownScheme(scheme.to_string())),
            None => Ok(DbLocation::Sqlite(PathBuf::from(text))),
        }
    }
}

/// The scheme of a `scheme://…` URL (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`);
/// `None` for a path, even one with `://` further on (`./a://b` names a folder `a:`).
fn url_scheme(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let rest_fits = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    (first.is_ascii_alphabetic() && rest_fits).then_some(scheme)
}

impl FromStr for DbLocation {
    type Err = StorageError;
    fn from_str(text: &str) -> StorageResult<DbLocation> {
        DbLocation::parse(text)
    }
}

impl From<PathBuf> for DbLocation {
    fn from(path: PathBuf) -> DbLocation {
        DbLocation::Sqlite(path)
    }
}

impl From<&Path> for DbLocation {
    fn from(path: &Path) -> DbLocation {
        DbLocation::Sqlite(path.to_path_buf())
    }
}

/// A URL's password must not reach a log through a `{config:?}`.
impl fmt::Debug for DbLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbLocation::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            DbLocation::Postgres(url) => f
                .debug_tuple("Postgres")
                .field(&postgres::describe_url(url))
                .finish(),
        }
    }
}

/// The file's path, or PostgreSQL's `host:port/database` (never a password).
impl fmt::Display for DbLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbLocation::Sqlite(path) => write!(f, "{}", path.display()),
            DbLocation::Postgres(url) => f.write_str(&postgres::describe_url(url)),
        }
    }
}

/// Opens the store `location` names, its schema brought up to date: SQLite as
/// [`Store::open`] does, PostgreSQL with a pool of connections ([`PgStore::connect`]).
/// `options.max_bytes` applies to SQLite only.
pub async fn open(location: &DbLocation, options: &StoreOptions) -> StorageResult<Storage> {
    match location {
        DbLocation::Sqlite(path) => Ok(Arc::new(Store::open(path, options)?)),
        DbLocation::Postgres(url) => Ok(Arc::new(PgStore::connect(url).await?)),
    }
}

#[cfg(test)]
mod contract;

#[cfg(test)]
mod location_tests {
    use super::*;

    #[test]
    fn an_unknown_scheme_is_refused_by_name_and_a_path_is_a_sqlite_file() {
        let e = DbLocation::parse("postgress://a@h:5432/x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`postgress://`"), "{e}");
        assert!(
            e.contains("postgres://") && e.contains("postgresql://"),
            "{e}"
        );
        assert!(!e.contains("a@h"), "{e}");
        assert!(DbLocation::parse("mysql://h/x").is_err());
        assert!(DbLocation::parse("sqlite:///tmp/x").is_err());
        for path in [
            "games.sqlite",
            "/var/lib/a.sqlite",
            "./a://b",
            "C:\\x.sqlite",
            "1a://b",
        ] {
            assert_eq!(
                DbLocation::parse(path).unwrap(),
                DbLocation::Sqlite(PathBuf::from(path)),
                "{path}"
            );
        }
        let pg = DbLocation::parse("postgresql://a@h:5432/x").unwrap();
        assert!(matches!(pg, DbLocation::Postgres(_)));
    }
}
