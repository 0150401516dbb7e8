//! `/tests`: the arena queue's tests (`arbiter arena … --queue`) as an HTML table, read from
//! the server's own PostgreSQL database when the queue shares it (docs/arena.md#many-machines).
//! Read-only: the page never sets a queue up.

use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::{ApiError, ApiState};

/// How long a page read from the database is shown again: however often `/tests` is asked
/// for, the database sees one reader and at most one read in this time.
const FRESH_FOR: Duration = Duration::from_secs(2);

/// The queue's database and the page last read from it.
pub struct ArenaTests {
    url: String,
    last: Mutex<Option<(Instant, String)>>,
}

impl ArenaTests {
    pub fn new(url: &str) -> ArenaTests {
        ArenaTests {
            url: url.to_string(),
            last: Mutex::new(None),
        }
    }

    /// The page, read again when the last one is older than [`FRESH_FOR`].
    async fn html(&self) -> arbiter_queue::QueueResult<String> {
        let mut last = self.last.lock().await;
        if let Some((_, html)) = last.as_ref().filter(|(at, _)| at.elapsed() < FRESH_FOR) {
            return Ok(html.clone());
        }
        let queue = arbiter_queue::Queue::connect_reader(&self.url).await?;
        let html = arbiter_queue::html_page(&queue.status(None).await?);
        *last = Some((Instant::now(), html.clone()));
        Ok(html)
    }
}

pub async fn page(State(state): State<ApiState>) -> Response {
    let Some(tests) = state.arena_queue.as_deref() else {
        return ApiError::Rejected {
            status: StatusCode::NOT_FOUND,
            message: "this server keeps its games in SQLite: arena tests are shown by a server \
                      started with --db postgres://… on the queue's database"
                .into(),
        }
        .into_response();
    };
    match tests.html().await {
        Ok(html) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response(),
        Err(e) => {
            tracing::warn!("/tests: {e}");
            ApiError::Rejected {
                status: StatusCode::SERVICE_UNAVAILABLE,
                message: "the arena queue cannot be read just now".into(),
            }
            .into_response()
        }
    }
}
