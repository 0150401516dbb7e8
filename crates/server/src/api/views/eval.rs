//! A position's evaluation for people: the analysis board's bar and line, and each position of
//! the whole-game analysis. Scores are turned to the first player's side and to a chance to
//! win, so the page draws the bar and the graph without knowing the game.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use arbiter_ai::alphabeta::{format_line, score_of, AlphaBeta, AlphaBetaConfig};
use arbiter_ai::registry::{Catalogue, FullGame, GameVisitor};
use arbiter_ai::{Limits, Score};
use arbiter_core::{Side, Status};
use serde::Serialize;

use super::{replay, visit, GameRequest, ViewError};

/// The logistic slope that turns an evaluation (in hundredths of a soldier or a Surakarta
/// piece) into a chance to win: lichess's, fitted on chess games, so a swing of one minor unit
/// near equality is about nine points of chance.
const WIN_SLOPE: f64 = 0.003_682_08;

/// An evaluation from the first player's side.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Eval {
    /// The search's value in centipawns, positive when the first player stands better (none
    /// when a forced end was found).
    pub cp: Option<i32>,
    /// A forced end in this many plies: positive when the first player wins it, negative when
    /// it loses (0: the game is over with a winner).
    pub mate: Option<i32>,
    /// The first player's chance to win, 0 to 1 (a draw is one half).
    pub win: f64,
}

impl Eval {
    /// `score`, as the side to move `mover` sees it, from the first player's side.
    pub fn of(score: Score, mover: Side) -> Eval {
        let sign = if mover == Side::First { 1 } else { -1 };
        match score {
            Score::Cp(cp) => Eval::cp(sign * cp),
            Score::Mate(plies) => Eval::mate(sign * plies, sign * plies > 0),
        }
    }

    fn cp(cp: i32) -> Eval {
        Eval {
            cp: Some(cp),
            mate: None,
            win: 1.0 / (1.0 + (-WIN_SLOPE * f64::from(cp)).exp()),
        }
    }

    fn mate(plies: i32, first_wins: bool) -> Eval {
        Eval {
            cp: None,
            mate: Some(plies),
            win: if first_wins { 1.0 } else { 0.0 },
        }
    }

    /// A position already over: won outright (mate 0) or drawn.
    pub(super) fn over(status: Status) -> Eval {
        match status {
            Status::Won(side) => Eval::mate(0, side == Side::First),
            _ => Eval::cp(0),
        }
    }
}

/// One position searched: its evaluation, the deepest completed iteration and the best line
/// in the game's notation.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PositionEval {
    /// Whose move it is (the whole-game analysis judges each move by its player's chance).
    #[serde(skip)]
    pub first_to_move: bool,
    pub depth: u32,
    #[serde(flatten)]
    pub eval: Eval,
    pub best: Option<String>,
    pub pv: Vec<String>,
}

/// How long one position is searched.
#[derive(Clone, Copy, Debug)]
pub struct EvalLimits {
    pub depth: u32,
    pub time: Duration,
}

fn evaluate<G: FullGame>(
    start: G,
    request: &GameRequest,
    limits: EvalLimits,
    stop: &AtomicBool,
) -> Result<PositionEval, ViewError> {
    let (pos, _, rejected, _) = replay(start, &request.moves);
    if let Some(r) = rejected {
        return Err(ViewError::rejected(r));
    }
    let status = pos.status();
    let first_to_move = pos.side_to_move() == Side::First;
    if status != Status::Ongoing {
        return Ok(PositionEval {
            first_to_move,
            depth: 0,
            eval: Eval::over(status),
            best: None,
            pv: Vec::new(),
        });
    }
    let config = AlphaBetaConfig {
        hash_bits: 16,
        ..Default::default()
    };
    let mut searcher = AlphaBeta::<G>::new(Default::default(), config);
    let limits = Limits {
        depth: Some(limits.depth.max(1)),
        time: Some(limits.time),
        ..Limits::default()
    };
    let found = searcher.search(&pos, &limits, stop, &mut |_| {});
    Ok(PositionEval {
        first_to_move,
        depth: found.depth,
        eval: Eval::of(score_of(found.score), pos.side_to_move()),
        best: found.best.map(|m| pos.format_move(m)),
        pv: format_line(&pos, &found.pv),
    })
}

struct Evaluate<'a>(&'a GameRequest, EvalLimits, &'a AtomicBool);

impl GameVisitor for Evaluate<'_> {
    type Output = Result<PositionEval, ViewError>;
    fn visit<G: FullGame>(self, start: G) -> Self::Output {
        evaluate(start, self.0, self.1, self.2)
    }
}

/// The evaluation of the position after the request's moves; `stop` ends the search early.
pub fn evaluate_request<C: Catalogue>(
    request: &GameRequest,
    limits: EvalLimits,
    stop: &AtomicBool,
) -> Result<PositionEval, ViewError> {
    visit::<C, _, _>(request, Evaluate(request, limits, stop))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_turned_to_the_first_players_side_and_a_chance_to_win() {
        let even = Eval::of(Score::Cp(0), Side::First);
        assert_eq!((even.cp, even.win), (Some(0), 0.5));
        let ahead = Eval::of(Score::Cp(-300), Side::Second);
        assert_eq!(ahead.cp, Some(300));
        assert!((ahead.win - 0.75).abs() < 0.01, "{}", ahead.win);
        let lost = Eval::of(Score::Mate(3), Side::Second);
        assert_eq!((lost.mate, lost.win), (Some(-3), 0.0));
        assert_eq!(Eval::over(Status::Won(Side::First)).mate, Some(0));
        assert_eq!(Eval::over(Status::Drawn).win, 0.5);
    }
}
