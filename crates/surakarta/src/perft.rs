//! Perft on the board alone: the rules page's vectors have no game-end cut-offs.

use arbiter_core::{MoveList, Side};

use crate::board::{Board, Move};

/// Leaves `depth` plies below `board` with `side` to move.
pub fn perft(board: &Board, side: Side, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => board.count_moves(side),
        _ => {
            let mut moves = MoveList::new();
            board.moves(side, &mut moves);
            moves
                .iter()
                .map(|mv| {
                    let mut child = board.clone();
                    child.relocate(mv.from(), mv.to());
                    perft(&child, side.opponent(), depth - 1)
                })
                .sum()
        }
    }
}

/// Perft below each first move, sorted by the moves' notation.
pub fn divide(board: &Board, side: Side, depth: u32) -> Vec<(Move, u64)> {
    let mut moves = MoveList::new();
    board.moves(side, &mut moves);
    let mut out: Vec<(Move, u64)> = moves
        .iter()
        .map(|&mv| {
            let mut child = board.clone();
            child.relocate(mv.from(), mv.to());
            (mv, perft(&child, side.opponent(), depth.saturating_sub(1)))
        })
        .collect();
    out.sort_by_key(|(mv, _)| mv.to_string());
    out
}
