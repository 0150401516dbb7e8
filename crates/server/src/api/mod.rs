//! The HTTP JSON API over rooms and storage: the games the server hosts, positions and the AI
//! for the page, the judge visualiser, open rooms and stored games.
//!
//! * AI, analysis and judge requests run a few at a time through one gate, a short queue waits,
//!   more get 503; a request whose client goes away stops its search and frees its place.
//! * Bodies are bounded (413), writes are rate-limited per address and per network (429).
//! * Every error is JSON: `{"error": "..."}`.
//! * A finished game can be analysed whole by a background job (`analysis`), a few at once.

mod analysis;
pub mod arena_tests;
mod catalogue;
mod error;
mod extract;
mod games;
pub mod gate;
mod judge;
mod judge_answer;
mod limits;
mod metrics;
pub mod page;
mod players;
mod rejections;
mod rules;
pub mod views;

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request};
use axum::routing::{get, post};
use axum::Router;

use crate::games::Registry;
use crate::rooms::Hub;
use crate::storage::Storage;
pub use analysis::{BLUNDER, INACCURACY, MAX_ANALYSED_PLIES, MISTAKE};
pub use error::ApiError;
use gate::CpuGate;
use limits::WriteLimits;
pub use limits::{network_of, ApiLimits, RateQuota, ROOMS_PAGE_DEFAULT, ROOMS_PAGE_MAX};
pub use rules::Engines;

/// What the API's handlers share.
#[derive(Clone)]
pub struct ApiState {
    pub hub: Arc<Hub>,
    pub store: Storage,
    pub registry: Arc<Registry>,
    pub engines: Arc<Engines>,
    pub limits: Arc<ApiLimits>,
    /// The arena queue `/tests` shows, on the server's PostgreSQL (`None` on SQLite).
    pub arena_queue: Option<Arc<arena_tests::ArenaTests>>,
    cpu: Arc<CpuGate>,
    writes: Arc<WriteLimits>,
    analyses: Arc<analysis::Jobs>,
}

impl ApiState {
    pub fn new(
        hub: Arc<Hub>,
        store: Storage,
        registry: Arc<Registry>,
        engines: Arc<Engines>,
        limits: &ApiLimits,
        cpu: Arc<CpuGate>,
    ) -> ApiState {
        ApiState {
            hub,
            store,
            registry,
            engines,
            limits: Arc::new(limits.clone()),
            arena_queue: None,
            cpu,
            writes: Arc::new(WriteLimits::new(limits)),
            analyses: Arc::new(analysis::jobs(limits.analysis_jobs)),
        }
    }
}

/// The API's routes and the page's files, for any outer state (the HTTP transport adds its own
/// routes and checks around them). Every request but a read counts against its client's write
/// rates.
pub fn router<S: Clone + Send + Sync + 'static>(state: ApiState) -> Router<S> {
    let writes = axum::middleware::from_fn_with_state(state.writes.clone(), limits::limit_writes);
    Router::new()
        .route("/api/catalogue", get(rules::catalogue))
        .route("/api/rooms", get(games::rooms))
        .route("/api/games", get(games::games).post(games::create_game))
        .route("/api/protocol", get(rules::protocol))
        .route("/api/games/{id}", get(games::game).put(games::update_game))
        .route("/api/games/{id}/moves", post(games::append_move))
        .route("/api/games/{id}/takeback", post(games::take_back))
        .route("/api/players", post(players::claim))
        .route("/api/players/{name}", get(players::player))
        .route("/api/leaderboard", get(players::leaderboard))
        .route("/api/metrics", get(metrics::metrics))
        .route("/api/games/{id}/record", get(games::record))
        .route(
            "/api/games/{id}/analysis",
            get(analysis::progress).post(analysis::start),
        )
        .route("/api/state", post(rules::api_state))
        .route("/api/ai", post(rules::api_ai))
        .route("/api/analyze", post(rules::api_analyze))
        .route("/api/judge/{game}", post(rules::api_judge))
        .route("/tests", get(arena_tests::page))
        .route_layer(writes)
        .with_state(state)
}

/// The answers for paths and methods no route takes, and the limits of every request: a body
/// over the limit is answered 413, and every error answered is JSON.
pub fn fallbacks<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    limits: &ApiLimits,
) -> Router<S> {
    let max_body = limits.max_body_bytes;
    router
        .fallback(page::static_file)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn_with_state(
            max_body,
            limits::limit_body,
        ))
        .layer(axum::middleware::from_fn(rejections::json_errors))
        .layer(axum::middleware::from_fn_with_state(
            limits.max_response_bytes,
            limits::limit_response,
        ))
}

async fn method_not_allowed(request: Request) -> ApiError {
    ApiError::Method {
        path: request.uri().path().to_string(),
        method: request.method().to_string(),
    }
}

/// Runs blocking work (the rules, the AI, the judge) off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(ApiError::task)?
}
