//! Names and ratings in PostgreSQL. Rated games are counted one at a time (a transaction-level
//! advisory lock), so two games that end together never lose one's update.

use tokio_postgres::Row;

use super::{db_error, PgStore};
use crate::storage::players::{claim_outcome, name_key, rate, sql};
use crate::storage::{NameClaim, PlayerRating, PlayerRecord, RatedGame, Rating, StorageResult};

/// The advisory lock rated games are counted under.
const RATING_LOCK: i64 = 0x5241_5445; // "RATE"

impl PgStore {
    pub(super) async fn claim_name(
        &self,
        name: String,
        hash: Option<String>,
    ) -> StorageResult<NameClaim> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let key = name_key(&name);
        let stored = tx
            .query_opt(sql::SECRET_OF, &[&key])
            .await
            .map_err(db_error)?;
        let stored: Option<String> = stored.map(|r| r.get(0));
        let claim = claim_outcome(stored.as_deref(), hash.as_deref());
        if let (NameClaim::Claimed, Some(hash)) = (claim, hash) {
            tx.execute(
                "INSERT INTO players (name_key, name, secret_hash) VALUES ($1, $2, $3)",
                &[&key, &name, &hash],
            )
            .await
            .map_err(db_error)?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok(claim)
    }

    pub(super) async fn count_rated(&self, rated: RatedGame) -> StorageResult<[Rating; 2]> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&RATING_LOCK])
            .await
            .map_err(db_error)?;
        let keys = rated.players.each_ref().map(|n| name_key(n));
        let mut before = [Rating::default(); 2];
        for (key, slot) in keys.iter().zip(before.iter_mut()) {
            let row = tx
                .query_opt(sql::RATING_OF, &[key, &rated.class])
                .await
                .map_err(db_error)?;
            if let Some(r) = row {
                *slot = rating_at(&r, 0);
            }
        }
        let counted = tx
            .query_opt(sql::COUNTED, &[&rated.game_id])
            .await
            .map_err(db_error)?;
        if counted.is_some() {
            return Ok(before);
        }
        let after = rate(before, rated.winner);
        for (key, r) in keys.iter().zip(after) {
            let games = r.games as i32;
            let values: [&(dyn tokio_postgres::types::ToSql + Sync); 6] = [
                key,
                &rated.class,
                &r.rating,
                &r.deviation,
                &r.volatility,
                &games,
            ];
            tx.execute(sql::SET_RATING, &values)
                .await
                .map_err(db_error)?;
        }
        let change = |i: usize| after[i].rating - before[i].rating;
        let (first, second) = (change(0), change(1));
        tx.execute(
            sql::COUNT_GAME,
            &[
                &rated.game_id,
                &rated.class,
                &after[0].rating,
                &first,
                &after[1].rating,
                &second,
            ],
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)?;
        Ok(after)
    }

    pub(super) async fn leaderboard(
        &self,
        class: String,
        limit: u32,
    ) -> StorageResult<Vec<PlayerRating>> {
        let client = self.client().await?;
        let rows = client
            .query(&sql::leaderboard(), &[&class, &i64::from(limit)])
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(player_rating).collect())
    }

    pub(super) async fn player(&self, name: String) -> StorageResult<Option<PlayerRecord>> {
        let client = self.client().await?;
        let key = name_key(&name);
        let found = client
            .query_opt(sql::NAME_OF, &[&key])
            .await
            .map_err(db_error)?;
        let Some(found) = found else { return Ok(None) };
        let rows = client
            .query(&sql::ratings_of(), &[&key])
            .await
            .map_err(db_error)?;
        Ok(Some(PlayerRecord {
            name: found.get(0),
            ratings: rows.iter().map(player_rating).collect(),
        }))
    }
}

/// A rating from four columns starting at `at`: rating, deviation, volatility, games.
fn rating_at(r: &Row, at: usize) -> Rating {
    Rating {
        rating: r.get(at),
        deviation: r.get(at + 1),
        volatility: r.get(at + 2),
        games: r.get::<_, i32>(at + 3) as u32,
    }
}

fn player_rating(r: &Row) -> PlayerRating {
    PlayerRating {
        name: r.get(0),
        class: r.get(1),
        rating: rating_at(r, 2),
    }
}
