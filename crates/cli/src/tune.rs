//! `arbiter tune`: reads the game records of arena runs and fits the evaluation's weights to
//! their results ([`arbiter_ai::tune`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use arbiter_ai::registry::{self, Catalogue, FullGame, GameVisitor};
use arbiter_ai::tune::{self, Sample, TuneConfig};
use arbiter_ai::EvalWeights;
use arbiter_core::Side;
use clap::Args;

#[derive(Args)]
pub struct TuneArgs {
    #[command(flatten)]
    game: crate::GameArgs,
    /// A folder an arena run wrote with `--out` (games.tsv and one record per game); repeatable.
    #[arg(long = "records", value_name = "DIR", required = true)]
    records: Vec<PathBuf>,
    /// Weights to fit, comma-separated (default: all but the first, which sets the scale).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    weights: Vec<String>,
    /// Positions from each game's start that are left out (the random openings).
    #[arg(long, value_name = "PLIES", default_value_t = 8)]
    skip: usize,
    /// The first step of the search, halved whenever no weight moves.
    #[arg(long, default_value_t = 8)]
    step: i32,
    /// The most rounds over all the weights.
    #[arg(long, default_value_t = 200)]
    rounds: u32,
}

pub fn run<C: Catalogue>(args: TuneArgs) -> anyhow::Result<ExitCode> {
    let options = args.game.options::<C>()?;
    registry::with_game::<C, _>(&options, Tune { args })??;
    Ok(ExitCode::SUCCESS)
}

struct Tune {
    args: TuneArgs,
}

/// One line of games.tsv: the record's file and which side won.
struct IndexRow {
    file: PathBuf,
    winner: Option<Side>,
}

/// Reads `dir/games.tsv`, naming the line of anything malformed.
fn read_index(dir: &Path) -> anyhow::Result<Vec<IndexRow>> {
    let path = dir.join("games.tsv");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {} (made by `arena --out`)", path.display()))?;
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [_, first, second, winner, _, _, file] = fields[..] else {
            bail!(
                "{}:{}: expected 7 tab-separated fields",
                path.display(),
                n + 1
            );
        };
        let winner = match winner {
            "draw" => None,
            w if w == first => Some(Side::First),
            w if w == second => Some(Side::Second),
            w => bail!(
                "{}:{}: winner `{w}` is neither player",
                path.display(),
                n + 1
            ),
        };
        if file.is_empty() {
            bail!("{}:{}: no record file named", path.display(), n + 1);
        }
        rows.push(IndexRow {
            file: dir.join(file),
            winner,
        });
    }
    Ok(rows)
}

/// The moves of one record file, replayed from `start` (the end mark `X#` closes it).
fn read_record<G: FullGame>(start: &G, path: &Path) -> anyhow::Result<Vec<G::Move>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut position = start.clone();
    let mut moves = Vec::new();
    for (i, word) in text.split_whitespace().enumerate() {
        if word.ends_with('#') {
            break;
        }
        let mv = position
            .parse_move(word)
            .with_context(|| format!("{}: move {} `{word}`", path.display(), i + 1))?;
        position.play(mv);
        moves.push(mv);
    }
    Ok(moves)
}

impl Tune {
    fn samples<G: FullGame>(&self, start: &G) -> anyhow::Result<(usize, Vec<Sample<G>>)> {
        let mut games = 0;
        let mut samples = Vec::new();
        for dir in &self.args.records {
            for row in read_index(dir)? {
                let moves = read_record(start, &row.file)?;
                samples.extend(tune::quiet_samples(
                    start,
                    &moves,
                    row.winner,
                    self.args.skip,
                ));
                games += 1;
            }
        }
        Ok((games, samples))
    }

    fn names<W: EvalWeights>(&self) -> anyhow::Result<Vec<String>> {
        if self.args.weights.is_empty() {
            return Ok(W::names().iter().skip(1).map(|s| s.to_string()).collect());
        }
        for name in &self.args.weights {
            if W::default().get(name).is_none() {
                bail!(
                    "unknown weight `{name}` (weights: {})",
                    W::names().join(", ")
                );
            }
        }
        Ok(self.args.weights.clone())
    }
}

impl GameVisitor for Tune {
    type Output = anyhow::Result<()>;
    fn visit<G: FullGame>(self, start: G) -> anyhow::Result<()> {
        let names = self.names::<G::Weights>()?;
        let (games, samples) = self.samples(&start)?;
        if samples.is_empty() {
            bail!("no quiet positions in {games} games: nothing to fit");
        }
        let defaults = G::Weights::default();
        let k = tune::fit_scale(&samples, &defaults);
        let before = tune::mean_error(&samples, &defaults, k);
        eprintln!(
            "{} quiet positions from {games} games; scale k = {k:.3}, error {before:.6}",
            samples.len()
        );
        let config = TuneConfig {
            names: names.clone(),
            first_step: self.args.step,
            max_rounds: self.args.rounds,
        };
        let (best, after) = tune::tune(&samples, &defaults, k, &config, &mut |p| {
            eprintln!("round {} (step {}): error {:.6}", p.round, p.step, p.error)
        });
        println!(
            "error {before:.6} -> {after:.6} over {} positions",
            samples.len()
        );
        println!("weight\tdefault\tfitted");
        for name in G::Weights::names() {
            let (old, new) = (defaults.get(name), best.get(name));
            println!("{name}\t{}\t{}", old.unwrap_or(0), new.unwrap_or(0));
        }
        let spec: Vec<String> = names
            .iter()
            .filter(|n| defaults.get(n) != best.get(n))
            .map(|n| format!("{n}={}", best.get(n).unwrap_or(0)))
            .collect();
        println!(
            "spec\talphabeta{}",
            spec.iter().map(|s| format!(":{s}")).collect::<String>()
        );
        Ok(())
    }
}
