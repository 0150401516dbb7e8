//! Open rooms and stored games: the list, one game, and the games a page plays by itself (against
//! the AI, at one screen), stored move by move.

use arbiter_core::EndReason;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use super::extract::{Body, GameId, Params};
use super::views::{GameRequest, Replayed};
use super::{blocking, ApiError, ApiState, ROOMS_PAGE_DEFAULT, ROOMS_PAGE_MAX};
use crate::protocol::Winner;
use crate::storage::{
    GameEnd, GameQuery, GameStore, NewGame, OwnedGame, PlayedMove, StorageError, StoredGame,
};

#[derive(Deserialize)]
pub(super) struct RoomsQuery {
    limit: Option<usize>,
    after: Option<u32>,
}

/// One page of the open rooms (`?limit=&after=`): `{"rooms": [...], "next": N or null}`.
pub(super) async fn rooms(
    State(state): State<ApiState>,
    Params(q): Params<RoomsQuery>,
) -> Json<serde_json::Value> {
    let limit = q
        .limit
        .unwrap_or(ROOMS_PAGE_DEFAULT)
        .clamp(1, ROOMS_PAGE_MAX);
    let (rooms, next) = state.hub.rooms_everywhere(q.after, limit).await;
    Json(serde_json::json!({ "rooms": rooms, "next": next }))
}

#[derive(Deserialize)]
pub(super) struct GamesQuery {
    limit: Option<u32>,
    offset: Option<u32>,
    player: Option<String>,
}

pub(super) async fn games(
    State(state): State<ApiState>,
    Params(q): Params<GamesQuery>,
) -> Result<Json<Vec<serde_json::Value>>, ApiError> {
    let query = GameQuery {
        limit: q.limit.unwrap_or(50).min(1000),
        offset: q.offset.unwrap_or(0),
        player: q.player,
    };
    let mut games = listed(state.store.list_games(query).await?);
    fit_in(&mut games, state.limits.max_response_bytes / 2);
    Ok(Json(games))
}

/// Games as a list shows them: without `moves` (a list does not read them; an empty list there
/// would say a game has none — `GET /api/games/{id}` has them).
pub(super) fn listed(games: Vec<StoredGame>) -> Vec<serde_json::Value> {
    games
        .iter()
        .map(|game| {
            let mut value = serde_json::to_value(game).expect("games serialise");
            if let Some(fields) = value.as_object_mut() {
                fields.remove("moves");
            }
            value
        })
        .collect()
}

/// Cuts a list after the items that fit in `bound` bytes of JSON (at least one): a page of long
/// games is shorter, and the next page starts where it ends.
fn fit_in<T: serde::Serialize>(items: &mut Vec<T>, bound: usize) {
    let mut total = 2;
    let fits = items
        .iter()
        .take_while(|item| {
            total += serde_json::to_vec(item).map_or(0, |v| v.len()) + 1;
            total <= bound
        })
        .count();
    items.truncate(fits.max(1));
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

/// A player's name as stored for a game a page plays by itself: what the player chose, as the
/// rooms and the page show it (`<`, `>`, any script), less what would hide or disguise text
/// (control characters, bidirectional overrides, zero-width spaces), at most 64 characters.
fn player_name(name: &str) -> String {
    let clean: String = name.chars().filter(|&c| !hides_text(c)).take(64).collect();
    if clean.trim().is_empty() {
        "anonymous".into()
    } else {
        clean.trim().to_string()
    }
}

/// A control or format character that would let a stored name look like another (a zero-width
/// joiner stays: an emoji family is one).
fn hides_text(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
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
    Body(request): Body<CreateGame>,
) -> Result<Json<serde_json::Value>, ApiError> {
    if !matches!(request.mode.as_str(), "ai" | "local") {
        return Err(ApiError::Mode);
    }
    let def = state.registry.definition(&request.game)?;
    let pairs = request.options.iter().map(|(k, v)| (k.as_str(), *v));
    let options = def.options_from(pairs)?;
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
    let token = new_token();
    let new_game = NewGame {
        room: 0,
        game: def.id.to_string(),
        settings: serde_json::Value::Object(settings).to_string(),
        players: request.players.each_ref().map(|p| player_name(p)),
        owner: Some(token.clone()),
        seat_tokens: [None, None],
        fence: None,
    };
    let id = state.store.start_game(new_game).await?;
    Ok(Json(serde_json::json!({ "id": id, "token": token })))
}

/// The moves of a page's own game so far (all of them, each time; they must continue the stored
/// ones, so a takeback is stored first, with [`take_back`]), and a resignation.
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
    GameId(id): GameId,
    Body(update): Body<UpdateGame>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let owned = owned_game(&state, id, &update.token).await?;
    if update.moves.len() > MAX_STORED_MOVES || !update.moves.starts_with(&owned.moves) {
        return Err(ApiError::MovesDiverge(owned.moves.len()));
    }
    let resign = update.resign.as_deref();
    store_moves(&state, id, &owned, update.moves, resign).await
}

/// One more move of a page's own game, numbered: `ply` 1 is the first move, so a move sent
/// twice, or one that skips another, is refused instead of stored out of place.
#[derive(Deserialize)]
pub(super) struct AppendMove {
    token: String,
    ply: usize,
    #[serde(rename = "move")]
    text: String,
}

pub(super) async fn append_move(
    State(state): State<ApiState>,
    GameId(id): GameId,
    Body(append): Body<AppendMove>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let owned = owned_game(&state, id, &append.token).await?;
    let stored = owned.moves.len();
    if append.ply != stored + 1 || append.ply > MAX_STORED_MOVES {
        return Err(ApiError::NotNextPly {
            ply: append.ply,
            stored,
        });
    }
    let mut moves = owned.moves.clone();
    moves.push(append.text);
    store_moves(&state, id, &owned, moves, None).await
}

/// A takeback in a page's own game: the moves after ply `ply` are forgotten, so the game goes on
/// from the position after the first `ply` moves (0: the start).
#[derive(Deserialize)]
pub(super) struct Takeback {
    token: String,
    ply: usize,
}

/// `POST /api/games/{id}/takeback`: a takeback to ply `ply`, which must be one of the stored
/// ones (a takeback to the last stored ply changes nothing, so a retried one is harmless).
pub(super) async fn take_back(
    State(state): State<ApiState>,
    GameId(id): GameId,
    Body(takeback): Body<Takeback>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let owned = owned_game(&state, id, &takeback.token).await?;
    let stored = owned.moves.len();
    if takeback.ply > stored {
        return Err(ApiError::TakebackBeyond {
            ply: takeback.ply,
            stored,
        });
    }
    if takeback.ply < stored {
        state.store.truncate_moves(id, takeback.ply, None).await?;
    }
    Ok(Json(serde_json::json!({ "id": id, "plies": takeback.ply })))
}

/// Game `id`, when `token` owns it and it is not over.
async fn owned_game(state: &ApiState, id: i64, token: &str) -> Result<OwnedGame, ApiError> {
    let owned = state
        .store
        .owned_game(id)
        .await?
        .ok_or(ApiError::NoGame(id))?;
    if owned.owner.as_deref() != Some(token) {
        return Err(ApiError::NotOwner);
    }
    if owned.ended {
        return Err(ApiError::GameOver);
    }
    Ok(owned)
}

/// Checks `moves` (the stored ones, then more) by the rules and stores the new ones and the end.
async fn store_moves(
    state: &ApiState,
    id: i64,
    owned: &OwnedGame,
    moves: Vec<String>,
    resign: Option<&str>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let request = stored_request(&owned.settings, moves)?;
    let replay = state.engines.replayed;
    let replayed = blocking(move || Ok(replay(&request)?)).await?;
    let stored = owned.moves.len();
    let end = store_progress(state.store.as_ref(), id, stored, &replayed, resign).await?;
    Ok(Json(serde_json::json!({
        "id": id,
        "plies": replayed.moves.len(),
        "end_reason": end,
    })))
}

/// A request for the rules from a stored game's settings and a move list.
fn stored_request(settings: &str, moves: Vec<String>) -> Result<GameRequest, ApiError> {
    let corrupt = |why: &str| ApiError::Internal(format!("stored settings {settings}: {why}"));
    let value: serde_json::Value =
        serde_json::from_str(settings).map_err(|e| corrupt(&e.to_string()))?;
    let map = value.as_object().ok_or_else(|| corrupt("not an object"))?;
    let game = map
        .get("game")
        .and_then(|g| g.as_str())
        .ok_or_else(|| corrupt("no game"))?;
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
    store: &dyn GameStore,
    id: i64,
    stored: usize,
    replayed: &Replayed,
    resign: Option<&str>,
) -> Result<Option<&'static str>, StorageError> {
    for (i, (text, reason)) in replayed.moves.iter().enumerate().skip(stored) {
        let played = PlayedMove {
            game_id: id,
            ply: i + 1,
            text: text.clone(),
            reason: reason.name().to_string(),
            fence: None,
        };
        store.record_move(played).await?;
    }
    let end = match (&replayed.end, resign) {
        (Some(end), _) => Some((end.reason, Winner::of(end.winner))),
        (None, Some("first")) => Some((EndReason::Resign, Winner::Second)),
        (None, Some("second")) => Some((EndReason::Resign, Winner::First)),
        (None, _) => None,
    };
    if let Some((reason, winner)) = end {
        let texts: Vec<String> = replayed.moves.iter().map(|(t, _)| t.clone()).collect();
        let end = GameEnd {
            game_id: id,
            end_reason: reason.name().to_string(),
            winner,
            record: arbiter_core::outcome::record_with_end(&texts, reason),
            fence: None,
        };
        store.end_game(end).await?;
    }
    Ok(end.map(|(reason, _)| reason.name()))
}

/// One stored game with its moves.
pub(super) async fn game(
    State(state): State<ApiState>,
    GameId(id): GameId,
) -> Result<Json<StoredGame>, ApiError> {
    let game = state.store.game(id).await?.ok_or(ApiError::NoGame(id))?;
    Ok(Json(game))
}

/// `GET /api/games/{id}/record`: the game's record as a text file in the course's notation —
/// the moves separated by spaces, then the end mark (`… C#`) once the game is over; the text
/// the server's record files and `arbiter connect --record` hold, with no final newline.
pub(super) async fn record(
    State(state): State<ApiState>,
    GameId(id): GameId,
) -> Result<Response, ApiError> {
    let game = state.store.game(id).await?.ok_or(ApiError::NoGame(id))?;
    let text = game.record.unwrap_or_else(|| {
        let moves: Vec<&str> = game.moves.iter().map(|m| m.text.as_str()).collect();
        moves.join(" ")
    });
    let file = format!("attachment; filename=\"arbiter-{}-{id}.txt\"", game.game);
    let headers = [
        (
            header::CONTENT_TYPE,
            "text/plain; charset=utf-8".to_string(),
        ),
        (header::CONTENT_DISPOSITION, file),
    ];
    Ok((headers, text).into_response())
}

#[cfg(test)]
mod tests {
    use super::player_name;

    /// A name is stored as the player wrote it: the page shows the same name in a local game's
    /// record as in a room (issue 76).
    #[test]
    fn names_keep_what_players_see() {
        assert_eq!(player_name("a<b> (black)"), "a<b> (black)");
        assert_eq!(player_name("中文😀 & co"), "中文😀 & co");
        assert_eq!(player_name("eve\u{202E}lin\u{0007}"), "evelin");
        assert_eq!(player_name(" \u{200B} "), "anonymous");
    }
}
