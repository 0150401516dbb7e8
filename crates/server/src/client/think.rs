//! Where a client's player thinks: off the async threads, and through the server's CPU gate
//! when the server itself plays.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use arbiter_ai::registry::FullGame;
use arbiter_ai::{Limits, Player};

use super::ClientError;
use crate::api::gate::{gated, CpuGate};

/// A player shared with the search that runs for it off the async threads.
pub(super) type Shared<G> = Arc<std::sync::Mutex<Box<dyn Player<G>>>>;

/// How long the server's AI thinks when the CPU gate has no room for it: a move at once beats a
/// loss on time.
const QUICK_MOVE: Duration = Duration::from_millis(20);

/// `player`'s move in `pos`, formatted, chosen off the async threads: through `gate` when the
/// server itself plays, with the quickest search there is when the gate is full.
pub(super) async fn think<G: FullGame>(
    pos: G,
    player: &Shared<G>,
    limits: Limits,
    gate: Option<&Arc<CpuGate>>,
) -> Result<Option<String>, ClientError> {
    let chooser = |limits: Limits| {
        let (pos, player) = (pos.clone(), player.clone());
        move |stop: &AtomicBool| {
            let mut player = player.lock().unwrap_or_else(|e| e.into_inner());
            let mv = player.choose(&pos, &limits, stop, &mut |_| {});
            Ok::<_, crate::api::ApiError>(mv.map(|m| pos.format_move(m)))
        }
    };
    let quick = Limits::time(QUICK_MOVE.as_millis() as u64);
    let limits = match gate {
        None => limits,
        Some(gate) => match gated(gate, chooser(limits)).await {
            Ok(chosen) => return Ok(chosen),
            Err(why) => {
                tracing::warn!("the server's AI plays a quick move: {why}");
                quick
            }
        },
    };
    let choose = chooser(limits);
    tokio::task::spawn_blocking(move || choose(&AtomicBool::new(false)))
        .await
        .map_err(ClientError::Player)?
        .map_err(|e| ClientError::Connection(e.to_string()))
}
