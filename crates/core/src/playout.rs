//! Random playouts: the standard throughput measure of a move generator under real play.

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

use crate::{Game, MoveList, Side, Status};

/// A uniformly random number below `n` (which must be positive) from 32 random bits: the high
/// half of their product with `n` (Lemire), redrawn only in the few cases that would favour some
/// results, found with an exact threshold. `gen_range`'s cheaper but cruder threshold redraws
/// nearly half the time for the small counts of a move list, and random games draw once a ply.
#[inline(always)]
pub fn below<R: RngCore + ?Sized>(rng: &mut R, n: u32) -> u32 {
    debug_assert!(n > 0);
    let mut product = u64::from(rng.next_u32()) * u64::from(n);
    if (product as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (product as u32) < threshold {
            product = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (product >> 32) as u32
}

/// What a batch of random playouts measured.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayoutStats {
    pub playouts: u64,
    pub total_plies: u64,
    /// How the games ended: won by the first player, won by the second, and the rest (drawn,
    /// or cut short at `max_plies`).
    pub results: [u64; 3],
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
/// ([`Game::random_playout`]), until the game has no legal move (it ended by its rules, or the side to
/// move is stuck) or `max_plies` were played. Deterministic for a given `seed`.
pub fn random_playouts<G: Game>(start: &G, count: u64, seed: u64, max_plies: u64) -> PlayoutStats {
    let mut rng = SmallRng::seed_from_u64(seed);
    let started = Instant::now();
    let mut total_plies = 0;
    let mut results = [0; 3];
    let mut moves = MoveList::new();
    for _ in 0..count {
        let mut game = start.clone();
        total_plies += game.random_playout(&mut rng, max_plies, &mut moves);
        results[result_index(game.status())] += 1;
    }
    PlayoutStats {
        playouts: count,
        total_plies,
        results,
        elapsed: started.elapsed(),
    }
}

/// Where a finished playout counts in [`PlayoutStats::results`].
fn result_index(status: Status) -> usize {
    match status {
        Status::Won(Side::First) => 0,
        Status::Won(Side::Second) => 1,
        Status::Drawn | Status::Ongoing => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_uniform_and_in_range() {
        let mut rng = SmallRng::seed_from_u64(3);
        for n in [1u32, 2, 3, 7, 40, 97] {
            let draws = 20_000 * n;
            let mut seen = vec![0u32; n as usize];
            for _ in 0..draws {
                seen[below(&mut rng, n) as usize] += 1;
            }
            // Each count is 20 000 give or take a few hundred (σ ≈ 141).
            assert!(
                seen.iter().all(|&c| c.abs_diff(20_000) < 800),
                "n {n}: {seen:?}"
            );
        }
    }

    #[test]
    fn below_redraws_exactly_the_biased_products() {
        /// Replays fixed 32-bit words.
        struct Words(Vec<u32>);
        impl RngCore for Words {
            fn next_u32(&mut self) -> u32 {
                self.0.remove(0)
            }
            fn next_u64(&mut self) -> u64 {
                u64::from(self.next_u32())
            }
            fn fill_bytes(&mut self, _: &mut [u8]) {
                unreachable!()
            }
            fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), rand::Error> {
                unreachable!()
            }
        }
        // For n = 3 the threshold is 2^32 mod 3 = 1: only a product whose low half is 0 is
        // redrawn, which 0 gives.
        assert_eq!(below(&mut Words(vec![0, u32::MAX]), 3), 2);
        assert_eq!(below(&mut Words(vec![1 << 31]), 3), 1);
        assert_eq!(below(&mut Words(vec![1]), 3), 0);
    }
}
