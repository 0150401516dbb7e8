//! The two kinds of contestant: arbiter's own players and outside engine processes.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use arbiter_ai::{FullGame, Limits, Player};

use crate::adjudication::{centipawns, score_in_info};
use crate::clock::Clock;
use crate::engine::External;
use crate::ArenaConfig;

/// Why a contestant lost a game without the rules deciding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forfeit {
    Crashed(String),
    TimedOut,
    /// Its clock ran out: the time it took, and what it had.
    OutOfTime {
        used: Duration,
        had: Duration,
    },
    Illegal(String),
}

impl std::fmt::Display for Forfeit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Forfeit::Crashed(why) => write!(f, "engine failed: {why}"),
            Forfeit::TimedOut => write!(f, "engine did not answer in time"),
            Forfeit::OutOfTime { used, had } => write!(
                f,
                "lost on time: took {:.3} s with {:.3} s left",
                used.as_secs_f64(),
                had.as_secs_f64()
            ),
            Forfeit::Illegal(why) => write!(f, "illegal move: {why}"),
        }
    }
}

/// A move chosen, with the score the player last gave it (centipawns for the side that moves;
/// `None` when it said none).
pub struct Choice<M> {
    pub mv: M,
    pub score: Option<i32>,
}

/// What the side to move knows of the clocks, when the game has them: the clock, and the side
/// the engine protocol calls white.
pub struct ClockView<'a> {
    pub clock: &'a Clock,
    pub white: arbiter_core::Side,
}

/// A participant in one game.
pub trait Contestant<G: FullGame>: Send {
    /// Chooses a move in `current`, reached from the start by `history` (moves in notation).
    fn choose(
        &mut self,
        history: &[String],
        current: &G,
        clock: Option<ClockView>,
    ) -> Result<Choice<G::Move>, Forfeit>;
}

/// One of arbiter's players.
pub struct Internal<G: FullGame> {
    pub player: Box<dyn Player<G>>,
    /// Its own limit a move; `None` to think by the arena's limit (or the game clock).
    pub own_limits: Option<Limits>,
    pub arena_limits: Limits,
    /// Set when the arena is interrupted: the search stops at once.
    pub stop: Arc<AtomicBool>,
}

impl<G: FullGame> Contestant<G> for Internal<G> {
    fn choose(
        &mut self,
        _: &[String],
        current: &G,
        clock: Option<ClockView>,
    ) -> Result<Choice<G::Move>, Forfeit> {
        let limits = match (&self.own_limits, clock) {
            (Some(own), _) => *own,
            (None, Some(view)) => {
                let side = current.side_to_move().index();
                arbiter_ai::engine::clock_limits(view.clock.left[side], view.clock.increment, None)
            }
            (None, None) => self.arena_limits,
        };
        let mut score = None;
        let mv = self
            .player
            .choose(current, &limits, &self.stop, &mut |info| {
                score = Some(centipawns(info.score))
            })
            .ok_or_else(|| Forfeit::Illegal("the player found no move".into()))?;
        Ok(Choice { mv, score })
    }
}

/// What an outside engine gets beyond its move time before it forfeits.
pub const GRACE: Duration = Duration::from_millis(1000);
/// How long an outside engine searching a number of nodes may take before it forfeits: no
/// engine worth measuring needs a minute for the nodes of one move, a hung one is caught.
pub const NODES_ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// The limit of each move when the player's own spec sets none: the arena's nodes a move
/// when it has them, else its time a move.
pub(crate) fn default_limits(config: &ArenaConfig) -> Limits {
    match config.nodes_per_move {
        Some(nodes) => Limits {
            nodes: Some(nodes),
            ..Limits::default()
        },
        None => Limits {
            time: Some(config.time_per_move),
            ..Limits::default()
        },
    }
}

/// What an outside engine is told to search for each move without a game clock, and how long
/// it may take.
#[derive(Clone, Debug)]
pub(crate) struct EngineLimit {
    pub go: String,
    pub answer_within: Duration,
}

impl EngineLimit {
    pub(crate) fn of(config: &ArenaConfig) -> EngineLimit {
        match config.nodes_per_move {
            Some(nodes) => EngineLimit {
                go: format!("go nodes {nodes}"),
                answer_within: NODES_ANSWER_WITHIN,
            },
            None => EngineLimit {
                go: format!("go movetime {}", config.time_per_move.as_millis()),
                answer_within: config.time_per_move + GRACE,
            },
        }
    }
}

/// An outside engine in a game, with the limit of each of its moves.
pub(crate) struct Seat<'a> {
    pub engine: &'a mut External,
    pub limit: EngineLimit,
}

impl<G: FullGame> Contestant<G> for Seat<'_> {
    fn choose(
        &mut self,
        history: &[String],
        current: &G,
        clock: Option<ClockView>,
    ) -> Result<Choice<G::Move>, Forfeit> {
        let position = if history.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", history.join(" "))
        };
        self.engine.send(&position)?;
        let (go, within) = match clock {
            Some(view) => {
                let left = view.clock.left[current.side_to_move().index()];
                (format!("go {}", view.clock.go_words(view.white)), left)
            }
            None => (self.limit.go.clone(), self.limit.answer_within),
        };
        self.engine.send(&go)?;
        let mut score = None;
        let line = self.engine.expect_reading("bestmove", within, |line| {
            score = score_in_info(line).or(score);
        })?;
        let text = line.trim_start_matches("bestmove").trim();
        let mv = current
            .parse_move(text)
            .map_err(|e| Forfeit::Illegal(e.to_string()))?;
        Ok(Choice { mv, score })
    }
}
