//! Search throughput per game: alpha-beta nodes per second (fixed depth) and MCTS playouts per
//! second (fixed iterations). `cargo bench -p arbiter-ai`; criterion reports time per search, and
//! the node counts printed once turn that into nodes/s.

use std::sync::atomic::AtomicBool;

use arbiter_ai::{AlphaBeta, AlphaBetaConfig, Evaluate, Limits, Mcts, MctsConfig};
use criterion::{criterion_group, criterion_main, Criterion};

fn bench_game<G: Evaluate + arbiter_core::Rules>(
    c: &mut Criterion,
    start: G,
    label: &str,
    depth: u32,
    iterations: u64,
) {
    let stop = AtomicBool::new(false);
    let mut group = c.benchmark_group(label);
    group.sample_size(10);
    let probe = AlphaBeta::<G>::new(Default::default(), AlphaBetaConfig::default()).search(
        &start,
        &Limits::depth(depth),
        &stop,
        &mut |_| {},
    );
    eprintln!(
        "{label}: alpha-beta depth {depth} visits {} nodes",
        probe.nodes
    );
    group.bench_function(
        format!("alphabeta depth {depth} ({} nodes)", probe.nodes),
        |b| {
            b.iter(|| {
                let mut ab = AlphaBeta::<G>::new(Default::default(), AlphaBetaConfig::default());
                ab.search(&start, &Limits::depth(depth), &stop, &mut |_| {})
                    .nodes
            })
        },
    );
    group.bench_function(format!("mcts {iterations} playouts"), |b| {
        b.iter(|| {
            let mut mcts = Mcts::<G>::new(1, MctsConfig::default(), Default::default());
            mcts.search(
                &start,
                &Limits {
                    iterations: Some(iterations),
                    ..Limits::default()
                },
                &stop,
            )
            .iterations
        })
    });
    group.finish();
}

fn search(c: &mut Criterion) {
    bench_game(c, arbiter_duck::Position::initial(), "duck", 5, 2000);
    bench_game(
        c,
        arbiter_surakarta::Position::new(6, 40).unwrap(),
        "surakarta 6x6",
        7,
        5000,
    );
    bench_game(
        c,
        arbiter_rc02::Position::initial(6).unwrap(),
        "rc02 6x6",
        8,
        1000,
    );
}

criterion_group!(benches, search);
criterion_main!(benches);
