//! The compact 6×6 playout (`Game::random_playout`) against the move-by-move loop it replaces:
//! for the same random numbers both must play the same game — the same final board, side to
//! move, counters and end — from the start and from random positions, whatever the no-capture
//! limit and wherever the ply cap cuts the game off.

use arbiter_core::{play_random_moves, Game, MoveList, Side};
use arbiter_surakarta::{Board, Point, Position};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Plays from `start` both ways with the random numbers of `seed`; the final states and plies.
fn both_ways(start: &Position, seed: u64, max_plies: u64) -> [(Position, u64); 2] {
    let mut scratch = MoveList::new();
    let mut by_moves = start.clone();
    let plies = play_random_moves(
        &mut by_moves,
        &mut SmallRng::seed_from_u64(seed),
        max_plies,
        &mut scratch,
    );
    let mut compact = start.clone();
    let compact_plies =
        compact.random_playout(&mut SmallRng::seed_from_u64(seed), max_plies, &mut scratch);
    [(by_moves, plies), (compact, compact_plies)]
}

/// A 6×6 game state with pieces scattered at `density`, either side to move, and counters
/// anywhere below the no-capture `limit` (or past it).
fn random_state(density: f64, limit: u32, seed: u64) -> Position {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut board = Board::empty(6).unwrap();
    let mut counts = [0; 2];
    for y in 0..6 {
        for x in 0..6 {
            let side = Side::from_index(rng.gen_range(0..2));
            if rng.gen_bool(density) && counts[side.index()] < 12 {
                counts[side.index()] += 1;
                board.set(Point::new(x, y), Some(side));
            }
        }
    }
    let mut state = Position::new(6, limit).unwrap();
    state.board = board;
    state.current_player = Side::from_index(rng.gen_range(0..2));
    state.num_round = rng.gen_range(1..200);
    state.last_captured_round = rng.gen_range(0..state.num_round);
    state
}

#[test]
fn from_the_start_both_play_the_same_games() {
    for limit in [40, 10, 3, 1, 0] {
        let start = Position::new(6, limit).unwrap();
        for seed in 0..300 {
            let [by_moves, compact] = both_ways(&start, seed, u64::MAX);
            assert_eq!(by_moves, compact, "limit {limit}, seed {seed}");
            assert!(by_moves.0.is_over() || by_moves.1 > 0);
        }
    }
}

#[test]
fn other_sizes_and_finished_games_play_move_by_move() {
    let mut start = Position::new(8, 40).unwrap();
    let [by_moves, other] = both_ways(&start, 7, u64::MAX);
    assert_eq!(by_moves, other);
    start.resign(Side::First);
    let mut finished = Position::new(6, 40).unwrap();
    finished.resign(Side::Second);
    for state in [start, finished] {
        let mut played = state.clone();
        let plies =
            played.random_playout(&mut SmallRng::seed_from_u64(1), 100, &mut MoveList::new());
        assert_eq!((played, plies), (state, 0));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// From crowded and sparse positions, with the ply cap anywhere in the game.
    #[test]
    fn from_random_positions_both_play_the_same_games(
        density in 0.05f64..1.0,
        limit in prop::sample::select(vec![0u32, 1, 5, 40, 300]),
        max_plies in prop::sample::select(vec![0u64, 1, 2, 5, 30, u64::MAX]),
        seed in any::<u64>(),
    ) {
        let start = random_state(density, limit, seed);
        let [by_moves, compact] = both_ways(&start, seed ^ 0x5EED, max_plies);
        prop_assert_eq!(&by_moves, &compact, "from\n{:?}", start.board);
    }
}
