//! The judge on whole games: after a captain falls every operation is invalid.

use arbiter_core::MoveList;
use arbiter_duck::{judge_str, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn every_operation_after_the_end_is_invalid() {
    for seed in 0..20 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut pos = Position::initial();
        let mut ops = Vec::new();
        while !pos.is_over() {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            let mv = moves[rng.gen_range(0..moves.len())];
            ops.push(mv.to_judge());
            pos.play(mv);
        }
        // A move some piece could make if the game went on.
        let (from, _) = pos
            .pieces()
            .find(|&(s, _)| !pos.targets(s).is_empty())
            .unwrap();
        let to = pos.targets(from)[0];
        ops.push(format!("{} {} {} {}", from.x(), from.y(), to.x(), to.y()));
        let input = format!("{}\n{}\n", ops.len(), ops.join("\n"));
        let out = judge_str(&input).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), ops.len());
        assert!(
            lines[lines.len() - 2].ends_with("captain;no;yes"),
            "{}",
            lines[lines.len() - 2]
        );
        assert_eq!(lines[lines.len() - 1], "Invalid command");
        assert!(lines[..lines.len() - 2].iter().all(|l| l.ends_with(";no")));
    }
}
