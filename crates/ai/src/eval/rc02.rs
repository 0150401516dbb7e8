//! The RC-02 game: material, mobility, capture threats.

use arbiter_core::{MoveList, Side};
use arbiter_rc02::{Move, Position};

use super::{weights, Evaluate};

weights!(
    /// RC-02 weights.
    Rc02Weights {
        piece = 100,
        /// Per move more than the opponent.
        mobility = 3,
        /// Per enemy piece the side to move's best capture would take.
        threat = 60,
        /// Per own piece the opponent's best capture would take.
        exposed = 40,
    }
);

/// The most pieces one move of `side` captures.
fn best_capture(pos: &Position, side: Side) -> u32 {
    let mut moves = MoveList::new();
    pos.moves_of(side, &mut moves);
    moves
        .iter()
        .map(|&mv| pos.capture_count(mv))
        .max()
        .unwrap_or(0)
}

impl Evaluate for Position {
    type Weights = Rc02Weights;
    type Tables = ();

    fn evaluate(&self, w: &Rc02Weights) -> i32 {
        let us = self.side_to_move();
        let them = us.opponent();
        let material = self.count(us) as i32 - self.count(them) as i32;
        let mobility = self.count_moves_of(us) as i32 - self.count_moves_of(them) as i32;
        w.piece * material + w.mobility * mobility + w.threat * best_capture(self, us) as i32
            - w.exposed * best_capture(self, them) as i32
    }

    fn order_hint(&self, mv: Move) -> i32 {
        self.capture_count(mv) as i32 * 100
    }

    fn max_plies(&self) -> u32 {
        400
    }
}
