//! The HTTP JSON API over rooms and storage: the games the server hosts, positions and the AI
//! for the page, the judge visualiser, open rooms and stored games.
//!
//! * AI and analysis requests run a few at a time, a short queue waits, more get 503; a request
//!   whose client goes away stops its search.
//! * Every error is JSON: `{"error": "..."}`.

mod ai_gate;
mod catalogue;
mod error;
mod extract;
mod games;
mod judge;
pub mod page;
mod rules;
pub mod views;

use std::sync::Arc;

use axum::extract::Request;
use axum::routing::{get, post};
use axum::Router;

use crate::games::Registry;
use crate::rooms::Hub;
use crate::storage::Storage;
use ai_gate::AiGate;
pub use error::ApiError;
pub use rules::Engines;

/// What the API's handlers share.
#[derive(Clone)]
pub struct ApiState {
    pub hub: Arc<Hub>,
    pub store: Storage,
    pub registry: Arc<Registry>,
    pub engines: Arc<Engines>,
    ai: Arc<AiGate>,
}

impl ApiState {
    pub fn new(
        hub: Arc<Hub>,
        store: Storage,
        registry: Arc<Registry>,
        engines: Arc<Engines>,
        ai_workers: usize,
    ) -> ApiState {
        ApiState {
            hub,
            store,
            registry,
            engines,
            ai: Arc::new(AiGate::new(ai_workers)),
        }
    }
}

/// The API's routes and the page's files, for any outer state (the HTTP transport adds its own
/// routes and checks around them).
pub fn router<S: Clone + Send + Sync + 'static>(state: ApiState) -> Router<S> {
    Router::new()
        .route("/api/catalogue", get(rules::catalogue))
        .route("/api/rooms", get(games::rooms))
        .route("/api/games", get(games::games).post(games::create_game))
        .route("/api/protocol", get(rules::protocol))
        .route("/api/games/{id}", get(games::game).put(games::update_game))
        .route("/api/games/{id}/moves", post(games::append_move))
        .route("/api/state", post(rules::api_state))
        .route("/api/ai", post(rules::api_ai))
        .route("/api/analyze", post(rules::api_analyze))
        .route("/api/judge/{game}", post(rules::api_judge))
        .with_state(state)
}

/// The answers for paths and methods no route takes.
pub fn fallbacks<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    router
        .fallback(page::static_file)
        .method_not_allowed_fallback(method_not_allowed)
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
