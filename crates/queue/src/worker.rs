//! `arbiter worker`: claims batches, plays their pairs with the arena's own code, reports each
//! pair, and keeps its leases alive from a task of its own, so a long game never lets a lease
//! run out while the worker lives.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter_ai::registry::Catalogue;
use arbiter_arena::{index_line, record_file_name, GameOutcome, PairSource, INDEX_HEADER};

use crate::{Claim, Queue, QueueError, QueueResult, Reported};

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// Shown in `arena status` beside the tests it plays.
    pub name: String,
    /// Batches played at once, one game at a time each.
    pub concurrency: usize,
    /// Where the games it plays are written, a folder `test-ID` per test.
    pub records: Option<PathBuf>,
    /// How often the leases are renewed; a lease lasts three of these, and a worker that finds
    /// nothing to do looks again after one.
    pub heartbeat: Duration,
    /// Stop once no running test has a batch left to play or being played.
    pub until_idle: bool,
}

/// What a worker did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerSummary {
    /// Pairs counted from this worker's reports.
    pub pairs: u32,
    /// Games played, counted or not.
    pub games: u32,
}

/// Progress lines go here (the command line prints them on standard error).
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// What the worker's tasks share.
struct Shared {
    id: i64,
    config: WorkerConfig,
    log: Log,
    runners: Mutex<HashMap<i64, Arc<dyn PairSource>>>,
    /// Tests this worker cannot play (another engine binary, a game it lacks).
    refused: Mutex<Vec<i64>>,
    /// Held while a line is appended to a test's `games.tsv`.
    index: Mutex<()>,
    pairs: AtomicU32,
    games: AtomicU32,
}

/// Runs a worker for the games of catalogue `C` against the queue at `url` until it fails or,
/// with [`WorkerConfig::until_idle`], nothing is left to play.
pub async fn run_worker<C: Catalogue>(
    url: &str,
    config: WorkerConfig,
    log: Log,
) -> QueueResult<WorkerSummary> {
    let admin = Queue::connect(url).await?;
    let slots = config.concurrency.max(1);
    let id = admin.register_worker(&config.name, slots).await?;
    log(&format!(
        "worker {} (#{id}) on {}: {slots} at once",
        config.name,
        admin.target()
    ));
    let shared = Arc::new(Shared {
        id,
        config,
        log,
        runners: Mutex::new(HashMap::new()),
        refused: Mutex::new(Vec::new()),
        index: Mutex::new(()),
        pairs: AtomicU32::new(0),
        games: AtomicU32::new(0),
    });
    let heartbeat = tokio::spawn(heartbeat(Queue::connect_reader(url).await?, shared.clone()));
    let mut tasks = Vec::new();
    for _ in 0..slots {
        let queue = Queue::connect_reader(url).await?;
        tasks.push(tokio::spawn(slot::<C>(queue, shared.clone())));
    }
    let slots_end = async {
        let mut outcome = Ok(());
        for task in tasks {
            outcome = outcome.and(task.await.expect("a worker slot does not panic"));
        }
        outcome
    };
    let outcome = tokio::select! {
        outcome = slots_end => outcome,
        // Stopped by hand: the batches go back at once instead of after their leases.
        _ = tokio::signal::ctrl_c() => admin.release_all(id).await.map(|n| {
            (shared.log)(&format!("interrupted: batches given back: {n}"));
        }),
    };
    heartbeat.abort();
    admin.stop_worker(id).await?;
    outcome?;
    Ok(WorkerSummary {
        pairs: shared.pairs.load(Ordering::Relaxed),
        games: shared.games.load(Ordering::Relaxed),
    })
}

impl Shared {
    fn lease(&self) -> Duration {
        3 * self.config.heartbeat
    }

    fn refused(&self) -> Vec<i64> {
        self.refused.lock().expect("not poisoned").clone()
    }

    /// The pair runner of the claim's test, made once per test (an engine is started once to
    /// check it speaks the protocol); the reason this worker cannot play the test otherwise.
    async fn runner<C: Catalogue>(&self, claim: &Claim) -> Result<Arc<dyn PairSource>, String> {
        if let Some(runner) = self.runners.lock().expect("not poisoned").get(&claim.test) {
            return Ok(runner.clone());
        }
        let spec = claim.spec.clone();
        let runner = tokio::task::spawn_blocking(move || spec.runner::<C>())
            .await
            .expect("making a runner does not panic")?;
        let mut runners = self.runners.lock().expect("not poisoned");
        Ok(runners.entry(claim.test).or_insert(runner).clone())
    }

    /// Writes the pair's games into `records/test-ID/` with a line each in its `games.tsv`.
    fn write_records(
        &self,
        test: i64,
        runner: &dyn PairSource,
        games: &mut [GameOutcome; 2],
    ) -> QueueResult<()> {
        let Some(root) = &self.config.records else {
            return Ok(());
        };
        let dir = root.join(format!("test-{test}"));
        let failed = |e: std::io::Error, path: &std::path::Path| {
            QueueError::Records(format!("{}: {e}", path.display()))
        };
        std::fs::create_dir_all(&dir).map_err(|e| failed(e, &dir))?;
        let entrants = runner.entrants();
        for game in games.iter_mut() {
            let path = dir.join(record_file_name(entrants, game));
            std::fs::write(&path, format!("{}\n", game.record)).map_err(|e| failed(e, &path))?;
            game.record_file = Some(path);
        }
        let index = dir.join("games.tsv");
        let _held = self.index.lock().expect("not poisoned");
        let fresh = !index.exists();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&index)
            .map_err(|e| failed(e, &index))?;
        let mut lines = if fresh {
            INDEX_HEADER.to_string()
        } else {
            String::new()
        };
        for game in games.iter() {
            lines.push_str(&index_line(entrants, game));
        }
        file.write_all(lines.as_bytes())
            .map_err(|e| failed(e, &index))
    }
}

/// Renews the worker's leases every heartbeat until the worker ends.
async fn heartbeat(queue: Queue, shared: Arc<Shared>) {
    loop {
        tokio::time::sleep(shared.config.heartbeat).await;
        if let Err(e) = queue.heartbeat(shared.id, shared.lease()).await {
            (shared.log)(&format!("heartbeat failed: {e}"));
        }
    }
}

/// One batch at a time: claim, play, and look again after a heartbeat when nothing is free.
async fn slot<C: Catalogue>(mut queue: Queue, shared: Arc<Shared>) -> QueueResult<()> {
    loop {
        let skip = shared.refused();
        match queue.claim(shared.id, shared.lease(), &skip).await? {
            Some(claim) => play_batch::<C>(&mut queue, &shared, claim).await?,
            None if shared.config.until_idle && queue.idle(&skip).await? => return Ok(()),
            None => tokio::time::sleep(shared.config.heartbeat).await,
        }
    }
}

/// Plays the batch's pairs not counted yet, reporting each; stops when a report says the
/// batch is no longer this worker's or the test is over.
async fn play_batch<C: Catalogue>(
    queue: &mut Queue,
    shared: &Shared,
    claim: Claim,
) -> QueueResult<()> {
    let log = &shared.log;
    let runner = match shared.runner::<C>(&claim).await {
        Ok(runner) => runner,
        Err(why) => {
            log(&format!("refusing test {}: {why}", claim.test));
            shared
                .refused
                .lock()
                .expect("not poisoned")
                .push(claim.test);
            return queue.release(&claim, shared.id).await;
        }
    };
    let last = claim.first_pair + claim.pairs - 1;
    log(&format!(
        "test {} batch {} (attempt {}): pairs {}..={last}{}",
        claim.test,
        claim.batch,
        claim.attempt,
        claim.first_pair,
        match claim.done.len() {
            0 => String::new(),
            n => format!(", {n} counted already"),
        }
    ));
    for pair in claim.first_pair..=last {
        if claim.done.contains(&pair) {
            continue;
        }
        let playing = runner.clone();
        let mut games = tokio::task::spawn_blocking(move || playing.play(pair as usize))
            .await
            .expect("a game does not panic");
        shared.games.fetch_add(2, Ordering::Relaxed);
        shared.write_records(claim.test, runner.as_ref(), &mut games)?;
        let reported = queue.report(&claim, shared.id, pair, &games).await?;
        log(&pair_line(&claim, pair, &games, &reported));
        if matches!(reported, Reported::Counted { .. }) {
            shared.pairs.fetch_add(1, Ordering::Relaxed);
        }
        if !reported.play_on() {
            break;
        }
    }
    Ok(())
}

/// `test 3 pair 7: 1-0 ½-½ (counted; running)`.
fn pair_line(claim: &Claim, pair: u32, games: &[GameOutcome; 2], reported: &Reported) -> String {
    let score = |g: &GameOutcome| match g.winner {
        None => "½-½",
        Some(w) if w == g.first => "1-0",
        Some(_) => "0-1",
    };
    let what = match reported {
        Reported::Counted { state } => format!("counted; test {state}"),
        Reported::AlreadyCounted { state } => format!("counted before; test {state}"),
        Reported::Refused { why } => format!("not counted: {why}; stopping this batch"),
    };
    format!(
        "test {} pair {pair}: {} {} ({what})",
        claim.test,
        score(&games[0]),
        score(&games[1])
    )
}
