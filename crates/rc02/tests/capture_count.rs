//! `capture_count` (used by players) agrees with what playing the move captures.

use arbiter_core::MoveList;
use arbiter_rc02::Position;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn capture_count_matches_play(size in prop::sample::select(vec![4u8, 6, 8, 10]), seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut pos = Position::initial(size).unwrap();
        for _ in 0..300 {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            for &mv in moves.iter() {
                let mut after = pos.clone();
                prop_assert_eq!(pos.capture_count(mv) as usize, after.play(mv).len());
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            pos.play(mv);
        }
    }
}
