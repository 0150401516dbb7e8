//! One gate for every CPU-heavy request (the AI, analysis, the judge visualiser, the server's own
//! AI seat): a few computed
//! at once, a short queue that waits a bounded time, 503 beyond it.
//!
//! Both a place in the queue and a worker are semaphore permits, released when dropped: a
//! request whose client hangs up (hyper drops its future) frees its place at once, and its
//! worker as soon as its computation stops — the permit travels with the computation onto the
//! blocking pool, so work the server still does always counts against the gate.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use super::ApiError;

/// CPU-heavy requests: `workers` computed at once, `queue` more waiting up to `wait`.
#[derive(Debug)]
pub struct CpuGate {
    /// Workers and queue places together: a request without one is answered 503 at once.
    places: Arc<Semaphore>,
    running: Arc<Semaphore>,
    wait: Duration,
}

/// What a request holds while it is admitted: its place, and once it runs, a worker.
struct Admitted {
    _place: OwnedSemaphorePermit,
    _worker: OwnedSemaphorePermit,
}

impl CpuGate {
    pub fn new(workers: usize, queue: usize, wait: Duration) -> CpuGate {
        let workers = workers.max(1);
        CpuGate {
            places: Arc::new(Semaphore::new(workers.saturating_add(queue))),
            running: Arc::new(Semaphore::new(workers)),
            wait,
        }
    }

    /// The gate the API's limits set (`--cpu-workers` and its queue).
    pub fn of(limits: &super::ApiLimits) -> CpuGate {
        CpuGate::new(limits.cpu_workers, limits.cpu_queue, limits.cpu_queue_wait)
    }

    /// A place, then a worker within the wait; `Busy` when the queue is full or the wait ends.
    async fn admit(&self) -> Result<Admitted, ApiError> {
        let place = self
            .places
            .clone()
            .try_acquire_owned()
            .map_err(|e| match e {
                TryAcquireError::NoPermits => ApiError::Busy,
                TryAcquireError::Closed => ApiError::Stopping,
            })?;
        let worker = tokio::time::timeout(self.wait, self.running.clone().acquire_owned())
            .await
            .map_err(|_| ApiError::Busy)?
            .map_err(|_| ApiError::Stopping)?;
        Ok(Admitted {
            _place: place,
            _worker: worker,
        })
    }

    /// Workers free now (for tests).
    #[cfg(test)]
    fn idle(&self) -> usize {
        self.running.available_permits()
    }
}

/// Raises the flag when dropped: a request whose client went away (hyper drops its future)
/// stops its search.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `f` on the blocking pool within the gate; `f` sees a flag raised when the client goes
/// away, and holds the gate's permits until it returns.
pub async fn gated<T, E>(
    gate: &CpuGate,
    f: impl FnOnce(&AtomicBool) -> Result<T, E> + Send + 'static,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    E: Into<ApiError> + Send + 'static,
{
    let admitted = gate.admit().await?;
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_on_drop = StopOnDrop(stop.clone());
    tokio::task::spawn_blocking(move || {
        let _admitted = admitted;
        f(&stop).map_err(Into::into)
    })
    .await
    .map_err(ApiError::task)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_dropped_request_frees_its_place_and_its_worker() {
        let gate = Arc::new(CpuGate::new(1, 1, Duration::from_secs(5)));
        let spin = |stop: &AtomicBool| {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok::<_, ApiError>(())
        };
        let running = tokio::spawn({
            let gate = gate.clone();
            async move { gated(&gate, spin).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move { gated(&gate, spin).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(matches!(gated(&gate, spin).await, Err(ApiError::Busy)));
        waiting.abort();
        running.abort();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(gate.idle(), 1);
        let quick = gated(&gate, |_| Ok::<_, ApiError>(7)).await;
        assert_eq!(quick.ok(), Some(7));
    }

    #[tokio::test]
    async fn a_request_waits_no_longer_than_the_bound() {
        let gate = Arc::new(CpuGate::new(1, 4, Duration::from_millis(100)));
        let slow = tokio::spawn({
            let gate = gate.clone();
            async move {
                gated(&gate, |_| {
                    std::thread::sleep(Duration::from_millis(500));
                    Ok::<_, ApiError>(())
                })
                .await
            }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let started = std::time::Instant::now();
        assert!(matches!(
            gated(&gate, |_| Ok::<_, ApiError>(())).await,
            Err(ApiError::Busy)
        ));
        assert!(started.elapsed() < Duration::from_millis(400));
        assert!(slow.await.unwrap().is_ok());
    }
}
