//! Extractors whose rejections are [`ApiError`]s, so a handler never matches on axum's
//! rejections itself and every malformed request gets the same JSON answer.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::ApiError;

/// A JSON request body.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let axum::Json(value) = axum::Json::<T>::from_request(request, state).await?;
        Ok(Body(value))
    }
}

/// A query string.
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Query(value) =
            axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(Params(value))
    }
}

/// A game's number in the path (`/api/games/{id}`).
pub struct GameId(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for GameId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Path(text) =
            axum::extract::Path::<String>::from_request_parts(parts, state).await?;
        text.parse()
            .map(GameId)
            .map_err(|_| ApiError::GameNumber(arbiter_core::text::shorten(&text).to_string()))
    }
}
