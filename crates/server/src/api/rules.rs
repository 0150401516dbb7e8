//! Positions, the AI, analysis, the catalogue and the judge visualiser for the page: stateless
//! requests about a game, answered by the game crates through [`views`](super::views).

use std::sync::atomic::AtomicBool;

use arbiter_ai::Catalogue;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use super::ai_gate::gated;
use super::views::{self, AiMove, AnalysisView, GameRequest, Replayed, StateView};
use super::{bad_json, error, ApiState};

/// How the API answers questions about any hosted game: built once from a catalogue.
pub struct Engines {
    pub state: fn(&GameRequest) -> Result<StateView, String>,
    pub ai: fn(&GameRequest, &AtomicBool) -> Result<AiMove, String>,
    pub analyze: fn(&GameRequest, &AtomicBool) -> Result<AnalysisView, String>,
    pub replayed: fn(&GameRequest) -> Result<Replayed, String>,
}

impl Engines {
    pub fn of<C: Catalogue>() -> Engines {
        Engines {
            state: views::state::<C>,
            ai: views::ai::<C>,
            analyze: views::analyze_request::<C>,
            replayed: views::replayed::<C>,
        }
    }
}

pub(super) async fn catalogue(State(state): State<ApiState>) -> Response {
    Json(views::catalogue(&state.registry.games)).into_response()
}

pub(super) async fn api_state(
    State(state): State<ApiState>,
    request: Result<Json<GameRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let describe = state.engines.state;
    match tokio::task::spawn_blocking(move || describe(&request)).await {
        Ok(Ok(view)) => Json(view).into_response(),
        Ok(Err(e)) => error(StatusCode::BAD_REQUEST, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

pub(super) async fn api_ai(
    State(state): State<ApiState>,
    request: Result<Json<GameRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let ai = state.engines.ai;
    gated(&state.ai, move |stop| ai(&request, stop)).await
}

pub(super) async fn api_analyze(
    State(state): State<ApiState>,
    request: Result<Json<GameRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let analyze = state.engines.analyze;
    gated(&state.ai, move |stop| analyze(&request, stop)).await
}

#[derive(Deserialize)]
pub(super) struct JudgeRequest {
    input: String,
}

/// The judge visualiser: the judge's trace of an input (at most 1 MiB).
pub(super) async fn api_judge(
    State(state): State<ApiState>,
    Path(game): Path<String>,
    request: Result<Json<JudgeRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let def = match state.registry.definition(&game) {
        Ok(def) => def,
        Err(e) => return error(StatusCode::NOT_FOUND, e),
    };
    if request.input.len() > arbiter_core::text::MAX_LINE_BYTES {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the visualiser takes at most 1 MiB of input",
        );
    }
    match tokio::task::spawn_blocking(move || views::judge_trace(def, &request.input)).await {
        Ok(Ok(trace)) => Json(trace).into_response(),
        Ok(Err(e)) => error(StatusCode::BAD_REQUEST, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}
