//! Duck Chess: material, mobility, captain safety.

use arbiter_core::Side;
use arbiter_duck::{PieceKind, Position, Square};

use super::{weights, Evaluate};

weights!(
    /// Duck Chess weights. The captain has no material value: losing it ends the game.
    DuckWeights {
        guard = 120,
        elephant = 120,
        horse = 300,
        car = 600,
        duck = 300,
        soldier = 400,
        /// Per move more than the opponent.
        mobility = 4,
        /// Per enemy piece within two points of one's captain.
        captain_pressure = 25,
        /// Per own guard or elephant next to one's captain.
        captain_shield = 10,
    }
);

fn value(kind: PieceKind, w: &DuckWeights) -> i32 {
    match kind {
        PieceKind::Captain => 0,
        PieceKind::Guard => w.guard,
        PieceKind::Elephant => w.elephant,
        PieceKind::Horse => w.horse,
        PieceKind::Car => w.car,
        PieceKind::Duck => w.duck,
        PieceKind::Soldier => w.soldier,
    }
}

fn distance(a: Square, b: Square) -> u8 {
    a.x().abs_diff(b.x()).max(a.y().abs_diff(b.y()))
}

impl Evaluate for Position {
    type Weights = DuckWeights;

    fn evaluate(&self, w: &DuckWeights) -> i32 {
        let us = self.side_to_move();
        let captains = [self.captain(Side::First), self.captain(Side::Second)];
        let mut score = [0i32; 2];
        for (sq, piece) in self.pieces() {
            let s = piece.side.index();
            score[s] += value(piece.kind, w);
            if let Some(theirs) = captains[1 - s] {
                if piece.kind != PieceKind::Captain && distance(sq, theirs) <= 2 {
                    score[1 - s] -= w.captain_pressure;
                }
            }
            if let Some(ours) = captains[s] {
                if matches!(piece.kind, PieceKind::Guard | PieceKind::Elephant)
                    && distance(sq, ours) == 1
                {
                    score[s] += w.captain_shield;
                }
            }
        }
        let material = score[us.index()] - score[1 - us.index()];
        // Counting both sides' moves is most of a leaf's cost: skipped when it weighs nothing.
        if w.mobility == 0 {
            return material;
        }
        let mobility = self.count_moves_of(us) as i32 - self.count_moves_of(us.opponent()) as i32;
        material + w.mobility * mobility
    }

    fn order_hint(&self, mv: arbiter_duck::Move) -> i32 {
        match (self.piece_at(mv.to), self.piece_at(mv.from)) {
            (Some(victim), Some(attacker)) => {
                let w = DuckWeights::default();
                let v = if victim.kind == PieceKind::Captain {
                    100_000
                } else {
                    value(victim.kind, &w)
                };
                16 * v - value(attacker.kind, &w)
            }
            _ => 0,
        }
    }

    fn in_danger(&self) -> bool {
        let us = self.side_to_move();
        self.captain(us)
            .is_some_and(|c| self.attacks(us.opponent(), c))
    }

    /// Sound when the captain is safe: the searches only ask then, and a pass then is rarely
    /// better than the best move (verified by a shallower search at high depths).
    fn pass(&self) -> Option<Position> {
        let mut passed = self.clone();
        passed.set_side_to_move(self.side_to_move().opponent());
        Some(passed)
    }

    fn max_plies(&self) -> u32 {
        400
    }
}
