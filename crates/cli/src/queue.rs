//! The arena queue on the command line (docs/arena.md#many-machines): `arbiter arena …
//! --queue URL` submits, `arbiter arena status URL` shows, `arbiter worker URL` plays.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use arbiter_ai::registry::Catalogue;
use arbiter_ai::PlayerKind;
use arbiter_arena::{ArenaConfig, Entrant};
use arbiter_core::Options;
use arbiter_queue::{engine_hash, Player, Queue, TestSpec, WorkerConfig};
use clap::Args;

/// `arbiter arena status`.
#[derive(Args)]
pub struct StatusArgs {
    /// The queue's database, postgres://USER@HOST:PORT/DATABASE.
    #[arg(value_name = "URL")]
    url: String,
    /// Only this test (default: every test, newest first).
    #[arg(value_name = "ID")]
    id: Option<i64>,
}

/// `arbiter worker`.
#[derive(Args)]
pub struct WorkerArgs {
    /// The queue's database, postgres://USER@HOST:PORT/DATABASE.
    #[arg(value_name = "URL")]
    url: String,
    /// Batches played at once (one game at a time each): about one per core.
    #[arg(long, value_name = "K", default_value_t = 1)]
    concurrency: usize,
    /// Keep every game played here, in a folder test-ID per test with its games.tsv.
    #[arg(long, value_name = "DIR")]
    records: Option<PathBuf>,
    /// The name `arena status` shows (default: the host's name and this process's id).
    #[arg(long)]
    name: Option<String>,
    /// How often the worker renews its claims; a claim not renewed for three of these is
    /// handed to another worker.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    heartbeat_ms: u64,
    /// Stop when no running test has a batch left (default: wait for new tests).
    #[arg(long)]
    until_idle: bool,
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new().context("cannot start the async runtime")
}

/// The test a local `arbiter arena` with these settings would play, for the queue.
pub fn submit<C: Catalogue>(
    url: &str,
    options: &Options,
    entrants: &[Entrant],
    config: &ArenaConfig,
    batch_pairs: u32,
) -> anyhow::Result<ExitCode> {
    if entrants.len() != 2 {
        bail!(
            "--queue plays a match between two players (the SPRT is between two); {} given",
            entrants.len()
        );
    }
    if !config.games.is_multiple_of(2) {
        bail!("--games must be even with --queue: workers play both colours of each opening");
    }
    if batch_pairs == 0 {
        bail!("--batch-pairs must be at least 1");
    }
    let players = players(entrants)?;
    let spec = TestSpec {
        game: options.def().id.to_string(),
        options: given_options(options),
        players,
        games: config.games,
        time_per_move_ms: config.time_per_move.as_millis() as u64,
        nodes_per_move: config.nodes_per_move,
        opening_plies: config.opening_plies,
        suite: config.suite.clone(),
        seed: config.seed,
        max_plies: config.max_plies,
        resign: config.adjudication.resign.map(|r| (r.score, r.plies)),
        draw: config
            .adjudication
            .draw
            .map(|d| (d.score, d.plies, d.after)),
        sprt: config.sprt.map(|s| (s.elo0, s.elo1)),
        batch_pairs,
    };
    // What every worker will do first: a test no worker could play is refused here.
    spec.runner::<C>()
        .map_err(|why| anyhow::anyhow!("the test cannot be played: {why}"))?;
    let (id, target) = runtime()?.block_on(async {
        let mut queue = Queue::connect(url).await?;
        let id = queue.submit(&spec).await?;
        anyhow::Ok((id, queue.target().to_string()))
    })?;
    eprintln!(
        "submitted test {id} to {target}: {} pairs in batches of {batch_pairs}; workers play \
         it with `arbiter worker URL`",
        spec.pairs()
    );
    println!("{id}");
    Ok(ExitCode::SUCCESS)
}

/// The game's options that were given, by name, as stored with a test.
fn given_options(options: &Options) -> Vec<(String, u64)> {
    let named = options.def().options.iter();
    named
        .filter_map(|o| {
            options
                .get(o.name)
                .map(|v| (o.name.to_string(), u64::from(v)))
        })
        .collect()
}

/// The players as stored with a test: each outside engine with its binary's hash.
fn players(entrants: &[Entrant]) -> anyhow::Result<Vec<Player>> {
    entrants
        .iter()
        .map(|e| {
            let engine = match &e.spec.kind {
                PlayerKind::Command(command) => Some(
                    engine_hash(command)
                        .map_err(|why| anyhow::anyhow!("engine {}: {why}", e.name))?,
                ),
                _ => None,
            };
            Ok(Player {
                name: e.name.clone(),
                spec: e.spec.text.clone(),
                engine,
            })
        })
        .collect()
}

/// `arbiter arena status URL [ID]`.
pub fn status(args: StatusArgs) -> anyhow::Result<ExitCode> {
    let tests = runtime()?.block_on(async {
        let queue = Queue::connect_reader(&args.url).await?;
        queue.status(args.id).await
    })?;
    if tests.is_empty() {
        println!("no tests in the queue");
    }
    for test in &tests {
        print!("{}", test.text());
    }
    Ok(ExitCode::SUCCESS)
}

/// `arbiter worker URL`.
pub fn worker<C: Catalogue>(args: WorkerArgs) -> anyhow::Result<ExitCode> {
    if args.heartbeat_ms == 0 {
        bail!("--heartbeat-ms must be at least 1");
    }
    let name = args.name.clone().unwrap_or_else(default_name);
    let config = WorkerConfig {
        name,
        concurrency: args.concurrency.max(1),
        records: args.records.clone(),
        heartbeat: Duration::from_millis(args.heartbeat_ms),
        until_idle: args.until_idle,
    };
    let log = Arc::new(|line: &str| eprintln!("{line}"));
    let runtime = runtime()?;
    let summary = runtime.block_on(arbiter_queue::run_worker::<C>(&args.url, config, log));
    // Games still running after Ctrl-C are not waited for: their batches were given back.
    runtime.shutdown_background();
    let summary = summary?;
    eprintln!(
        "worker done: {} games played, {} pairs counted",
        summary.games, summary.pairs
    );
    Ok(ExitCode::SUCCESS)
}

/// `HOST-PID`.
fn default_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".into());
    format!("{host}-{}", std::process::id())
}
