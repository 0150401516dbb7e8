//! `arbiter loadtest`: many bot games at once against a server, measuring how long a MOVE takes
//! from one bot to the other, and checking every stored game against what the bots saw.
//!
//! The bots play random legal moves of any game of the catalogue, through the server's
//! protocol client; this crate sits above the server (it is a client of it) and below the
//! command line, which only parses the flags.

mod bot;
mod metrics;
mod server;
mod verify;

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_ai::registry::{self, Catalogue};
use arbiter_server::storage::WriteTally;
use tokio::task::JoinHandle;

use bot::{BotError, BotResult, BotSetup, SentAt};

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadtestOptions {
    /// The game every bot asks for (an id of the catalogue).
    pub game: String,
    pub games: usize,
    /// A running server; `None` starts one (`server_exe serve …`) on free local ports.
    pub addr: Option<SocketAddr>,
    pub http: Option<SocketAddr>,
    pub think: Duration,
    pub seed: u64,
    pub server_exe: PathBuf,
}

/// What was measured.
#[derive(Clone, Debug, Default)]
pub struct LoadtestReport {
    pub games: usize,
    pub completed: usize,
    pub moves: usize,
    pub elapsed: Duration,
    pub p50: Duration,
    pub p99: Duration,
    pub max: Duration,
    pub errors: usize,
    pub error_samples: Vec<String>,
    /// Stored games compared with what the bots saw (`None` without an HTTP address).
    pub verified: Option<usize>,
    /// The server's peak resident memory, when it was started by the test.
    pub server_peak_kib: Option<u64>,
    /// The server's store during the games: writes, refusals, retries (`None` without an HTTP
    /// address; the error when the server did not tell them).
    pub store: Option<Result<WriteTally, String>>,
}

impl LoadtestReport {
    /// No error, and the store refused no write and was given none again.
    pub fn passed(&self) -> bool {
        let store_clean = match &self.store {
            Some(Ok(tally)) => tally.refusals == 0 && tally.retries == 0,
            _ => true,
        };
        self.errors == 0 && store_clean
    }

    /// Counts an error, keeping the first `keep` messages as samples.
    fn error(&mut self, message: String, keep: usize) {
        self.errors += 1;
        if self.error_samples.len() < keep {
            self.error_samples.push(message);
        }
    }
}

impl fmt::Display for LoadtestReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        writeln!(
            f,
            "games: {} started, {} completed in {:.1} s ({:.1} games/s, {:.0} moves/s)",
            self.games,
            self.completed,
            secs,
            self.completed as f64 / secs,
            self.moves as f64 / secs
        )?;
        writeln!(
            f,
            "MOVE to forwarded MOVE: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            self.p50.as_secs_f64() * 1e3,
            self.p99.as_secs_f64() * 1e3,
            self.max.as_secs_f64() * 1e3
        )?;
        match self.verified {
            Some(n) => writeln!(
                f,
                "stored games checked against the clients: {n} of {} equal",
                self.completed
            )?,
            None => writeln!(f, "stored games not checked (no HTTP address)")?,
        }
        match &self.store {
            Some(Ok(t)) => writeln!(
                f,
                "store: {} writes, {} refused, {} retried",
                t.writes, t.refusals, t.retries
            )?,
            Some(Err(e)) => writeln!(f, "store refusals not read: {e}")?,
            None => writeln!(f, "store refusals not read (no HTTP address)")?,
        }
        match self.server_peak_kib {
            Some(kib) => writeln!(f, "server peak memory: {:.1} MiB", kib as f64 / 1024.0)?,
            None => writeln!(
                f,
                "server peak memory: not measured (server not started by the test)"
            )?,
        }
        write!(f, "errors: {}", self.errors)?;
        for e in &self.error_samples {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

/// Every delay between a MOVE sent and the same MOVE received by the opponent.
type Latencies = Arc<Mutex<Vec<Duration>>>;

/// Plays `options.games` games of `options.game` (a game of catalogue `C`) at once against the
/// server at `options.addr`, or against one started for the test.
pub async fn run<C: Catalogue>(options: &LoadtestOptions) -> Result<LoadtestReport, String> {
    registry::definition::<C>(&options.game).map_err(|e| e.to_string())?;
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let (server, tcp, http) = match options.addr {
        Some(addr) => (None, addr, options.http),
        None => {
            let (server, tcp, http) = server::start(&options.server_exe).await?;
            (Some(server), tcp, Some(http))
        }
    };
    let latencies: Latencies = Arc::new(Mutex::new(Vec::with_capacity(options.games * 64)));
    let store_before = match http {
        Some(http) => Some(metrics::store_tally(http).await),
        None => None,
    };
    let started = Instant::now();
    let tasks = spawn_bots::<C>(options, tcp, &latencies).await;
    let mut report = LoadtestReport {
        games: options.games,
        ..Default::default()
    };
    let results = finish_bots(tasks, &mut report).await;
    report.elapsed = started.elapsed();
    // Each game counted once, by its first bot.
    let firsts: Vec<&BotResult> = results.iter().filter(|r| r.name.ends_with("_a")).collect();
    report.completed = firsts.len();
    report.moves = firsts.iter().map(|r| r.moves.len()).sum();
    percentiles(
        &mut report,
        &latencies.lock().unwrap_or_else(|e| e.into_inner()),
    );
    if let Some(http) = http {
        report.verified = Some(verify::stored_games(http, &firsts, &mut report).await);
        let after = metrics::store_tally(http).await;
        report.store = store_before.map(|before| Ok(after?.since(&before?)));
    }
    if let Some(server) = server {
        report.server_peak_kib = server.peak_kib();
        server.stop();
    }
    Ok(report)
}

/// Starts two bots for each game, in rooms 1000, 1001, …
async fn spawn_bots<C: Catalogue>(
    options: &LoadtestOptions,
    tcp: SocketAddr,
    latencies: &Latencies,
) -> Vec<JoinHandle<Result<BotResult, BotError>>> {
    let mut tasks = Vec::new();
    for i in 0..options.games {
        let sent_at: SentAt = Arc::new(Mutex::new(None));
        for (colour, tag) in [("BLACK", "a"), ("WHITE", "b")] {
            let setup = BotSetup {
                addr: tcp,
                name: format!("lt{}_{i}_{tag}", options.seed),
                colour,
                room: 1000 + i as u32,
                game: options.game.clone(),
                think: options.think,
                seed: options.seed
                    ^ (i as u64 * 2 + (tag == "b") as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                sent_at: sent_at.clone(),
                latencies: latencies.clone(),
            };
            tasks.push(tokio::spawn(bot::play::<C>(setup)));
        }
        if i % 50 == 49 {
            // Let the listener's backlog drain.
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    tasks
}

/// Waits for every bot; what each saw, errors counted in `report`.
async fn finish_bots(
    tasks: Vec<JoinHandle<Result<BotResult, BotError>>>,
    report: &mut LoadtestReport,
) -> Vec<BotResult> {
    let mut results = Vec::new();
    for task in tasks {
        match task.await {
            Ok(Ok(result)) => results.push(result),
            Ok(Err(e)) => report.error(e.to_string(), 5),
            Err(e) => report.error(format!("a bot failed: {e}"), usize::MAX),
        }
    }
    results
}

/// The median, 99th percentile and maximum of the delays.
fn percentiles(report: &mut LoadtestReport, latencies: &[Duration]) {
    let mut all = latencies.to_vec();
    all.sort();
    let pick = |q: f64| {
        all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    report.p50 = pick(0.50);
    report.p99 = pick(0.99);
    report.max = all.last().copied().unwrap_or_default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_whose_store_refused_or_retried_a_write_fails_and_says_so() {
        let mut report = LoadtestReport {
            store: Some(Ok(WriteTally {
                writes: 120,
                refusals: 0,
                retries: 0,
            })),
            ..Default::default()
        };
        assert!(report.passed());
        assert!(report
            .to_string()
            .contains("store: 120 writes, 0 refused, 0 retried"));
        report.store = Some(Ok(WriteTally {
            writes: 123,
            refusals: 2,
            retries: 1,
        }));
        assert!(!report.passed());
        assert!(report
            .to_string()
            .contains("store: 123 writes, 2 refused, 1 retried"));
        // Counts a server did not tell cannot fail the run; the report says they are missing.
        report.store = Some(Err("GET /api/metrics: 404".into()));
        assert!(report.passed());
        assert!(report
            .to_string()
            .contains("store refusals not read: GET /api/metrics: 404"));
    }
}
