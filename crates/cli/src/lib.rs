//! The `arbiter` command line: parses arguments and dispatches to the library crates.
//!
//! [`main`] is generic over the catalogue of games, so a program that adds a game runs the whole
//! command line for it with `arbiter_cli::main::<(MyGame, arbiter_ai::Standard)>()` (see
//! `docs/adding-a-game.md`); the `arbiter` binary runs it for [`arbiter_ai::Standard`].

use std::ffi::OsString;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use arbiter_ai::registry::{self, Catalogue, FullGame, GameVisitor};
use arbiter_core::Options;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

mod api_limits;
mod arena;
mod config_file;
mod judge;
mod net;
mod queue;
mod resume;
mod selfplay;
mod tune;

/// arbiter: judges, engines, tournaments and a game server for Duck Chess (鸭棋), Surakarta
/// and the RC-02 game.
#[derive(Parser)]
#[command(name = "arbiter", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the games with their sides, notation, options and judge formats.
    Games,
    /// Judge a move stream exactly like the official judge: input from FILE or standard
    /// input, verdicts on standard output.
    Judge(judge::JudgeArgs),
    /// Count the leaves of the legal-move tree from the start position (move-generator check).
    Perft {
        #[command(flatten)]
        game: GameArgs,
        /// Plies to search.
        depth: u32,
        /// Print the count below each first move before the total.
        #[arg(long)]
        divide: bool,
    },
    /// Host games: the course protocol over TCP, WebSocket, HTTP API and web page.
    Serve(Box<net::ServeArgs>),
    /// Join a game on a server and play it with an arbiter player (the course's `client`).
    Connect(net::ConnectArgs),
    /// Play many bot games against a server and report throughput and latency.
    Loadtest(net::LoadtestArgs),
    /// Speak the engine protocol on stdin/stdout (see docs/engine-protocol.md).
    Engine,
    /// Play a tournament between players or outside engines and report Elo differences.
    Arena(arena::ArenaArgs),
    /// Play the arena tests of a queue (`arena … --queue URL`) on this machine: claim batches of
    /// game pairs, play them, report each pair (docs/arena.md#many-machines).
    Worker(queue::WorkerArgs),
    /// Make a balanced opening suite for `arena --suite`: random openings of the given
    /// lengths, each kept when a fixed-depth search finds it roughly level (reproducible).
    Openings(arena::OpeningsArgs),
    /// Fit the evaluation's weights to the results of arena games (Texel tuning) and print
    /// them as a player spec to check in the arena.
    Tune(tune::TuneArgs),
    /// Solve endgames exactly and write the tables a player loads with `alphabeta:tables=DIR`
    /// (Surakarta 6×6 with the default no-capture limit; docs/strength.md#endgame-tables-surakarta-6x6).
    Tables {
        #[command(flatten)]
        game: GameArgs,
        /// The directory to write the table files into (made if missing); tables already
        /// there are read and kept, not solved again.
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
        /// The most pieces either side has in a table: 3 solves every ending up to 3 against 3
        /// (about 11 s on two cores), 4 up to 4 against 4 (about 40 minutes and 6.4 GB of
        /// memory on two cores).
        #[arg(long, value_name = "K", default_value_t = 3)]
        max_pieces: usize,
        /// The most pieces of both sides together: `--max-pieces 4 --max-total 7` adds 4
        /// against 3 to the 3-against-3 tables (75 million positions, about 7 minutes) without 4
        /// against 4.
        #[arg(long, value_name = "N")]
        max_total: Option<usize>,
    },
    /// Measure speed: random playouts per second, or a player's search speed with --search.
    Bench {
        #[command(flatten)]
        game: GameArgs,
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

/// A game and its options, as every subcommand that plays one takes them.
#[derive(Args, Clone, Debug)]
pub struct GameArgs {
    /// The game (`arbiter games` lists them with their options).
    #[arg(value_name = "GAME")]
    game: String,
    /// Board size, for games with several boards.
    #[arg(long, value_name = "N")]
    size: Option<u64>,
    /// Moves in a row without a capture that end the game (the game's default without it).
    #[arg(long, value_name = "N")]
    max_no_capture_round: Option<u64>,
    /// Any option of the game by name (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    option: Vec<String>,
}

impl GameArgs {
    /// The game's options, each checked by the registry.
    pub fn options<C: Catalogue>(&self) -> anyhow::Result<Options> {
        let mut given: Vec<(String, u64)> = Vec::new();
        given.extend(self.size.map(|v| ("size".to_string(), v)));
        given.extend(
            self.max_no_capture_round
                .map(|v| ("max_no_capture_round".to_string(), v)),
        );
        for pair in &self.option {
            let (name, value) = pair
                .split_once('=')
                .with_context(|| format!("--option `{pair}` must be NAME=VALUE, like size=8"))?;
            let value = value
                .trim()
                .parse::<u64>()
                .with_context(|| format!("--option {name}: `{value}` is not a number"))?;
            given.push((name.trim().to_string(), value));
        }
        let pairs = given.iter().map(|(k, v)| (k.as_str(), *v));
        Ok(registry::options::<C>(&self.game, pairs)?)
    }
}

/// Exit status for malformed input, as the judges document.
const EXIT_BAD_INPUT: u8 = 2;

/// Runs the command line for the games of catalogue `C`.
pub fn main<C: Catalogue>() -> ExitCode {
    main_from::<C, _, _>(std::env::args_os())
}

/// Runs the command line with these arguments (the first is the program's name).
pub fn main_from<C: Catalogue, I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    resume::remember(&args);
    let args = match config_file::expand(args).and_then(resume::expand) {
        Ok(args) => args,
        Err(err) => {
            eprintln!("arbiter: {err:#}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    let command =
        Cli::command().mut_subcommand("judge", |judge| judge.after_help(judge_formats::<C>()));
    let cli = match command
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match run::<C>(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("arbiter: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run<C: Catalogue>(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Games => {
            print!("{}", describe_games::<C>());
            Ok(ExitCode::SUCCESS)
        }
        Command::Judge(args) => judge::run::<C>(args),
        Command::Perft {
            game,
            depth,
            divide,
        } => {
            let options = game.options::<C>()?;
            registry::with_game::<C, _>(&options, Perft { depth, divide })??;
            Ok(ExitCode::SUCCESS)
        }
        Command::Tables {
            game,
            out,
            max_pieces,
            max_total,
        } => {
            let span = arbiter_ai::TableSpan {
                max_pieces,
                max_total: max_total.unwrap_or(2 * max_pieces),
            };
            build_tables::<C>(game, out, span)
        }
        Command::Arena(args) => arena::run::<C>(args),
        Command::Worker(args) => queue::worker::<C>(args),
        Command::Openings(args) => arena::openings_command::<C>(args),
        Command::Tune(args) => tune::run::<C>(args),
        Command::Serve(args) => net::serve::<C>(*args),
        Command::Connect(args) => net::connect_command::<C>(args),
        Command::Loadtest(args) => net::loadtest::<C>(args),
        Command::Engine => {
            arbiter_ai::engine::run::<C>(io::stdin().lock(), io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            game,
            playouts,
            seed,
            search,
            ms,
            positions,
        } => {
            let options = game.options::<C>()?;
            let bench = Bench {
                playouts,
                seed,
                search,
                ms,
                positions,
            };
            registry::with_game::<C, _>(&options, bench)??;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `arbiter games`: every game with its sides, notation, options and judge.
fn describe_games<C: Catalogue>() -> String {
    let mut out = String::new();
    for def in registry::games::<C>() {
        let [first, second] = &def.sides;
        let aliases = if def.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also {})", def.aliases.join(", "))
        };
        out.push_str(&format!(
            "{}{aliases}  {}: {} ({}) moves first, then {} ({})\n",
            def.id, def.title, first.name, first.word, second.name, second.word
        ));
        out.push_str(&format!("  moves: {}\n", def.notation));
        for o in def.options {
            out.push_str(&format!(
                "  option {} (default {}, {}): {}\n",
                o.name,
                o.default,
                o.allowed.describe(),
                o.help
            ));
        }
        if let Some(judge) = def.judge {
            out.push_str(&format!("  judge input: {}\n", judge.input));
        }
    }
    out
}

/// The judges' input formats, for `arbiter judge --help`.
fn judge_formats<C: Catalogue>() -> String {
    let mut text = String::from("Input formats:\n");
    for def in registry::games::<C>() {
        if let Some(judge) = def.judge {
            text.push_str(&format!("  {}: {}\n", def.id, judge.input));
        }
    }
    text.push_str(
        "\nMalformed input (or an input that cannot be read) stops the judge with a message \
         naming the line and exit status 2; with --expect, output that differs from the answer \
         file exits 1, as does a --record whose end mark the rules do not reach.",
    );
    text
}

/// `arbiter tables`: prints the summary of what was built.
fn build_tables<C: Catalogue>(
    game: GameArgs,
    out: std::path::PathBuf,
    span: arbiter_ai::TableSpan,
) -> anyhow::Result<ExitCode> {
    let options = game.options::<C>()?;
    let summary = registry::with_game::<C, _>(&options, BuildTables { out, span })?
        .map_err(anyhow::Error::msg)?;
    println!("{summary}");
    Ok(ExitCode::SUCCESS)
}

/// `arbiter tables`: the game builds its tables, telling standard error how it goes.
struct BuildTables {
    out: std::path::PathBuf,
    span: arbiter_ai::TableSpan,
}

impl GameVisitor for BuildTables {
    type Output = Result<String, String>;
    fn visit<G: FullGame>(self, start: G) -> Result<String, String> {
        let started = Instant::now();
        start.build_tables(&self.out, self.span, &mut |line| {
            eprintln!("[{:6.1} s] {line}", started.elapsed().as_secs_f64())
        })
    }
}

struct Perft {
    depth: u32,
    divide: bool,
}

impl GameVisitor for Perft {
    type Output = anyhow::Result<()>;
    fn visit<G: FullGame>(self, start: G) -> anyhow::Result<()> {
        let depth = self.depth;
        let mut out = BufWriter::new(io::stdout().lock());
        let started = Instant::now();
        let total = if self.divide {
            let parts = arbiter_core::rules::divide(&start, depth);
            for (mv, n) in &parts {
                writeln!(out, "{mv} {n}")?;
            }
            parts.iter().map(|(_, n)| n).sum()
        } else {
            start.perft(depth)
        };
        writeln!(out, "{total}")?;
        out.flush().context("cannot write the result")?;
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "perft {depth}: {total} leaves in {seconds:.3} s ({:.1} M leaves/s)",
            total as f64 / seconds.max(1e-9) / 1e6
        );
        Ok(())
    }
}

struct Bench {
    playouts: u64,
    seed: u64,
    search: Option<String>,
    ms: u64,
    positions: usize,
}

impl GameVisitor for Bench {
    type Output = anyhow::Result<()>;
    fn visit<G: FullGame>(self, start: G) -> anyhow::Result<()> {
        let name = G::definition().id;
        let Some(text) = &self.search else {
            eprintln!("playing {} random games of {name} …", self.playouts);
            let stats =
                arbiter_core::playout::random_playouts(&start, self.playouts, self.seed, u64::MAX);
            println!(
                "{} playouts in {:.3} s: {:.0} playouts/s, mean {:.1} plies",
                stats.playouts,
                stats.elapsed.as_secs_f64(),
                stats.playouts_per_second(),
                stats.mean_plies()
            );
            return Ok(());
        };
        let spec: arbiter_ai::PlayerSpec = text.parse()?;
        eprintln!(
            "searching {} positions of {name} for {} ms each with {text} …",
            self.positions, self.ms
        );
        let b = arbiter_ai::bench::search_bench(&start, &spec, self.ms, self.positions, self.seed)?;
        let unit = if matches!(spec.resolve(name).kind, arbiter_ai::PlayerKind::Mcts) {
            "playouts"
        } else {
            "nodes"
        };
        println!(
            "{text}: {} positions, {} {unit} in {:.3} s: {:.0} {unit}/s, mean depth {:.1}, worst answer {} ms after its budget",
            b.positions,
            b.nodes,
            b.elapsed.as_secs_f64(),
            b.nodes_per_second(),
            b.mean_depth,
            b.worst_lateness.as_millis()
        );
        Ok(())
    }
}
