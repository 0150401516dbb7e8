//! AI and analysis requests: a few computed at once, a short queue, 503 beyond it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::views::ViewError;
use super::ApiError;

/// AI and analysis requests: a few computed at once, a short queue, 503 beyond it.
pub struct AiGate {
    running: Semaphore,
    waiting: AtomicUsize,
    queue: usize,
}

impl AiGate {
    pub fn new(workers: usize) -> AiGate {
        let workers = workers.max(1);
        AiGate {
            running: Semaphore::new(workers),
            waiting: AtomicUsize::new(0),
            queue: 4 * workers,
        }
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

/// Runs `f` on the blocking pool within the AI gate; `f` sees a flag raised when the client
/// goes away.
pub async fn gated<T: Send + 'static>(
    gate: &AiGate,
    f: impl FnOnce(&AtomicBool) -> Result<T, ViewError> + Send + 'static,
) -> Result<T, ApiError> {
    if gate.waiting.fetch_add(1, Ordering::Relaxed) >= gate.queue {
        gate.waiting.fetch_sub(1, Ordering::Relaxed);
        return Err(ApiError::AiBusy);
    }
    let permit = gate.running.acquire().await;
    gate.waiting.fetch_sub(1, Ordering::Relaxed);
    let _permit = permit.map_err(|_| ApiError::Stopping)?;
    let stop = Arc::new(AtomicBool::new(false));
    let _guard = StopOnDrop(stop.clone());
    Ok(tokio::task::spawn_blocking(move || f(&stop))
        .await
        .map_err(ApiError::task)??)
}
