//! The API's one error type, and the one place it becomes an HTTP answer: a status and a JSON
//! body `{"error": "..."}`. A failure of the server itself (storage, a crashed task, a bug) is
//! logged with its detail and answered with a generic text, so nothing internal leaks.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::views::ViewError;
use crate::games::UnknownGame;
use crate::storage::StorageError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("the request is not the JSON expected: {0}")]
    Json(String),
    #[error("{0}")]
    Query(String),
    #[error(transparent)]
    View(#[from] ViewError),
    #[error(transparent)]
    UnknownGame(#[from] UnknownGame),
    /// A path names a game the server does not host.
    #[error(transparent)]
    NoSuchGame(UnknownGame),
    #[error(transparent)]
    Option(#[from] arbiter_core::OptionError),
    #[error("mode must be `ai` or `local`")]
    Mode,
    #[error("`{0}` is not a game number")]
    GameNumber(String),
    #[error("no game {0}")]
    NoGame(i64),
    #[error("no player holds the name {0}")]
    NoPlayer(String),
    #[error("name: {0} is held by another player; choose another")]
    NameTaken(String),
    #[error("this game is not yours to change")]
    NotOwner,
    #[error("the game is over")]
    GameOver,
    #[error("the moves must continue the {0} stored ones")]
    MovesDiverge(usize),
    /// A move sent with a ply that is not the next one (sent twice, or one skipped).
    #[error("ply {ply} is not the next move of this game: the next is ply {}", stored + 1)]
    NotNextPly { ply: usize, stored: usize },
    /// A takeback to a ply the stored game has not reached.
    #[error("cannot take back to ply {ply}: the game has {stored} stored moves")]
    TakebackBeyond { ply: usize, stored: usize },
    /// A whole-game analysis asked of a game being played (no engine's help in a live game).
    #[error("game {0} is not over: only a finished game is analysed")]
    NotOver(i64),
    #[error("game {0} has not been analysed: POST /api/games/{0}/analysis starts it")]
    NotAnalysed(i64),
    #[error("game {id} has {plies} moves; a whole-game analysis takes at most {max}")]
    TooLongToAnalyse { id: i64, plies: usize, max: usize },
    #[error("this server runs at most {cap} whole-game analyses at once and all are busy; try again when one ends")]
    AnalysesBusy { cap: usize },
    #[error("the visualiser takes at most {limit} bytes of input")]
    InputTooLarge { limit: usize },
    /// A body over the server's limit (`--max-body-kib`).
    #[error("the request's body is over this server's limit of {limit} bytes")]
    BodyTooLarge { limit: usize },
    /// A judge whose output alone is over the bound of an answer (`--judge-max-answer-kib`).
    #[error("the judge's output alone is over this server's limit of {limit} bytes for an answer; send fewer operations")]
    AnswerTooLarge { limit: usize },
    /// An answer over the server's bound (`--max-response-kib`).
    #[error("the answer would be {bytes} bytes, over this server's bound of {limit}; ask for less (a smaller `limit`)")]
    ResponseTooLarge { bytes: u64, limit: usize },
    #[error(
        "the server is busy with other AI, analysis and judge requests; try again in a moment"
    )]
    Busy,
    /// Too many writes from one address or network (`scope`); try again after `retry_after` s.
    #[error("too many requests from this {scope}; try again in {retry_after} s")]
    RateLimited {
        scope: &'static str,
        retry_after: u64,
    },
    /// A rejection made outside the API's handlers (by axum or hyper), made JSON.
    #[error("{message}")]
    Rejected { status: StatusCode, message: String },
    #[error("the server is stopping")]
    Stopping,
    #[error("{path} does not take {method}")]
    Method { path: String, method: String },
    #[error("no page at {0}")]
    NoPage(String),
    #[error(
        "this server does not answer for the host `{host}` (start it with --allow-host {name})"
    )]
    Host { host: String, name: String },
    #[error("pages from {0} may not play here (start the server with --allow-origin {0})")]
    Origin(String),
    /// A request to `/ws` that is not a WebSocket upgrade.
    #[error("{message}")]
    Upgrade { status: StatusCode, message: String },
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// Anything else the server got wrong; the text is for the log only.
    #[error("{0}")]
    Internal(String),
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        use ApiError::*;
        match self {
            Json(_) | Query(_) | UnknownGame(_) | Option(_) | Mode | GameNumber(_) => {
                StatusCode::BAD_REQUEST
            }
            View(e) if e.is_internal() => StatusCode::INTERNAL_SERVER_ERROR,
            View(_) => StatusCode::BAD_REQUEST,
            NoSuchGame(_) | NoGame(_) | NoPage(_) | NoPlayer(_) | NotAnalysed(_) => {
                StatusCode::NOT_FOUND
            }
            NotOwner | Origin(_) => StatusCode::FORBIDDEN,
            GameOver
            | MovesDiverge(_)
            | NotNextPly { .. }
            | TakebackBeyond { .. }
            | NameTaken(_)
            | NotOver(_) => StatusCode::CONFLICT,
            // Two requests raced to store one ply: the store kept the first.
            Storage(StorageError::PlyTaken { .. } | StorageError::PlySkipped { .. }) => {
                StatusCode::CONFLICT
            }
            InputTooLarge { .. }
            | BodyTooLarge { .. }
            | AnswerTooLarge { .. }
            | ResponseTooLarge { .. }
            | TooLongToAnalyse { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Busy | AnalysesBusy { .. } | Stopping | Storage(_) => StatusCode::SERVICE_UNAVAILABLE,
            RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Rejected { status, .. } => *status,
            Method { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Host { .. } => StatusCode::MISDIRECTED_REQUEST,
            Upgrade { status, .. } => *status,
            Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// A failure of the server itself, not of the request: logged, and answered generically.
    fn is_internal(&self) -> bool {
        match self {
            ApiError::Storage(e) => !matches!(
                e,
                StorageError::PlyTaken { .. } | StorageError::PlySkipped { .. }
            ),
            ApiError::Internal(_) => true,
            ApiError::View(e) => e.is_internal(),
            _ => false,
        }
    }

    /// The text a client may read: the error's own, or a generic one for the server's failures.
    pub(super) fn public_text(&self) -> String {
        match self {
            ApiError::Storage(_) if self.is_internal() => {
                "the game store is not available now; try again later".into()
            }
            _ if self.is_internal() => "the server failed to answer; the failure is logged".into(),
            other => other.to_string(),
        }
    }

    /// A task that panicked or was cancelled.
    pub fn task(e: tokio::task::JoinError) -> ApiError {
        ApiError::Internal(format!("a request's task failed: {e}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if self.is_internal() {
            tracing::error!("HTTP {}: {self}", status.as_u16());
        }
        let text = self.public_text();
        let retry_after = match &self {
            ApiError::RateLimited { retry_after, .. } => Some(*retry_after),
            ApiError::Busy => Some(1),
            ApiError::AnalysesBusy { .. } => Some(10),
            _ => None,
        };
        let mut response = (status, Json(serde_json::json!({ "error": text }))).into_response();
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        // A body over the limit set with `DefaultBodyLimit` (a chunked one: no length in its head).
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return ApiError::Rejected {
                status: StatusCode::PAYLOAD_TOO_LARGE,
                message: "the request's body is over this server's limit".into(),
            };
        }
        ApiError::Json(rejection.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> ApiError {
        ApiError::Query(rejection.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> ApiError {
        ApiError::Query(rejection.body_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn answer(error: ApiError) -> (StatusCode, String) {
        let response = error.into_response();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        (status, json["error"].as_str().unwrap().to_string())
    }

    #[tokio::test]
    async fn the_servers_own_failures_are_answered_without_their_detail() {
        let secret = "disk I/O error in /srv/arbiter/games.sqlite";
        let storage = ApiError::Storage(StorageError::Database(secret.into()));
        let internal = ApiError::Internal(format!("stored settings: {secret}"));
        for (error, status) in [
            (storage, StatusCode::SERVICE_UNAVAILABLE),
            (internal, StatusCode::INTERNAL_SERVER_ERROR),
        ] {
            let (got, text) = answer(error).await;
            assert_eq!(got, status);
            assert!(!text.contains("sqlite") && !text.contains("disk"), "{text}");
        }
    }

    #[tokio::test]
    async fn a_ply_stored_by_a_racing_request_is_a_conflict() {
        let taken = ApiError::Storage(StorageError::PlyTaken { game: 3, ply: 2 });
        let (status, text) = answer(taken).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(text, "game 3 already has another move 2");
    }

    #[tokio::test]
    async fn a_json_body_over_the_limit_is_413() {
        use axum::extract::FromRequest;
        let big = format!("[{}0]", "0,".repeat(1_500_000));
        let request = axum::http::Request::builder()
            .method("POST")
            .header(header::CONTENT_TYPE, "application/json")
            .body(axum::body::Body::from(big))
            .unwrap();
        let rejection = Json::<serde_json::Value>::from_request(request, &())
            .await
            .expect_err("over axum's default limit");
        let (status, text) = answer(ApiError::from(rejection)).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{text}");
    }

    #[tokio::test]
    async fn a_clients_mistake_is_answered_with_what_to_change() {
        assert_eq!(
            answer(ApiError::NoGame(7)).await,
            (StatusCode::NOT_FOUND, "no game 7".to_string())
        );
        assert_eq!(
            answer(ApiError::MovesDiverge(3)).await,
            (
                StatusCode::CONFLICT,
                "the moves must continue the 3 stored ones".to_string()
            )
        );
        let (status, text) = answer(ApiError::Json("expected `,`".into())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(
            text.starts_with("the request is not the JSON expected"),
            "{text}"
        );
    }
}
