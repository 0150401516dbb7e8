//! `arbiter tune`: reads the game records of arena runs and fits the evaluation's weights to
//! their results, or to another engine's judgement of their positions ([`arbiter_ai::tune`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use arbiter_ai::alphabeta::format_line;
use arbiter_ai::eval::Evaluate;
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
    #[arg(
        long = "records",
        value_name = "DIR",
        required_unless_present_any = ["labels", "selfplay"]
    )]
    records: Vec<PathBuf>,
    /// Writes the records' quiet positions (each once, as the moves from the start that reach
    /// it, one line each) to FILE for another engine to judge, and fits nothing (so the
    /// fit's options are refused beside it rather than ignored).
    #[arg(long, value_name = "FILE", requires = "records",
          conflicts_with_all = ["labels", "weights", "holdout", "rounds", "step"])]
    export: Option<PathBuf>,
    /// Fits to labelled positions instead of game results: lines
    /// `EXPECTED<TAB>MOVES[<TAB>NOTE]`, the expected score (0 to 1) for the side to move after
    /// MOVES from the start (scripts/label-duck.py writes them); `#` lines are comments.
    /// Repeatable, and adds to `--records`.
    #[arg(long, value_name = "FILE")]
    labels: Vec<PathBuf>,
    /// Plays self-play games instead of fitting, and writes their quiet positions to FILE
    /// labelled for training the learnt correction (`scripts/train-duck-net.py`): the game,
    /// the hand-written evaluation, the search's score, the result, the network's inputs.
    /// Play the game's rules as the net will (e.g. `--max-no-capture-round 0`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["records", "labels", "export"])]
    selfplay: Option<PathBuf>,
    #[command(flatten)]
    selfplay_options: SelfPlayArgs,
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
    /// Leaves this per cent of the games out of the fit (whole pairs, as an arena run plays each
    /// opening twice in a row, spread evenly) and reports the error on their positions before
    /// and after: a fit that only learnt its own games does no better there.
    #[arg(long, value_name = "PERCENT", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..100))]
    holdout: u32,
}

/// How `--selfplay` plays. Each given without `--selfplay` is refused by [`SelfPlayArgs::given`]
/// (clap's `requires` lets them through beside `--records`), so none has a clap default; the
/// defaults are the methods below.
#[derive(Args)]
pub struct SelfPlayArgs {
    /// Self-play games to play [default: 1000].
    #[arg(long)]
    games: Option<usize>,
    /// The search's node budget for each move [default: 5000].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// The openings games start from (`arbiter openings` writes them).
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,
    /// The weights both sides play with, as a spec (`alphabeta:learnt=100`); its limits are
    /// not used (`--nodes` is) [default: alphabeta].
    #[arg(long, value_name = "SPEC")]
    player: Option<String>,
    /// Seeds the choice of openings and the early random moves [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// Games played at once (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
}

impl SelfPlayArgs {
    /// The first of these options given on the command line, if any.
    fn given(&self) -> Option<&'static str> {
        [
            (self.games.is_some(), "--games"),
            (self.nodes.is_some(), "--nodes"),
            (self.suite.is_some(), "--suite"),
            (self.player.is_some(), "--player"),
            (self.seed.is_some(), "--seed"),
            (self.threads.is_some(), "--threads"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
    }
    pub fn games(&self) -> usize {
        self.games.unwrap_or(1000)
    }
    pub fn nodes(&self) -> u64 {
        self.nodes.unwrap_or(5000)
    }
    pub fn player(&self) -> &str {
        self.player.as_deref().unwrap_or("alphabeta")
    }
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or(1)
    }
    pub fn threads(&self) -> usize {
        self.threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

pub fn run<C: Catalogue>(args: TuneArgs) -> anyhow::Result<ExitCode> {
    if let (None, Some(name)) = (&args.selfplay, args.selfplay_options.given()) {
        bail!("{name} is an option of --selfplay: give --selfplay FILE too, or leave {name} out");
    }
    let options = args.game.options::<C>()?;
    registry::with_game::<C, _>(&options, Tune { args })??;
    Ok(ExitCode::SUCCESS)
}

struct Tune {
    args: TuneArgs,
}

/// The positions the weights are fitted to, and those kept out of the fit to check it.
struct Samples<G> {
    fit: Vec<Sample<G>>,
    held_out: Vec<Sample<G>>,
    held_out_games: usize,
}

/// Whether `--holdout PERCENT` keeps game `game` (0-based, in reading order) out of the fit:
/// PERCENT of the pairs of games (an arena run plays each opening twice in a row), spread evenly.
fn held_out(game: usize, percent: u32) -> bool {
    let pair = game / 2;
    let share = |pairs: usize| pairs * percent as usize / 100;
    share(pair + 1) > share(pair)
}

impl<G> Default for Samples<G> {
    fn default() -> Self {
        Samples {
            fit: Vec::new(),
            held_out: Vec::new(),
            held_out_games: 0,
        }
    }
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
    for (i, word) in arbiter_arena::record_moves(&text).iter().enumerate() {
        let mv = position
            .parse_move(word)
            .with_context(|| format!("{}: move {} `{word}`", path.display(), i + 1))?;
        position.play(mv);
        moves.push(mv);
    }
    Ok(moves)
}

/// The labelled positions of a `--labels` file that are quiet (the others are counted, not
/// fitted: their static value is not what the search would use).
fn read_labels<G: FullGame>(start: &G, path: &Path) -> anyhow::Result<(Vec<Sample<G>>, usize)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (mut samples, mut loud) = (Vec::new(), 0);
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{}:{}", path.display(), n + 1);
        let mut fields = line.split('\t');
        let expected = fields.next().unwrap_or_default();
        let moves = fields.next().unwrap_or_default();
        let result: f64 = expected
            .trim()
            .parse()
            .ok()
            .filter(|r| (0.0..=1.0).contains(r))
            .with_context(|| {
                format!(
                    "{}: `{expected}` is not an expected score from 0 to 1",
                    at()
                )
            })?;
        let position = replay(start, moves).with_context(at)?;
        if tune::is_quiet(&position) {
            samples.push(Sample { position, result });
        } else {
            loud += 1;
        }
    }
    Ok((samples, loud))
}

/// The position after `moves` (the game's notation, space-separated) from `start`.
fn replay<G: FullGame>(start: &G, moves: &str) -> anyhow::Result<G> {
    let mut position = start.clone();
    for (i, word) in moves.split_whitespace().enumerate() {
        if position.status().is_over() {
            bail!("move {} `{word}` comes after the game ended", i + 1);
        }
        let mv = position
            .parse_move(word)
            .with_context(|| format!("move {} `{word}`", i + 1))?;
        position.play(mv);
    }
    Ok(position)
}

impl Tune {
    /// The samples to fit and those held out (`--holdout`), and how many games gave them.
    fn samples<G: FullGame>(&self, start: &G) -> anyhow::Result<(usize, Samples<G>)> {
        let mut games = 0;
        let mut samples = Samples::default();
        for dir in &self.args.records {
            for row in read_index(dir)? {
                let moves = read_record(start, &row.file)?;
                let quiet = tune::quiet_samples(start, &moves, row.winner, self.args.skip);
                if held_out(games, self.args.holdout) {
                    samples.held_out_games += 1;
                    samples.held_out.extend(quiet);
                } else {
                    samples.fit.extend(quiet);
                }
                games += 1;
            }
        }
        for path in &self.args.labels {
            let (labelled, loud) = read_labels(start, path)?;
            eprintln!(
                "{}: {} quiet positions ({loud} others left out)",
                path.display(),
                labelled.len()
            );
            samples.fit.extend(labelled);
        }
        Ok((games, samples))
    }

    /// `--export`: each quiet position of the records once, as the moves that reach it.
    fn export<G: FullGame>(&self, start: &G, out: &Path) -> anyhow::Result<()> {
        let mut seen = std::collections::HashSet::new();
        let mut lines = vec![format!(
            "# quiet positions from ply {} of {} (arbiter tune --export)",
            self.args.skip,
            self.args
                .records
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )];
        for dir in &self.args.records {
            for row in read_index(dir)? {
                let moves = read_record(start, &row.file)?;
                let words = format_line(start, &moves);
                for (ply, position) in tune::quiet_positions(start, &moves, self.args.skip) {
                    if seen.insert(position.hash()) {
                        lines.push(words[..ply].join(" "));
                    }
                }
            }
        }
        let text = lines.join("\n") + "\n";
        std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
        eprintln!("{} positions written to {}", lines.len() - 1, out.display());
        Ok(())
    }

    /// Fits `names` of the weights from `defaults` to `samples`, reporting each round; the
    /// best weights, and the scales `k` the defaults and they fit.
    fn fit<G: Evaluate>(
        &self,
        samples: &[Sample<G>],
        defaults: &G::Weights,
        names: Vec<String>,
        games: usize,
    ) -> (G::Weights, [f64; 2]) {
        let k = tune::fit_scale(samples, defaults);
        let default_k = k;
        let before = tune::mean_error(samples, defaults, k);
        eprintln!(
            "{} quiet positions from {games} games; scale k = {k:.3}, error {before:.6}",
            samples.len()
        );
        let config = TuneConfig {
            names,
            first_step: self.args.step,
            max_rounds: self.args.rounds,
        };
        let (best, k, after) = tune::tune(samples, defaults, k, &config, &mut |p| {
            eprintln!(
                "round {} (step {}): k = {:.3}, error {:.6}",
                p.round, p.step, p.k, p.error
            )
        });
        println!(
            "error {before:.6} -> {after:.6} (k = {k:.3}) over {} positions",
            samples.len()
        );
        (best, [default_k, k])
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
        if let Some(out) = &self.args.export {
            return self.export(&start, out);
        }
        if let Some(out) = &self.args.selfplay {
            return crate::selfplay::run(&start, &self.args.selfplay_options, out);
        }
        let names = self.names::<G::Weights>()?;
        let (games, samples) = self.samples(&start)?;
        if samples.fit.is_empty() {
            let advice = if samples.held_out.is_empty() {
                "give more --records or --labels".to_string()
            } else {
                format!("{} held out by --holdout: lower it", samples.held_out.len())
            };
            bail!("no quiet positions to fit in {games} games or the labels ({advice})");
        }
        if self.args.holdout > 0 && samples.held_out_games == 0 {
            eprintln!(
                "--holdout {}: no game held out (it takes whole pairs of the --records games, \
                 and {games} give none at this share; labels are always fitted)",
                self.args.holdout
            );
        }
        let defaults = G::Weights::default();
        let fitted_games = games - samples.held_out_games;
        let (best, scales) = self.fit(&samples.fit, &defaults, names.clone(), fitted_games);
        let held_out = (&samples.held_out[..], samples.held_out_games);
        report_held_out(held_out, (&defaults, &best), scales);
        print_weights(&defaults, &best, &names);
        Ok(())
    }
}

/// The fitted weights against the defaults, a row each, then as a player spec.
fn print_weights<W: EvalWeights>(defaults: &W, best: &W, names: &[String]) {
    println!("weight\tdefault\tfitted");
    for name in W::names() {
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
}

/// `--holdout`: the error of the defaults and of the fitted weights on the positions left out
/// of the fit, each at the scale `k` it fitted on the others.
fn report_held_out<G: Evaluate>(
    (held_out, games): (&[Sample<G>], usize),
    weights: (&G::Weights, &G::Weights),
    [default_k, k]: [f64; 2],
) {
    if held_out.is_empty() {
        return;
    }
    let before = tune::mean_error(held_out, weights.0, default_k);
    let after = tune::mean_error(held_out, weights.1, k);
    println!(
        "held out: error {before:.6} -> {after:.6} over {} positions of {games} games",
        held_out.len()
    );
}

#[cfg(test)]
mod tests {
    use super::held_out;

    #[test]
    fn the_holdout_takes_its_share_of_whole_pairs_spread_over_the_run() {
        let out: Vec<usize> = (0..100).filter(|&g| held_out(g, 20)).collect();
        assert_eq!(out.len(), 20);
        assert!(
            out.chunks(2).all(|p| p[1] == p[0] + 1 && p[0] % 2 == 0),
            "{out:?}"
        );
        assert!(out[0] < 10 && out[19] >= 90, "spread over the run: {out:?}");
        assert!((0..1000).all(|g| !held_out(g, 0)));
        let half: Vec<usize> = (0..6).filter(|&g| held_out(g, 50)).collect();
        assert_eq!(half, [2, 3]);
    }
}
