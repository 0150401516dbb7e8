//! Writes an arena suite of Surakarta 6×6 endings: random games from the start, each cut right
//! after the capture that first leaves 4 against 4 or 4 against 3 (a fresh no-capture count),
//! kept when a depth-8 search (no tables) finds it within half a piece of level — random
//! endings are mostly decided at once, and a decided start measures nothing. A match from them
//! starts where endgame tables are near. `cargo run --release -p arbiter-ai --example
//! ending_suite -- COUNT SEED > tests/data/endings/surakarta-6-endings.txt`

use std::sync::atomic::AtomicBool;

use arbiter_ai::{AlphaBeta, AlphaBetaConfig, Limits};
use arbiter_core::{Game, MoveList, Side};
use arbiter_surakarta::Position;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// Kept openings score within this many centipawns of level at depth 8.
const MAX_EVAL: i32 = 50;

fn level(pos: &Position) -> bool {
    let mut ab = AlphaBeta::<Position>::new(Default::default(), AlphaBetaConfig::default());
    let stop = AtomicBool::new(false);
    let found = ab.search(pos, &Limits::depth(8), &stop, &mut |_| {});
    found.score.abs() <= MAX_EVAL
}

/// A random game's moves up to the first 4-4 or 4-3 position just after a capture, if it
/// reaches one before it ends.
fn ending_line(rng: &mut StdRng) -> Option<Vec<String>> {
    let mut pos = Position::new(6, 40).expect("6 is a size");
    let mut scratch = MoveList::new();
    let mut line = Vec::new();
    while !pos.status().is_over() {
        let mv = pos.random_move(rng, &mut scratch)?;
        line.push(pos.format_move(mv));
        pos.play(mv);
        let counts = [Side::First, Side::Second].map(|s| pos.board.count(s));
        let (most, least) = (counts[0].max(counts[1]), counts[0].min(counts[1]));
        if pos.quiet_rounds() == 1 && most <= 4 && !pos.status().is_over() {
            return (most == 4 && least >= 3 && level(&pos)).then_some(line);
        }
    }
    None
}

fn main() {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut rng = StdRng::seed_from_u64(seed);
    println!("#! game=surakarta size=6");
    println!(
        "# arbiter ending suite: random games cut after the capture that first leaves 4-4 or 4-3,"
    );
    println!("# kept when a depth-8 search finds them within {MAX_EVAL} cp of level");
    println!(
        "# made by: cargo run --release -p arbiter-ai --example ending_suite -- {count} {seed}"
    );
    let mut made = 0;
    while made < count {
        if let Some(line) = ending_line(&mut rng) {
            println!("{}", line.join(" "));
            made += 1;
        }
    }
}
