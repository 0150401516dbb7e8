//! Running a tournament: the schedule, the worker threads, each game from its opening to its
//! end, the records written as games finish, and the report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use arbiter_ai::engine::game_line;
use arbiter_ai::{FullGame, Limits, PlayerKind, PlayerSpec};
use arbiter_core::{MoveList, Side};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::adjudication::{Adjudication, Adjudicator, Verdict};
use crate::contestant::{default_limits, Contestant, EngineLimit, External, Internal};
use crate::openings::seeded_order;
use crate::pentanomial::between as pentanomial_between;
use crate::{
    record_text, ArenaConfig, ArenaError, Ending, Entrant, Forfeit, GameOutcome, PairTotals,
    PentanomialTotals, PlayerTotals, Report, Sprt, SprtVerdict, Tally,
};

pub(crate) struct Job {
    pub(crate) index: usize,
    pub(crate) first: usize,
    pub(crate) second: usize,
    pub(crate) opening: usize,
}

/// Where each game's opening comes from.
pub(crate) enum Openings<G> {
    /// This many random plies, from a seed for each opening.
    Random(u32),
    /// A suite's openings played out, in the seeded order; used again from the first when the
    /// schedule needs more.
    Suite(Vec<(G, Vec<String>)>),
}

impl<G: FullGame> Openings<G> {
    pub(crate) fn new(start: &G, config: &ArenaConfig) -> Result<Openings<G>, ArenaError> {
        let Some(suite) = &config.suite else {
            return Ok(Openings::Random(config.opening_plies));
        };
        let mut positions: Vec<Option<(G, Vec<String>)>> =
            suite.positions(start)?.into_iter().map(Some).collect();
        let order = seeded_order(positions.len(), config.seed);
        let ordered = order.iter().filter_map(|&i| positions[i].take()).collect();
        Ok(Openings::Suite(ordered))
    }

    /// The position after opening number `n` of the schedule, and its moves.
    fn get(&self, start: &G, seed: u64, n: usize) -> (G, Vec<String>) {
        match self {
            Openings::Random(plies) => {
                opening(start, *plies, seed.wrapping_mul(31).wrapping_add(n as u64))
            }
            Openings::Suite(lines) => lines[n % lines.len()].clone(),
        }
    }
}

/// A random opening: `plies` random moves from `start` that do not end the game.
fn opening<G: FullGame>(start: &G, plies: u32, seed: u64) -> (G, Vec<String>) {
    for attempt in 0..100u64 {
        let mut rng = SmallRng::seed_from_u64(seed.wrapping_add(attempt.wrapping_mul(0x9E37_79B9)));
        let mut pos = start.clone();
        let mut moves = Vec::new();
        let mut ok = true;
        for _ in 0..plies {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                ok = false;
                break;
            }
            let mv = list[rng.gen_range(0..list.len())];
            moves.push(pos.format_move(mv));
            pos.play(mv);
            if pos.status().is_over() {
                ok = false;
                break;
            }
        }
        if ok {
            return (pos, moves);
        }
    }
    (start.clone(), Vec::new())
}

/// Plays one game; the first contestant moves first.
fn play_game<G: FullGame>(
    start: &G,
    opening_moves: &[String],
    from: &G,
    contestants: &mut [Box<dyn Contestant<G>>; 2],
    (max_plies, adjudication): (u32, Adjudication),
) -> (Ending, Vec<String>) {
    let mut pos = from.clone();
    let mut history: Vec<String> = opening_moves.to_vec();
    let first_side = start.side_to_move();
    let mut adjudicator = Adjudicator::new(adjudication);
    // The adjudicator's verdict on the last move, which the rules' own ending overrides.
    let mut verdict = None;
    loop {
        if let Some(end) = pos.end() {
            let ending = Ending::Rules {
                winner: end.winner,
                reason: end.reason,
                text: end.text,
            };
            return (ending, history);
        }
        if let Some(Verdict { winner, why }) = verdict {
            return (Ending::Adjudicated { winner, why }, history);
        }
        if history.len() as u32 >= max_plies {
            let why = format!("draw by the {max_plies}-ply limit");
            return (Ending::Adjudicated { winner: None, why }, history);
        }
        let side = pos.side_to_move();
        let who = usize::from(side != first_side);
        let choice = match contestants[who].choose(start, &history, &pos) {
            Ok(choice) => choice,
            Err(forfeit) => {
                return (
                    Ending::Forfeit {
                        loser: side,
                        forfeit,
                    },
                    history,
                )
            }
        };
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        if !legal.contains(&choice.mv) {
            let why = format!("{} is not legal here", pos.format_move(choice.mv));
            let forfeit = Forfeit::Illegal(why);
            return (
                Ending::Forfeit {
                    loser: side,
                    forfeit,
                },
                history,
            );
        }
        history.push(pos.format_move(choice.mv));
        pos.play(choice.mv);
        verdict = adjudicator.after_move(side, choice.score, history.len() as u32);
    }
}

/// Starts an outside engine once and shakes hands with it, so that a command that is not
/// there or does not speak the protocol stops the tournament before it begins.
fn check_engine<G: FullGame>(
    start: &G,
    name: &str,
    command: &str,
    config: &ArenaConfig,
) -> Result<(), ArenaError> {
    External::start(
        command,
        &game_line(&start.options()),
        EngineLimit::of(config),
    )
    .map(drop)
    .map_err(|forfeit| ArenaError::Engine {
        name: name.to_string(),
        why: match forfeit {
            Forfeit::Crashed(why) => why,
            other => other.to_string(),
        },
    })
}

/// Runs a tournament from `start`, calling `progress(done, total, outcome)` after each game.
pub fn run<G: FullGame>(
    start: &G,
    entrants: &[Entrant],
    config: &ArenaConfig,
    progress: &mut dyn FnMut(usize, usize, &GameOutcome),
) -> Result<Report, ArenaError> {
    check_entrants(start, entrants, config)?;
    if let Some(dir) = &config.out_dir {
        std::fs::create_dir_all(dir).map_err(|error| ArenaError::Records {
            path: dir.clone(),
            error,
        })?;
        write_index(dir, entrants, &[])?;
    }
    let openings = Openings::new(start, config)?;
    let jobs = schedule(entrants.len(), config.games as usize);
    let next = AtomicUsize::new(0);
    let halt = AtomicBool::new(false);
    let max_plies = config.max_plies.unwrap_or_else(|| start.max_plies());
    let (tx, rx) = mpsc::channel::<GameOutcome>();
    let mut results = Results {
        entrants,
        config,
        total: jobs.len(),
        halt: &halt,
        progress,
        outcomes: Vec::new(),
        sprt_note: None,
        record_error: None,
    };
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1) {
            let tx = tx.clone();
            let (jobs, next, halt, openings) = (&jobs, &next, &halt, &openings);
            scope.spawn(move || loop {
                if halt.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let outcome = run_job(start, entrants, config, openings, job, max_plies);
                if tx.send(outcome).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for outcome in rx {
            results.receive(outcome);
        }
    });
    let (outcomes, sprt_note) = results.finish()?;
    if let Some(dir) = &config.out_dir {
        write_index(dir, entrants, &outcomes)?;
    }
    Ok(build_report::<G>(entrants, outcomes, sprt_note))
}

/// Refuses fewer than two entrants, two of one name, and players that cannot be built or
/// engines that cannot be started.
pub(crate) fn check_entrants<G: FullGame>(
    start: &G,
    entrants: &[Entrant],
    config: &ArenaConfig,
) -> Result<(), ArenaError> {
    if entrants.len() < 2 {
        return Err(ArenaError::TooFewPlayers);
    }
    for (i, e) in entrants.iter().enumerate() {
        if entrants[..i].iter().any(|o| o.name == e.name) {
            return Err(ArenaError::DuplicateName(e.name.clone()));
        }
        match &e.spec.kind {
            PlayerKind::Command(command) => check_engine(start, &e.name, command, config)?,
            _ => drop(e.spec.build::<G>(0)?),
        }
    }
    Ok(())
}

/// Every game of the round robin: `games` for each pair, colours swapped on each opening.
fn schedule(entrants: usize, games: usize) -> Vec<Job> {
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

/// The finished games as they arrive, in the order they finish.
struct Results<'a, 'p> {
    entrants: &'a [Entrant],
    config: &'a ArenaConfig,
    total: usize,
    /// Set to stop the workers: a record could not be written, or the SPRT decided.
    halt: &'a AtomicBool,
    progress: &'p mut dyn FnMut(usize, usize, &GameOutcome),
    outcomes: Vec<GameOutcome>,
    sprt_note: Option<String>,
    record_error: Option<ArenaError>,
}

impl Results<'_, '_> {
    /// Writes the game's record file, reports progress and asks the SPRT.
    fn receive(&mut self, mut outcome: GameOutcome) {
        if let Some(dir) = &self.config.out_dir {
            let path = dir.join(record_file_name(self.entrants, &outcome));
            match std::fs::write(&path, format!("{}\n", outcome.record)) {
                // Named and indexed only once its record is there.
                Ok(()) => {
                    outcome.record_file = Some(path);
                    self.append_to_index(dir, &outcome);
                }
                Err(error) => self.stop_on_write_error(path, error),
            }
        }
        self.outcomes.push(outcome);
        let last = self.outcomes.last().expect("just pushed");
        (self.progress)(self.outcomes.len(), self.total, last);
        // The first decision stands: games still running when it came do not change it.
        if let (Some(sprt), 2, None) = (self.config.sprt, self.entrants.len(), &self.sprt_note) {
            let (pairs, _) = pentanomial_between(&self.outcomes, 0, 1);
            let llr = pairs.log_likelihood_ratio(sprt.elo0, sprt.elo1);
            if sprt.verdict_of_llr(llr) != SprtVerdict::Continue {
                self.sprt_note = Some(sprt_note(sprt, llr, self.outcomes.len(), pairs.pairs()));
                self.halt.store(true, Ordering::Relaxed);
            }
        }
    }
}

impl Results<'_, '_> {
    /// Adds a finished game to `games.tsv` at once, so a run stopped early (an SPRT cut short,
    /// Ctrl-C) still leaves an index of every game it finished; the end rewrites it in
    /// schedule order.
    fn append_to_index(&mut self, dir: &Path, outcome: &GameOutcome) {
        use std::io::Write;
        let path = dir.join("games.tsv");
        let appended = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut file| file.write_all(index_line(self.entrants, outcome).as_bytes()));
        if let Err(error) = appended {
            self.stop_on_write_error(path, error);
        }
    }

    /// Keeps the first file that could not be written as the run's error and stops the run.
    fn stop_on_write_error(&mut self, path: PathBuf, error: std::io::Error) {
        self.record_error
            .get_or_insert(ArenaError::Records { path, error });
        self.halt.store(true, Ordering::Relaxed);
    }

    /// The outcomes in schedule order and the SPRT's decision; the first record that could not
    /// be written is an error.
    fn finish(self) -> Result<(Vec<GameOutcome>, Option<String>), ArenaError> {
        if let Some(error) = self.record_error {
            return Err(error);
        }
        let mut outcomes = self.outcomes;
        outcomes.sort_by_key(|o| o.index);
        let undecided = match (self.config.sprt, self.entrants.len()) {
            (Some(sprt), 2) if self.sprt_note.is_none() => {
                let (pairs, _) = pentanomial_between(&outcomes, 0, 1);
                let llr = pairs.log_likelihood_ratio(sprt.elo0, sprt.elo1);
                Some(sprt_note(sprt, llr, outcomes.len(), pairs.pairs()))
            }
            _ => None,
        };
        Ok((outcomes, self.sprt_note.or(undecided)))
    }
}

/// The SPRT's state in words: decided or not, after how many games and pairs, with the
/// pentanomial log-likelihood ratio and its bounds.
fn sprt_note(sprt: Sprt, llr: f64, games: usize, pairs: u32) -> String {
    let (lower, upper) = Sprt::bounds();
    let verdict = match sprt.verdict_of_llr(llr) {
        SprtVerdict::AcceptH1 => "H1 accepted",
        SprtVerdict::AcceptH0 => "H0 accepted",
        SprtVerdict::Continue => "no decision",
    };
    format!(
        "{verdict} after {games} games, {pairs} pairs (pentanomial LLR {llr:.2}, bounds \
         {lower:.2}..{upper:.2}, H0 Elo {}, H1 Elo {})",
        sprt.elo0, sprt.elo1
    )
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

/// Entrant `entrant`'s contestant for one game: its player, or its engine started afresh.
fn contestant<G: FullGame>(
    start: &G,
    spec: &PlayerSpec,
    config: &ArenaConfig,
    seed: u64,
) -> Result<Box<dyn Contestant<G>>, Forfeit> {
    match &spec.kind {
        PlayerKind::Command(command) => Ok(Box::new(External::start(
            command,
            &game_line(&start.options()),
            EngineLimit::of(config),
        )?)),
        _ => {
            let player = spec
                .build::<G>(seed)
                .map_err(|e| Forfeit::Crashed(e.to_string()))?;
            let own = spec.resolve(G::definition().id).limits(None);
            let limits = if own == Limits::default() {
                default_limits(config)
            } else {
                own
            };
            Ok(Box::new(Internal { player, limits }))
        }
    }
}

pub(crate) fn run_job<G: FullGame>(
    start: &G,
    entrants: &[Entrant],
    config: &ArenaConfig,
    openings: &Openings<G>,
    job: &Job,
    max_plies: u32,
) -> GameOutcome {
    let (from, opening_moves) = openings.get(start, config.seed, job.opening);
    let game_seed = config.seed ^ (job.index as u64).wrapping_mul(0x2545_F491_4F6C_DD1D);
    let make = |entrant: usize, salt: u64| {
        contestant(start, &entrants[entrant].spec, config, game_seed ^ salt)
    };
    let (ending, moves) = match (make(job.first, 1), make(job.second, 2)) {
        (Ok(a), Ok(b)) => {
            let mut pair = [a, b];
            let limits = (max_plies, config.adjudication);
            play_game(start, &opening_moves, &from, &mut pair, limits)
        }
        (Err(forfeit), _) => (
            Ending::Forfeit {
                loser: start.side_to_move(),
                forfeit,
            },
            opening_moves.clone(),
        ),
        (_, Err(forfeit)) => (
            Ending::Forfeit {
                loser: start.side_to_move().opponent(),
                forfeit,
            },
            opening_moves.clone(),
        ),
    };
    game_outcome(job, start.side_to_move(), ending, moves)
}

/// The outcome of `job`'s game, which ended as `ending`; `first_side` is the first entrant's.
fn game_outcome(job: &Job, first_side: Side, ending: Ending, moves: Vec<String>) -> GameOutcome {
    let record = record_text(&moves, &ending);
    let entrant_of = |side: Side| {
        if side == first_side {
            job.first
        } else {
            job.second
        }
    };
    let (winner, reason) = match ending {
        Ending::Rules { winner, text, .. } => (winner.map(entrant_of), text),
        Ending::Adjudicated { winner, why } => (winner.map(entrant_of), why),
        Ending::Forfeit { loser, forfeit } => {
            (Some(entrant_of(loser.opponent())), forfeit.to_string())
        }
    };
    GameOutcome {
        index: job.index,
        opening: job.opening,
        first: job.first,
        second: job.second,
        winner,
        reason,
        plies: moves.len(),
        moves,
        record,
        record_file: None,
    }
}

/// Results of `a` against `b`, from `a`'s side.
fn tally_between(outcomes: &[GameOutcome], a: usize, b: usize) -> Tally {
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
    sprt: Option<String>,
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
                elo_error: t.finite_elo().map(|_| t.elo_error()),
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
    }
}
