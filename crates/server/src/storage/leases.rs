//! Who owns a room (kept with the games, read by [`crate::cluster`]): a lease (room, node, epoch, expiry) that its owner renews and that lapses
//! when the owner stops renewing it. A node that takes a lapsed lease gets the next epoch, so
//! every owner of a room has its own number and a write can be fenced by it.
//!
//! A cluster keeps them in PostgreSQL ([`crate::storage::PgLeases`], on the database's clock);
//! [`MemoryLeases`] follows the same rules in one process. Both pass `lease_rules`. A write that
//! carries its owner's epoch ([`crate::storage::Fence`]) is refused by the store once a newer
//! epoch is in the database.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::time::Instant;

/// Why the lease store did not answer.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    #[error("the lease store is unreachable: {0}")]
    Unreachable(String),
}

/// The leases of all rooms, shared by every node of a cluster.
pub trait Leases: Send + Sync + 'static {
    /// Takes `room` for `node` when no one holds it, its holder let it lapse, or `node` holds
    /// it itself (it dropped the room and takes it back): the new epoch, always one more than
    /// the last, or `None` when another node holds it.
    fn claim(&self, room: u32, node: &str) -> BoxFuture<'_, Result<Option<u64>, LeaseError>>;
    /// Renews `node`'s leases on `rooms` (with their epochs); the rooms it no longer holds.
    fn renew(
        &self,
        node: &str,
        rooms: Vec<(u32, u64)>,
    ) -> BoxFuture<'_, Result<Vec<u32>, LeaseError>>;
    /// Gives `room` up (its room closed).
    fn release(&self, room: u32, node: &str, epoch: u64) -> BoxFuture<'_, Result<(), LeaseError>>;
    /// Who holds a live lease on `room` now, with its epoch (to say why a renewal failed).
    fn holder(&self, room: u32) -> BoxFuture<'_, Result<Option<(String, u64)>, LeaseError>>;
}

/// Leases in this process's memory, for nodes of one process (tests): the same rules as the
/// database's, on tokio's clock.
pub struct MemoryLeases {
    ttl: Duration,
    held: Mutex<HashMap<u32, Held>>,
}

struct Held {
    node: String,
    epoch: u64,
    until: Instant,
}

impl MemoryLeases {
    pub fn new(ttl: Duration) -> MemoryLeases {
        MemoryLeases {
            ttl,
            held: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Held>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Leases for MemoryLeases {
    fn claim(&self, room: u32, node: &str) -> BoxFuture<'_, Result<Option<u64>, LeaseError>> {
        let now = Instant::now();
        let mut held = self.lock();
        let taken = match held.get(&room) {
            Some(h) if h.until > now && h.node != node => None,
            Some(h) if h.until > now => Some(h.epoch + 1),
            lapsed => Some(lapsed.map_or(1, |h| h.epoch + 1)),
        };
        if let Some(epoch) = taken {
            let until = now + self.ttl;
            let node = node.to_string();
            held.insert(room, Held { node, epoch, until });
        }
        Box::pin(async move { Ok(taken) })
    }

    fn renew(
        &self,
        node: &str,
        rooms: Vec<(u32, u64)>,
    ) -> BoxFuture<'_, Result<Vec<u32>, LeaseError>> {
        let now = Instant::now();
        let mut held = self.lock();
        let mut lost = Vec::new();
        for (room, epoch) in rooms {
            match held.get_mut(&room) {
                Some(h) if h.node == node && h.epoch == epoch && h.until > now => {
                    h.until = now + self.ttl;
                }
                _ => lost.push(room),
            }
        }
        Box::pin(async move { Ok(lost) })
    }

    fn release(&self, room: u32, node: &str, epoch: u64) -> BoxFuture<'_, Result<(), LeaseError>> {
        // Kept, lapsed: the room's next owner still gets a newer epoch.
        let now = Instant::now();
        if let Some(h) = self.lock().get_mut(&room) {
            if h.node == node && h.epoch == epoch {
                h.until = now;
            }
        }
        Box::pin(async { Ok(()) })
    }

    fn holder(&self, room: u32) -> BoxFuture<'_, Result<Option<(String, u64)>, LeaseError>> {
        let now = Instant::now();
        let held = self.lock();
        let live = held.get(&room).filter(|h| h.until > now);
        let holder = live.map(|h| (h.node.clone(), h.epoch));
        Box::pin(async move { Ok(holder) })
    }
}

/// The rules every lease store follows (run against [`MemoryLeases`] and the database's
/// `PgLeases`), with times in fractions of the lease's length `ttl`; `pass` lets that much time
/// go by (advancing tokio's paused clock, or really sleeping).
#[cfg(test)]
pub(crate) async fn lease_rules<F, Fut>(leases: &dyn Leases, ttl: Duration, pass: F)
where
    F: Fn(Duration) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let tenths = |n: u32| ttl * n / 10;
    assert_eq!(leases.claim(7, "a").await.unwrap(), Some(1));
    assert_eq!(leases.claim(7, "b").await.unwrap(), None);
    // A holder claims again only after it dropped the room: a new epoch tells the gateways
    // that the room runs anew, and fences the dropped room's late writes.
    assert_eq!(
        leases.claim(7, "a").await.unwrap(),
        Some(2),
        "its holder's claim"
    );
    assert_eq!(
        leases.renew("a", vec![(7, 1)]).await.unwrap(),
        [7],
        "old epoch"
    );
    pass(tenths(6)).await;
    assert!(leases.renew("a", vec![(7, 2)]).await.unwrap().is_empty());
    pass(tenths(6)).await;
    assert_eq!(
        leases.claim(7, "b").await.unwrap(),
        None,
        "renewed 0.6 ttl ago"
    );
    pass(tenths(5)).await;
    assert_eq!(leases.claim(7, "b").await.unwrap(), Some(3), "lapsed");
    assert_eq!(leases.renew("a", vec![(7, 2)]).await.unwrap(), [7]);
    let lost = leases
        .renew("b", vec![(7, 2), (8, 1), (7, 3)])
        .await
        .unwrap();
    assert_eq!(
        lost,
        [7, 8],
        "an old epoch and a room never claimed are lost"
    );
    release_rules(leases, ttl, pass).await;
}

/// The second half of [`lease_rules`]: releases, and lapses for a holder too (room 7 is b's at
/// epoch 3 when it starts).
#[cfg(test)]
async fn release_rules<F, Fut>(leases: &dyn Leases, ttl: Duration, pass: F)
where
    F: Fn(Duration) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let tenths = |n: u32| ttl * n / 10;
    leases.release(7, "a", 2).await.unwrap();
    assert_eq!(
        leases.claim(7, "a").await.unwrap(),
        None,
        "not a's to release"
    );
    assert_eq!(leases.holder(7).await.unwrap(), Some(("b".into(), 3)));
    leases.release(7, "b", 3).await.unwrap();
    assert_eq!(leases.holder(7).await.unwrap(), None, "released");
    assert_eq!(leases.claim(7, "a").await.unwrap(), Some(4));
    assert_eq!(
        leases.claim(9, "b").await.unwrap(),
        Some(1),
        "rooms are apart"
    );
    pass(tenths(11)).await;
    assert_eq!(
        leases.claim(7, "a").await.unwrap(),
        Some(5),
        "lapsed, even for its holder"
    );
    assert_eq!(
        leases.renew("b", vec![(9, 1)]).await.unwrap(),
        [9],
        "lapsed"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn memory_leases_follow_the_rules() {
        let ttl = Duration::from_secs(10);
        let leases = MemoryLeases::new(ttl);
        lease_rules(&leases, ttl, tokio::time::advance).await;
    }

    #[tokio::test(start_paused = true)]
    async fn a_lease_lapses_unless_renewed_and_the_next_owner_gets_the_next_epoch() {
        let leases = MemoryLeases::new(Duration::from_secs(10));
        assert_eq!(leases.claim(7, "a").await.unwrap(), Some(1));
        assert_eq!(leases.claim(7, "b").await.unwrap(), None);
        tokio::time::advance(Duration::from_secs(6)).await;
        assert!(leases.renew("a", vec![(7, 1)]).await.unwrap().is_empty());
        tokio::time::advance(Duration::from_secs(6)).await;
        assert_eq!(leases.claim(7, "b").await.unwrap(), None, "renewed 6 s ago");
        tokio::time::advance(Duration::from_secs(5)).await;
        assert_eq!(leases.claim(7, "b").await.unwrap(), Some(2));
        assert_eq!(leases.renew("a", vec![(7, 1)]).await.unwrap(), [7]);
        leases.release(7, "b", 2).await.unwrap();
        assert_eq!(leases.claim(7, "a").await.unwrap(), Some(3));
    }
}
