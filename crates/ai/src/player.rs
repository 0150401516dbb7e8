//! What every player has in common: limits, progress reports, and the `Player` trait.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use arbiter_core::Game;

/// How long a search may run. Unset fields do not limit; a search with no limit at all runs to
/// its own maximum depth (alpha-beta) or a default number of iterations (MCTS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub time: Option<Duration>,
    /// On a game clock: how long past `time` an alpha-beta search may go on while it gets
    /// fewer nodes a second than usual (another program on its core), to buy about the nodes
    /// `time` buys on an idle core; `None` keeps to `time`.
    pub time_cap: Option<Duration>,
    /// MCTS iterations (playouts).
    pub iterations: Option<u64>,
}

impl Limits {
    pub fn time(ms: u64) -> Limits {
        Limits {
            time: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }
}

/// A search score for the side to move: hundredths of a piece, or a forced result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Evaluation in centipawns.
    Cp(i32),
    /// A forced win in this many plies (positive) or loss (negative).
    Mate(i32),
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(plies) => write!(f, "mate {plies}"),
        }
    }
}

/// A progress report of a search (one per completed iteration for alpha-beta).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    pub depth: u32,
    pub score: Score,
    pub nodes: u64,
    pub time: Duration,
    /// The principal variation in the game's notation.
    pub pv: Vec<String>,
}

impl SearchInfo {
    pub fn nodes_per_second(&self) -> u64 {
        (self.nodes as f64 / self.time.as_secs_f64().max(1e-6)) as u64
    }
}

/// A player: given a position, it chooses a move.
pub trait Player<G: Game>: Send {
    /// A short description (`alphabeta(ms=100)`).
    fn name(&self) -> String;

    /// Chooses a move for the side to move within `limits`, stopping early when `stop` becomes
    /// true, reporting progress to `info`. `None` only when there is no legal move.
    fn choose(
        &mut self,
        game: &G,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> Option<G::Move>;

    /// Forget what was learnt about earlier positions (a new game starts).
    fn new_game(&mut self) {}
}
