//! Finished whole-game analyses, as every store keeps them: one a game, written again when a
//! game is analysed again. The store knows nothing of what is inside `result` (the API's JSON);
//! it keeps how the analysis was searched beside it, so the API can tell a stale one.

/// A game's finished analysis, to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisRecord {
    pub game_id: i64,
    /// The engine that searched it (its name and version).
    pub engine: String,
    /// The deepest iteration a position was allowed.
    pub max_depth: u32,
    /// The time each position was allowed, in milliseconds.
    pub per_position_ms: u64,
    /// The analysis as JSON.
    pub result: String,
}

/// A stored analysis and when it was stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAnalysis {
    pub record: AnalysisRecord,
    /// Milliseconds since the Unix epoch (PostgreSQL: the database's clock).
    pub created_at: i64,
}

/// The statements both databases share (`$N` is a positional parameter in SQLite too).
pub(super) mod sql {
    pub const GAME_EXISTS: &str = "SELECT 1 FROM games WHERE id = $1";
    /// Stores a game's analysis, replacing the one it had; `created_at` is the caller's.
    pub fn save(created_at: &str) -> String {
        format!(
            "INSERT INTO game_analyses \
             (game_id, engine, max_depth, per_position_ms, result, created_at) \
             VALUES ($1, $2, $3, $4, $5, {created_at}) ON CONFLICT (game_id) DO UPDATE SET \
             engine = excluded.engine, max_depth = excluded.max_depth, \
             per_position_ms = excluded.per_position_ms, result = excluded.result, \
             created_at = excluded.created_at"
        )
    }
    /// A game's analysis; `created_at` is how the database gives its time in milliseconds.
    pub fn load(created_at: &str) -> String {
        format!(
            "SELECT engine, max_depth, per_position_ms, result, {created_at} \
             FROM game_analyses WHERE game_id = $1"
        )
    }
}
