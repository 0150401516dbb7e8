//! Room leases in PostgreSQL: the `room_leases` table (room, node, epoch, expires_at), on the
//! database's clock (`now()`), with exactly the rules of [`MemoryLeases`]
//! (crate::storage::leases::MemoryLeases):
//!
//! * a claim takes a room nobody holds (epoch 1) or whose lease lapsed (epoch + 1); a node
//!   claiming a room it holds keeps its epoch and extends the lease; another node's live lease
//!   makes the claim fail — one `INSERT … ON CONFLICT DO UPDATE … WHERE` statement, so two
//!   nodes claiming at once cannot both win;
//! * a renewal extends only live leases of the same node and epoch;
//! * a release lets the lease lapse now but keeps its row, so the next owner gets a newer epoch.
//!
//! Writes fenced by an epoch read the same rows (see [`super::PgStore`]).

use std::time::Duration;

use deadpool_postgres::Pool;
use futures_util::future::BoxFuture;

use super::{pool, pool_error_text, PgStore};
use crate::storage::leases::{LeaseError, Leases};
use crate::storage::{StorageError, StorageResult};

/// Connections a lease store of its own keeps at most.
const POOL_SIZE: usize = 4;

/// The leases of every room, in the cluster's database.
#[derive(Clone)]
pub struct PgLeases {
    pool: Pool,
    target: String,
    ttl: Duration,
}

impl PgLeases {
    /// How long a lease lasts unless renewed, when nothing else is said.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(10);

    /// Leases in the database at `url`, with a small pool of their own; the schema is brought up
    /// to date as [`PgStore::connect`] does.
    pub async fn connect(url: &str, ttl: Duration) -> StorageResult<PgLeases> {
        let (pool, target) = pool(url, POOL_SIZE).await?;
        Ok(PgLeases { pool, target, ttl })
    }

    /// Leases in `store`'s database, sharing its connections.
    pub fn new(store: &PgStore, ttl: Duration) -> PgLeases {
        PgLeases {
            pool: store.pool().clone(),
            target: store.target().to_string(),
            ttl,
        }
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The cluster's id, made with the database (migration 4), and the database as
    /// `host:port/database`: what this node announces on NATS.
    pub async fn identity(&self) -> StorageResult<(String, String)> {
        let unreachable = |reason| StorageError::Unreachable {
            target: self.target.clone(),
            reason,
        };
        let client = self.pool.get().await;
        let client = client.map_err(|e| unreachable(pool_error_text(&e)))?;
        let row = client
            .query_one("SELECT id FROM cluster_identity", &[])
            .await
            .map_err(super::db_error)?;
        Ok((row.get(0), self.target.clone()))
    }

    async fn client(&self) -> Result<deadpool_postgres::Client, LeaseError> {
        self.pool.get().await.map_err(|e| {
            LeaseError::Unreachable(format!("{}: {}", self.target, pool_error_text(&e)))
        })
    }

    fn failed(&self, e: tokio_postgres::Error) -> LeaseError {
        let text = match super::db_error(e) {
            crate::storage::StorageError::Database(text) => text,
            other => other.to_string(),
        };
        LeaseError::Unreachable(format!("{}: {text}", self.target))
    }

    fn seconds(&self) -> f64 {
        self.ttl.as_secs_f64()
    }

    async fn claim(&self, room: u32, node: &str) -> Result<Option<u64>, LeaseError> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(
                "INSERT INTO room_leases AS l (room, node, epoch, expires_at)
                 VALUES ($1, $2, 1, now() + make_interval(secs => $3::float8))
                 ON CONFLICT (room) DO UPDATE SET
                     epoch = l.epoch + 1,
                     node = EXCLUDED.node,
                     expires_at = EXCLUDED.expires_at
                 WHERE l.expires_at <= now() OR l.node = EXCLUDED.node
                 RETURNING epoch",
            )
            .await
            .map_err(|e| self.failed(e))?;
        let row = client
            .query_opt(&stmt, &[&i64::from(room), &node, &self.seconds()])
            .await
            .map_err(|e| self.failed(e))?;
        Ok(row.map(|r| r.get::<_, i64>(0) as u64))
    }

    async fn renew(&self, node: &str, rooms: Vec<(u32, u64)>) -> Result<Vec<u32>, LeaseError> {
        if rooms.is_empty() {
            return Ok(Vec::new());
        }
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(
                "UPDATE room_leases AS l SET expires_at = now() + make_interval(secs => $3::float8)
                 FROM unnest($2::bigint[], $4::bigint[]) AS r (room, epoch)
                 WHERE l.room = r.room AND l.epoch = r.epoch AND l.node = $1
                   AND l.expires_at > now()
                 RETURNING l.room, l.epoch",
            )
            .await
            .map_err(|e| self.failed(e))?;
        let ids: Vec<i64> = rooms.iter().map(|&(room, _)| i64::from(room)).collect();
        let epochs: Vec<i64> = rooms.iter().map(|&(_, epoch)| epoch as i64).collect();
        let renewed = client
            .query(&stmt, &[&node, &ids, &self.seconds(), &epochs])
            .await
            .map_err(|e| self.failed(e))?;
        let renewed: Vec<(u32, u64)> = renewed
            .iter()
            .map(|r| (r.get::<_, i64>(0) as u32, r.get::<_, i64>(1) as u64))
            .collect();
        Ok(rooms
            .into_iter()
            .filter(|lease| !renewed.contains(lease))
            .map(|(room, _)| room)
            .collect())
    }

    async fn release(&self, room: u32, node: &str, epoch: u64) -> Result<(), LeaseError> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(
                "UPDATE room_leases SET expires_at = now()
                 WHERE room = $1 AND node = $2 AND epoch = $3 AND expires_at > now()",
            )
            .await
            .map_err(|e| self.failed(e))?;
        client
            .execute(&stmt, &[&i64::from(room), &node, &(epoch as i64)])
            .await
            .map_err(|e| self.failed(e))?;
        Ok(())
    }

    async fn holder(&self, room: u32) -> Result<Option<(String, u64)>, LeaseError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT node, epoch FROM room_leases WHERE room = $1 AND expires_at > now()",
                &[&i64::from(room)],
            )
            .await
            .map_err(|e| self.failed(e))?;
        Ok(row.map(|r| (r.get(0), r.get::<_, i64>(1) as u64)))
    }
}

impl Leases for PgLeases {
    fn claim(&self, room: u32, node: &str) -> BoxFuture<'_, Result<Option<u64>, LeaseError>> {
        let node = node.to_string();
        Box::pin(async move { PgLeases::claim(self, room, &node).await })
    }

    fn renew(
        &self,
        node: &str,
        rooms: Vec<(u32, u64)>,
    ) -> BoxFuture<'_, Result<Vec<u32>, LeaseError>> {
        let node = node.to_string();
        Box::pin(async move { PgLeases::renew(self, &node, rooms).await })
    }

    fn release(&self, room: u32, node: &str, epoch: u64) -> BoxFuture<'_, Result<(), LeaseError>> {
        let node = node.to_string();
        Box::pin(async move { PgLeases::release(self, room, &node, epoch).await })
    }

    fn holder(&self, room: u32) -> BoxFuture<'_, Result<Option<(String, u64)>, LeaseError>> {
        Box::pin(PgLeases::holder(self, room))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::storage::leases::lease_rules;
    use arbiter_pgtest::TestPostgres;

    #[tokio::test]
    async fn database_leases_follow_the_rules_of_memory_leases() {
        let (url, _pg) = TestPostgres::start();
        let ttl = Duration::from_secs(2);
        let leases = PgLeases::connect(&url, ttl).await.unwrap();
        lease_rules(&leases, ttl, tokio::time::sleep).await;
    }

    /// Nodes racing for one lapsed room: exactly one wins, with the next epoch.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_of_many_nodes_claiming_at_once_wins() {
        let (url, _pg) = TestPostgres::start();
        let leases = Arc::new(
            PgLeases::connect(&url, Duration::from_secs(30))
                .await
                .unwrap(),
        );
        for round in 1..=5u64 {
            let claims = (0..8).map(|n| {
                let leases = leases.clone();
                tokio::spawn(async move { (n, leases.claim(3, &format!("node{n}")).await) })
            });
            let mut winners = Vec::new();
            for claim in claims {
                let (n, result) = claim.await.unwrap();
                if let Some(epoch) = result.unwrap() {
                    winners.push((n, epoch));
                }
            }
            assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
            let (n, epoch) = winners[0];
            assert_eq!(epoch, round);
            leases.release(3, &format!("node{n}"), epoch).await.unwrap();
        }
    }
}
