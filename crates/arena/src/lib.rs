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
mod contestant;
pub mod openings;
mod pairs;
pub mod pentanomial;
pub mod stats;
mod tournament;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use arbiter_ai::PlayerSpec;
use arbiter_core::outcome::record_with_end;
use arbiter_core::{EndReason, Side};
use serde::Serialize;
use thiserror::Error;

pub use adjudication::{Adjudication, DrawRule, ResignRule};
pub use contestant::Forfeit;
pub use openings::OpeningSuite;
pub use pairs::{PairRunner, PairSource};
pub use pentanomial::Pentanomial;
pub use stats::{Sprt, SprtVerdict, Tally};
pub use tournament::{index_line, record_file_name, run, INDEX_HEADER};

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
    /// Half the width of its 95% interval from the pentanomial variance; `null` with it.
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
            elo_error: p.finite_elo().map(|_| p.elo_error()),
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
            let elo = elo_text(pair.elo, pair.elo_error, tally.score() > 0.5);
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
            let _ = writeln!(out, "  {}", pentanomial_line(&pair.pentanomial));
        }
        if let Some(sprt) = &self.sprt {
            let _ = writeln!(out, "SPRT: {sprt}");
        }
        out
    }
}

/// `+35 ± 40`, `+inf` or `-inf` (a score of 100% or 0%), `+1200` (no useful interval).
fn elo_text(elo: Option<f64>, error: Option<f64>, ahead: bool) -> String {
    match (elo, error) {
        (None, _) => format!("{}inf", if ahead { "+" } else { "-" }),
        (Some(elo), Some(error)) if error < 1500.0 => format!("{elo:+.0} ± {error:.0}"),
        (Some(elo), _) => format!("{elo:+.0}"),
    }
}

/// `pairs: 20 (LL 1, LD 2, DD/WL 10, WD 5, WW 2), Elo +35 ± 40, LOS 95.0%`.
fn pentanomial_line(p: &PentanomialTotals) -> String {
    let counts = Pentanomial { counts: p.counts };
    let mut line = format!("pairs: {} ({})", p.pairs, counts.text());
    if p.pairs > 0 {
        let elo = elo_text(p.elo, p.elo_error, counts.score() > 0.5);
        let _ = write!(line, ", Elo {elo}, LOS {:.1}%", 100.0 * p.los);
    }
    if p.unpaired > 0 {
        let games = if p.unpaired == 1 { "game" } else { "games" };
        let _ = write!(line, "; {} {games} unpaired", p.unpaired);
    }
    line
}

/// A game's record in the course's notation: the moves, then the end letter (`C#`, `S#`, …;
/// none for a game the arena adjudicated).
fn record_text(moves: &[String], end: &Ending) -> String {
    let reason = match end {
        Ending::Rules { reason, .. } => *reason,
        Ending::Forfeit {
            forfeit: Forfeit::Illegal(_),
            ..
        } => EndReason::IllegalMove,
        Ending::Forfeit {
            forfeit: Forfeit::TimedOut,
            ..
        } => EndReason::Timeout,
        Ending::Forfeit { .. } => EndReason::Resign,
        Ending::Adjudicated { winner: None, .. } => EndReason::None,
        Ending::Adjudicated { .. } => EndReason::Resign,
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
