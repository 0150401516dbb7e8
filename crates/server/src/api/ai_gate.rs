//! AI and analysis requests: a few computed at once, a short queue, 503 beyond it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use tokio::sync::Semaphore;

use super::error;

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

/// Runs `f` on the blocking pool within the AI gate; answers with its JSON or a JSON error.
pub async fn gated<T: serde::Serialize + Send + 'static>(
    gate: &AiGate,
    f: impl FnOnce(&AtomicBool) -> Result<T, String> + Send + 'static,
) -> Response {
    if gate.waiting.fetch_add(1, Ordering::Relaxed) >= gate.queue {
        gate.waiting.fetch_sub(1, Ordering::Relaxed);
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the AI is busy with other requests; try again in a moment",
        );
    }
    let permit = gate.running.acquire().await;
    gate.waiting.fetch_sub(1, Ordering::Relaxed);
    let Ok(_permit) = permit else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping");
    };
    let stop = Arc::new(AtomicBool::new(false));
    let _guard = StopOnDrop(stop.clone());
    match tokio::task::spawn_blocking(move || f(&stop)).await {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(e)) => error(StatusCode::BAD_REQUEST, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}
