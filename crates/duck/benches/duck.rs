use arbiter_duck::{judge, perft, Position};
use criterion::{criterion_group, criterion_main, Criterion};

fn perft_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("duck");
    group.sample_size(10);
    let start = Position::initial();
    group.bench_function("perft 4", |b| b.iter(|| perft(&start, 4)));
    let input = judge_input(100_000);
    group.bench_function("judge 100k operations", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(3_000_000);
            judge(input.as_bytes(), &mut out).unwrap();
            out.len()
        })
    });
    group.finish();
}

/// Operations that cycle the two cars back and forth, with an invalid one now and then.
fn judge_input(n: usize) -> String {
    let cycle = ["0 0 1 0", "9 0 8 0", "1 0 0 0", "8 0 9 0", "5 5 5 5"];
    let mut s = format!("{n}\n");
    for i in 0..n {
        s.push_str(cycle[i % cycle.len()]);
        s.push('\n');
    }
    s
}

criterion_group!(benches, perft_bench);
criterion_main!(benches);
