//! Whole-game analysis of a finished stored game: `POST /api/games/{id}/analysis` starts a
//! background job that searches every position in turn, each through the CPU gate the AI and
//! the judge share (so it never takes more than one worker, and people's requests go between
//! its positions); `GET` answers its progress and, as they come, the positions' evaluations and
//! the moves judged. One job per game, at most `analysis_jobs` at once. A finished analysis is
//! written to the store (`saved`), so both read it there first: a stored one is answered done at
//! once, on any node of a cluster and after a restart, and is not searched again. Running jobs
//! and the newest finished ones live in this node's memory (`jobs`).
//! A game being played is never analysed: no engine's help in a live game.

mod jobs;
mod saved;

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

use super::extract::GameId;
use super::gate::gated;
use super::views::{EvalLimits, GameRequest};
use super::{ApiError, ApiState};
use crate::storage::StoredGame;
pub use jobs::{JobView, Jobs, BLUNDER, INACCURACY, MISTAKE};

/// The longest game analysed whole, in moves.
pub const MAX_ANALYSED_PLIES: usize = 1000;
/// Finished analyses kept in memory (all are in the store too).
const KEPT: usize = 256;
/// A position is searched at least this long and at most that long (the game's budget shared
/// by its positions), and never deeper than [`MAX_DEPTH`].
const MIN_PER_POSITION: Duration = Duration::from_millis(20);
const MAX_PER_POSITION: Duration = Duration::from_secs(1);
const MAX_DEPTH: u32 = 12;
/// While the gate is full the job waits this long between tries, and gives up after [`TRIES`].
const RETRY: Duration = Duration::from_millis(500);
const TRIES: u32 = 240;

/// The jobs table of a server with these limits.
pub fn jobs(cap: usize) -> Jobs {
    Jobs::new(cap.max(1), KEPT)
}

/// `POST /api/games/{id}/analysis`: starts the analysis of finished game `id` (or finds it
/// running, done, or stored and fresh: then it is done at once); 202 with its progress.
pub(super) async fn start(
    State(state): State<ApiState>,
    GameId(id): GameId,
) -> Result<(StatusCode, Json<JobView>), ApiError> {
    let game = state.store.game(id).await?.ok_or(ApiError::NoGame(id))?;
    if game.end_reason.is_none() {
        return Err(ApiError::NotOver(id));
    }
    let plies = game.moves.len();
    if plies > MAX_ANALYSED_PLIES {
        return Err(ApiError::TooLongToAnalyse {
            id,
            plies,
            max: MAX_ANALYSED_PLIES,
        });
    }
    let request = request_of(&state, &game)?;
    let limits = limits_for(&state, plies);
    if !state.analyses.has(id) {
        saved::restore(&state, id, &request.moves, limits).await?;
    }
    let new = state
        .analyses
        .start(id, request.moves.clone())
        .map_err(|full| ApiError::AnalysesBusy { cap: full.cap })?;
    if new {
        tokio::spawn(run(state.clone(), id, request, limits));
    }
    let view = state.analyses.view(id).ok_or(ApiError::NoGame(id))?;
    Ok((StatusCode::ACCEPTED, Json(view)))
}

/// `GET /api/games/{id}/analysis`: the analysis's progress and what it found so far, from this
/// node's jobs or else from the store.
pub(super) async fn progress(
    State(state): State<ApiState>,
    GameId(id): GameId,
) -> Result<Json<JobView>, ApiError> {
    if let Some(view) = state.analyses.view(id) {
        return Ok(Json(view));
    }
    let game = state.store.game(id).await?.ok_or(ApiError::NoGame(id))?;
    let plies = game.moves.len();
    if game.end_reason.is_some() && plies <= MAX_ANALYSED_PLIES {
        let moves: Vec<String> = game.moves.into_iter().map(|m| m.text).collect();
        let limits = limits_for(&state, plies);
        if saved::restore(&state, id, &moves, limits).await? {
            let view = state.analyses.view(id).ok_or(ApiError::NotAnalysed(id))?;
            return Ok(Json(view));
        }
    }
    Err(ApiError::NotAnalysed(id))
}

/// How each position of a game of `plies` moves is searched: the server's budget shared by
/// its positions, within bounds.
fn limits_for(state: &ApiState, plies: usize) -> EvalLimits {
    let per_position = (state.limits.analysis_budget / (plies as u32 + 1))
        .clamp(MIN_PER_POSITION, MAX_PER_POSITION);
    EvalLimits {
        depth: MAX_DEPTH,
        time: per_position,
    }
}

/// The rules' request for a stored game: its game, the game's own options from its settings
/// (not the room's time control), and its moves.
fn request_of(state: &ApiState, game: &StoredGame) -> Result<GameRequest, ApiError> {
    let def = state.registry.definition(&game.game)?;
    let options = def
        .options
        .iter()
        .filter_map(|o| {
            let value = game.settings.get(o.name)?.as_u64()?;
            Some((o.name.to_string(), value))
        })
        .collect();
    Ok(GameRequest {
        game: def.id.to_string(),
        moves: game.moves.iter().map(|m| m.text.clone()).collect(),
        level: None,
        seed: None,
        options,
    })
}

/// Searches every position of `request` in turn, recording each; a full gate is waited for.
/// The finished analysis is stored before it is told done, so whoever sees it done finds it
/// in the store too.
async fn run(state: ApiState, id: i64, request: GameRequest, limits: EvalLimits) {
    let evaluate = state.engines.evaluate;
    for ply in 0..=request.moves.len() {
        let mut position = request.clone();
        position.moves.truncate(ply);
        let mut tries = 0;
        let found = loop {
            let asked = position.clone();
            match gated(&state.cpu, move |stop| evaluate(&asked, limits, stop)).await {
                Err(ApiError::Busy) if tries < TRIES => {
                    tries += 1;
                    tokio::time::sleep(RETRY).await;
                }
                other => break other,
            }
        };
        match found {
            Ok(eval) => state.analyses.record(id, eval),
            Err(e) => {
                tracing::warn!("analysis of game {id} stopped at ply {ply}: {e}");
                state.analyses.finish(id, Some(e.public_text()));
                return;
            }
        }
    }
    saved::save(&state, id, limits).await;
    state.analyses.finish(id, None);
}
