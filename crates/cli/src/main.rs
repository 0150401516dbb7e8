//! The `arbiter` binary: parses arguments and dispatches to the library crates.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context};
use arbiter_core::{JudgeError, Side};
use clap::{Parser, Subcommand, ValueEnum};

mod arena;
mod net;

/// arbiter — judges, engines and hosting for Duck Chess, Surakarta and the RC-02 game.
#[derive(Parser)]
#[command(name = "arbiter", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Judge a move stream on stdin exactly like the official judge; verdicts on stdout.
    Judge {
        /// Which game's judge format to read.
        game: JudgeGame,
    },
    /// Count the leaves of the legal-move tree from the start position (move-generator check).
    Perft {
        game: PerftGame,
        /// Plies to search.
        depth: u32,
        /// Board size (Surakarta: 6, 8, 10 or 12).
        #[arg(long, default_value_t = 6)]
        size: u8,
        /// Print the count below each first move before the total.
        #[arg(long)]
        divide: bool,
    },
    /// Host games: the course protocol over TCP, WebSocket, HTTP API and web page.
    Serve(net::ServeArgs),
    /// Join a game on a server and play it with an arbiter player (the course's `client`).
    Connect(net::ConnectArgs),
    /// Play many bot games against a server and report throughput and latency.
    Loadtest(net::LoadtestArgs),
    /// Speak the engine protocol on stdin/stdout (see docs/engine-protocol.md).
    Engine,
    /// Play a tournament between players or outside engines and report Elo differences.
    Arena(arena::ArenaArgs),
    /// Measure speed: random playouts per second, or a player's search speed with --search.
    Bench {
        game: BenchGame,
        /// Board size (Surakarta 6-12, RC-02 4-10; both default to 6).
        #[arg(long)]
        size: Option<u8>,
        /// Number of random games to play.
        #[arg(long, default_value_t = 100_000)]
        playouts: u64,
        /// Seed of the random choices (the same seed plays the same games).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Instead of random playouts, time this player's search (alphabeta, mcts, …).
        #[arg(long, value_name = "SPEC")]
        search: Option<String>,
        /// Thinking time per position for --search.
        #[arg(long, value_name = "MS", default_value_t = 1000)]
        ms: u64,
        /// Positions searched with --search (the start and positions a few random plies in).
        #[arg(long, default_value_t = 5)]
        positions: usize,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum JudgeGame {
    /// Duck Chess, Luogu P5380 format: `Q` then `Q` lines `xs ys xt yt`.
    Duck,
    /// Surakarta: the command stream of the rules page (new, position, probe, move, end, targets, state).
    Surakarta,
    /// The RC-02 game: `N K`, then `K` lines `x1 y1 x2 y2` (column first).
    Rc02,
}

#[derive(Clone, Copy, ValueEnum)]
enum PerftGame {
    Duck,
    Surakarta,
}

#[derive(Clone, Copy, ValueEnum)]
enum BenchGame {
    Duck,
    Surakarta,
    Rc02,
}

/// Exit status for malformed input, as the judges document.
const EXIT_BAD_INPUT: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("arbiter: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Judge { game } => Ok(judge(game)),
        Command::Perft {
            game,
            depth,
            size,
            divide,
        } => {
            perft(game, depth, size, divide)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Arena(args) => arena::run(args),
        Command::Serve(args) => net::serve(args),
        Command::Connect(args) => net::connect_command(args),
        Command::Loadtest(args) => net::loadtest(args),
        Command::Engine => {
            arbiter_ai::engine::run(io::stdin().lock(), io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            game,
            size,
            playouts,
            seed,
            search,
            ms,
            positions,
        } => {
            let options = BenchOptions {
                playouts,
                seed,
                search,
                ms,
                positions,
            };
            match game {
                BenchGame::Duck => {
                    if size.is_some() {
                        bail!("Duck Chess has one board; --size does not apply");
                    }
                    bench(arbiter_duck::Position::initial(), &options)?
                }
                BenchGame::Surakarta => {
                    let size = surakarta_size(size.unwrap_or(6))?;
                    bench(
                        arbiter_surakarta::GameState::new(size, 40).expect("checked size"),
                        &options,
                    )?
                }
                BenchGame::Rc02 => {
                    let n = size.unwrap_or(6);
                    let start = arbiter_rc02::Position::initial(n).with_context(|| {
                        format!("--size must be an even number from 4 to 10 for RC-02, not {n}")
                    })?;
                    bench(start, &options)?
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn judge(game: JudgeGame) -> ExitCode {
    let stdin = io::stdin().lock();
    let stdout = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let result = match game {
        JudgeGame::Duck => arbiter_duck::judge(stdin, stdout),
        JudgeGame::Surakarta => arbiter_surakarta::judge(stdin, stdout),
        JudgeGame::Rc02 => arbiter_rc02::judge(stdin, stdout),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(JudgeError::Input(message)) => {
            eprintln!("arbiter judge: malformed input: {message}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
        Err(JudgeError::Output(message)) => {
            eprintln!("arbiter judge: {message}");
            ExitCode::FAILURE
        }
    }
}

fn surakarta_size(size: u8) -> anyhow::Result<u8> {
    if !arbiter_surakarta::SIZES.contains(&size) {
        bail!("--size must be 6, 8, 10 or 12 for Surakarta, not {size}");
    }
    Ok(size)
}

fn perft(game: PerftGame, depth: u32, size: u8, divide: bool) -> anyhow::Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    let started = Instant::now();
    let parts: Vec<(String, u64)> = match game {
        PerftGame::Duck => {
            let start = arbiter_duck::Position::initial();
            if divide {
                arbiter_duck::divide(&start, depth)
                    .into_iter()
                    .map(|(mv, n)| (mv.to_string(), n))
                    .collect()
            } else {
                vec![(String::new(), arbiter_duck::perft(&start, depth))]
            }
        }
        PerftGame::Surakarta => {
            let start =
                arbiter_surakarta::Board::initial(surakarta_size(size)?).expect("checked size");
            if divide {
                arbiter_surakarta::divide(&start, Side::First, depth)
                    .into_iter()
                    .map(|(mv, n)| (mv.to_string(), n))
                    .collect()
            } else {
                vec![(
                    String::new(),
                    arbiter_surakarta::perft(&start, Side::First, depth),
                )]
            }
        }
    };
    let total: u64 = parts.iter().map(|(_, n)| n).sum();
    if divide {
        for (mv, n) in &parts {
            writeln!(out, "{mv} {n}")?;
        }
    }
    writeln!(out, "{total}")?;
    out.flush().context("cannot write the result")?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "perft {depth}: {total} leaves in {seconds:.3} s ({:.1} M leaves/s)",
        total as f64 / seconds.max(1e-9) / 1e6
    );
    Ok(())
}

struct BenchOptions {
    playouts: u64,
    seed: u64,
    search: Option<String>,
    ms: u64,
    positions: usize,
}

fn bench<G: arbiter_ai::Evaluate + arbiter_ai::GameName>(
    start: G,
    options: &BenchOptions,
) -> anyhow::Result<()> {
    let name = start.name();
    match &options.search {
        None => {
            eprintln!("playing {} random games of {name} …", options.playouts);
            let stats = arbiter_core::playout::random_playouts(
                &start,
                options.playouts,
                options.seed,
                u64::MAX,
            );
            println!(
                "{} playouts in {:.3} s: {:.0} playouts/s, mean {:.1} plies",
                stats.playouts,
                stats.elapsed.as_secs_f64(),
                stats.playouts_per_second(),
                stats.mean_plies()
            );
        }
        Some(text) => {
            let spec: arbiter_ai::PlayerSpec = text.parse()?;
            eprintln!(
                "searching {} positions of {name} for {} ms each with {text} …",
                options.positions, options.ms
            );
            let b = arbiter_ai::bench::search_bench(
                &start,
                &spec,
                options.ms,
                options.positions,
                options.seed,
            )?;
            println!(
                "{text}: {} positions, {} nodes in {:.3} s: {:.0} nodes/s, mean depth {:.1}, worst answer {} ms after its budget",
                b.positions,
                b.nodes,
                b.elapsed.as_secs_f64(),
                b.nodes_per_second(),
                b.mean_depth,
                b.worst_lateness.as_millis()
            );
        }
    }
    Ok(())
}
