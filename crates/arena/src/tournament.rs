//! Running a tournament: the schedule, the worker threads (each a slot playing its games one
//! after another), the index of the games and the report.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use arbiter_ai::FullGame;

use crate::game::{check_engine, run_job, RunContext, Slot};
use crate::pentanomial::between as pentanomial_between;
use crate::results::Results;
use crate::{
    ArenaConfig, ArenaError, Entrant, GameOutcome, PairTotals, PentanomialTotals, PlayerTotals,
    Progress, Report, SprtReport, Tally,
};

pub(crate) struct Job {
    pub(crate) index: usize,
    pub(crate) first: usize,
    pub(crate) second: usize,
    pub(crate) opening: usize,
}

/// Runs a tournament from `start`, calling `progress` after each game. The games of
/// `config.done` (a run being resumed) count as played.
pub fn run<G: FullGame>(
    start: &G,
    entrants: &[Entrant],
    config: &ArenaConfig,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, ArenaError> {
    let ctx = RunContext::new(start, entrants, config)?;
    check_entrants(&ctx)?;
    let done = &config.done;
    if let Some(dir) = &config.out_dir {
        std::fs::create_dir_all(dir).map_err(|error| ArenaError::Records {
            path: dir.clone(),
            error,
        })?;
        write_index(dir, entrants, done)?;
    }
    let jobs: Vec<Job> = schedule(entrants.len(), config.games as usize)
        .into_iter()
        .filter(|job| !done.iter().any(|o| o.index == job.index))
        .collect();
    let halt = AtomicBool::new(false);
    let mut results = Results {
        entrants,
        config,
        total: jobs.len() + done.len(),
        halt: &halt,
        progress,
        outcomes: done.clone(),
        sprt_decided: None,
        record_error: None,
    };
    results.ask_sprt();
    play_slots(&ctx, &jobs, &halt, &mut results);
    let interrupted = ctx.interrupted();
    let (outcomes, sprt) = results.finish()?;
    if let Some(dir) = &config.out_dir {
        write_index(dir, entrants, &outcomes)?;
    }
    let mut report = build_report::<G>(entrants, outcomes, sprt);
    report.interrupted = interrupted;
    report.planned = schedule(entrants.len(), config.games as usize).len();
    Ok(report)
}

/// Plays `jobs` in `concurrency` slots (threads, each keeping its engines), handing each
/// outcome to `results` as it comes, until they are done, `halt` is set or the run is stopped.
fn play_slots<G: FullGame>(
    ctx: &RunContext<G>,
    jobs: &[Job],
    halt: &AtomicBool,
    results: &mut Results,
) {
    let next = AtomicUsize::new(0);
    let finished = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<GameOutcome>();
    std::thread::scope(|scope| {
        scope.spawn(|| end_engines_when_interrupted(&ctx.stop, &finished));
        for _ in 0..ctx.config.concurrency.max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let mut slot = Slot::new(ctx.entrants.len());
                while !halt.load(Ordering::Relaxed) && !ctx.interrupted() {
                    let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let Some(outcome) = run_job(ctx, &mut slot, job) else {
                        break;
                    };
                    if tx.send(outcome).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for outcome in rx {
            results.receive(outcome);
        }
        finished.store(true, Ordering::Relaxed);
    });
}

/// Until the run is over: once `stop` is set, ends every outside engine (and again any started
/// since), so that no game waits for one.
fn end_engines_when_interrupted(stop: &AtomicBool, finished: &AtomicBool) {
    while !finished.load(Ordering::Relaxed) {
        if stop.load(Ordering::Relaxed) {
            crate::engine::end_all_engines();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Refuses fewer than two entrants, two of one name, and players that cannot be built or
/// engines that cannot be started.
pub(crate) fn check_entrants<G: FullGame>(ctx: &RunContext<G>) -> Result<(), ArenaError> {
    let entrants = ctx.entrants;
    if entrants.len() < 2 {
        return Err(ArenaError::TooFewPlayers);
    }
    if ctx.config.sprt.is_some() && entrants.len() != 2 {
        return Err(ArenaError::SprtNotTwoPlayers(entrants.len()));
    }
    for (i, e) in entrants.iter().enumerate() {
        if entrants[..i].iter().any(|o| o.name == e.name) {
            return Err(ArenaError::DuplicateName(e.name.clone()));
        }
        match &ctx.setups[i] {
            Some(setup) => check_engine(setup)?,
            None if !e.options.is_empty() => {
                return Err(ArenaError::OptionsForPlayer(e.name.clone()))
            }
            None => drop(e.spec.build::<G>(0)?),
        }
    }
    Ok(())
}

/// Every game of the round robin: `games` for each pair, colours swapped on each opening.
pub(crate) fn schedule(entrants: usize, games: usize) -> Vec<Job> {
    let mut jobs = Vec::new();
    for a in 0..entrants {
        for b in a + 1..entrants {
            for k in 0..games {
                let (first, second) = if k % 2 == 0 { (a, b) } else { (b, a) };
                jobs.push(Job {
                    index: jobs.len(),
                    first,
                    second,
                    opening: k / 2,
                });
            }
        }
    }
    jobs
}

/// The name of a game's record file: `game-0007-a-vs-b.txt` (the game's number from 1).
pub fn record_file_name(entrants: &[Entrant], outcome: &GameOutcome) -> String {
    format!(
        "game-{:04}-{}-vs-{}.txt",
        outcome.index + 1,
        entrants[outcome.first].name,
        entrants[outcome.second].name
    )
}

/// `games.tsv`: one line for each game with its record file (only the header before any).
fn write_index(
    dir: &Path,
    entrants: &[Entrant],
    outcomes: &[GameOutcome],
) -> Result<(), ArenaError> {
    let mut index = String::from(INDEX_HEADER);
    for o in outcomes {
        index.push_str(&index_line(entrants, o));
    }
    let path = dir.join("games.tsv");
    std::fs::write(&path, index).map_err(|error| ArenaError::Records { path, error })
}

/// The first line of `games.tsv`.
pub const INDEX_HEADER: &str = "game\tfirst\tsecond\twinner\tplies\treason\tfile\n";

/// A game's line in `games.tsv`, with its newline.
pub fn index_line(entrants: &[Entrant], o: &GameOutcome) -> String {
    let mut line = String::new();
    let _ = writeln!(
        line,
        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
        o.index + 1,
        entrants[o.first].name,
        entrants[o.second].name,
        o.winner.map_or("draw", |w| entrants[w].name.as_str()),
        o.plies,
        o.reason,
        o.record_file
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or(String::new(), |f| f.to_string_lossy().into_owned())
    );
    line
}

/// Results of `a` against `b`, from `a`'s side.
pub(crate) fn tally_between(outcomes: &[GameOutcome], a: usize, b: usize) -> Tally {
    let mut tally = Tally::default();
    for o in outcomes
        .iter()
        .filter(|o| (o.first == a && o.second == b) || (o.first == b && o.second == a))
    {
        match o.winner {
            Some(w) if w == a => tally.wins += 1,
            Some(_) => tally.losses += 1,
            None => tally.draws += 1,
        }
    }
    tally
}

fn build_report<G: FullGame>(
    entrants: &[Entrant],
    outcomes: Vec<GameOutcome>,
    sprt: Option<SprtReport>,
) -> Report {
    let players = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut t = Tally::default();
            for o in outcomes.iter().filter(|o| o.first == i || o.second == i) {
                match o.winner {
                    Some(w) if w == i => t.wins += 1,
                    Some(_) => t.losses += 1,
                    None => t.draws += 1,
                }
            }
            PlayerTotals {
                name: e.name.clone(),
                spec: e.spec.text.clone(),
                games: t.games(),
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                score: t.score(),
            }
        })
        .collect();
    let mut pairs = Vec::new();
    for a in 0..entrants.len() {
        for b in a + 1..entrants.len() {
            let t = tally_between(&outcomes, a, b);
            let (pentanomial, unpaired) = pentanomial_between(&outcomes, a, b);
            pairs.push(PairTotals {
                a: entrants[a].name.clone(),
                b: entrants[b].name.clone(),
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                elo: t.finite_elo(),
                elo_error: crate::report::tally_error(&t),
                los: t.likelihood_of_superiority(),
                pentanomial: PentanomialTotals::new(&pentanomial, unpaired),
            });
        }
    }
    Report {
        game: G::definition().id.to_string(),
        games: outcomes.len(),
        players,
        pairs,
        outcomes,
        sprt,
        interrupted: false,
        planned: 0,
    }
}
