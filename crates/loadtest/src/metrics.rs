//! The server's own counts of its store's writes (`GET /api/metrics`), read before and after the
//! games: any write the store refused or was given again in between fails the run.

use std::net::SocketAddr;

use arbiter_server::client::http_get;
use arbiter_server::storage::WriteTally;

/// The store's counts as the server at `http` tells them now.
pub(crate) async fn store_tally(http: SocketAddr) -> Result<WriteTally, String> {
    let body = http_get(http, "/api/metrics")
        .await
        .map_err(|e| format!("GET /api/metrics: {e}"))?;
    let metrics: serde_json::Value =
        serde_json::from_str(&body).map_err(|e| format!("GET /api/metrics: {e}"))?;
    serde_json::from_value(metrics["store"].clone())
        .map_err(|e| format!("GET /api/metrics: `store`: {e}"))
}
