use arbiter_core::{Game, MoveList, Side};
use arbiter_surakarta::{perft, Board, Position};
use criterion::{criterion_group, criterion_main, Criterion};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Positions met in seeded random games on 6x6, the boards a random playout generates moves on.
fn playout_positions(count: usize) -> Vec<(Board, Side)> {
    let mut rng = SmallRng::seed_from_u64(3);
    let mut positions = Vec::with_capacity(count);
    let mut moves = MoveList::new();
    while positions.len() < count {
        let mut game = Position::new(6, 40).unwrap();
        loop {
            moves.clear();
            game.legal_moves(&mut moves);
            if moves.is_empty() || positions.len() == count {
                break;
            }
            positions.push((game.board.clone(), game.current_player));
            game.play(moves[rng.gen_range(0..moves.len())]);
        }
    }
    positions
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("surakarta");
    group.sample_size(10);
    for n in [6u8, 12] {
        let start = Board::initial(n).unwrap();
        group.bench_function(format!("perft 4 on {n}x{n}"), |b| {
            b.iter(|| perft(&start, Side::First, 4))
        });
    }
    let positions = playout_positions(1000);
    let mut list = MoveList::new();
    group.bench_function("moves of 1000 playout positions", |b| {
        b.iter(|| {
            let mut total = 0;
            for (board, side) in &positions {
                list.clear();
                board.moves(*side, &mut list);
                total += list.len();
            }
            total
        })
    });
    let mut rng = SmallRng::seed_from_u64(5);
    group.bench_function("choose_move of 1000 playout positions", |b| {
        b.iter(|| {
            let picks = positions
                .iter()
                .map(|(board, side)| board.choose_move(*side, |count| rng.gen_range(0..count)));
            picks.flatten().count()
        })
    });
    group.bench_function("count_moves of 1000 playout positions", |b| {
        b.iter(|| {
            let counts = positions
                .iter()
                .map(|(board, side)| board.count_moves(*side));
            counts.sum::<u64>()
        })
    });
    group.bench_function("step_counts of 1000 playout positions", |b| {
        b.iter(|| {
            let counts = positions.iter().map(|(board, _)| board.step_counts()[0]);
            counts.sum::<u32>()
        })
    });
    group.bench_function("capture_summaries of 1000 playout positions", |b| {
        b.iter(|| {
            let counts = positions
                .iter()
                .map(|(board, _)| board.capture_summaries()[0].0);
            counts.sum::<u32>()
        })
    });
    group.finish();
}

criterion_group!(surakarta, benches);
criterion_main!(surakarta);
