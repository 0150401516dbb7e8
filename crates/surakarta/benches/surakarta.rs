use arbiter_core::Side;
use arbiter_surakarta::{perft, Board};
use criterion::{criterion_group, criterion_main, Criterion};

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("surakarta");
    group.sample_size(10);
    for n in [6u8, 12] {
        let start = Board::initial(n).unwrap();
        group.bench_function(format!("perft 4 on {n}x{n}"), |b| {
            b.iter(|| perft(&start, Side::First, 4))
        });
    }
    group.finish();
}

criterion_group!(surakarta, benches);
criterion_main!(surakarta);
