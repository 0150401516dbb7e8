//! Perft: the number of leaves of the legal-move tree, the standard move-generator check.

use arbiter_core::MoveList;

use crate::position::{Move, Position};

/// Leaves `depth` plies below `pos`; a position where a captain has fallen has no moves.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(),
        _ => {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            moves
                .iter()
                .map(|&mv| {
                    let mut child = pos.clone();
                    child.play(mv);
                    perft(&child, depth - 1)
                })
                .sum()
        }
    }
}

/// Perft per first move, in the order of the move list sorted by notation.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves.sort_by_key(|mv| mv.to_string());
    moves
        .iter()
        .map(|&mv| {
            let mut child = pos.clone();
            child.play(mv);
            (mv, perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}
