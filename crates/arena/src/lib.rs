//! Matches and tournaments: arbiter's players and outside engines play each other.
//!
//! Every pair of entrants plays `games` games (a round robin; with two entrants, a gauntlet):
//! each opening — a few random plies from the start, or a line of an [`openings`] suite in a
//! seeded order — is played twice with the colours swapped, and the two games are a pair.
//! Games run `concurrency` at a time; an outside engine that crashes, hangs past its time or
//! plays an illegal move loses that game and the arena records why. A game longer than
//! `max_plies` is adjudicated a draw, and [`adjudication`] may end one early on the players' own
//! scores. [`stats`] turns the results into scores, Elo differences
//! with their 95% intervals and the likelihood of superiority; [`pentanomial`] does the same
//! from the pairs, whose SPRT decides `--sprt`.

pub mod adjudication;
mod clock;
mod contestant;
mod engine;
mod game;
pub mod openings;
mod pairs;
pub mod pentanomial;
mod record;
mod report;
mod results;
mod resume;
pub mod stats;
mod tournament;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use arbiter_ai::PlayerSpec;
use arbiter_core::{EndReason, Side};
use serde::Serialize;
use thiserror::Error;

pub use adjudication::{Adjudication, DrawRule, ResignRule};
pub use clock::TimeControl;
pub use contestant::Forfeit;
pub use engine::end_all_engines;
pub use openings::OpeningSuite;
pub use pairs::{PairRunner, PairSource};
pub use pentanomial::Pentanomial;
pub use record::record_moves;
pub use report::{elo_text, SprtReport};
pub use resume::finished_games;
pub use stats::{EloModel, Sprt, SprtVerdict, Tally};
pub use tournament::{index_line, record_file_name, run, INDEX_HEADER};

/// One player in a tournament.
#[derive(Clone, Debug)]
pub struct Entrant {
    pub name: String,
    pub spec: PlayerSpec,
    /// An outside engine's options, each sent as `setoption name NAME value VALUE`.
    pub options: Vec<(String, String)>,
}

impl Entrant {
    pub fn new(name: &str, spec: PlayerSpec) -> Entrant {
        Entrant {
            name: name.to_string(),
            spec,
            options: Vec::new(),
        }
    }
}

/// How a tournament is run.
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// Games per pair of entrants.
    pub games: u32,
    /// Thinking time for players whose spec sets no limit, and for outside engines.
    pub time_per_move: Duration,
    /// Instead of `time_per_move`: nodes a move for players whose spec sets no limit, and
    /// `go nodes N` for outside engines, so that results do not depend on the machine's load.
    pub nodes_per_move: Option<u64>,
    pub concurrency: usize,
    /// Random plies played from the start to make each opening (without a suite).
    pub opening_plies: u32,
    /// Openings to play instead of random ones, in an order shuffled by `seed`; each is played
    /// twice, once with each colour.
    pub suite: Option<OpeningSuite>,
    pub seed: u64,
    /// Where each game's record is written.
    pub out_dir: Option<PathBuf>,
    /// Games reaching this many plies are drawn (default: the game's own cap).
    pub max_plies: Option<u32>,
    /// Ending games early on the players' scores (off by default).
    pub adjudication: Adjudication,
    pub sprt: Option<Sprt>,
    /// Game clocks instead of a limit a move: outside engines are sent `go wtime … btime …`,
    /// and a side whose time runs out loses.
    pub time_control: Option<TimeControl>,
    /// Where every line sent to and received from outside engines is logged.
    pub engine_log: Option<PathBuf>,
    /// Set from outside (Ctrl-C) to stop the run: the games being played are dropped, the
    /// engines ended, and the report covers the games finished.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Games already played (a run being resumed from its `games.tsv`): not played again.
    pub done: Vec<GameOutcome>,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        ArenaConfig {
            games: 20,
            time_per_move: Duration::from_millis(100),
            nodes_per_move: None,
            concurrency: 1,
            opening_plies: 4,
            suite: None,
            seed: 1,
            out_dir: None,
            max_plies: None,
            adjudication: Adjudication::default(),
            sprt: None,
            time_control: None,
            engine_log: None,
            interrupt: None,
            done: Vec::new(),
        }
    }
}

/// Why the arena cannot start.
#[derive(Debug, Error)]
pub enum ArenaError {
    #[error("a tournament needs at least two players")]
    TooFewPlayers,
    #[error("a match played in pairs needs exactly two players, not {0}")]
    NotTwoPlayers(usize),
    #[error("--sprt needs exactly two players, not {0}")]
    SprtNotTwoPlayers(usize),
    #[error("`{0}` is one of arbiter's players, not an outside engine: it takes no --option")]
    OptionsForPlayer(String),
    #[error("cannot write the engine log {path}: {error}")]
    EngineLog {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot resume: {0}")]
    Resume(String),
    #[error("two players are called `{0}`")]
    DuplicateName(String),
    #[error(transparent)]
    Spec(#[from] arbiter_ai::SpecError),
    #[error("engine `{name}` cannot play: {why}")]
    Engine { name: String, why: String },
    #[error("opening suite: {0}")]
    Suite(#[from] openings::SuiteError),
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
    /// The opening's number in the schedule: the two games of a pair share it.
    pub opening: usize,
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
    /// What its outside engines wrote on standard error during the game, `name: line`.
    #[serde(skip)]
    pub stderr: Vec<String>,
}

/// A game just finished, for the progress display.
pub struct Progress<'a> {
    pub done: usize,
    pub total: usize,
    pub outcome: &'a GameOutcome,
    /// The match so far in a line (two players): score, Elo and the SPRT's LLR.
    pub live: Option<String>,
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
    /// Half the width of the 95% interval of `elo`; `null` with it, and when the games have no
    /// spread to estimate it from.
    pub elo_error: Option<f64>,
    /// Likelihood of superiority of `a`: the chance, from the decisive games, that `a` is the
    /// stronger (0.5 with none).
    pub los: f64,
    /// The same pair counted by pairs of games on one opening.
    pub pentanomial: PentanomialTotals,
}

/// A pair of entrants' results counted by pairs of games (see [`Pentanomial`]), from `a`'s side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PentanomialTotals {
    /// Pairs that scored 0, ½, 1, 1½ and 2 points for `a`: `[LL, LD, DD+WL, WD, WW]`.
    pub counts: [u32; 5],
    pub pairs: u32,
    /// Games not in a complete pair (an odd `--games`, or a pair cut short by the SPRT).
    pub unpaired: u32,
    /// The Elo difference from the pairs' mean score; `null` at 0% or 100%.
    pub elo: Option<f64>,
    /// Half the width of its 95% interval from the pentanomial variance; `null` with it, and
    /// when every pair scored alike (no spread to estimate it from).
    pub elo_error: Option<f64>,
    pub los: f64,
}

impl PentanomialTotals {
    pub fn new(p: &Pentanomial, unpaired: u32) -> PentanomialTotals {
        PentanomialTotals {
            counts: p.counts,
            pairs: p.pairs(),
            unpaired,
            elo: p.finite_elo(),
            elo_error: p
                .finite_elo()
                .filter(|_| p.variance() > 0.0)
                .map(|_| p.elo_error()),
            los: p.likelihood_of_superiority(),
        }
    }
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
    /// The SPRT's settings and state (with `--sprt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtReport>,
    /// The games the match was to play, and whether it was stopped (Ctrl-C) before them.
    pub planned: usize,
    pub interrupted: bool,
}

/// How a game ended, before it is turned into an outcome.
#[derive(Clone, Debug)]
pub enum Ending {
    Rules {
        winner: Option<Side>,
        reason: EndReason,
        text: String,
    },
    /// By the arena: the ply cap (a draw) or `--resign` / `--draw`.
    Adjudicated {
        winner: Option<Side>,
        why: String,
    },
    Forfeit {
        loser: Side,
        forfeit: Forfeit,
    },
}
