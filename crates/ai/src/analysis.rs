//! Position analysis for people: the best move, its score and line, and the moves that lose.

use std::sync::atomic::AtomicBool;

use arbiter_core::{MoveList, Status};

use crate::alphabeta::{score_of, AlphaBeta, AlphaBetaConfig, MATE_BOUND};
use crate::eval::Evaluate;
use crate::player::{Limits, Score};

/// What [`analyze`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis<M> {
    pub best: Option<M>,
    pub score: Score,
    pub depth: u32,
    pub pv: Vec<M>,
    /// Moves after which the opponent wins by force within `losing_depth` plies.
    pub losing_moves: Vec<M>,
}

/// Searches `game` within `limits`, then checks every legal move with a `losing_depth`-ply
/// search from the opponent's side: a move after which the opponent has a forced win is losing.
pub fn analyze<G: Evaluate>(
    game: &G,
    weights: &G::Weights,
    limits: &Limits,
    losing_depth: u32,
) -> Analysis<G::Move> {
    let stop = AtomicBool::new(false);
    let mut searcher = AlphaBeta::<G>::new(
        weights.clone(),
        AlphaBetaConfig {
            hash_bits: 16,
            ..Default::default()
        },
    );
    let result = searcher.search(game, limits, &stop, &mut |_| {});
    let mut moves = MoveList::new();
    game.legal_moves(&mut moves);
    let mover = game.side_to_move();
    let mut losing_moves = Vec::new();
    for &mv in moves.iter() {
        let mut child = game.clone();
        child.play(mv);
        let loses = match child.status() {
            Status::Won(side) => side != mover,
            Status::Drawn => false,
            Status::Ongoing => {
                let mut probe = AlphaBeta::<G>::new(
                    weights.clone(),
                    AlphaBetaConfig {
                        hash_bits: 12,
                        ..Default::default()
                    },
                );
                let found = probe.search(
                    &child,
                    &Limits::depth(losing_depth.max(1)),
                    &stop,
                    &mut |_| {},
                );
                found.score >= MATE_BOUND
            }
        };
        if loses {
            losing_moves.push(mv);
        }
    }
    Analysis {
        best: result.best,
        score: score_of(result.score),
        depth: result.depth,
        pv: result.pv,
        losing_moves,
    }
}
