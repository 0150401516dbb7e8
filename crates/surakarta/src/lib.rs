//! Surakarta as the course's reference rule manager plays it (`docs/rules/surakarta.md`),
//! on every even board from 6×6 to 12×12.
//!
//! * [`Position`] judges moves ([`MoveReason`], in the rules page's order) and ends
//!   ([`EndReason`]), and steps the game exactly as the reference does (`num_round`,
//!   `last_captured_round`, `end_reason`, `winner`).
//! * [`Board`] generates moves: steps to the eight neighbours, and captures by travelling the
//!   precomputed circuit tracks ([`geometry`]); [`Board::capture_path`] gives a capture's route
//!   with its arcs for animation.
//! * [`notation`] has square names (`A1`), the course's position file and record notation.
//! * [`judge`] runs the judge command stream of `arbiter judge surakarta`.
//!
//! What the reference data settled: a piece never blocks itself, even when its track passes its
//! own starting point again (at a crossing, or after a full loop); captures need at least one
//! arc but may pass several; an illegal move loses for the side to move even when a player
//! moved out of turn (winner is the side *not* to move's opponent… that is, `O` of the rules).
//!
//! A side with no legal move is not an end the reference ever reports (`TRAPPED` is unused: the
//! course expects a trapped side to resign). Through [`arbiter_core::Game`] such a side **loses**:
//! its status is a win for the other side, which is what a resignation would give.

mod board;
mod definition;
pub mod endgame;
pub mod geometry;
pub mod judge;
mod judge_record;
pub mod notation;
mod perft;
mod playout;
mod point;
pub mod reference;
mod rules;

pub use arbiter_core::JudgeError;
pub use board::{Board, Move, PathNode, Point};
pub use definition::DEFINITION;
pub use geometry::{geometry, Geometry, SIZES};
pub use judge::{judge, judge_str};
pub use judge_record::judge_record;
pub use notation::{Record, RecordError};
pub use perft::{divide, perft};
pub use rules::{parse_player, player_letter, EndReason, MoveReason, Position, StepResult};

use arbiter_core::{zobrist, Game, MoveList, ParseMoveError, Side, Status};

const WHITE_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x5A4A_CA47_0000_0002)[0];
const COUNTER_SALT: u64 = 0x5A4A_CA47_0000_0003;
const END_SALT: u64 = 0x5A4A_CA47_0000_0004;

/// `black` or `white`.
pub fn side_name(side: Side) -> &'static str {
    crate::definition::DEFINITION.side(side).name
}

impl Game for Position {
    type Move = Move;

    /// The course keeps `current_player` on the mover when a move ends the game; for players the
    /// side "to move" after the end is the other one, as after any other move.
    fn side_to_move(&self) -> Side {
        match self.end_reason {
            EndReason::Stalemate | EndReason::Checkmate => self.current_player.opponent(),
            _ => self.current_player,
        }
    }

    fn legal_moves(&self, out: &mut MoveList<Move>) {
        Position::legal_moves(self, out)
    }

    /// Walks the circuits only: the steps, most of the moves, are never built.
    fn capture_moves(&self, out: &mut MoveList<Move>) {
        if !self.is_over() {
            self.board.captures(self.current_player, out);
        }
    }

    /// Picks without listing the moves ([`Board::choose_move`]).
    fn random_move<R: rand::Rng>(
        &self,
        rng: &mut R,
        _scratch: &mut MoveList<Move>,
    ) -> Option<Move> {
        if self.is_over() {
            return None;
        }
        self.board.choose_move(self.current_player, |count| {
            arbiter_core::playout::below(rng, count)
        })
    }

    /// On 6×6 a whole game in the compact form of [`playout`]: the same games as move by move,
    /// without the hash and piece lists a search needs.
    fn random_playout<R: rand::Rng>(
        &mut self,
        rng: &mut R,
        max_plies: u64,
        scratch: &mut MoveList<Move>,
    ) -> u64 {
        if self.size() == 6 && !self.is_over() {
            return playout::random_playout_6x6(self, rng, max_plies);
        }
        arbiter_core::play_random_moves(self, rng, max_plies, scratch)
    }

    fn play(&mut self, mv: Move) {
        self.play_legal(mv);
    }

    fn status(&self) -> Status {
        match (self.end_reason, self.winner) {
            (EndReason::None, _) => {
                if self.board.has_move(self.current_player) {
                    Status::Ongoing
                } else {
                    Status::Won(self.current_player.opponent())
                }
            }
            (_, Some(side)) => Status::Won(side),
            (_, None) => Status::Drawn,
        }
    }

    /// The board, the side to move, the no-capture count (which decides when and how the game
    /// ends), the limit itself, and the end once there is one.
    fn hash(&self) -> u64 {
        let side = if self.current_player == Side::Second {
            WHITE_TO_MOVE_KEY
        } else {
            0
        };
        let counters = u64::from(self.quiet_rounds()) | u64::from(self.max_no_capture_round) << 32;
        let mut key = self.board.hash() ^ side ^ zobrist::number_key(COUNTER_SALT, counters);
        if self.end_reason != EndReason::None {
            let winner = self.winner.map_or(2, |w| w.index() as u64);
            key ^= zobrist::number_key(END_SALT, u64::from(self.end_reason.code()) * 4 + winner);
        }
        key
    }

    fn is_capture(&self, mv: Move) -> bool {
        self.board.get(mv.to()).is_some()
    }

    fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        let n = self.size();
        let mv = Move::parse(text.trim(), n).ok_or_else(|| {
            ParseMoveError::new(
                text,
                format!(
                    "expected FROM-TO with squares A1..{} like A2-B3",
                    Point::new(n - 1, n - 1)
                ),
            )
        })?;
        if self.is_over() {
            return Err(ParseMoveError::new(text, "the game is over"));
        }
        let reason = self.judge_move(
            (mv.from().x as i64, mv.from().y as i64),
            (mv.to().x as i64, mv.to().y as i64),
            self.current_player,
        );
        if reason.is_legal() {
            Ok(mv)
        } else {
            Err(ParseMoveError::new(text, format!("illegal here: {reason}")))
        }
    }

    fn format_move(&self, mv: Move) -> String {
        mv.to_string()
    }

    fn ply(&self) -> u32 {
        self.num_round - 1
    }
}
