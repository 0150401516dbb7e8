//! The contract for whole-game analyses, run on every store by `keeps_the_contract`.

use super::*;

fn analysis(game_id: i64, per_position_ms: u64, result: &str) -> AnalysisRecord {
    AnalysisRecord {
        game_id,
        engine: "arbiter 0.1.0".into(),
        max_depth: 12,
        per_position_ms,
        result: result.into(),
    }
}

/// A game's analysis comes back as it was stored, with its time; storing another replaces it;
/// a game with none has none, and a game the store lacks is refused.
pub(super) async fn keeps_analyses(store: &dyn GameStore) {
    let id = store.start_game(new_game(["a", "b"], None)).await.unwrap();
    store.end_game(ended(id, "R#")).await.unwrap();
    assert_eq!(store.analysis(id).await.unwrap(), None);
    let before = crate::storage::sqlite::now_ms();
    let first = analysis(id, 250, r#"{"positions":[{"win":0.5}]}"#);
    store.save_analysis(first.clone()).await.unwrap();
    let stored = store.analysis(id).await.unwrap().expect("stored");
    assert_eq!(stored.record, first);
    // Another machine's clock (PostgreSQL's) may be a little behind ours.
    assert!(stored.created_at > before - 60_000, "{stored:?}");
    let again = analysis(id, 1000, r#"{"positions":[]}"#);
    store.save_analysis(again.clone()).await.unwrap();
    assert_eq!(store.analysis(id).await.unwrap().unwrap().record, again);
    let missing = id + 1000;
    let refused = store.save_analysis(analysis(missing, 250, "{}")).await;
    assert!(
        matches!(refused, Err(StorageError::NoGame(g)) if g == missing),
        "{refused:?}"
    );
    assert_eq!(store.analysis(missing).await.unwrap(), None);
}
