//! The RC-02 line-capture game (Luogu "[RC-02] 游戏"), exactly as `docs/rules/rc02.md`.
//!
//! Points the problem's own commentary gets wrong and the rules page settles:
//! * a line captures only when the mover's pieces and the enemy's form two unbroken blocks that
//!   touch (`own…own enemy…enemy` with no gap, empty cells only at the line's ends) — the
//!   commentary's sample code also captures when the blocks are apart;
//! * only the moved piece's row and column are looked at, each on its own;
//! * the end is checked after the captures: the loser's count first, then red without a move,
//!   then blue without a move; once the game is over the rest of the input is ignored, even an
//!   illegal move (sample 4).
//!
//! Sides: `First` is red (`h`), `Second` is blue (`l`). The problem knows no draw and a game can
//! go on forever; a game played through the registry (engine, arena, server, page) is drawn
//! after `max_no_capture_round` plies in a row without a capture ([`DEFINITION`], default 80).
//! [`Position::initial`] and the judge play without that rule.

mod definition;
mod judge;
mod notation;
mod position;

pub use arbiter_core::JudgeError;
pub use definition::{DEFAULT_MAX_NO_CAPTURE_ROUND, DEFINITION};
pub use judge::{judge, judge_str};
pub use position::{Cell, IllegalMove, Move, Position, MAX_SIZE};

use arbiter_core::{Game, MoveList, ParseMoveError, Side, Status};

/// `red` or `blue`.
pub fn side_name(side: Side) -> &'static str {
    crate::definition::DEFINITION.side(side).name
}

impl Game for Position {
    type Move = Move;

    fn side_to_move(&self) -> Side {
        Position::side_to_move(self)
    }

    fn legal_moves(&self, out: &mut MoveList<Move>) {
        Position::legal_moves(self, out)
    }

    fn play(&mut self, mv: Move) {
        Position::play(self, mv);
    }

    fn status(&self) -> Status {
        match self.winner() {
            Some(side) => Status::Won(side),
            None if self.is_drawn() => Status::Drawn,
            None => Status::Ongoing,
        }
    }

    fn hash(&self) -> u64 {
        Position::hash(self)
    }

    /// Whether the move captures (the row or column it completes takes enemy pieces).
    fn is_capture(&self, mv: Move) -> bool {
        self.capture_count(mv) > 0
    }

    fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        Position::parse_move(self, text)
    }

    fn format_move(&self, mv: Move) -> String {
        mv.to_string()
    }

    fn ply(&self) -> u32 {
        Position::ply(self)
    }
}
