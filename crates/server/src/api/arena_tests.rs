//! `/tests`: the arena queue's tests (`arbiter arena … --queue`) as an HTML table, read from
//! the server's own PostgreSQL database when the queue shares it (docs/arena.md#many-machines).
//! Read-only: the page never sets a queue up.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::{ApiError, ApiState};

pub async fn page(State(state): State<ApiState>) -> Response {
    let Some(url) = state.arena_queue.as_deref() else {
        return ApiError::Rejected {
            status: StatusCode::NOT_FOUND,
            message: "this server keeps its games in SQLite: arena tests are shown by a server \
                      started with --db postgres://… on the queue's database"
                .into(),
        }
        .into_response();
    };
    let read = async {
        let queue = arbiter_queue::Queue::connect_reader(url).await?;
        queue.status(None).await
    };
    match read.await {
        Ok(tests) => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            arbiter_queue::html_page(&tests),
        )
            .into_response(),
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
