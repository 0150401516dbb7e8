//! Names and ratings over HTTP: a page claims its player's name with the secret its browser
//! keeps (`POST /api/players`), and anyone reads the leaderboard of a class
//! (`GET /api/leaderboard?class=surakarta/blitz`) and a player's ratings with recent games
//! (`GET /api/players/{name}`).

use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;

use super::extract::{Body, Params};
use super::{ApiError, ApiState};
use crate::storage::players::{check_name, secret_hash};
use crate::storage::{GameQuery, NameClaim};

#[derive(Deserialize)]
pub(super) struct Claim {
    name: String,
    secret: String,
}

/// Claims a name for a secret, or confirms it is the secret's; 409 when another holds it.
pub(super) async fn claim(
    State(state): State<ApiState>,
    Body(c): Body<Claim>,
) -> Result<Json<serde_json::Value>, ApiError> {
    check_name(&c.name).map_err(|e| ApiError::Query(e.to_string()))?;
    let secret_ok = c.secret.len() == 32 && c.secret.bytes().all(|b| b.is_ascii_hexdigit());
    if !secret_ok {
        return Err(ApiError::Query("secret: 32 hexadecimal digits".into()));
    }
    let claim = state
        .store
        .check_name(c.name.clone(), Some(secret_hash(&c.secret)))
        .await?;
    match claim {
        NameClaim::Taken => Err(ApiError::NameTaken(c.name)),
        _ => Ok(Json(serde_json::json!({ "name": c.name }))),
    }
}

#[derive(Deserialize)]
pub(super) struct BoardQuery {
    class: String,
    limit: Option<u32>,
}

pub(super) async fn leaderboard(
    State(state): State<ApiState>,
    Params(q): Params<BoardQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let limit = q.limit.unwrap_or(50).min(200);
    let players = state.store.leaderboard(q.class.clone(), limit).await?;
    Ok(Json(
        serde_json::json!({ "class": q.class, "players": players }),
    ))
}

/// A player's ratings in every class and its 20 most recent games.
pub(super) async fn player(
    State(state): State<ApiState>,
    Path(name): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let record = state.store.player(name.clone()).await?;
    let record = record.ok_or_else(|| ApiError::NoPlayer(name))?;
    let query = GameQuery {
        limit: 20,
        offset: 0,
        player: Some(record.name.clone()),
    };
    let games = super::games::listed(state.store.list_games(query).await?);
    Ok(Json(
        serde_json::json!({ "name": record.name, "ratings": record.ratings, "games": games }),
    ))
}
