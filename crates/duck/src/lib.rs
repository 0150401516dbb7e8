//! Duck Chess (鸭棋), the THUPC 2019 game (Luogu P5380), exactly as `docs/rules/duck.md`.
//!
//! Things the official data settles that the statement leaves implicit:
//! * the check flag is computed for *both* sides after every legal move: a side that walks its
//!   own captain into attack makes the position a check as much as one that attacks;
//! * once a captain is captured there is no check, and every later operation is invalid;
//! * there is no flying-captains rule, no palace and no river; soldiers move one point in any of
//!   the eight directions from the start.
//!
//! One rule is the project's, not P5380's: a game played through the registry (engine, arena,
//! server, page) is drawn after `max_no_capture_round` plies in a row without a capture
//! ([`DEFINITION`], default 80), so two bots cannot cycle forever. [`Position::initial`] and the
//! judge play without it.
//!
//! The board is red's point of view: row `x = 0` is red's back rank, column `y = 0` red's left.

mod board;
mod definition;
mod judge;
mod notation;
mod perft;
mod position;
mod render;
mod tables;

pub use arbiter_core::JudgeError;
pub use board::{side_name, Piece, PieceKind, Square, COLUMNS, ROWS, SQUARES};
pub use definition::{DEFAULT_MAX_NO_CAPTURE_ROUND, DEFINITION};
pub use judge::{judge, judge_str};
pub use notation::{FenError, INITIAL_FEN};
pub use perft::{divide, perft};
pub use position::{Move, MoveEffect, Position};
pub use render::Colouring;

use arbiter_core::{Game, MoveList, ParseMoveError, Side, Status};

impl Game for Position {
    type Move = Move;

    fn side_to_move(&self) -> Side {
        Position::side_to_move(self)
    }

    fn legal_moves(&self, out: &mut MoveList<Move>) {
        Position::legal_moves(self, out)
    }

    /// Each piece's reach against the enemy's squares: the quiet moves are never listed.
    fn capture_moves(&self, out: &mut MoveList<Move>) {
        Position::capture_moves(self, out)
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

    fn is_capture(&self, mv: Move) -> bool {
        self.piece_at(mv.to).is_some()
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
