//! The queue's statements: submitting a test, claiming and holding a batch, and reporting a
//! pair, where the test's decision is taken.

use std::time::Duration;

use arbiter_arena::{GameOutcome, Pentanomial, Sprt, SprtVerdict};
use serde_json::json;
use tokio_postgres::GenericClient;

use crate::{Queue, QueueError, QueueResult, TestSpec};

/// A batch handed to a worker.
#[derive(Clone, Debug)]
pub struct Claim {
    pub batch: i64,
    pub test: i64,
    /// The claim's number for this batch (1 for the first worker to take it); results carry it.
    pub attempt: i32,
    pub first_pair: u32,
    pub pairs: u32,
    pub spec: TestSpec,
    /// Pairs of the batch already counted (reported under an earlier attempt).
    pub done: Vec<u32>,
}

/// What became of a reported pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reported {
    /// Counted; the test's state after it (`running`, `finished`, `H1 accepted`, …).
    Counted { state: String },
    /// Not counted: the pair was counted already, from an earlier attempt.
    AlreadyCounted { state: String },
    /// Refused: the batch is no longer this worker's (handed out again, or the test ended).
    Refused { why: String },
}

impl Reported {
    /// Whether the worker should play on in this batch.
    pub fn play_on(&self) -> bool {
        match self {
            Reported::Counted { state } | Reported::AlreadyCounted { state } => state == "running",
            Reported::Refused { .. } => false,
        }
    }
}

impl Queue {
    /// Stores a test and its batches (`batch_pairs` pairs each); its id.
    pub async fn submit(&mut self, spec: &TestSpec) -> QueueResult<i64> {
        let pairs = spec.pairs() as i32;
        let batch = spec.batch_pairs.max(1) as i32;
        let text = serde_json::to_string(spec).expect("a test spec serialises");
        let tx = self.client.transaction().await?;
        let id: i64 = tx
            .query_one(
                "INSERT INTO arena_tests (spec, pairs) VALUES ($1, $2) RETURNING id",
                &[&text, &pairs],
            )
            .await?
            .get(0);
        tx.execute(
            "INSERT INTO arena_batches (test_id, first_pair, pairs)
             SELECT $1, g, least($2, $3 - g) FROM generate_series(0, $3 - 1, $2) AS g",
            &[&id, &batch, &pairs],
        )
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Registers a worker; its id.
    pub async fn register_worker(&self, name: &str, concurrency: usize) -> QueueResult<i64> {
        let row = self
            .client
            .query_one(
                "INSERT INTO arena_workers (name, concurrency) VALUES ($1, $2) RETURNING id",
                &[&name, &(concurrency as i32)],
            )
            .await?;
        Ok(row.get(0))
    }

    /// Marks a worker stopped (it no longer shows as playing).
    pub async fn stop_worker(&self, worker: i64) -> QueueResult<()> {
        self.client
            .execute(
                "UPDATE arena_workers SET stopped_at = clock_timestamp() WHERE id = $1",
                &[&worker],
            )
            .await?;
        Ok(())
    }

    /// Claims the oldest batch of a running test that is pending or whose holder's lease ran
    /// out, skipping tests in `skip` and batches other workers are claiming at this moment.
    pub async fn claim(
        &self,
        worker: i64,
        lease: Duration,
        skip: &[i64],
    ) -> QueueResult<Option<Claim>> {
        let lease_ms = lease.as_millis() as f64;
        let row = self
            .client
            .query_opt(
                "WITH free AS (
                     SELECT b.id FROM arena_batches b JOIN arena_tests t ON t.id = b.test_id
                     WHERE t.state = 'running' AND NOT (b.test_id = ANY($3))
                       AND (b.state = 'pending'
                            OR (b.state = 'claimed' AND b.lease_until < clock_timestamp()))
                     ORDER BY b.test_id, b.id
                     LIMIT 1
                     FOR UPDATE OF b SKIP LOCKED)
                 UPDATE arena_batches b
                 SET state = 'claimed', attempt = b.attempt + 1, worker_id = $1,
                     lease_until = clock_timestamp() + $2 * interval '1 millisecond'
                 FROM free WHERE b.id = free.id
                 RETURNING b.id, b.test_id, b.attempt, b.first_pair, b.pairs",
                &[&worker, &lease_ms, &skip],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let (batch, test): (i64, i64) = (row.get(0), row.get(1));
        let (first_pair, pairs): (i32, i32) = (row.get(3), row.get(4));
        let done = self
            .client
            .query(
                "SELECT pair FROM arena_results
                 WHERE test_id = $1 AND pair >= $2 AND pair < $2 + $3 ORDER BY pair",
                &[&test, &first_pair, &pairs],
            )
            .await?
            .iter()
            .map(|r| r.get::<_, i32>(0) as u32)
            .collect();
        Ok(Some(Claim {
            batch,
            test,
            attempt: row.get(2),
            first_pair: first_pair as u32,
            pairs: pairs as u32,
            spec: self.spec(test).await?,
            done,
        }))
    }

    /// A test's spec.
    pub async fn spec(&self, test: i64) -> QueueResult<TestSpec> {
        let row = self
            .client
            .query_opt("SELECT spec FROM arena_tests WHERE id = $1", &[&test])
            .await?
            .ok_or(QueueError::NoSuchTest(test))?;
        let text: String = row.get(0);
        serde_json::from_str(&text).map_err(|e| QueueError::BadTest {
            id: test,
            why: e.to_string(),
        })
    }

    /// Renews the leases of the batches `worker` holds and notes it is alive; the number of
    /// batches it still holds.
    pub async fn heartbeat(&self, worker: i64, lease: Duration) -> QueueResult<u64> {
        let lease_ms = lease.as_millis() as f64;
        self.client
            .execute(
                "UPDATE arena_workers SET seen_at = clock_timestamp() WHERE id = $1",
                &[&worker],
            )
            .await?;
        let held = self
            .client
            .execute(
                "UPDATE arena_batches
                 SET lease_until = clock_timestamp() + $2 * interval '1 millisecond'
                 WHERE worker_id = $1 AND state = 'claimed'",
                &[&worker, &lease_ms],
            )
            .await?;
        Ok(held)
    }

    /// Gives a claimed batch back unplayed (a worker that cannot play its test, or stops).
    pub async fn release(&self, claim: &Claim, worker: i64) -> QueueResult<()> {
        self.client
            .execute(
                "UPDATE arena_batches SET state = 'pending', worker_id = NULL, lease_until = NULL
                 WHERE id = $1 AND attempt = $2 AND worker_id = $3 AND state = 'claimed'",
                &[&claim.batch, &claim.attempt, &worker],
            )
            .await?;
        Ok(())
    }

    /// Gives back every batch `worker` holds (a worker stopped by hand); how many.
    pub async fn release_all(&self, worker: i64) -> QueueResult<u64> {
        let released = self
            .client
            .execute(
                "UPDATE arena_batches SET state = 'pending', worker_id = NULL, lease_until = NULL
                 WHERE worker_id = $1 AND state = 'claimed'",
                &[&worker],
            )
            .await?;
        Ok(released)
    }

    /// Whether no running test outside `skip` has a batch left to play or being played: a
    /// worker told to stop when idle stops then.
    pub async fn idle(&self, skip: &[i64]) -> QueueResult<bool> {
        let open: i64 = self
            .client
            .query_one(
                "SELECT count(*) FROM arena_batches b JOIN arena_tests t ON t.id = b.test_id
                 WHERE t.state = 'running' AND NOT (b.test_id = ANY($1))
                   AND b.state IN ('pending', 'claimed')",
                &[&skip],
            )
            .await?
            .get(0);
        Ok(open == 0)
    }

    /// Stores the result of pair `pair` of `claim`, played by `worker`, and takes the test's
    /// decision, all in one transaction holding the test's row: reports of one test are
    /// counted one at a time, and the decision sees every result before it.
    pub async fn report(
        &mut self,
        claim: &Claim,
        worker: i64,
        pair: u32,
        games: &[GameOutcome; 2],
    ) -> QueueResult<Reported> {
        let tx = self.client.transaction().await?;
        let test = tx
            .query_opt(
                "SELECT state FROM arena_tests WHERE id = $1 FOR UPDATE",
                &[&claim.test],
            )
            .await?
            .ok_or(QueueError::NoSuchTest(claim.test))?;
        let state: String = test.get(0);
        let batch = tx
            .query_one(
                "SELECT attempt, worker_id, state FROM arena_batches WHERE id = $1 FOR UPDATE",
                &[&claim.batch],
            )
            .await?;
        let (attempt, holder, batch_state): (i32, Option<i64>, String) =
            (batch.get(0), batch.get(1), batch.get(2));
        if state != "running" {
            return Ok(Reported::Refused {
                why: format!("test {} is over ({state})", claim.test),
            });
        }
        if attempt != claim.attempt || holder != Some(worker) || batch_state != "claimed" {
            return Ok(Reported::Refused {
                why: format!(
                    "batch {} was handed out again (attempt {attempt} now, this was attempt {})",
                    claim.batch, claim.attempt
                ),
            });
        }
        let counted = insert_result(&tx, claim, worker, pair, games).await? == 1;
        close_batch_if_done(&tx, claim).await?;
        let state = decide(&tx, claim.test, &claim.spec).await?;
        tx.commit().await?;
        Ok(if counted {
            Reported::Counted { state }
        } else {
            Reported::AlreadyCounted { state }
        })
    }
}

/// The pair's row, unless the pair was counted already; the rows inserted (0 or 1).
async fn insert_result(
    tx: &impl GenericClient,
    claim: &Claim,
    worker: i64,
    pair: u32,
    games: &[GameOutcome; 2],
) -> QueueResult<u64> {
    // Points of the test's first player (entrant 0) in each game.
    let points = games.each_ref().map(|g| match g.winner {
        Some(0) => 2,
        Some(_) => 0,
        None => 1,
    });
    let count = |p: i32| points.iter().filter(|&&x| x == p).count() as i32;
    let record = json!(games
        .iter()
        .map(|g| json!({
            "game": g.index + 1, "first": g.first, "winner": g.winner,
            "reason": g.reason, "plies": g.plies, "moves": g.moves,
        }))
        .collect::<Vec<_>>())
    .to_string();
    let inserted = tx
        .execute(
            "INSERT INTO arena_results
                 (test_id, pair, batch_id, attempt, worker_id, half_points, wins, draws, losses,
                  games)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (test_id, pair) DO NOTHING",
            &[
                &claim.test,
                &(pair as i32),
                &claim.batch,
                &claim.attempt,
                &worker,
                &(points.iter().sum::<i32>()),
                &count(2),
                &count(1),
                &count(0),
                &record,
            ],
        )
        .await?;
    Ok(inserted)
}

/// Marks the batch done once each of its pairs is counted.
async fn close_batch_if_done(tx: &impl GenericClient, claim: &Claim) -> QueueResult<()> {
    tx.execute(
        "UPDATE arena_batches SET state = 'done', lease_until = NULL
         WHERE id = $1 AND pairs = (SELECT count(*) FROM arena_results
                                    WHERE test_id = $2 AND pair >= $3 AND pair < $3 + $4)",
        &[
            &claim.batch,
            &claim.test,
            &(claim.first_pair as i32),
            &(claim.pairs as i32),
        ],
    )
    .await?;
    Ok(())
}

/// The pentanomial counts of a test from all its results.
pub(crate) async fn pentanomial(
    client: &impl GenericClient,
    test: i64,
) -> QueueResult<Pentanomial> {
    let mut counts = Pentanomial::default();
    for row in client
        .query(
            "SELECT half_points, count(*) FROM arena_results WHERE test_id = $1
             GROUP BY half_points",
            &[&test],
        )
        .await?
    {
        let (k, n): (i32, i64) = (row.get(0), row.get(1));
        counts.counts[k as usize] = n as u32;
    }
    Ok(counts)
}

/// The one place a test's state changes: the SPRT from every result, or the last pair counted.
/// A decision cancels the batches left; the new state.
async fn decide(tx: &impl GenericClient, test: i64, spec: &TestSpec) -> QueueResult<String> {
    let counts = pentanomial(tx, test).await?;
    let verdict = spec.sprt.and_then(|(elo0, elo1)| {
        let sprt = Sprt::new(elo0, elo1);
        let llr = counts.log_likelihood_ratio(elo0, elo1);
        match sprt.verdict_of_llr(llr) {
            SprtVerdict::AcceptH1 => Some(("H1 accepted", llr)),
            SprtVerdict::AcceptH0 => Some(("H0 accepted", llr)),
            SprtVerdict::Continue => None,
        }
    });
    let (state, note) = match verdict {
        Some((state, llr)) => (
            state,
            format!("{state} after {} pairs (LLR {llr:.2})", counts.pairs()),
        ),
        None if counts.pairs() >= spec.pairs() => (
            "finished",
            format!("all {} games played", 2 * counts.pairs()),
        ),
        None => return Ok("running".into()),
    };
    tx.execute(
        "UPDATE arena_tests SET state = $2, verdict = $3, ended_at = clock_timestamp()
         WHERE id = $1",
        &[&test, &state, &note],
    )
    .await?;
    tx.execute(
        "UPDATE arena_batches SET state = 'cancelled', lease_until = NULL
         WHERE test_id = $1 AND state IN ('pending', 'claimed')",
        &[&test],
    )
    .await?;
    Ok(state.into())
}
