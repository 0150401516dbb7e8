//! Finished analyses kept in the store, so reopening a replay — on this node or any other —
//! answers at once instead of searching every position again. What is kept is what the judged
//! moves are made from (the moves and each position's evaluation, with whose move it was); the
//! judgements are made again from it, as for a job just run. A stored analysis is used only
//! while it is fresh: searched by this engine, at least as deep and as long a position as this
//! server would, and of the game's very moves. Anything else is searched again when asked.

use serde::{Deserialize, Serialize};

use super::super::views::{Eval, EvalLimits, PositionEval};
use super::super::{ApiError, ApiState};
use crate::storage::{AnalysisRecord, StoredAnalysis};

/// The engine that searches; an analysis another one stored is searched again.
pub const ENGINE: &str = concat!("arbiter ", env!("CARGO_PKG_VERSION"));

/// The analysis as the store keeps it (the `result` JSON).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Saved {
    moves: Vec<String>,
    positions: Vec<SavedPosition>,
}

/// A position's evaluation with whose move it was, which the page's JSON leaves out.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct SavedPosition {
    first_to_move: bool,
    depth: u32,
    cp: Option<i32>,
    mate: Option<i32>,
    win: f64,
    best: Option<String>,
    pv: Vec<String>,
}

impl From<&PositionEval> for SavedPosition {
    fn from(p: &PositionEval) -> SavedPosition {
        SavedPosition {
            first_to_move: p.first_to_move,
            depth: p.depth,
            cp: p.eval.cp,
            mate: p.eval.mate,
            win: p.eval.win,
            best: p.best.clone(),
            pv: p.pv.clone(),
        }
    }
}

impl From<SavedPosition> for PositionEval {
    fn from(p: SavedPosition) -> PositionEval {
        PositionEval {
            first_to_move: p.first_to_move,
            depth: p.depth,
            eval: Eval {
                cp: p.cp,
                mate: p.mate,
                win: p.win,
            },
            best: p.best,
            pv: p.pv,
        }
    }
}

/// Stores game `id`'s finished analysis, searched within `limits`. A write that fails is only
/// logged: the job's result is still served from this node's memory.
pub(super) async fn save(state: &ApiState, id: i64, limits: EvalLimits) {
    let Some((moves, positions)) = state.analyses.result(id) else {
        return;
    };
    let saved = Saved {
        moves,
        positions: positions.iter().map(SavedPosition::from).collect(),
    };
    let record = serde_json::to_string(&saved).map(|result| record(id, limits, result));
    let stored = match record {
        Ok(record) => state
            .store
            .save_analysis(record)
            .await
            .map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = stored {
        tracing::warn!("the analysis of game {id} is not stored (kept in memory only): {e}");
    }
}

fn record(game_id: i64, limits: EvalLimits, result: String) -> AnalysisRecord {
    AnalysisRecord {
        game_id,
        engine: ENGINE.to_string(),
        max_depth: limits.depth,
        per_position_ms: limits.time.as_millis() as u64,
        result,
    }
}

/// Puts game `id`'s stored analysis into the jobs table as done when it is fresh for `moves`
/// searched within `limits`; whether it did.
pub(super) async fn restore(
    state: &ApiState,
    id: i64,
    moves: &[String],
    limits: EvalLimits,
) -> Result<bool, ApiError> {
    let Some(stored) = state.store.analysis(id).await? else {
        return Ok(false);
    };
    let Some(positions) = fresh(&stored, moves, limits) else {
        return Ok(false);
    };
    state.analyses.restore(id, moves.to_vec(), positions);
    Ok(true)
}

/// The positions of `stored` when it is fresh for `moves` searched within `limits`.
fn fresh(
    stored: &StoredAnalysis,
    moves: &[String],
    limits: EvalLimits,
) -> Option<Vec<PositionEval>> {
    let r = &stored.record;
    let searched_alike = r.engine == ENGINE
        && r.max_depth >= limits.depth
        && u128::from(r.per_position_ms) >= limits.time.as_millis();
    if !searched_alike {
        return None;
    }
    let saved: Saved = serde_json::from_str(&r.result)
        .inspect_err(|e| tracing::warn!("game {}'s stored analysis is unreadable: {e}", r.game_id))
        .ok()?;
    let whole = saved.moves == moves && saved.positions.len() == moves.len() + 1;
    whole.then(|| {
        saved
            .positions
            .into_iter()
            .map(PositionEval::from)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const LIMITS: EvalLimits = EvalLimits {
        depth: 12,
        time: Duration::from_millis(200),
    };

    fn position(first_to_move: bool, cp: i32, win: f64) -> PositionEval {
        PositionEval {
            first_to_move,
            depth: 7,
            eval: Eval {
                cp: Some(cp),
                mate: None,
                win,
            },
            best: Some("A2-A3".into()),
            pv: vec!["A2-A3".into(), "F5-E4".into()],
        }
    }

    fn stored(limits: EvalLimits, moves: &[String], positions: &[PositionEval]) -> StoredAnalysis {
        let saved = Saved {
            moves: moves.to_vec(),
            positions: positions.iter().map(SavedPosition::from).collect(),
        };
        let result = serde_json::to_string(&saved).unwrap();
        StoredAnalysis {
            record: record(9, limits, result),
            created_at: 0,
        }
    }

    /// The evaluations come back to the last bit, with whose move each position was. (The
    /// chance to win at +600, 0.9010769157808419, is one that serde_json's default parser reads
    /// one bit off, as it does about one in five of them.)
    #[test]
    fn a_stored_analysis_gives_back_the_very_evaluations() {
        let moves = vec!["A2-A3".to_string()];
        let positions = [
            position(true, 600, 0.901_076_915_780_841_9),
            position(false, -251, 1.0 / 3.0),
        ];
        let back = fresh(&stored(LIMITS, &moves, &positions), &moves, LIMITS);
        assert_eq!(back.as_deref(), Some(&positions[..]));
    }

    /// Another engine's, a shallower or shorter search's, or another game's moves' analysis is
    /// stale; a longer search's is not.
    #[test]
    fn a_stale_analysis_is_not_used() {
        let moves = vec!["A2-A3".to_string()];
        let positions = [position(true, 0, 0.5), position(false, 0, 0.5)];
        let mut other_engine = stored(LIMITS, &moves, &positions);
        other_engine.record.engine = "arbiter 0.0.1".into();
        let shorter = EvalLimits {
            time: Duration::from_millis(100),
            ..LIMITS
        };
        let longer = EvalLimits {
            time: Duration::from_millis(400),
            ..LIMITS
        };
        let shallower = EvalLimits { depth: 8, ..LIMITS };
        assert!(fresh(&other_engine, &moves, LIMITS).is_none());
        assert!(fresh(&stored(shorter, &moves, &positions), &moves, LIMITS).is_none());
        assert!(fresh(&stored(shallower, &moves, &positions), &moves, LIMITS).is_none());
        assert!(fresh(&stored(longer, &moves, &positions), &moves, LIMITS).is_some());
        let other_moves = vec!["B2-B3".to_string()];
        assert!(fresh(&stored(LIMITS, &moves, &positions), &other_moves, LIMITS).is_none());
        let part = stored(LIMITS, &moves, &positions[..1]);
        assert!(fresh(&part, &moves, LIMITS).is_none());
        let mut garbled = stored(LIMITS, &moves, &positions);
        garbled.record.result = "{".into();
        assert!(fresh(&garbled, &moves, LIMITS).is_none());
    }
}
