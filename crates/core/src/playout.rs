//! Random playouts: the standard throughput measure of a move generator under real play.

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::{Game, MoveList};

/// What a batch of random playouts measured.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayoutStats {
    pub playouts: u64,
    pub total_plies: u64,
    pub elapsed: Duration,
}

impl PlayoutStats {
    pub fn playouts_per_second(&self) -> f64 {
        self.playouts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn mean_plies(&self) -> f64 {
        self.total_plies as f64 / (self.playouts.max(1)) as f64
    }
}

/// Plays `count` games from `start`: each ply plays a legal move chosen uniformly at random
/// ([`Game::random_move`]), until the game has no legal move (it ended by its rules, or the side to
/// move is stuck) or `max_plies` were played. Deterministic for a given `seed`.
pub fn random_playouts<G: Game>(start: &G, count: u64, seed: u64, max_plies: u64) -> PlayoutStats {
    let mut rng = SmallRng::seed_from_u64(seed);
    let started = Instant::now();
    let mut total_plies = 0;
    let mut moves = MoveList::new();
    for _ in 0..count {
        let mut game = start.clone();
        for _ in 0..max_plies {
            let Some(mv) = game.random_move(&mut rng, &mut moves) else {
                break;
            };
            game.play(mv);
            total_plies += 1;
        }
    }
    PlayoutStats {
        playouts: count,
        total_plies,
        elapsed: started.elapsed(),
    }
}
