//! Judging moves and game ends exactly like the course's reference rule manager.

use arbiter_core::{MoveList, Side};

use crate::board::{Board, Move, Point};

pub use arbiter_core::outcome::{EndReason, MoveReason};

/// `B`, `W`, or `.` for no winner.
pub fn player_letter(player: Option<Side>) -> char {
    match player {
        Some(Side::First) => 'B',
        Some(Side::Second) => 'W',
        None => '.',
    }
}

/// Reads `B` or `W`.
pub fn parse_player(text: &str) -> Option<Side> {
    match text {
        "B" => Some(Side::First),
        "W" => Some(Side::Second),
        _ => None,
    }
}

/// A whole game: the board and the counters the course's rule manager keeps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub board: Board,
    pub current_player: Side,
    /// Starts at 1 and grows by one after every move that does not end the game.
    pub num_round: u32,
    /// The `num_round` of the last legal capture (0 before any).
    pub last_captured_round: u32,
    pub end_reason: EndReason,
    /// `None` is the course's `.`: no winner (yet, or a drawn stalemate).
    pub winner: Option<Side>,
    pub max_no_capture_round: u32,
}

/// What a game step decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepResult {
    pub reason: MoveReason,
    pub end: EndReason,
    pub winner: Option<Side>,
}

impl Position {
    /// A new game on an `n × n` board (`n` in 6, 8, 10, 12), black to move.
    pub fn new(n: u8, max_no_capture_round: u32) -> Option<Position> {
        Some(Position {
            board: Board::initial(n)?,
            current_player: Side::First,
            num_round: 1,
            last_captured_round: 0,
            end_reason: EndReason::None,
            winner: None,
            max_no_capture_round,
        })
    }

    pub fn size(&self) -> u8 {
        self.board.size()
    }

    pub fn is_over(&self) -> bool {
        self.end_reason != EndReason::None
    }

    /// Moves since the last capture as far as the no-capture rule can tell them apart: every
    /// count from `max_no_capture_round` up ends the game at the next quiet move alike.
    pub fn quiet_rounds(&self) -> u32 {
        self.num_round
            .saturating_sub(self.last_captured_round)
            .min(self.max_no_capture_round)
    }

    /// The reason for moving `from → to` as `player`, in the rules page's order. Coordinates
    /// may lie off the board. The game's end is not considered (the reference does not).
    pub fn judge_move(&self, from: (i64, i64), to: (i64, i64), player: Side) -> MoveReason {
        if player != self.current_player {
            return MoveReason::NotPlayerTurn;
        }
        let (Some(from), Some(to)) = (
            self.board.contains(from.0, from.1),
            self.board.contains(to.0, to.1),
        ) else {
            return MoveReason::OutOfBoard;
        };
        match self.board.get(from) {
            None => return MoveReason::NotPiece,
            Some(owner) if owner != player => return MoveReason::NotPlayerPiece,
            Some(_) => {}
        }
        if self.board.get(to) == Some(player.opponent()) {
            if self.board.can_capture(from, to) {
                MoveReason::LegalCaptureMove
            } else {
                MoveReason::IllegalCaptureMove
            }
        } else if self.board.get(to).is_none()
            && from.x.abs_diff(to.x) <= 1
            && from.y.abs_diff(to.y) <= 1
        {
            MoveReason::LegalNonCaptureMove
        } else {
            MoveReason::IllegalNonCaptureMove
        }
    }

    /// The end a move with `reason` would bring, judged before the move is applied.
    pub fn judge_end(&self, reason: MoveReason) -> (EndReason, Option<Side>) {
        let mover = self.current_player;
        let other = mover.opponent();
        if !reason.is_legal() {
            return (EndReason::IllegalMove, Some(other));
        }
        match reason {
            MoveReason::LegalCaptureMove if self.board.count(other) == 1 => {
                (EndReason::Checkmate, Some(mover))
            }
            MoveReason::LegalNonCaptureMove
                if self.num_round.saturating_sub(self.last_captured_round)
                    >= self.max_no_capture_round =>
            {
                let (mine, theirs) = (self.board.count(mover), self.board.count(other));
                let winner = match mine.cmp(&theirs) {
                    std::cmp::Ordering::Greater => Some(mover),
                    std::cmp::Ordering::Less => Some(other),
                    std::cmp::Ordering::Equal => None,
                };
                (EndReason::Stalemate, winner)
            }
            _ => (EndReason::None, None),
        }
    }

    /// A game step: judge the move and the end, then update the state as the course does.
    pub fn step(&mut self, from: (i64, i64), to: (i64, i64), player: Side) -> StepResult {
        let reason = self.judge_move(from, to, player);
        let (end, winner) = self.judge_end(reason);
        if reason.is_legal() {
            let from = Point::new(from.0 as u8, from.1 as u8);
            let to = Point::new(to.0 as u8, to.1 as u8);
            self.board.relocate(from, to);
        }
        self.finish_step(reason, end, winner);
        StepResult {
            reason,
            end,
            winner,
        }
    }

    fn finish_step(&mut self, reason: MoveReason, end: EndReason, winner: Option<Side>) {
        if reason == MoveReason::LegalCaptureMove {
            self.last_captured_round = self.num_round;
        }
        if end == EndReason::None {
            self.current_player = self.current_player.opponent();
            self.num_round += 1;
        } else {
            self.end_reason = end;
            self.winner = winner;
        }
    }

    /// Plays a move known to be legal for the side to move (from [`Position::legal_moves`]);
    /// the same state change as [`Position::step`] without re-judging the move.
    pub fn play_legal(&mut self, mv: Move) -> StepResult {
        let capture = self.board.get(mv.to()).is_some();
        let reason = if capture {
            MoveReason::LegalCaptureMove
        } else {
            MoveReason::LegalNonCaptureMove
        };
        let (end, winner) = self.judge_end(reason);
        self.board
            .move_piece(self.current_player, mv.from(), mv.to());
        self.finish_step(reason, end, winner);
        StepResult {
            reason,
            end,
            winner,
        }
    }

    /// Every legal move of the side to move; none once the game has ended.
    pub fn legal_moves(&self, out: &mut MoveList<Move>) {
        if !self.is_over() {
            self.board.moves(self.current_player, out);
        }
    }

    /// The legal destinations of the piece on `p` as if its owner were to move, each once,
    /// sorted by `(x, y)`; empty for an empty point. (The judge's `targets` command answers
    /// with the reference's quirks instead: see [`Position::reference_targets`].)
    pub fn targets(&self, p: Point) -> Vec<Point> {
        let mut out = self.board.capture_targets(p);
        if self.board.get(p).is_some() {
            out.extend(self.board.step_targets(p));
        }
        out.sort();
        out
    }

    /// Ends the game by `side` resigning.
    pub fn resign(&mut self, side: Side) {
        self.end_from_outside(EndReason::Resign, side);
    }

    /// Ends the game by `side` running out of time.
    pub fn time_out(&mut self, side: Side) {
        self.end_from_outside(EndReason::Timeout, side);
    }

    fn end_from_outside(&mut self, reason: EndReason, loser: Side) {
        if !self.is_over() {
            self.end_reason = reason;
            self.winner = Some(loser.opponent());
        }
    }
}
