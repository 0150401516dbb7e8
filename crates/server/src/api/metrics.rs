//! `GET /api/metrics`: what the server counts of itself, for operators and `arbiter loadtest`:
//! the store's writes, the ones the database refused and the ones given again after a refusal
//! (counts since the server started; they never go down).

use axum::extract::State;
use axum::Json;

use super::ApiState;

pub(super) async fn metrics(State(state): State<ApiState>) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "store": state.store.write_tally() }))
}
