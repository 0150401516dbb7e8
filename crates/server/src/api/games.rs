//! Open rooms and stored games: the list, one game, and the games a page plays by itself (against
//! the AI, at one screen), stored move by move.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use super::views::{GameRequest, Replayed};
use super::{bad_json, error, ApiState};
use crate::storage::Store;

pub(super) async fn rooms(State(state): State<ApiState>) -> Response {
    Json(state.hub.rooms().await).into_response()
}

#[derive(Deserialize)]
pub(super) struct GamesQuery {
    limit: Option<u32>,
    offset: Option<u32>,
    player: Option<String>,
}

pub(super) async fn games(
    State(state): State<ApiState>,
    query: Result<Query<GamesQuery>, QueryRejection>,
) -> Response {
    let Query(q) = match query {
        Ok(q) => q,
        Err(rejection) => return error(StatusCode::BAD_REQUEST, rejection.body_text()),
    };
    let store = state.store.clone();
    let limit = q.limit.unwrap_or(50).min(1000);
    let result = tokio::task::spawn_blocking(move || {
        store.list_games(limit, q.offset.unwrap_or(0), q.player.as_deref())
    })
    .await;
    match result {
        Ok(Ok(list)) => Json(list).into_response(),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// A game a page plays by itself (against the AI, at one screen), to be stored as it goes.
#[derive(Deserialize)]
pub(super) struct CreateGame {
    game: String,
    #[serde(default)]
    players: [String; 2],
    /// `ai` or `local`.
    mode: String,
    level: Option<String>,
    #[serde(flatten)]
    options: std::collections::BTreeMap<String, u64>,
}

/// A player's name as stored: letters, digits, spaces, `_` and `-`, at most 32.
fn player_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '(' | ')'))
        .take(32)
        .collect();
    if clean.trim().is_empty() {
        "anonymous".into()
    } else {
        clean.trim().to_string()
    }
}

fn new_token() -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..32)
        .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.gen_range(0..36)]))
        .collect()
}

pub(super) async fn create_game(
    State(state): State<ApiState>,
    request: Result<Json<CreateGame>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    if !matches!(request.mode.as_str(), "ai" | "local") {
        return error(StatusCode::BAD_REQUEST, "mode must be `ai` or `local`");
    }
    let def = match state.registry.definition(&request.game) {
        Ok(def) => def,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    let pairs = request.options.iter().map(|(k, v)| (k.as_str(), *v));
    let options = match def.options_from(pairs) {
        Ok(o) => o,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.to_string()),
    };
    let mut settings = serde_json::Map::new();
    settings.insert("game".into(), def.id.into());
    for (name, value) in options.pairs() {
        settings.insert(name.into(), value.into());
    }
    settings.insert("mode".into(), request.mode.clone().into());
    if let Some(level) = request
        .level
        .as_deref()
        .filter(|l| matches!(*l, "easy" | "medium" | "hard"))
    {
        settings.insert("level".into(), level.into());
    }
    let names = [
        player_name(&request.players[0]),
        player_name(&request.players[1]),
    ];
    let token = new_token();
    let settings = serde_json::Value::Object(settings).to_string();
    match state
        .store
        .start_owned_game(def.id, &settings, [&names[0], &names[1]], &token)
        .await
    {
        Ok(id) => Json(serde_json::json!({ "id": id, "token": token })).into_response(),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e),
    }
}

/// The moves of a page's own game so far (all of them, each time: moves taken back are left
/// out), and a resignation.
#[derive(Deserialize)]
pub(super) struct UpdateGame {
    token: String,
    moves: Vec<String>,
    /// `first` or `second`: that side resigned after the moves.
    resign: Option<String>,
}

/// The most moves a stored game of a page may have.
const MAX_STORED_MOVES: usize = 5000;

pub(super) async fn update_game(
    State(state): State<ApiState>,
    Path(id): Path<String>,
    request: Result<Json<UpdateGame>, JsonRejection>,
) -> Response {
    let Json(update) = match request {
        Ok(r) => r,
        Err(rejection) => return bad_json(rejection),
    };
    let Ok(id) = id.parse::<i64>() else {
        return error(StatusCode::BAD_REQUEST, "not a game number");
    };
    let store = state.store.clone();
    let owned = match tokio::task::spawn_blocking(move || store.owned_game(id)).await {
        Ok(Ok(Some(owned))) => owned,
        Ok(Ok(None)) => return error(StatusCode::NOT_FOUND, format!("no game {id}")),
        Ok(Err(e)) => return error(StatusCode::INTERNAL_SERVER_ERROR, e),
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    if owned.owner.as_deref() != Some(update.token.as_str()) {
        return error(StatusCode::FORBIDDEN, "this game is not yours to change");
    }
    if owned.ended {
        return error(StatusCode::CONFLICT, "the game is over");
    }
    if update.moves.len() > MAX_STORED_MOVES || !update.moves.starts_with(&owned.moves) {
        return error(
            StatusCode::CONFLICT,
            format!(
                "the moves must continue the {} stored ones",
                owned.moves.len()
            ),
        );
    }
    let request = match stored_request(&owned.settings, update.moves) {
        Ok(r) => r,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e),
    };
    let replay = state.engines.replayed;
    let replayed = match tokio::task::spawn_blocking(move || replay(&request)).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return error(StatusCode::BAD_REQUEST, e),
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    match store_progress(
        &state.store,
        id,
        owned.moves.len(),
        &replayed,
        update.resign.as_deref(),
    )
    .await
    {
        Ok(end) => Json(serde_json::json!({
            "id": id,
            "plies": replayed.moves.len(),
            "end_reason": end,
        }))
        .into_response(),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e),
    }
}

/// A request for the rules from a stored game's settings and a move list.
fn stored_request(settings: &str, moves: Vec<String>) -> Result<GameRequest, String> {
    let value: serde_json::Value = serde_json::from_str(settings).map_err(|e| e.to_string())?;
    let map = value
        .as_object()
        .ok_or("stored settings are not an object")?;
    let game = map
        .get("game")
        .and_then(|g| g.as_str())
        .ok_or("no game in the settings")?;
    let options = map
        .iter()
        .filter_map(|(k, v)| {
            v.as_u64()
                .filter(|_| k != "timeout_ms")
                .map(|v| (k.clone(), v))
        })
        .collect();
    Ok(GameRequest {
        game: game.to_string(),
        moves,
        level: None,
        seed: None,
        options,
    })
}

/// Stores the new moves and, when the game ended (or a side resigned), its end; the end's name.
async fn store_progress(
    store: &Store,
    id: i64,
    stored: usize,
    replayed: &Replayed,
    resign: Option<&str>,
) -> Result<Option<&'static str>, String> {
    for (i, (text, reason)) in replayed.moves.iter().enumerate().skip(stored) {
        store.record_move(id, i + 1, text, reason.name()).await?;
    }
    let texts: Vec<String> = replayed.moves.iter().map(|(t, _)| t.clone()).collect();
    let winner_digit = |w: Option<arbiter_core::Side>| w.map_or(2, |s| s.index() as u8);
    let end = match (&replayed.end, resign) {
        (Some(end), _) => Some((end.reason, winner_digit(end.winner))),
        (None, Some("first")) => Some((arbiter_core::EndReason::Resign, 1)),
        (None, Some("second")) => Some((arbiter_core::EndReason::Resign, 0)),
        (None, _) => None,
    };
    if let Some((reason, winner)) = end {
        let record = arbiter_core::outcome::record_with_end(&texts, reason);
        store
            .end_game(id, reason.name(), Some(winner), &record)
            .await?;
    }
    Ok(end.map(|(reason, _)| reason.name()))
}

pub(super) async fn game(State(state): State<ApiState>, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return error(
            StatusCode::BAD_REQUEST,
            format!(
                "`{}` is not a game number",
                arbiter_core::text::shorten(&id)
            ),
        );
    };
    let store = state.store.clone();
    match tokio::task::spawn_blocking(move || store.game(id)).await {
        Ok(Ok(Some(game))) => Json(game).into_response(),
        Ok(Ok(None)) => error(StatusCode::NOT_FOUND, format!("no game {id}")),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}
