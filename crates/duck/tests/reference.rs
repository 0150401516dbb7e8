//! Property test: the table-driven generator and check detection agree with a slow, obvious
//! reading of the rules table (try all 90 targets for every piece) on positions of random play.

use arbiter_core::{MoveList, Side};
use arbiter_duck::{Move, Piece, PieceKind, Position, Square};
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

/// The moves `side` could make if it were to move.
fn slow_count(pos: &Position, side: Side) -> u64 {
    let mut pieces = pos.clone();
    pieces.set_side_to_move(side);
    Square::all()
        .filter(|&from| pos.piece_at(from).is_some_and(|p| p.side == side))
        .map(|from| {
            Square::all()
                .filter(|&to| slow_legal(&pieces, from, to))
                .count() as u64
        })
        .sum()
}

/// Whether a piece of `side` could move onto `target` were an enemy piece standing there.
fn slow_attacks(pos: &Position, side: Side, target: Square) -> bool {
    let mut probe = pos.clone();
    let victim = Piece::new(side.opponent(), PieceKind::Guard);
    probe.put(target, Some(victim));
    Square::all().any(|from| {
        from != target
            && pos.piece_at(from).is_some_and(|p| p.side == side)
            && slow_legal(&probe, from, target)
    })
}

/// The squares the piece on `from` could move to, were every piece of its own side there an
/// enemy.
fn slow_reach(pos: &Position, from: Square) -> u128 {
    let piece = pos.piece_at(from).unwrap();
    Square::all()
        .filter(|&to| to != from)
        .filter(|&to| {
            let mut probe = pos.clone();
            if probe.piece_at(to).is_some() {
                probe.put(
                    to,
                    Some(Piece::new(piece.side.opponent(), PieceKind::Guard)),
                );
            }
            slow_legal(&probe, from, to)
        })
        .fold(0, |acc, to| acc | 1u128 << to.index())
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
            let mut captures = MoveList::new();
            pos.capture_moves(&mut captures);
            let mut captures: Vec<Move> = captures.to_vec();
            captures.sort();
            let slow_captures: Vec<Move> =
                fast.iter().copied().filter(|m| pos.piece_at(m.to).is_some()).collect();
            prop_assert_eq!(captures, slow_captures);
            for side in Side::BOTH {
                prop_assert_eq!(pos.count_moves_of(side), slow_count(&pos, side));
                for target in Square::all() {
                    prop_assert_eq!(pos.attacks(side, target), slow_attacks(&pos, side, target),
                        "{:?} attacks {} in {:?}", side, target, pos);
                }
            }
            for (from, piece) in pos.pieces() {
                prop_assert_eq!(pos.reach(from, piece.kind), slow_reach(&pos, from), "{} in {:?}", from, pos);
            }
            if fast.is_empty() {
                break;
            }
            let mv = fast[rng.gen_range(0..fast.len())];
            pos.play(mv);
        }
    }
}
