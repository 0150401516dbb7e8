//! Names and ratings in SQLite: claims and rated games as jobs of the writer thread (each in its
//! own transaction), the leaderboard and a player's ratings from the reader pool.

use futures_util::future::BoxFuture;
use rusqlite::{params, OptionalExtension, Row};

use super::writer::now_ms;
use super::Store;
use crate::storage::players::{claim_outcome, name_key, rate, sql};
use crate::storage::{
    NameClaim, PlayerRating, PlayerRecord, RatedGame, Rating, StorageResult, WriteKey,
};

impl Store {
    pub(super) fn claim_name(
        &self,
        name: String,
        hash: Option<String>,
    ) -> BoxFuture<'static, StorageResult<NameClaim>> {
        self.job(WriteKey::Claim(name.clone()), move |tx| {
            let key = name_key(&name);
            let stored: Option<String> = tx
                .query_row(sql::SECRET_OF, [&key], |r| r.get(0))
                .optional()?;
            let claim = claim_outcome(stored.as_deref(), hash.as_deref());
            if let (NameClaim::Claimed, Some(hash)) = (claim, hash) {
                tx.execute(
                    "INSERT INTO players (name_key, name, secret_hash, created_at) VALUES (?1, ?2, ?3, ?4)",
                    params![key, name, hash, now_ms()],
                )?;
            }
            Ok(claim)
        })
    }

    pub(super) fn count_rated(
        &self,
        rated: RatedGame,
    ) -> BoxFuture<'static, StorageResult<[Rating; 2]>> {
        self.job(WriteKey::Rate(rated.game_id), move |tx| {
            let keys = rated.players.each_ref().map(|n| name_key(n));
            let read = |key: &String| {
                tx.query_row(sql::RATING_OF, params![key, rated.class], |r| {
                    Ok(Rating {
                        rating: r.get(0)?,
                        deviation: r.get(1)?,
                        volatility: r.get(2)?,
                        games: r.get(3)?,
                    })
                })
                .optional()
                .map(Option::unwrap_or_default)
            };
            let before = [read(&keys[0])?, read(&keys[1])?];
            let counted = tx
                .query_row(sql::COUNTED, [rated.game_id], |_| Ok(()))
                .optional()?;
            if counted.is_some() {
                return Ok(before);
            }
            let after = rate(before, rated.winner);
            for (key, r) in keys.iter().zip(after) {
                let values = params![
                    key,
                    rated.class,
                    r.rating,
                    r.deviation,
                    r.volatility,
                    r.games
                ];
                tx.execute(sql::SET_RATING, values)?;
            }
            let change = |i: usize| after[i].rating - before[i].rating;
            tx.execute(
                sql::COUNT_GAME,
                params![
                    rated.game_id,
                    rated.class,
                    after[0].rating,
                    change(0),
                    after[1].rating,
                    change(1)
                ],
            )?;
            Ok(after)
        })
    }

    pub(super) fn leaderboard(&self, class: &str, limit: u32) -> StorageResult<Vec<PlayerRating>> {
        self.readers.read(|conn| {
            let mut stmt = conn.prepare_cached(&sql::leaderboard())?;
            let rows = stmt.query_map(params![class, limit], player_rating)?;
            rows.collect()
        })
    }

    pub(super) fn player(&self, name: &str) -> StorageResult<Option<PlayerRecord>> {
        let key = name_key(name);
        self.readers.read(|conn| {
            let Some(name) = conn
                .query_row(sql::NAME_OF, [&key], |r| r.get::<_, String>(0))
                .optional()?
            else {
                return Ok(None);
            };
            let mut stmt = conn.prepare_cached(&sql::ratings_of())?;
            let ratings = stmt
                .query_map([&key], player_rating)?
                .collect::<Result<_, _>>()?;
            Ok(Some(PlayerRecord { name, ratings }))
        })
    }
}

fn player_rating(r: &Row<'_>) -> rusqlite::Result<PlayerRating> {
    Ok(PlayerRating {
        name: r.get(0)?,
        class: r.get(1)?,
        rating: Rating {
            rating: r.get(2)?,
            deviation: r.get(3)?,
            volatility: r.get(4)?,
            games: r.get(5)?,
        },
    })
}
