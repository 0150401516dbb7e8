//! The JSON the browser page needs: positions to draw with their legal moves and capture
//! routes, the AI's move, and the analysis that warns before a losing move. Stateless: each
//! request carries the game's settings and its moves so far.

use std::sync::atomic::AtomicBool;

use std::collections::BTreeMap;

use arbiter_ai::registry::{self, Catalogue, CatalogueError, FullGame, GameVisitor};
use arbiter_ai::{analyze, Level, Limits, PlayerSpec};
use arbiter_core::{
    End, GameDef, InputError, JudgeError, MoveList, MoveReason, Options, RouteStep, Rules, Side,
    Status,
};
use serde::{Deserialize, Serialize};

pub use super::catalogue::{catalogue, GameInfo, OptionInfo, SideInfo};
pub use super::judge::{judge_trace, Geometry, TraceStep, TraceView, MAX_TRACE_STEPS};
pub use eval::{evaluate_request, Eval, EvalLimits, PositionEval};

mod eval;

/// Why a question about a game has no answer. All but [`ViewError::is_internal`] ones are the
/// request's fault, and their texts say what to change.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error(transparent)]
    Catalogue(#[from] CatalogueError),
    #[error("move {number} `{text}`: {reason}")]
    Move {
        number: usize,
        text: String,
        reason: String,
    },
    #[error("unknown level `{0}`: easy, medium or hard")]
    Level(String),
    #[error("{0} has no judge")]
    NoJudge(&'static str),
    #[error("the input has {operations} operations; the visualiser steps through at most {MAX_TRACE_STEPS} (`arbiter judge {game}` judges any number)")]
    TooManyOperations {
        operations: usize,
        game: &'static str,
    },
    #[error("malformed input: {0}")]
    Malformed(InputError),
    /// The judge could not write its output (into memory: a bug, not the input).
    #[error("the judge failed: {0}")]
    JudgeFailed(std::io::Error),
    /// A level's player could not be built (a bug in the level's specification).
    #[error("cannot build the player: {0}")]
    Player(String),
}

impl ViewError {
    /// A failure of the server, not of the request.
    pub fn is_internal(&self) -> bool {
        matches!(self, ViewError::JudgeFailed(_) | ViewError::Player(_))
    }

    fn rejected(r: Rejected) -> ViewError {
        ViewError::Move {
            number: r.index + 1,
            text: r.text,
            reason: r.reason,
        }
    }
}

impl From<JudgeError> for ViewError {
    fn from(e: JudgeError) -> ViewError {
        match e {
            JudgeError::Input(e) => ViewError::Malformed(e),
            JudgeError::Output(e) => ViewError::JudgeFailed(e),
        }
    }
}

/// A request about a game: what is played (the game and its options by name, e.g. `"size": 8`;
/// defaults for the rest) and the moves so far.
#[derive(Clone, Debug, Deserialize)]
pub struct GameRequest {
    pub game: String,
    #[serde(default)]
    pub moves: Vec<String>,
    /// For `/api/ai`: `easy`, `medium` or `hard`.
    pub level: Option<String>,
    pub seed: Option<u64>,
    #[serde(flatten)]
    pub options: BTreeMap<String, u64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PieceView {
    /// `first` or `second`.
    pub side: &'static str,
    /// The side's colour word (`BLACK`, `RED`, …).
    pub colour: &'static str,
    /// Duck Chess: `captain`, `car`, …
    pub kind: Option<&'static str>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SquareView {
    pub name: String,
    /// Drawing column from the left and row from the top, the first player at the bottom.
    pub col: u8,
    pub row: u8,
    pub piece: Option<PieceView>,
}

/// One stop of a capture's route, in drawing coordinates.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum PathView {
    Point { col: u8, row: u8 },
    Arc { col: u8, row: u8, radius: u8 },
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MoveView {
    pub text: String,
    pub from: String,
    pub to: String,
    pub capture: bool,
    /// Surakarta captures: the route round the arcs.
    pub path: Option<Vec<PathView>>,
    /// For the last move played: the pieces it took (an RC-02 move can take several), to mark
    /// them on the board.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub captured: Vec<SquareView>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Rejected {
    pub index: usize,
    #[serde(rename = "move")]
    pub text: String,
    pub reason: String,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StateView {
    pub game: &'static str,
    pub cols: u8,
    pub rows: u8,
    pub squares: Vec<SquareView>,
    pub to_move: &'static str,
    /// `ongoing`, `won` or `drawn`.
    pub status: &'static str,
    pub winner: Option<&'static str>,
    /// What happened, in the game's own words, once the game is over.
    pub end: Option<String>,
    /// The protocol's word for the end (`CHECKMATE`, `STALEMATE`, …).
    pub end_reason: Option<&'static str>,
    pub legal: Vec<MoveView>,
    pub last: Option<MoveView>,
    /// Duck Chess: a captain can be taken.
    pub check: bool,
    /// The squares of the pieces in check.
    pub checked: Vec<String>,
    pub ply: usize,
    /// Moves (plies) played in a row without a capture, up to this position: the count the
    /// game's `max_no_capture_round` limit ends the game at (the page shows it by the clocks).
    pub quiet_plies: usize,
    /// The first move of the request that could not be played (the rest were ignored).
    pub rejected: Option<Rejected>,
}

fn piece(def: &GameDef, piece: arbiter_core::PieceView) -> PieceView {
    PieceView {
        side: if piece.side == Side::First {
            "first"
        } else {
            "second"
        },
        colour: def.side(piece.side).word,
        kind: piece.kind,
    }
}

fn squares(def: &GameDef, board: &arbiter_core::BoardView) -> Vec<SquareView> {
    board
        .cells
        .iter()
        .map(|c| SquareView {
            name: c.name.clone(),
            col: c.col,
            row: c.row,
            piece: c.piece.map(|p| piece(def, p)),
        })
        .collect()
}

fn route(steps: Vec<RouteStep>) -> Vec<PathView> {
    steps
        .into_iter()
        .map(|step| match step {
            RouteStep::Point { col, row } => PathView::Point { col, row },
            RouteStep::Arc { col, row, radius } => PathView::Arc { col, row, radius },
        })
        .collect()
}

fn move_view<G: Rules>(pos: &G, mv: G::Move) -> MoveView {
    let text = pos.format_move(mv);
    let (from, to) = text
        .split_once('-')
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .unwrap_or_default();
    let capture = pos.is_capture(mv);
    let path = if capture {
        pos.route(mv).map(route)
    } else {
        None
    };
    MoveView {
        text,
        from,
        to,
        capture,
        path,
        captured: Vec::new(),
    }
}

/// The squares `before → after` emptied of the side that did not move, with what stood there.
fn taken<G: Rules>(before: &G, after: &G) -> Vec<SquareView> {
    let def = G::definition();
    let (was, now) = (before.board(), after.board());
    let changes = was.changes(&now, Some(before.side_to_move()));
    squares(def, &was)
        .into_iter()
        .filter(|sq| changes.captured.contains(&sq.name))
        .collect()
}

/// A game's moves checked by its rules: each with the course's reason, and how it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    pub moves: Vec<(String, MoveReason)>,
    pub end: Option<End>,
}

struct Replay<'a>(&'a [String]);

impl GameVisitor for Replay<'_> {
    type Output = Result<Replayed, ViewError>;
    fn visit<G: FullGame>(self, start: G) -> Self::Output {
        let mut pos = start;
        let mut moves = Vec::with_capacity(self.0.len());
        for (i, text) in self.0.iter().enumerate() {
            let mv = pos.parse_move(text).map_err(|e| ViewError::Move {
                number: i + 1,
                text: e.text,
                reason: e.reason.to_string(),
            })?;
            let reason = MoveReason::legal(pos.is_capture(mv));
            pos.play(mv);
            moves.push((text.trim().to_string(), reason));
        }
        Ok(Replayed {
            moves,
            end: pos.end(),
        })
    }
}

/// Checks the request's moves by its game's rules (for a game a page stores as it plays).
pub fn replayed<C: Catalogue>(request: &GameRequest) -> Result<Replayed, ViewError> {
    visit::<C, _, _>(request, Replay(&request.moves))
}

/// Plays the request's moves from `start` (stopping at the first illegal one); the last move,
/// the refused one, and the moves played since the last capture.
fn replay<G: Rules>(start: G, moves: &[String]) -> (G, Option<MoveView>, Option<Rejected>, usize) {
    let mut pos = start;
    let mut last = None;
    let mut quiet = 0;
    for (index, text) in moves.iter().enumerate() {
        match pos.parse_move(text) {
            Ok(mv) => {
                let mut view = move_view(&pos, mv);
                quiet = if view.capture { 0 } else { quiet + 1 };
                let before = (index + 1 == moves.len()).then(|| pos.clone());
                pos.play(mv);
                if let Some(before) = before {
                    view.captured = taken(&before, &pos);
                }
                last = Some(view);
            }
            Err(e) => {
                return (
                    pos,
                    last,
                    Some(Rejected {
                        index,
                        text: text.clone(),
                        reason: e.reason,
                    }),
                    quiet,
                )
            }
        }
    }
    (pos, last, None, quiet)
}

fn describe<G: Rules>(start: G, moves: &[String]) -> StateView {
    let def = G::definition();
    let (pos, last, rejected, quiet_plies) = replay(start, moves);
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let (status, winner) = match pos.status() {
        Status::Ongoing => ("ongoing", None),
        Status::Drawn => ("drawn", None),
        Status::Won(side) => ("won", Some(def.side(side).word)),
    };
    let board = pos.board();
    let end = pos.end();
    StateView {
        game: def.id,
        cols: board.cols,
        rows: board.rows,
        squares: squares(def, &board),
        to_move: def.side(pos.side_to_move()).word,
        status,
        winner,
        end_reason: end.as_ref().map(|e| e.reason.name()),
        end: end.map(|e| e.text),
        legal: list.iter().map(|&mv| move_view(&pos, mv)).collect(),
        last,
        check: !board.checked.is_empty(),
        checked: board.checked,
        ply: rejected.as_ref().map_or(moves.len(), |r| r.index),
        quiet_plies,
        rejected,
    }
}

/// The options a request names: its game's, checked.
fn request_options<C: Catalogue>(request: &GameRequest) -> Result<Options, ViewError> {
    let given = request.options.iter().map(|(k, v)| (k.as_str(), *v));
    Ok(registry::options::<C>(&request.game, given)?)
}

/// Runs `visitor` on the request's game.
fn visit<C: Catalogue, V: GameVisitor<Output = Result<T, ViewError>>, T>(
    request: &GameRequest,
    visitor: V,
) -> Result<T, ViewError> {
    let options = request_options::<C>(request)?;
    registry::with_game::<C, _>(&options, visitor)?
}

struct Describe<'a>(&'a GameRequest);

impl GameVisitor for Describe<'_> {
    type Output = Result<StateView, ViewError>;
    fn visit<G: FullGame>(self, start: G) -> Self::Output {
        Ok(describe(start, &self.0.moves))
    }
}

pub fn state<C: Catalogue>(request: &GameRequest) -> Result<StateView, ViewError> {
    visit::<C, _, _>(request, Describe(request))
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AiMove {
    #[serde(rename = "move")]
    pub text: Option<String>,
}

fn ai_move<G: FullGame>(
    start: G,
    request: &GameRequest,
    stop: &AtomicBool,
) -> Result<AiMove, ViewError> {
    let (pos, _, rejected, _) = replay(start, &request.moves);
    if let Some(r) = rejected {
        return Err(ViewError::rejected(r));
    }
    let level = request.level.as_deref().unwrap_or("medium");
    // Only the named levels: a full player spec would let any page ask for outside programs,
    // hour-long searches or gigabyte hash tables.
    let spec: PlayerSpec = match level {
        "easy" => Level::Easy.spec(G::definition().id),
        "medium" => Level::Medium.spec(G::definition().id),
        "hard" => Level::Hard.spec(G::definition().id),
        other => {
            return Err(ViewError::Level(
                arbiter_core::text::shorten(other).to_string(),
            ))
        }
    };
    let mut player = spec
        .build::<G>(request.seed.unwrap_or(1))
        .map_err(|e| ViewError::Player(e.to_string()))?;
    let mut limits = spec.limits(Some(1000));
    // Never let a page wait more than five seconds.
    limits.time = Some(limits.time.map_or(std::time::Duration::from_secs(5), |t| {
        t.min(std::time::Duration::from_secs(5))
    }));
    let mv = player.choose(&pos, &limits, stop, &mut |_| {});
    Ok(AiMove {
        text: mv.map(|m| pos.format_move(m)),
    })
}

struct Ai<'a>(&'a GameRequest, &'a AtomicBool);

impl GameVisitor for Ai<'_> {
    type Output = Result<AiMove, ViewError>;
    fn visit<G: FullGame>(self, start: G) -> Self::Output {
        ai_move(start, self.0, self.1)
    }
}

/// The AI's move; `stop` ends the search early (the client went away).
pub fn ai<C: Catalogue>(request: &GameRequest, stop: &AtomicBool) -> Result<AiMove, ViewError> {
    visit::<C, _, _>(request, Ai(request, stop))
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AnalysisView {
    pub best: Option<String>,
    pub score: String,
    pub pv: Vec<String>,
    /// Moves after which the opponent wins by force within a few plies.
    pub losing: Vec<String>,
    /// The deepest completed iteration, and the score from the first player's side.
    pub depth: u32,
    #[serde(flatten)]
    pub eval: Eval,
}

fn analysis<G: FullGame>(
    start: G,
    request: &GameRequest,
    limits: EvalLimits,
    stop: &AtomicBool,
) -> Result<AnalysisView, ViewError> {
    let (pos, _, rejected, _) = replay(start, &request.moves);
    if let Some(r) = rejected {
        return Err(ViewError::rejected(r));
    }
    if pos.status() != Status::Ongoing {
        // Nothing to search: the game's end is the score.
        let eval = Eval::over(pos.status());
        let score = if eval.mate.is_some() {
            "mate 0"
        } else {
            "cp 0"
        };
        return Ok(AnalysisView {
            best: None,
            score: score.into(),
            pv: Vec::new(),
            losing: Vec::new(),
            depth: 0,
            eval,
        });
    }
    let limits = Limits {
        depth: Some(limits.depth.max(1)),
        time: Some(limits.time),
        ..Limits::default()
    };
    let found = analyze(&pos, &Default::default(), &limits, 2, stop);
    Ok(AnalysisView {
        best: found.best.map(|m| pos.format_move(m)),
        score: found.score.to_string(),
        pv: arbiter_ai::alphabeta::format_line(&pos, &found.pv),
        losing: found
            .losing_moves
            .iter()
            .map(|&m| pos.format_move(m))
            .collect(),
        depth: found.depth,
        eval: Eval::of(found.score, pos.side_to_move()),
    })
}

struct Analyze<'a>(&'a GameRequest, EvalLimits, &'a AtomicBool);

impl GameVisitor for Analyze<'_> {
    type Output = Result<AnalysisView, ViewError>;
    fn visit<G: FullGame>(self, start: G) -> Self::Output {
        analysis(start, self.0, self.1, self.2)
    }
}

/// The analysis the page warns with and the analysis board shows, searched within `limits`;
/// `stop` ends it early.
pub fn analyze_request<C: Catalogue>(
    request: &GameRequest,
    limits: EvalLimits,
    stop: &AtomicBool,
) -> Result<AnalysisView, ViewError> {
    visit::<C, _, _>(request, Analyze(request, limits, stop))
}

#[cfg(test)]
mod tests;
