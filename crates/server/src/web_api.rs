//! The JSON the browser page needs: positions to draw with their legal moves and capture
//! routes, the AI's move, and the analysis that warns before a losing move. Stateless: each
//! request carries the game's settings and its moves so far.

use std::sync::atomic::AtomicBool;

use arbiter_ai::engine::EngineGame;
use arbiter_ai::{analyze, Level, Limits, PlayerSpec};
use arbiter_core::{MoveList, Side, Status};
use serde::{Deserialize, Serialize};

use crate::games::GameKind;

/// A request about a game: what is played and the moves so far.
#[derive(Clone, Debug, Deserialize)]
pub struct GameRequest {
    pub game: String,
    pub size: Option<u8>,
    pub max_no_capture_round: Option<u32>,
    #[serde(default)]
    pub moves: Vec<String>,
    /// For `/api/ai`: `easy`, `medium` or `hard`.
    pub level: Option<String>,
    pub seed: Option<u64>,
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
    /// In words, once the game is over.
    pub end: Option<String>,
    pub legal: Vec<MoveView>,
    pub last: Option<MoveView>,
    /// Duck Chess: a captain can be taken.
    pub check: bool,
    pub ply: usize,
    /// The first move of the request that could not be played (the rest were ignored).
    pub rejected: Option<Rejected>,
}

/// What the page needs of a game beyond the Game trait.
pub trait WebGame: EngineGame {
    fn kind() -> GameKind;
    fn grid(&self) -> (u8, u8);
    fn squares(&self) -> Vec<SquareView>;
    fn path(&self, _mv: Self::Move) -> Option<Vec<PathView>> {
        None
    }
    fn check(&self) -> bool {
        false
    }
    fn end_text(&self) -> Option<String> {
        None
    }
}

fn piece(kind: GameKind, side: Side, name: Option<&'static str>) -> PieceView {
    PieceView {
        side: if side == Side::First {
            "first"
        } else {
            "second"
        },
        colour: kind.colour_word(side),
        kind: name,
    }
}

impl WebGame for arbiter_surakarta::GameState {
    fn kind() -> GameKind {
        GameKind::Surakarta
    }

    fn grid(&self) -> (u8, u8) {
        (self.size(), self.size())
    }

    fn squares(&self) -> Vec<SquareView> {
        let n = self.size();
        let mut out = Vec::new();
        for y in (0..n).rev() {
            for x in 0..n {
                let p = arbiter_surakarta::Point::new(x, y);
                out.push(SquareView {
                    name: p.name(),
                    col: x,
                    row: n - 1 - y,
                    piece: self
                        .board
                        .get(p)
                        .map(|s| piece(GameKind::Surakarta, s, None)),
                });
            }
        }
        out
    }

    fn path(&self, mv: arbiter_surakarta::Move) -> Option<Vec<PathView>> {
        let n = self.size();
        let route = self.board.capture_path(mv.from(), mv.to())?;
        Some(
            route
                .into_iter()
                .map(|node| match node {
                    arbiter_surakarta::PathNode::Point(p) => PathView::Point {
                        col: p.x,
                        row: n - 1 - p.y,
                    },
                    arbiter_surakarta::PathNode::Arc { circuit, corner } => PathView::Arc {
                        col: corner.x,
                        row: n - 1 - corner.y,
                        radius: circuit,
                    },
                })
                .collect(),
        )
    }

    fn end_text(&self) -> Option<String> {
        (self.end_reason != arbiter_surakarta::EndReason::None)
            .then(|| self.end_reason.name().to_lowercase())
    }
}

impl WebGame for arbiter_duck::Position {
    fn kind() -> GameKind {
        GameKind::Duck
    }

    fn grid(&self) -> (u8, u8) {
        (9, 10)
    }

    fn squares(&self) -> Vec<SquareView> {
        arbiter_duck::Square::all()
            .map(|sq| SquareView {
                name: sq.to_string(),
                col: sq.y(),
                row: 9 - sq.x(),
                piece: self
                    .piece_at(sq)
                    .map(|p| piece(GameKind::Duck, p.side, Some(p.kind.name()))),
            })
            .collect()
    }

    fn check(&self) -> bool {
        self.is_check()
    }

    fn end_text(&self) -> Option<String> {
        self.is_over().then(|| "captain captured".to_string())
    }
}

impl WebGame for arbiter_rc02::Position {
    fn kind() -> GameKind {
        GameKind::Rc02
    }

    fn grid(&self) -> (u8, u8) {
        (self.size(), self.size())
    }

    fn squares(&self) -> Vec<SquareView> {
        let n = self.size();
        let mut out = Vec::new();
        for row in 0..n {
            for col in 0..n {
                let cell = arbiter_rc02::Cell::new(row, col);
                out.push(SquareView {
                    name: cell.name(),
                    col,
                    row,
                    piece: self.get(cell).map(|s| piece(GameKind::Rc02, s, None)),
                });
            }
        }
        out
    }

    fn end_text(&self) -> Option<String> {
        let winner = self.winner()?;
        Some(if self.count(winner.opponent()) <= self.size() as u32 / 2 {
            "too few pieces left".to_string()
        } else {
            "no move left".to_string()
        })
    }
}

fn move_view<G: WebGame>(pos: &G, mv: G::Move) -> MoveView {
    let text = pos.format_move(mv);
    let (from, to) = text
        .split_once('-')
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .unwrap_or_default();
    let capture = pos.is_capture(mv);
    let path = if capture { pos.path(mv) } else { None };
    MoveView {
        text,
        from,
        to,
        capture,
        path,
    }
}

/// Plays the request's moves from `start` (stopping at the first illegal one).
fn replay<G: WebGame>(start: G, moves: &[String]) -> (G, Option<MoveView>, Option<Rejected>) {
    let mut pos = start;
    let mut last = None;
    for (index, text) in moves.iter().enumerate() {
        match pos.parse_move(text) {
            Ok(mv) => {
                last = Some(move_view(&pos, mv));
                pos.play(mv);
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
                )
            }
        }
    }
    (pos, last, None)
}

fn describe<G: WebGame>(start: G, moves: &[String]) -> StateView {
    let (pos, last, rejected) = replay(start, moves);
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let (status, winner) = match pos.status() {
        Status::Ongoing => ("ongoing", None),
        Status::Drawn => ("drawn", None),
        Status::Won(side) => ("won", Some(G::kind().colour_word(side))),
    };
    let (cols, rows) = pos.grid();
    StateView {
        game: G::kind().name(),
        cols,
        rows,
        squares: pos.squares(),
        to_move: G::kind().colour_word(pos.side_to_move()),
        status,
        winner,
        end: if status == "ongoing" {
            None
        } else {
            pos.end_text().or_else(|| Some("no legal move".into()))
        },
        legal: list.iter().map(|&mv| move_view(&pos, mv)).collect(),
        last,
        check: pos.check(),
        ply: rejected.as_ref().map_or(moves.len(), |r| r.index),
        rejected,
    }
}

/// Calls `f` with the request's start position, whichever game it is.
macro_rules! with_game {
    ($request:expr, |$start:ident| $body:expr) => {{
        let r = $request;
        match r.game.as_str() {
            "surakarta" => {
                let size = r.size.unwrap_or(6);
                let $start = arbiter_surakarta::GameState::new(
                    size,
                    r.max_no_capture_round.unwrap_or(40),
                )
                .ok_or_else(|| format!("surakarta size must be 6, 8, 10 or 12, not {size}"))?;
                Ok($body)
            }
            "duck" => {
                let $start = arbiter_duck::Position::initial();
                Ok($body)
            }
            "rc02" => {
                let size = r.size.unwrap_or(6);
                let $start = arbiter_rc02::Position::initial(size).ok_or_else(|| {
                    format!("rc02 size must be an even number from 4 to 10, not {size}")
                })?;
                Ok($body)
            }
            other => Err(format!("unknown game `{other}` (surakarta, duck, rc02)")),
        }
    }};
}

pub fn state(request: &GameRequest) -> Result<StateView, String> {
    with_game!(request, |start| describe(start, &request.moves))
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AiMove {
    #[serde(rename = "move")]
    pub text: Option<String>,
}

fn ai_move<G: WebGame>(start: G, request: &GameRequest) -> Result<AiMove, String> {
    let (pos, _, rejected) = replay(start, &request.moves);
    if let Some(r) = rejected {
        return Err(format!("move {} `{}`: {}", r.index + 1, r.text, r.reason));
    }
    let level = request.level.as_deref().unwrap_or("medium");
    // Only the named levels: a full player spec would let any page ask for outside programs,
    // hour-long searches or gigabyte hash tables.
    let spec: PlayerSpec = match level {
        "easy" => Level::Easy.spec(G::name_of()),
        "medium" => Level::Medium.spec(G::name_of()),
        "hard" => Level::Hard.spec(G::name_of()),
        other => {
            return Err(format!(
                "unknown level `{}`: easy, medium or hard",
                arbiter_core::text::shorten(other)
            ))
        }
    };
    let mut player = spec
        .build::<G>(request.seed.unwrap_or(1))
        .map_err(|e| e.to_string())?;
    let mut limits = spec.limits(Some(1000));
    // Never let a page wait more than five seconds.
    limits.time = Some(limits.time.map_or(std::time::Duration::from_secs(5), |t| {
        t.min(std::time::Duration::from_secs(5))
    }));
    let stop = AtomicBool::new(false);
    let mv = player.choose(&pos, &limits, &stop, &mut |_| {});
    Ok(AiMove {
        text: mv.map(|m| pos.format_move(m)),
    })
}

pub fn ai(request: &GameRequest) -> Result<AiMove, String> {
    with_game!(request, |start| ai_move(start, request)?)
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AnalysisView {
    pub best: Option<String>,
    pub score: String,
    pub pv: Vec<String>,
    /// Moves after which the opponent wins by force within a few plies.
    pub losing: Vec<String>,
}

fn analysis<G: WebGame>(start: G, request: &GameRequest) -> Result<AnalysisView, String> {
    let (pos, _, rejected) = replay(start, &request.moves);
    if let Some(r) = rejected {
        return Err(format!("move {} `{}`: {}", r.index + 1, r.text, r.reason));
    }
    let found = analyze(
        &pos,
        &Default::default(),
        &Limits {
            depth: Some(3),
            time: Some(std::time::Duration::from_millis(500)),
            ..Limits::default()
        },
        2,
    );
    Ok(AnalysisView {
        best: found.best.map(|m| pos.format_move(m)),
        score: found.score.to_string(),
        pv: arbiter_ai::alphabeta::format_line(&pos, &found.pv),
        losing: found
            .losing_moves
            .iter()
            .map(|&m| pos.format_move(m))
            .collect(),
    })
}

pub fn analyze_request(request: &GameRequest) -> Result<AnalysisView, String> {
    with_game!(request, |start| analysis(start, request)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(game: &str, moves: &[&str]) -> GameRequest {
        GameRequest {
            game: game.into(),
            size: None,
            max_no_capture_round: None,
            moves: moves.iter().map(|s| s.to_string()).collect(),
            level: Some("easy".into()),
            seed: None,
        }
    }

    #[test]
    fn states_of_every_game() {
        let s = state(&request("surakarta", &["A2-A3"])).unwrap();
        assert_eq!((s.cols, s.rows, s.squares.len()), (6, 6, 36));
        assert_eq!(s.to_move, "WHITE");
        assert_eq!(s.last.unwrap().text, "A2-A3");
        assert_eq!(s.legal.len(), 16);
        let d = state(&request("duck", &[])).unwrap();
        assert_eq!(d.legal.len(), 43);
        let red_captain = d.squares.iter().find(|q| q.name == "e0").unwrap();
        assert_eq!((red_captain.col, red_captain.row), (4, 9));
        assert_eq!(red_captain.piece.as_ref().unwrap().kind, Some("captain"));
        let r = state(&request("rc02", &["a3-b3", "bogus"])).unwrap();
        assert_eq!(r.ply, 1);
        assert_eq!(r.rejected.unwrap().index, 1);
        assert!(state(&request("chess", &[])).is_err());
    }

    #[test]
    fn capture_paths_for_the_page() {
        // Black on A2 takes white on B1 round the bottom-left arc (with C2 closing the other way).
        let mut start = arbiter_surakarta::GameState::new(6, 40).unwrap();
        start.board = arbiter_surakarta::Board::empty(6).unwrap();
        for (x, y, side) in [
            (0, 1, Side::First),
            (2, 1, Side::First),
            (1, 0, Side::Second),
            (5, 5, Side::Second),
        ] {
            start
                .board
                .set(arbiter_surakarta::Point::new(x, y), Some(side));
        }
        let view = describe(start, &[]);
        let capture = view
            .legal
            .iter()
            .find(|m| m.text == "A2-B1")
            .expect("the capture is legal");
        let path = capture.path.as_ref().unwrap();
        assert!(
            path.iter().any(|p| matches!(
                p,
                PathView::Arc {
                    radius: 1,
                    col: 0,
                    row: 5
                }
            )),
            "{path:?}"
        );
    }

    #[test]
    fn the_ai_answers_and_analysis_warns() {
        let m = ai(&request("rc02", &[])).unwrap();
        assert!(m.text.is_some());
        for spec in ["alphabeta:hash=4096", "command:/bin/sh", ""] {
            let mut r = request("duck", &[]);
            r.level = Some(spec.into());
            let e = ai(&r).unwrap_err();
            assert!(e.contains("easy, medium or hard"), "{e}");
        }
        let a = analyze_request(&request("surakarta", &[])).unwrap();
        assert!(a.best.is_some());
    }
}
