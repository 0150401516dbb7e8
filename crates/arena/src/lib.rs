//! Matches and tournaments: arbiter's players and outside engines play each other.
//!
//! Every pair of entrants plays `games` games (a round robin; with two entrants, a gauntlet):
//! each opening — a few random plies from the start — is played twice with the colours
//! swapped. Games run `concurrency` at a time; an outside engine that crashes, hangs past its
//! time or plays an illegal move loses that game and the arena records why. A game longer than
//! `max_plies` is adjudicated a draw. [`stats`] turns the results into scores, Elo differences
//! with their 95% intervals, the likelihood of superiority, and an optional SPRT.

mod contestant;
pub mod stats;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use arbiter_ai::engine::game_line;
use arbiter_ai::{FullGame, PlayerKind, PlayerSpec};
use arbiter_core::outcome::record_with_end;
use arbiter_core::{EndReason, MoveList, Side};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use thiserror::Error;

pub use contestant::Forfeit;
use contestant::{Contestant, External, Internal};
pub use stats::{Sprt, SprtVerdict, Tally};

/// One player in a tournament.
#[derive(Clone, Debug)]
pub struct Entrant {
    pub name: String,
    pub spec: PlayerSpec,
}

/// How a tournament is run.
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// Games per pair of entrants.
    pub games: u32,
    /// Thinking time for players whose spec sets no limit, and for outside engines.
    pub time_per_move: Duration,
    pub concurrency: usize,
    /// Random plies played from the start to make each opening.
    pub opening_plies: u32,
    pub seed: u64,
    /// Where each game's record is written.
    pub out_dir: Option<PathBuf>,
    /// Games reaching this many plies are drawn (default: the game's own cap).
    pub max_plies: Option<u32>,
    pub sprt: Option<Sprt>,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        ArenaConfig {
            games: 20,
            time_per_move: Duration::from_millis(100),
            concurrency: 1,
            opening_plies: 4,
            seed: 1,
            out_dir: None,
            max_plies: None,
            sprt: None,
        }
    }
}

/// Why the arena cannot start.
#[derive(Debug, Error)]
pub enum ArenaError {
    #[error("a tournament needs at least two players")]
    TooFewPlayers,
    #[error("two players are called `{0}`")]
    DuplicateName(String),
    #[error(transparent)]
    Spec(#[from] arbiter_ai::SpecError),
    #[error("engine `{name}` cannot play: {why}")]
    Engine { name: String, why: String },
    #[error("cannot write game records to {path}: {error}")]
    Records {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// How one game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameOutcome {
    pub index: usize,
    /// Entrant indices of the first and second player (red/black first).
    pub first: usize,
    pub second: usize,
    /// The winner's entrant index; `None` for a draw.
    pub winner: Option<usize>,
    /// In words: "red captured blue's captain", "draw by the 400-ply limit", "illegal move: …".
    pub reason: String,
    pub plies: usize,
    pub moves: Vec<String>,
    /// The game in the form saved to disk (see [`Recorded`]).
    #[serde(skip)]
    pub record: String,
    pub record_file: Option<PathBuf>,
}

/// A player's totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerTotals {
    pub name: String,
    pub spec: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Points per game, 0 to 1.
    pub score: f64,
}

/// One pair's results, from `a`'s side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairTotals {
    pub a: String,
    pub b: String,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// The Elo difference `a` − `b`; `null` when a side scored 0% or 100% (no finite estimate).
    pub elo: Option<f64>,
    /// Half the width of the 95% interval of `elo`; `null` with it.
    pub elo_error: Option<f64>,
    /// Likelihood of superiority of `a`: the chance, from the decisive games, that `a` is the
    /// stronger (0.5 with none).
    pub los: f64,
}

/// Everything a tournament produced.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub game: String,
    pub games: usize,
    pub players: Vec<PlayerTotals>,
    pub pairs: Vec<PairTotals>,
    #[serde(skip)]
    pub outcomes: Vec<GameOutcome>,
    /// Set when an SPRT stopped the tournament early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<String>,
}

impl Report {
    /// The JSON summary of `--json`.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the report serialises")
    }

    /// The human table printed at the end.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let width = self
            .players
            .iter()
            .map(|p| p.name.len())
            .max()
            .unwrap_or(4)
            .max(6);
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>6}",
            "player", "games", "wins", "draws", "losses", "score"
        );
        for p in &self.players {
            let _ = writeln!(
                out,
                "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>5.1}%",
                p.name,
                p.games,
                p.wins,
                p.draws,
                p.losses,
                100.0 * p.score
            );
        }
        let _ = writeln!(out);
        for pair in &self.pairs {
            let games = pair.wins + pair.draws + pair.losses;
            let tally = Tally {
                wins: pair.wins,
                draws: pair.draws,
                losses: pair.losses,
            };
            let elo = match (pair.elo, pair.elo_error) {
                (None, _) => format!("{}inf", if pair.wins > pair.losses { "+" } else { "-" }),
                (Some(elo), Some(error)) if error < 1500.0 => format!("{elo:+.0} ± {error:.0}"),
                (Some(elo), _) => format!("{elo:+.0}"),
            };
            let _ = writeln!(
                out,
                "{} vs {}: {games} games, +{} ={} -{} ({:.1}%), Elo {elo}, LOS {:.1}%",
                pair.a,
                pair.b,
                pair.wins,
                pair.draws,
                pair.losses,
                100.0 * tally.score(),
                100.0 * pair.los
            );
        }
        if let Some(sprt) = &self.sprt {
            let _ = writeln!(out, "SPRT: {sprt}");
        }
        out
    }
}

/// A game's record in the course's notation: the moves, then the end letter (`C#`, `S#`, …;
/// none for a game the arena adjudicated).
fn record_text(moves: &[String], end: &Ending) -> String {
    let reason = match end {
        Ending::Rules { reason, .. } => *reason,
        Ending::Forfeit {
            forfeit: Forfeit::Illegal(_),
            ..
        } => EndReason::IlligalMove,
        Ending::Forfeit {
            forfeit: Forfeit::TimedOut,
            ..
        } => EndReason::Timeout,
        Ending::Forfeit { .. } => EndReason::Resign,
        Ending::Adjudicated { .. } => EndReason::None,
    };
    record_with_end(moves, reason)
}

/// How a game ended, before it is turned into an outcome.
#[derive(Clone, Debug)]
pub enum Ending {
    Rules {
        winner: Option<Side>,
        reason: EndReason,
        text: String,
    },
    Adjudicated {
        plies: u32,
    },
    Forfeit {
        loser: Side,
        forfeit: Forfeit,
    },
}

struct Job {
    index: usize,
    first: usize,
    second: usize,
    opening: usize,
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
    max_plies: u32,
) -> (Ending, Vec<String>) {
    let mut pos = from.clone();
    let mut history: Vec<String> = opening_moves.to_vec();
    let first_side = start.side_to_move();
    loop {
        if let Some(end) = pos.end() {
            let ending = Ending::Rules {
                winner: end.winner,
                reason: end.reason,
                text: end.text,
            };
            return (ending, history);
        }
        if history.len() as u32 >= max_plies {
            return (Ending::Adjudicated { plies: max_plies }, history);
        }
        let side = pos.side_to_move();
        let who = usize::from(side != first_side);
        match contestants[who].choose(start, &history, &pos) {
            Ok(mv) => {
                let mut legal = MoveList::new();
                pos.legal_moves(&mut legal);
                if !legal.contains(&mv) {
                    let forfeit =
                        Forfeit::Illegal(format!("{} is not legal here", pos.format_move(mv)));
                    return (
                        Ending::Forfeit {
                            loser: side,
                            forfeit,
                        },
                        history,
                    );
                }
                history.push(pos.format_move(mv));
                pos.play(mv);
            }
            Err(forfeit) => {
                return (
                    Ending::Forfeit {
                        loser: side,
                        forfeit,
                    },
                    history,
                )
            }
        }
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
    External::start(command, &game_line(&start.options()), config.time_per_move)
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
    if let Some(dir) = &config.out_dir {
        std::fs::create_dir_all(dir).map_err(|error| ArenaError::Records {
            path: dir.clone(),
            error,
        })?;
    }
    let mut jobs = Vec::new();
    for a in 0..entrants.len() {
        for b in a + 1..entrants.len() {
            for k in 0..config.games as usize {
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
    let total = jobs.len();
    let next = AtomicUsize::new(0);
    let halt = AtomicBool::new(false);
    let max_plies = config.max_plies.unwrap_or_else(|| start.max_plies());
    let (tx, rx) = mpsc::channel::<GameOutcome>();
    let mut outcomes: Vec<GameOutcome> = Vec::new();
    let mut sprt_note = None;
    let mut record_error = None;
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1) {
            let tx = tx.clone();
            let (jobs, next, halt) = (&jobs, &next, &halt);
            scope.spawn(move || loop {
                if halt.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let outcome = run_job(start, entrants, config, job, max_plies);
                if tx.send(outcome).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for mut outcome in rx {
            if let Some(dir) = &config.out_dir {
                let path = dir.join(format!(
                    "game-{:04}-{}-vs-{}.txt",
                    outcome.index + 1,
                    entrants[outcome.first].name,
                    entrants[outcome.second].name
                ));
                if let Err(error) = std::fs::write(&path, format!("{}\n", outcome.record)) {
                    record_error.get_or_insert(ArenaError::Records {
                        path: path.clone(),
                        error,
                    });
                    halt.store(true, Ordering::Relaxed);
                }
                outcome.record_file = Some(path);
            }
            outcomes.push(outcome);
            progress(outcomes.len(), total, outcomes.last().expect("just pushed"));
            if let (Some(sprt), 2) = (config.sprt, entrants.len()) {
                let tally = tally_between(&outcomes, 0, 1);
                match sprt.verdict(&tally) {
                    SprtVerdict::Continue => {}
                    verdict => {
                        let (lower, upper) = Sprt::bounds();
                        sprt_note = Some(format!(
                            "{} after {} games (LLR {:.2}, bounds {:.2}..{:.2}, H0 Elo {}, H1 Elo {})",
                            if verdict == SprtVerdict::AcceptH1 { "H1 accepted" } else { "H0 accepted" },
                            tally.games(),
                            tally.log_likelihood_ratio(sprt.elo0, sprt.elo1),
                            lower,
                            upper,
                            sprt.elo0,
                            sprt.elo1
                        ));
                        halt.store(true, Ordering::Relaxed);
                    }
                }
            }
        }
    });
    if let Some(error) = record_error {
        return Err(error);
    }
    outcomes.sort_by_key(|o| o.index);
    if let Some(dir) = &config.out_dir {
        let mut index = String::from("game\tfirst\tsecond\twinner\tplies\treason\tfile\n");
        for o in &outcomes {
            let _ = writeln!(
                index,
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
        }
        let path = dir.join("games.tsv");
        std::fs::write(&path, index).map_err(|error| ArenaError::Records { path, error })?;
    }
    Ok(build_report::<G>(entrants, outcomes, sprt_note))
}

fn run_job<G: FullGame>(
    start: &G,
    entrants: &[Entrant],
    config: &ArenaConfig,
    job: &Job,
    max_plies: u32,
) -> GameOutcome {
    let (from, opening_moves) = opening(
        start,
        config.opening_plies,
        config
            .seed
            .wrapping_mul(31)
            .wrapping_add(job.opening as u64),
    );
    let game_seed = config.seed ^ (job.index as u64).wrapping_mul(0x2545_F491_4F6C_DD1D);
    let make = |entrant: usize, salt: u64| -> Result<Box<dyn Contestant<G>>, Forfeit> {
        let spec = &entrants[entrant].spec;
        match &spec.kind {
            PlayerKind::Command(command) => Ok(Box::new(External::start(
                command,
                &game_line(&start.options()),
                config.time_per_move,
            )?) as Box<dyn Contestant<G>>),
            _ => {
                let player = spec
                    .build::<G>(game_seed ^ salt)
                    .map_err(|e| Forfeit::Crashed(e.to_string()))?;
                let limits = spec
                    .resolve(G::definition().id)
                    .limits(Some(config.time_per_move.as_millis() as u64));
                Ok(Box::new(Internal { player, limits }))
            }
        }
    };
    let (ending, moves) = match (make(job.first, 1), make(job.second, 2)) {
        (Ok(a), Ok(b)) => {
            let mut pair = [a, b];
            play_game(start, &opening_moves, &from, &mut pair, max_plies)
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
    let record = record_text(&moves, &ending);
    let first_side = start.side_to_move();
    let entrant_of = |side: Side| {
        if side == first_side {
            job.first
        } else {
            job.second
        }
    };
    let (winner, reason) = match ending {
        Ending::Rules { winner, text, .. } => (winner.map(entrant_of), text),
        Ending::Adjudicated { plies } => (None, format!("draw by the {plies}-ply limit")),
        Ending::Forfeit { loser, forfeit } => {
            (Some(entrant_of(loser.opponent())), forfeit.to_string())
        }
    };
    GameOutcome {
        index: job.index,
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
            pairs.push(PairTotals {
                a: entrants[a].name.clone(),
                b: entrants[b].name.clone(),
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                elo: t.finite_elo(),
                elo_error: t.finite_elo().map(|_| t.elo_error()),
                los: t.likelihood_of_superiority(),
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
