//! Arena tests past one machine, after Stockfish's fishtest and OpenBench: a test (two players,
//! time, openings, seed, a game count or SPRT bounds) is stored in PostgreSQL as batches of game
//! pairs; workers anywhere claim a batch (`SELECT … FOR UPDATE SKIP LOCKED`), hold it with a
//! lease they renew while they play, and report each pair's result under the batch's attempt
//! number. A batch whose lease ran out is handed out again with the next attempt, and a result of
//! an older attempt is refused, so no pair is counted twice. The transaction that stores a result
//! also takes the test's decision (the pentanomial SPRT from every result, or the last pair
//! played), so it is taken in one place whatever the number of workers.
//!
//! The tables (`arena_*`) keep their own schema version apart from the game server's, and may
//! share its database (`arbiter serve --db postgres://…` shows them at `/tests`).

mod schema;
mod spec;
mod status;
mod store;
mod worker;

use std::str::FromStr;

use thiserror::Error;
use tokio_postgres::{Client, Config, NoTls};

pub use spec::{engine_hash, EngineHash, Player, TestSpec};
pub use status::{html_page, TestStatus, WorkerSeen};
pub use store::{Claim, Reported};
pub use worker::{run_worker, Log, WorkerConfig, WorkerSummary};

/// What went wrong with the queue.
#[derive(Debug, Error)]
pub enum QueueError {
    #[error("invalid PostgreSQL URL (expected postgres://USER@HOST:PORT/DATABASE): {0}")]
    BadUrl(String),
    #[error("cannot reach the queue's database {target}: {reason}")]
    Unreachable { target: String, reason: String },
    #[error("the queue's database: {0}")]
    Database(String),
    #[error(
        "the arena queue in {target} has schema version {found}, but this arbiter knows only \
         versions up to {supported}: a newer arbiter set it up; use that one"
    )]
    SchemaTooNew {
        target: String,
        found: i32,
        supported: i32,
    },
    #[error("there is no test {0} in the queue")]
    NoSuchTest(i64),
    #[error("cannot write a game record: {0}")]
    Records(String),
    #[error("test {id} cannot be read: {why}")]
    BadTest { id: i64, why: String },
}

pub type QueueResult<T> = Result<T, QueueError>;

impl From<tokio_postgres::Error> for QueueError {
    fn from(e: tokio_postgres::Error) -> QueueError {
        match e.as_db_error() {
            Some(db) => QueueError::Database(format!("{} ({})", db.message(), db.code().code())),
            None => QueueError::Database(match std::error::Error::source(&e) {
                Some(source) => format!("{e}: {source}"),
                None => e.to_string(),
            }),
        }
    }
}

/// One connection to the queue's database.
pub struct Queue {
    client: Client,
    /// `HOST:PORT/DATABASE`, for messages (no user or password).
    target: String,
}

impl Queue {
    /// Connects and brings the queue's tables up to date (made on first use); refuses a schema
    /// newer than this binary's.
    pub async fn connect(url: &str) -> QueueResult<Queue> {
        let mut queue = Queue::open(url).await?;
        schema::migrate(&mut queue.client, &queue.target).await?;
        Ok(queue)
    }

    /// Connects without making or changing any table: for a reader (the server's `/tests`
    /// page) that must not set up a queue in a database that has none.
    pub async fn connect_reader(url: &str) -> QueueResult<Queue> {
        Queue::open(url).await
    }

    async fn open(url: &str) -> QueueResult<Queue> {
        let mut config = Config::from_str(url).map_err(|e| QueueError::BadUrl(e.to_string()))?;
        if config.get_hosts().is_empty() {
            return Err(QueueError::BadUrl("no host".into()));
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(std::time::Duration::from_secs(5));
        }
        config.application_name("arbiter-queue");
        let target = target_of(&config);
        let (client, connection) =
            config
                .connect(NoTls)
                .await
                .map_err(|e| QueueError::Unreachable {
                    target: target.clone(),
                    reason: QueueError::from(e).to_string(),
                })?;
        tokio::spawn(async move {
            // Ends when the client is dropped or the server goes; the next statement reports it.
            let _ = connection.await;
        });
        Ok(Queue { client, target })
    }

    /// `HOST:PORT/DATABASE` of the database.
    pub fn target(&self) -> &str {
        &self.target
    }
}

/// The first host, its port and the database of a URL's configuration.
fn target_of(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(name)) => name.clone(),
        Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
        None => String::new(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().or(config.get_user()).unwrap_or("");
    format!("{host}:{port}/{db}")
}
