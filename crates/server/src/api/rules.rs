//! Positions, the AI, analysis, the catalogue and the judge visualiser for the page: stateless
//! requests about a game, answered by the game crates through [`views`](super::views).

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use arbiter_ai::Catalogue;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use super::extract::Body;
use super::gate::gated;
use super::judge_answer;
use super::views::{
    self, AiMove, AnalysisView, EvalLimits, GameRequest, PositionEval, Replayed, StateView,
    ViewError,
};
use super::{blocking, ApiError, ApiState};

/// How the API answers questions about any hosted game: built once from a catalogue.
pub struct Engines {
    pub state: fn(&GameRequest) -> Result<StateView, ViewError>,
    pub ai: fn(&GameRequest, &AtomicBool) -> Result<AiMove, ViewError>,
    pub analyze: fn(&GameRequest, EvalLimits, &AtomicBool) -> Result<AnalysisView, ViewError>,
    pub evaluate: fn(&GameRequest, EvalLimits, &AtomicBool) -> Result<PositionEval, ViewError>,
    pub replayed: fn(&GameRequest) -> Result<Replayed, ViewError>,
}

impl Engines {
    pub fn of<C: Catalogue>() -> Engines {
        Engines {
            state: views::state::<C>,
            ai: views::ai::<C>,
            analyze: views::analyze_request::<C>,
            evaluate: views::evaluate_request::<C>,
            replayed: views::replayed::<C>,
        }
    }
}

pub(super) async fn catalogue(State(state): State<ApiState>) -> Json<Vec<views::GameInfo>> {
    Json(views::catalogue(&state.registry.games))
}

pub(super) async fn protocol() -> Json<serde_json::Value> {
    Json(super::catalogue::protocol())
}

pub(super) async fn api_state(
    State(state): State<ApiState>,
    Body(request): Body<GameRequest>,
) -> Result<Json<StateView>, ApiError> {
    let describe = state.engines.state;
    Ok(Json(blocking(move || Ok(describe(&request)?)).await?))
}

pub(super) async fn api_ai(
    State(state): State<ApiState>,
    Body(request): Body<GameRequest>,
) -> Result<Json<AiMove>, ApiError> {
    let ai = state.engines.ai;
    Ok(Json(
        gated(&state.cpu, move |stop| ai(&request, stop)).await?,
    ))
}

/// `POST /api/analyze`: a position and, for the analysis board, how long to search it.
#[derive(Deserialize)]
pub(super) struct AnalyzeRequest {
    #[serde(flatten)]
    game: GameRequest,
    /// The deepest iteration, 1 to [`MAX_ANALYSIS_DEPTH`] (default 3).
    depth: Option<u32>,
    /// Milliseconds of search, 100 to [`MAX_ANALYSIS_MS`] (default 1000); half of it goes to
    /// the best line, half to finding the moves that lose.
    time_ms: Option<u64>,
}

/// The longest and deepest search one request may ask for.
pub const MAX_ANALYSIS_MS: u64 = 3000;
pub const MAX_ANALYSIS_DEPTH: u32 = 20;

pub(super) async fn api_analyze(
    State(state): State<ApiState>,
    Body(request): Body<AnalyzeRequest>,
) -> Result<Json<AnalysisView>, ApiError> {
    let limits = EvalLimits {
        depth: request.depth.unwrap_or(3).clamp(1, MAX_ANALYSIS_DEPTH),
        time: Duration::from_millis(request.time_ms.unwrap_or(1000).clamp(100, MAX_ANALYSIS_MS)),
    };
    let analyze = state.engines.analyze;
    let game = request.game;
    Ok(Json(
        gated(&state.cpu, move |stop| analyze(&game, limits, stop)).await?,
    ))
}

#[derive(Deserialize)]
pub(super) struct JudgeRequest {
    input: String,
}

/// The judge visualiser: the judge's trace of an input (at most `judge_max_input_bytes`), in
/// the CPU gate, its answer cut to `judge_max_answer_bytes`.
pub(super) async fn api_judge(
    State(state): State<ApiState>,
    Path(game): Path<String>,
    Body(request): Body<JudgeRequest>,
) -> Result<Response, ApiError> {
    let def = state
        .registry
        .definition(&game)
        .map_err(ApiError::NoSuchGame)?;
    let limit = state.limits.judge_max_input_bytes;
    if request.input.len() > limit {
        return Err(ApiError::InputTooLarge { limit });
    }
    let max = state.limits.judge_max_answer_bytes;
    let body = gated(&state.cpu, move |_| {
        judge_answer::bounded(views::judge_trace(def, &request.input)?, max)
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}
