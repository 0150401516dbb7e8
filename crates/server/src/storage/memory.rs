//! A store in memory, for unit tests of the layers above: the same interface as SQLite, and a
//! switch that makes every write fail, to test what a room does when storage fails.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use futures_util::future::BoxFuture;

use super::{
    GameEnd, GameQuery, GameStore, NewGame, OwnedGame, PlayedMove, StorageError, StorageResult,
    StoredGame, StoredMove,
};

#[derive(Default)]
pub struct MemoryStore {
    games: Mutex<Vec<StoredGame>>,
    owners: Mutex<Vec<Option<String>>>,
    /// While set, every write fails.
    pub failing: AtomicBool,
}

impl MemoryStore {
    fn write<T>(&self, f: impl FnOnce(&mut Vec<StoredGame>) -> T) -> StorageResult<T> {
        if self.failing.load(Ordering::Relaxed) {
            return Err(StorageError::Database("refused (test)".into()));
        }
        Ok(f(&mut self.games.lock().unwrap()))
    }

    /// Every game, oldest first.
    pub fn games(&self) -> Vec<StoredGame> {
        self.games.lock().unwrap().clone()
    }
}

fn at(games: &mut [StoredGame], id: i64) -> Option<&mut StoredGame> {
    games.iter_mut().find(|g| g.id == id)
}

impl GameStore for MemoryStore {
    fn start_game(&self, game: NewGame) -> BoxFuture<'_, StorageResult<i64>> {
        let id = self.write(|games| {
            let id = games.len() as i64 + 1;
            games.push(StoredGame {
                id,
                room: game.room,
                game: game.game,
                settings: serde_json::from_str(&game.settings).unwrap_or_default(),
                first: game.players[0].clone(),
                second: game.players[1].clone(),
                started_at: 0,
                ended_at: None,
                end_reason: None,
                winner: None,
                record: None,
                moves: Vec::new(),
            });
            id
        });
        self.owners.lock().unwrap().push(game.owner);
        Box::pin(async move { id })
    }

    fn record_move(&self, m: PlayedMove) -> BoxFuture<'_, StorageResult<()>> {
        let done = self.write(|games| {
            if let Some(game) = at(games, m.game_id) {
                game.moves.retain(|s| s.ply != m.ply);
                game.moves.push(StoredMove {
                    ply: m.ply,
                    text: m.text,
                    reason: m.reason,
                    at: 0,
                });
                game.moves.sort_by_key(|s| s.ply);
            }
        });
        Box::pin(async move { done })
    }

    fn end_game(&self, end: GameEnd) -> BoxFuture<'_, StorageResult<()>> {
        let done = self.write(|games| {
            if let Some(game) = at(games, end.game_id) {
                game.ended_at = Some(0);
                game.end_reason = Some(end.end_reason);
                game.winner = Some(end.winner);
                game.record = Some(end.record);
            }
        });
        Box::pin(async move { done })
    }

    fn truncate_moves(&self, game_id: i64, keep: usize) -> BoxFuture<'_, StorageResult<()>> {
        let done = self.write(|games| {
            if let Some(game) = at(games, game_id) {
                game.moves.retain(|m| m.ply <= keep);
            }
        });
        Box::pin(async move { done })
    }

    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn list_games(&self, query: GameQuery) -> BoxFuture<'_, StorageResult<Vec<StoredGame>>> {
        let games = self.games();
        let played = |g: &StoredGame| {
            query
                .player
                .as_ref()
                .is_none_or(|p| g.first == *p || g.second == *p)
        };
        let list = games
            .into_iter()
            .rev()
            .filter(played)
            .skip(query.offset as usize)
            .take(query.limit as usize)
            .collect();
        Box::pin(async move { Ok(list) })
    }

    fn game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<StoredGame>>> {
        let game = self.games().into_iter().find(|g| g.id == id);
        Box::pin(async move { Ok(game) })
    }

    fn owned_game(&self, id: i64) -> BoxFuture<'_, StorageResult<Option<OwnedGame>>> {
        let index = usize::try_from(id - 1).ok();
        let owner = index.and_then(|i| self.owners.lock().unwrap().get(i).cloned());
        let game = self.games().into_iter().find(|g| g.id == id);
        let owned = game.zip(owner).map(|(g, owner)| OwnedGame {
            owner,
            settings: g.settings.to_string(),
            ended: g.ended_at.is_some(),
            moves: g.moves.into_iter().map(|m| m.text).collect(),
        });
        Box::pin(async move { Ok(owned) })
    }
}
