//! Property test: the table-driven generator and check detection agree with a slow, obvious
//! reading of the rules table (try all 90 targets for every piece) on positions of random play.

use arbiter_core::{MoveList, Side};
use arbiter_duck::{Move, PieceKind, Position, Square};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn occupied(pos: &Position, x: i64, y: i64) -> bool {
    Square::new(x, y).is_some_and(|s| pos.piece_at(s).is_some())
}

/// The rules page's table, read literally.
fn slow_legal(pos: &Position, from: Square, to: Square) -> bool {
    let Some(piece) = pos.piece_at(from) else {
        return false;
    };
    if from == to || pos.piece_at(to).is_some_and(|p| p.side == piece.side) {
        return false;
    }
    let (x, y) = (from.x() as i64, from.y() as i64);
    let (dx, dy) = (to.x() as i64 - x, to.y() as i64 - y);
    let (sx, sy) = (dx.signum(), dy.signum());
    let (ax, ay) = (dx.abs(), dy.abs());
    match piece.kind {
        PieceKind::Captain => ax + ay == 1,
        PieceKind::Guard => ax == 1 && ay == 1,
        PieceKind::Elephant => ax == 2 && ay == 2 && !occupied(pos, x + sx, y + sy),
        PieceKind::Horse => {
            (ax == 2 && ay == 1 && !occupied(pos, x + sx, y))
                || (ax == 1 && ay == 2 && !occupied(pos, x, y + sy))
        }
        PieceKind::Car => {
            (dx == 0) != (dy == 0)
                && (1..ax.max(ay)).all(|i| !occupied(pos, x + i * sx, y + i * sy))
        }
        PieceKind::Duck => {
            (ax == 3 && ay == 2 && !occupied(pos, x + sx, y) && !occupied(pos, x + 2 * sx, y + sy))
                || (ax == 2
                    && ay == 3
                    && !occupied(pos, x, y + sy)
                    && !occupied(pos, x + sx, y + 2 * sy))
        }
        PieceKind::Soldier => ax.max(ay) == 1,
    }
}

fn slow_moves(pos: &Position) -> Vec<Move> {
    if pos.is_over() {
        return vec![];
    }
    let mut out = vec![];
    for from in Square::all() {
        if pos
            .piece_at(from)
            .is_some_and(|p| p.side == pos.side_to_move())
        {
            out.extend(
                Square::all()
                    .filter(|&to| slow_legal(pos, from, to))
                    .map(|to| Move::new(from, to)),
            );
        }
    }
    out.sort();
    out
}

fn slow_check(pos: &Position) -> bool {
    if pos.is_over() {
        return false;
    }
    Side::BOTH.into_iter().any(|side| {
        let Some(captain) = pos.captain(side.opponent()) else {
            return false;
        };
        Square::all().any(|from| {
            pos.piece_at(from).is_some_and(|p| p.side == side) && slow_legal(pos, from, captain)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn fast_generator_agrees_with_the_rules_table(seed in any::<u64>(), plies in 0usize..160) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut pos = Position::initial();
        for _ in 0..plies {
            let mut fast = MoveList::new();
            pos.legal_moves(&mut fast);
            let mut fast: Vec<Move> = fast.to_vec();
            fast.sort();
            prop_assert_eq!(&fast, &slow_moves(&pos), "moves differ in {:?}", pos);
            prop_assert_eq!(pos.is_check(), slow_check(&pos), "check differs in {:?}", pos);
            for from in Square::all() {
                let slow: Vec<Square> = Square::all().filter(|&to| slow_legal(&pos, from, to)).collect();
                prop_assert_eq!(pos.targets(from), slow);
            }
            if fast.is_empty() {
                break;
            }
            let mv = fast[rng.gen_range(0..fast.len())];
            pos.play(mv);
        }
    }
}
