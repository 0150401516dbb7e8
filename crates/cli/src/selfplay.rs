//! `arbiter tune --selfplay`: reads the options, plays the games ([`arbiter_ai::selfplay`]) and
//! writes their labelled positions.

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use arbiter_ai::registry::FullGame;
use arbiter_ai::selfplay::{self, LineSink, SelfPlayConfig};
use arbiter_ai::{PlayerKind, PlayerSpec};
use arbiter_arena::openings::OpeningSuite;

use crate::tune::SelfPlayArgs;

/// Plays `args.games` self-play games from `start` (or the suite's openings) into `out`.
pub fn run<G: FullGame>(start: &G, args: &SelfPlayArgs, out: &Path) -> anyhow::Result<()> {
    let spec: PlayerSpec = args.player().parse()?;
    let spec = spec.resolve(start.options().def().id);
    if !matches!(spec.kind, PlayerKind::AlphaBeta) {
        bail!(
            "--player must be an alpha-beta spec (`alphabeta:NAME=VALUE...`), not `{}`",
            args.player()
        );
    }
    let weights = spec.weights::<G::Weights>()?;
    let openings = openings(start, args.suite.as_ref())?;
    let config = SelfPlayConfig {
        games: args.games(),
        nodes: args.nodes(),
        seed: args.seed(),
        threads: args.threads(),
        ..SelfPlayConfig::default()
    };
    let file =
        std::fs::File::create(out).with_context(|| format!("cannot write {}", out.display()))?;
    let sink = LineSink::new(BufWriter::new(file), 50);
    let cannot_write = |e: std::io::Error| format!("cannot write {}: {e}", out.display());
    selfplay::self_play(&openings, &weights, &config, &|text| {
        sink.take(&text).map_err(cannot_write)
    })
    .map_err(anyhow::Error::msg)?;
    let (games, positions) = sink
        .finish()
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "{games} games, {positions} positions written to {}",
        out.display()
    );
    Ok(())
}

/// The positions games start from: the suite's openings, or the start alone.
fn openings<G: FullGame>(start: &G, suite: Option<&PathBuf>) -> anyhow::Result<Vec<G>> {
    let Some(path) = suite else {
        return Ok(vec![start.clone()]);
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let suite = OpeningSuite::parse(&text).with_context(|| format!("{}", path.display()))?;
    let positions = suite
        .positions(start)
        .with_context(|| format!("{}", path.display()))?;
    Ok(positions.into_iter().map(|(pos, _)| pos).collect())
}
