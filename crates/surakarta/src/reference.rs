//! The course reference's capture list, reproduced entry for entry for the judge's `targets`.
//!
//! The reference builds, after every board update, a list of captures *for the side to move*
//! by walking each circuit's four lines in track order (a piece on a crossing is listed on both
//! of its lines) and pairing each non-empty line `P` with the next non-empty line `Q`:
//! * `P`'s last piece `a` and `Q`'s first piece `b` are different pieces of different colours:
//!   whichever of them belongs to the side to move captures the other;
//! * they are the same piece `a` (it stands on the crossing of `P` and `Q`): `a` captures `Q`'s
//!   second piece, and `P`'s second-to-last piece, when of the other colour and `a` is to move.
//!
//! As a *set* this equals the physical rule (travel the track, never blocked by oneself, at
//! least one arc) — tested against the track walker — but it can hold a capture twice (two
//! routes). Its `GetAllLegalTarget(p)` then lists, besides the empty neighbours of `p`, the
//! other end of every entry that has `p` at either end: for a piece of the side *not* to move
//! that is the pieces able to capture it, not its own captures. The reference data (the course's
//! hand-made positions) shows exactly this, so `arbiter judge surakarta` reproduces it; the
//! library's [`Position::targets`] is the plain "as if its owner were to move" answer.

use arbiter_core::Side;

use crate::board::{Move, Point};
use crate::rules::Position;

/// The reference's capture list for `mover`, duplicates included.
pub fn capture_list(state: &Position, mover: Side) -> Vec<Move> {
    state.board.listed_captures(mover)
}

impl Position {
    /// The reference's `GetAllLegalTarget(p)`: the empty neighbours of the piece on `p`, plus the
    /// other end of every entry of the side to move's capture list that touches `p`; sorted by
    /// `(x, y)`, duplicates kept. Empty for an empty point.
    pub fn reference_targets(&self, p: Point) -> Vec<Point> {
        if self.board.get(p).is_none() {
            return vec![];
        }
        let mut out = self.board.step_targets(p);
        for mv in capture_list(self, self.current_player) {
            if mv.from() == p {
                out.push(mv.to());
            }
            if mv.to() == p {
                out.push(mv.from());
            }
        }
        out.sort();
        out
    }
}
