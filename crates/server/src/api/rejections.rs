//! Every error the HTTP side answers is JSON: the rejections axum makes itself (a path that is
//! not UTF-8, a body it cannot read, an extractor's refusal) come out of the router as plain
//! text; this layer, around everything, turns any error answer that is not JSON into the API's
//! `{"error": ...}` with the same status and the headers that matter (`Allow`, `Retry-After`).

use axum::extract::Request;
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::ApiError;

/// The most of a rejection's text kept as its message.
const MAX_TEXT: usize = 1024;

pub async fn json_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, MAX_TEXT)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let message = if status.is_server_error() || text.is_empty() {
        // The server's own failures are not described to clients (nor is a blank answer).
        status
            .canonical_reason()
            .unwrap_or("the request was refused")
            .to_string()
    } else {
        text
    };
    let mut answer = ApiError::Rejected { status, message }.into_response();
    for name in [header::ALLOW, header::RETRY_AFTER] {
        if let Some(value) = parts.headers.get(&name) {
            answer.headers_mut().insert(name, value.clone());
        }
    }
    answer
}
