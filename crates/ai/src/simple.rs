//! The two simple players: uniformly random, and one-ply greedy.

use std::sync::atomic::AtomicBool;

use arbiter_core::{Game, MoveList, Side, Status};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::eval::Evaluate;
use crate::player::{Limits, Player, SearchInfo};

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    rng: SmallRng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(
        &mut self,
        game: &G,
        _: &Limits,
        _: &AtomicBool,
        _: &mut dyn FnMut(&SearchInfo),
    ) -> Option<G::Move> {
        let mut moves = MoveList::new();
        game.legal_moves(&mut moves);
        (!moves.is_empty()).then(|| moves[self.rng.gen_range(0..moves.len())])
    }
}

/// Plays the move whose resulting position evaluates best (one ply), ties broken at random; a
/// move that wins at once is always taken.
pub struct GreedyPlayer<G: Evaluate> {
    rng: SmallRng,
    weights: G::Weights,
}

impl<G: Evaluate> GreedyPlayer<G> {
    pub fn new(seed: u64, weights: G::Weights) -> Self {
        GreedyPlayer {
            rng: SmallRng::seed_from_u64(seed),
            weights,
        }
    }
}

/// The value of the position after a move, for the player who made it.
pub(crate) fn value_after<G: Evaluate>(child: &G, mover: Side, weights: &G::Weights) -> i32 {
    match child.status() {
        Status::Won(side) if side == mover => i32::MAX,
        Status::Won(_) => i32::MIN + 1,
        Status::Drawn => 0,
        Status::Ongoing => -child.evaluate(weights),
    }
}

impl<G: Evaluate> Player<G> for GreedyPlayer<G> {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose(
        &mut self,
        game: &G,
        _: &Limits,
        _: &AtomicBool,
        _: &mut dyn FnMut(&SearchInfo),
    ) -> Option<G::Move> {
        let mut moves = MoveList::new();
        game.legal_moves(&mut moves);
        let mover = game.side_to_move();
        let mut best = Vec::new();
        let mut best_value = i32::MIN;
        for &mv in moves.iter() {
            let mut child = game.clone();
            child.play(mv);
            let value = value_after(&child, mover, &self.weights);
            if value > best_value {
                best_value = value;
                best.clear();
            }
            if value == best_value {
                best.push(mv);
            }
        }
        (!best.is_empty()).then(|| best[self.rng.gen_range(0..best.len())])
    }
}
