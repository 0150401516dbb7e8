//! Search throughput: alpha-beta nodes per second, MCTS playouts per second, and how late a
//! time-limited search answers.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use arbiter_core::MoveList;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::eval::Evaluate;
use crate::player::{Limits, SearchInfo};
use crate::spec::{PlayerSpec, SpecError};

/// What [`search_bench`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchBench {
    pub positions: usize,
    /// Nodes (alpha-beta) or playouts (MCTS) in all searches.
    pub nodes: u64,
    pub elapsed: Duration,
    /// Mean depth of the last report of each search.
    pub mean_depth: f64,
    /// The most any search answered after its time budget.
    pub worst_lateness: Duration,
}

impl SearchBench {
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Runs the player of `spec` for `ms` milliseconds on `positions` positions: the start and
/// positions a few random plies into the game.
pub fn search_bench<G: Evaluate + arbiter_core::Rules>(
    start: &G,
    spec: &PlayerSpec,
    ms: u64,
    positions: usize,
    seed: u64,
) -> Result<SearchBench, SpecError> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut player = spec.build::<G>(seed)?;
    let budget = Duration::from_millis(ms);
    let limits = Limits {
        time: Some(budget),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let mut result = SearchBench {
        positions: 0,
        nodes: 0,
        elapsed: Duration::ZERO,
        mean_depth: 0.0,
        worst_lateness: Duration::ZERO,
    };
    let mut depth_sum = 0u64;
    for i in 0..positions {
        let mut pos = start.clone();
        for _ in 0..(i * 3) {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            pos.play(mv);
        }
        if pos.status().is_over() {
            continue;
        }
        let mut last: Option<SearchInfo> = None;
        let began = Instant::now();
        player.new_game();
        player.choose(&pos, &limits, &stop, &mut |info| last = Some(info.clone()));
        let took = began.elapsed();
        result.elapsed += took;
        result.worst_lateness = result.worst_lateness.max(took.saturating_sub(budget));
        if let Some(info) = last {
            result.nodes += info.nodes;
            depth_sum += info.depth as u64;
        }
        result.positions += 1;
    }
    result.mean_depth = depth_sum as f64 / result.positions.max(1) as f64;
    Ok(result)
}
