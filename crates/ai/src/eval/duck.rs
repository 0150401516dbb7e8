//! Duck Chess: material, mobility, captain safety.
//!
//! Everything comes from the position's square sets (bit `x * 9 + y`): each piece's reach once
//! ([`Position::reach`]), its moves the reach off its own side's squares, and the squares near a
//! captain a precomputed mask.

use arbiter_core::Side;
use arbiter_duck::{PieceKind, Position, Square, SQUARES};

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

/// `WITHIN[r - 1][sq]`: the squares at most `r` rows and `r` columns from `sq`, `sq` itself not.
static WITHIN: std::sync::LazyLock<[[u128; SQUARES]; 2]> = std::sync::LazyLock::new(|| {
    let mut within = [[0; SQUARES]; 2];
    for (r, masks) in within.iter_mut().enumerate() {
        for (sq, mask) in masks.iter_mut().enumerate() {
            let here = Square::from_index(sq).expect("a square");
            *mask = Square::all()
                .filter(|&s| s != here && distance(s, here) <= r as u8 + 1)
                .fold(0, |acc, s| acc | 1u128 << s.index());
        }
    }
    within
});

fn distance(a: Square, b: Square) -> u8 {
    a.x().abs_diff(b.x()).max(a.y().abs_diff(b.y()))
}

/// One side's share of the evaluation: material, captain safety, and how many moves it has.
fn side_terms(pos: &Position, side: Side, w: &DuckWeights) -> (i32, u32) {
    let own = pos.side_set(side);
    let enemies = pos.side_set(side.opponent());
    let mut material = 0;
    let mut moves = 0;
    pos.for_each_reach(side, |kind, _, reach| {
        material += value(kind, w);
        moves += (reach & !own).count_ones();
    });
    if let Some(captain) = pos.captain(side) {
        let [near, close] = [0, 1].map(|r| WITHIN[r][captain.index()]);
        let attackers = close & enemies & !pos.kind_set(PieceKind::Captain);
        let shield =
            near & own & (pos.kind_set(PieceKind::Guard) | pos.kind_set(PieceKind::Elephant));
        material += w.captain_shield * shield.count_ones() as i32
            - w.captain_pressure * attackers.count_ones() as i32;
    }
    (material, moves)
}

impl Evaluate for Position {
    type Weights = DuckWeights;

    fn evaluate(&self, w: &DuckWeights) -> i32 {
        let us = self.side_to_move();
        let (ours, our_moves) = side_terms(self, us, w);
        let (theirs, their_moves) = side_terms(self, us.opponent(), w);
        ours - theirs + w.mobility * (our_moves as i32 - their_moves as i32)
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

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_core::MoveList;
    use rand::{Rng, SeedableRng};

    /// The evaluation as first written: every point of the board looked at, every move counted.
    fn slow_evaluate(pos: &Position, w: &DuckWeights) -> i32 {
        let us = pos.side_to_move();
        let captains = [pos.captain(Side::First), pos.captain(Side::Second)];
        let mut score = [0i32; 2];
        for (sq, piece) in pos.pieces() {
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
        let mobility = pos.count_moves_of(us) as i32 - pos.count_moves_of(us.opponent()) as i32;
        material + w.mobility * mobility
    }

    #[test]
    fn the_set_evaluation_is_the_point_by_point_one() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
        let w = DuckWeights::default();
        for _ in 0..200 {
            let mut pos = Position::initial();
            let mut moves = MoveList::new();
            for _ in 0..rng.gen_range(0..150) {
                moves.clear();
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.gen_range(0..moves.len())]);
                if !pos.is_over() {
                    assert_eq!(pos.evaluate(&w), slow_evaluate(&pos, &w), "{pos:?}");
                }
            }
        }
    }
}
