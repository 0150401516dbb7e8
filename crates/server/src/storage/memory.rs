//! A store in memory, for unit tests of the layers above: the same interface and rules as SQLite,
//! a switch that makes every write fail, to test what a room does when storage fails, and room
//! leases set by hand ([`MemoryStore::set_lease`]) to test fencing.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use futures_util::future::BoxFuture;

use super::players::{claim_outcome, name_key, rate};
use super::sqlite::now_ms;
use super::{
    AnalysisRecord, Fence, GameEnd, GameQuery, GameStore, LiveGame, NameClaim, NewGame, OwnedGame,
    PlayedMove, PlayerRating, PlayerRecord, RatedGame, Rating, StorageError, StorageResult,
    StoredAnalysis, StoredGame, StoredMove, WriteCounts, WriteKey, WriteTally,
};

/// A game's owner secret and seat tokens.
type Secrets = (Option<String>, [Option<String>; 2]);

#[derive(Default)]
pub struct MemoryStore {
    games: Mutex<Vec<StoredGame>>,
    /// Each game's owner secret and seat tokens, by index.
    secrets: Mutex<Vec<Secrets>>,
    /// The epoch of each room's lease, as the `room_leases` table would hold it.
    leases: Mutex<HashMap<u32, u64>>,
    /// While set, every write fails.
    pub failing: AtomicBool,
    players: Mutex<Players>,
    /// Each game's analysis, by game.
    analyses: Mutex<HashMap<i64, StoredAnalysis>>,
    /// The writes the switch can fail (starts, moves, ends, takebacks, analyses), counted.
    counts: WriteCounts,
}

/// Names (by key: the name as chosen and its secret's hash), ratings (by key and class), and
/// the games counted.
#[derive(Default)]
struct Players {
    names: HashMap<String, (String, String)>,
    ratings: HashMap<(String, String), Rating>,
    rated: HashSet<i64>,
}

impl MemoryStore {
    fn write<T>(
        &self,
        fence: Option<Fence>,
        f: impl FnOnce(&mut Vec<StoredGame>) -> StorageResult<T>,
    ) -> StorageResult<T> {
        if self.failing.load(Ordering::Relaxed) {
            return Err(StorageError::Database("refused (test)".into()));
        }
        let leases = self.leases.lock().unwrap();
        if let Some(fence) = fence {
            match leases.get(&fence.room) {
                Some(&epoch) if epoch > fence.epoch => {
                    return Err(StorageError::Fenced {
                        room: fence.room,
                        epoch,
                    })
                }
                _ => {}
            }
        }
        f(&mut self.games.lock().unwrap())
    }

    /// Room `room`'s lease now has epoch `epoch` (a newer owner took it).
    pub fn set_lease(&self, room: u32, epoch: u64) {
        self.leases.lock().unwrap().insert(room, epoch);
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
        let key = WriteKey::start(&game);
        let id = self.write(game.fence, |games| {
            let id = games.len() as i64 + 1;
            games.push(StoredGame {
                id,
                room: game.room,
                game: game.game,
                settings: serde_json::from_str(&game.settings).unwrap_or_default(),
                first: game.players[0].clone(),
                second: game.players[1].clone(),
                started_at: now_ms(),
                ended_at: None,
                end_reason: None,
                winner: None,
                record: None,
                moves: Vec::new(),
            });
            let secrets = (game.owner, game.seat_tokens);
            self.secrets.lock().unwrap().push(secrets);
            Ok(id)
        });
        Box::pin(self.counts.counted(key, async move { id }))
    }

    fn record_move(&self, m: PlayedMove) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::of_move(&m);
        let done = self.write(m.fence, |games| {
            let (id, ply) = (m.game_id, m.ply);
            let game = at(games, id).ok_or(StorageError::NoGame(id))?;
            if let Some(stored) = game.moves.iter().find(|s| s.ply == ply) {
                return if stored.text == m.text && stored.reason == m.reason {
                    Ok(())
                } else {
                    Err(StorageError::PlyTaken { game: id, ply })
                };
            }
            if ply == 0 || (ply > 1 && !game.moves.iter().any(|s| s.ply == ply - 1)) {
                return Err(StorageError::PlySkipped { game: id, ply });
            }
            game.moves.push(StoredMove {
                ply,
                text: m.text,
                reason: m.reason,
                at: now_ms(),
            });
            game.moves.sort_by_key(|s| s.ply);
            Ok(())
        });
        Box::pin(self.counts.counted(key, async move { done }))
    }

    fn end_game(&self, end: GameEnd) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::end(&end);
        let done = self.write(end.fence, |games| {
            if let Some(game) = at(games, end.game_id) {
                game.ended_at = Some(now_ms());
                game.end_reason = Some(end.end_reason);
                game.winner = Some(end.winner);
                game.record = Some(end.record);
            }
            Ok(())
        });
        Box::pin(self.counts.counted(key, async move { done }))
    }

    fn truncate_moves(
        &self,
        game_id: i64,
        keep: usize,
        fence: Option<Fence>,
    ) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::Truncate {
            game: game_id,
            keep,
        };
        let done = self.write(fence, |games| {
            if let Some(game) = at(games, game_id) {
                game.moves.retain(|m| m.ply <= keep);
            }
            Ok(())
        });
        Box::pin(self.counts.counted(key, async move { done }))
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
        let owner = self.secrets_of(id).map(|(owner, _)| owner);
        let game = self.games().into_iter().find(|g| g.id == id);
        let owned = game.zip(owner).map(|(g, owner)| OwnedGame {
            owner,
            settings: g.settings.to_string(),
            ended: g.ended_at.is_some(),
            moves: g.moves.into_iter().map(|m| m.text).collect(),
        });
        Box::pin(async move { Ok(owned) })
    }

    fn live_game(&self, room: u32) -> BoxFuture<'_, StorageResult<Option<LiveGame>>> {
        let games = self.games();
        let live = games.into_iter().rev().find_map(|g| {
            let (owner, seat_tokens) = self.secrets_of(g.id)?;
            let live = g.room == room && g.ended_at.is_none() && owner.is_none();
            live.then(|| LiveGame {
                id: g.id,
                room,
                game: g.game,
                settings: g.settings.to_string(),
                players: [g.first, g.second],
                seat_tokens,
                started_at: g.started_at,
                moves: g.moves,
            })
        });
        Box::pin(async move { Ok(live) })
    }

    fn live_rooms(&self) -> BoxFuture<'_, StorageResult<Vec<u32>>> {
        let mut rooms: Vec<u32> = self
            .games()
            .into_iter()
            .filter(|g| g.ended_at.is_none())
            .filter(|g| {
                self.secrets_of(g.id)
                    .is_some_and(|(owner, _)| owner.is_none())
            })
            .map(|g| g.room)
            .collect();
        rooms.sort_unstable();
        rooms.dedup();
        Box::pin(async move { Ok(rooms) })
    }

    fn check_name(
        &self,
        name: String,
        secret_hash: Option<String>,
    ) -> BoxFuture<'_, StorageResult<NameClaim>> {
        let mut players = self.players.lock().unwrap();
        let key = name_key(&name);
        let stored = players.names.get(&key).map(|(_, hash)| hash.as_str());
        let claim = claim_outcome(stored, secret_hash.as_deref());
        if let (NameClaim::Claimed, Some(hash)) = (claim, secret_hash) {
            players.names.insert(key, (name, hash));
        }
        Box::pin(async move { Ok(claim) })
    }

    fn rate_game(&self, rated: RatedGame) -> BoxFuture<'_, StorageResult<[Rating; 2]>> {
        let mut players = self.players.lock().unwrap();
        let keys = rated
            .players
            .clone()
            .map(|n| (name_key(&n), rated.class.clone()));
        let before = keys
            .clone()
            .map(|k| players.ratings.get(&k).copied().unwrap_or_default());
        let after = if players.rated.insert(rated.game_id) {
            rate(before, rated.winner)
        } else {
            before
        };
        for (key, rating) in keys.into_iter().zip(after) {
            players.ratings.insert(key, rating);
        }
        Box::pin(async move { Ok(after) })
    }

    fn leaderboard(
        &self,
        class: String,
        limit: u32,
    ) -> BoxFuture<'_, StorageResult<Vec<PlayerRating>>> {
        let players = self.players.lock().unwrap();
        let mut board: Vec<PlayerRating> = players
            .ratings
            .iter()
            .filter(|((_, c), _)| *c == class)
            .filter_map(|((key, c), r)| {
                // As the databases' join does: ratings of a name nobody holds are not listed.
                let (name, _) = players.names.get(key)?;
                Some(PlayerRating {
                    name: name.clone(),
                    class: c.clone(),
                    rating: *r,
                })
            })
            .collect();
        board.sort_by(|a, b| b.rating.rating.total_cmp(&a.rating.rating));
        board.truncate(limit as usize);
        Box::pin(async move { Ok(board) })
    }

    fn player(&self, name: String) -> BoxFuture<'_, StorageResult<Option<PlayerRecord>>> {
        let players = self.players.lock().unwrap();
        let key = name_key(&name);
        let record = players.names.get(&key).map(|(name, _)| {
            let mut ratings: Vec<PlayerRating> = players
                .ratings
                .iter()
                .filter(|((k, _), _)| *k == key)
                .map(|((_, class), r)| PlayerRating {
                    name: name.clone(),
                    class: class.clone(),
                    rating: *r,
                })
                .collect();
            ratings.sort_by(|a, b| a.class.cmp(&b.class));
            PlayerRecord {
                name: name.clone(),
                ratings,
            }
        });
        Box::pin(async move { Ok(record) })
    }

    fn save_analysis(&self, analysis: AnalysisRecord) -> BoxFuture<'_, StorageResult<()>> {
        let key = WriteKey::Analysis(analysis.game_id);
        let done = self.write(None, |games| {
            let id = analysis.game_id;
            at(games, id).ok_or(StorageError::NoGame(id))?;
            let stored = StoredAnalysis {
                record: analysis,
                created_at: now_ms(),
            };
            self.analyses.lock().unwrap().insert(id, stored);
            Ok(())
        });
        Box::pin(self.counts.counted(key, async move { done }))
    }

    fn analysis(&self, game_id: i64) -> BoxFuture<'_, StorageResult<Option<StoredAnalysis>>> {
        let found = self.analyses.lock().unwrap().get(&game_id).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn write_tally(&self) -> WriteTally {
        self.counts.tally()
    }
}

impl MemoryStore {
    fn secrets_of(&self, id: i64) -> Option<Secrets> {
        let index = usize::try_from(id - 1).ok()?;
        self.secrets.lock().unwrap().get(index).cloned()
    }
}
