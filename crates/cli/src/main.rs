//! The `arbiter` binary: parses arguments and dispatches to the library crates.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};

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
        /// Print the count below each first move before the total.
        #[arg(long)]
        divide: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum JudgeGame {
    /// Duck Chess, Luogu P5380 format: `Q` then `Q` lines `xs ys xt yt`.
    Duck,
}

#[derive(Clone, Copy, ValueEnum)]
enum PerftGame {
    Duck,
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
            divide,
        } => {
            perft(game, depth, divide)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn judge(game: JudgeGame) -> ExitCode {
    let stdin = io::stdin().lock();
    let stdout = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let result = match game {
        JudgeGame::Duck => arbiter_duck::judge(stdin, stdout).map_err(|e| match e {
            arbiter_duck::JudgeError::Input(e) => JudgeFailure::Input(e.to_string()),
            arbiter_duck::JudgeError::Output(e) => JudgeFailure::Output(e.to_string()),
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(JudgeFailure::Input(message)) => {
            eprintln!("arbiter judge: malformed input: {message}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
        Err(JudgeFailure::Output(message)) => {
            eprintln!("arbiter judge: {message}");
            ExitCode::FAILURE
        }
    }
}

enum JudgeFailure {
    Input(String),
    Output(String),
}

fn perft(game: PerftGame, depth: u32, divide: bool) -> anyhow::Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    let started = Instant::now();
    let total = match game {
        PerftGame::Duck => {
            let start = arbiter_duck::Position::initial();
            if divide {
                let mut total = 0;
                for (mv, n) in arbiter_duck::divide(&start, depth) {
                    writeln!(out, "{mv} {n}")?;
                    total += n;
                }
                total
            } else {
                arbiter_duck::perft(&start, depth)
            }
        }
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
