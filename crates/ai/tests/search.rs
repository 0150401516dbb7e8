//! The search is right, not only fast: on seeded random positions of every game, alpha-beta in
//! its plain mode (no table cut-offs, no quiescence) at a fixed depth returns exactly the value
//! of a slow, obvious minimax, and the full search's move is legal; `stop` ends a search.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use arbiter_ai::alphabeta::WIN;
use arbiter_ai::{AlphaBeta, AlphaBetaConfig, Evaluate, Limits, Score};
use arbiter_core::{Game, MoveList, Status};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Negamax over every move, nothing pruned: the value alpha-beta must reproduce.
fn minimax<G: Evaluate>(pos: &G, depth: u32, ply: i32, weights: &G::Weights) -> i32 {
    match pos.status() {
        Status::Drawn => return 0,
        Status::Won(side) if side == pos.side_to_move() => return WIN - ply,
        Status::Won(_) => return -(WIN - ply),
        Status::Ongoing => {}
    }
    if depth == 0 {
        return pos.evaluate(weights);
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        return -(WIN - ply);
    }
    moves
        .iter()
        .map(|&mv| {
            let mut child = pos.clone();
            child.play(mv);
            -minimax(&child, depth - 1, ply + 1, weights)
        })
        .max()
        .expect("moves")
}

/// `count` positions reached by up to `max_plies` seeded random moves from `start`.
fn random_positions<G: Game>(start: &G, count: usize, max_plies: usize, seed: u64) -> Vec<G> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut pos = start.clone();
            for _ in 0..rng.gen_range(0..=max_plies) {
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                if pos.status().is_over() || moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.gen_range(0..moves.len())]);
            }
            pos
        })
        .collect()
}

fn plain_search_equals_minimax<G: Evaluate>(start: G, depth: u32, count: usize, seed: u64) {
    let weights = G::Weights::default();
    let stop = AtomicBool::new(false);
    for (i, pos) in random_positions(&start, count, 40, seed).iter().enumerate() {
        let config = AlphaBetaConfig {
            plain: true,
            hash_bits: 12,
            ..Default::default()
        };
        let mut search = AlphaBeta::<G>::new(weights.clone(), config);
        let found = search.search(pos, &Limits::depth(depth), &stop, &mut |_| {});
        let expected = minimax(pos, depth, 0, &weights);
        assert_eq!(
            found.score,
            expected,
            "{} position {i} of seed {seed}, depth {depth}",
            std::any::type_name::<G>()
        );
    }
}

fn full_search_plays_legal_moves<G: Evaluate>(start: G, seed: u64) {
    let stop = AtomicBool::new(false);
    for pos in random_positions(&start, 12, 60, seed) {
        if pos.status().is_over() {
            continue;
        }
        let mut search = AlphaBeta::<G>::new(Default::default(), AlphaBetaConfig::default());
        let found = search.search(&pos, &Limits::depth(4), &stop, &mut |_| {});
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let best = found.best.expect("a move in a game not over");
        assert!(
            moves.contains(&best),
            "{}, seed {seed}: {best:?} is not legal",
            std::any::type_name::<G>()
        );
    }
}

#[test]
fn duck_chess_alpha_beta_is_minimax() {
    plain_search_equals_minimax(arbiter_duck::Position::initial(), 3, 12, 1);
    full_search_plays_legal_moves(arbiter_duck::Position::initial(), 2);
}

#[test]
fn surakarta_alpha_beta_is_minimax() {
    for (n, depth) in [(6, 4), (8, 3)] {
        let start = arbiter_surakarta::Position::new(n, 40).unwrap();
        plain_search_equals_minimax(start.clone(), depth, 12, n as u64);
        full_search_plays_legal_moves(start, 3);
    }
    // The 40-move rule decides close to the horizon: a short limit brings it inside.
    plain_search_equals_minimax(arbiter_surakarta::Position::new(6, 6).unwrap(), 4, 12, 9);
}

#[test]
fn rc02_alpha_beta_is_minimax() {
    for (n, depth) in [(4, 6), (6, 4), (8, 3)] {
        let start = arbiter_rc02::Position::initial(n).unwrap();
        plain_search_equals_minimax(start.clone(), depth, 12, n as u64);
        full_search_plays_legal_moves(start, 4);
    }
}

#[test]
fn stop_ends_a_search_that_has_no_other_limit() {
    let stop = AtomicBool::new(false);
    let pos = arbiter_duck::Position::initial();
    let mut search =
        AlphaBeta::<arbiter_duck::Position>::new(Default::default(), AlphaBetaConfig::default());
    let started = Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let found = search.search(&pos, &Limits::default(), &stop, &mut |_| {});
        assert!(found.best.is_some());
    });
    // A search that ignored `stop` would run for hours (depth 64); it must end soon after.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

/// Positions with a known forced result, searched with every pruning on: the reported mate
/// distance must be the true one (null moves, reductions and extensions must not bend it).
#[test]
fn mate_scores_are_exact_on_composed_positions() {
    let duck = |fen: &str| arbiter_duck::Position::from_fen(fen).unwrap();
    // Blue's lone captain is attacked on the e-file and both sides of it are covered: lost in 2.
    let lost = duck("4k4/9/9/9/9/9/9/9/9/K2RRR3 b");
    // Red's two cars drive the captain along the back rank: won in 5.
    let ladder = duck("4k4/9/9/9/9/9/9/9/R8/K7R r");
    for (pos, depth, expected) in [(lost, 4, -2), (ladder, 7, 5)] {
        for plain in [false, true] {
            let config = AlphaBetaConfig {
                plain,
                ..Default::default()
            };
            let mut search = AlphaBeta::<arbiter_duck::Position>::new(Default::default(), config);
            let found = search.search(
                &pos,
                &Limits::depth(depth),
                &AtomicBool::new(false),
                &mut |_| {},
            );
            assert_eq!(
                arbiter_ai::alphabeta::score_of(found.score),
                arbiter_ai::Score::Mate(expected),
                "plain {plain}: {pos:?}"
            );
        }
    }
}

/// Positions a few plies before seeded random games from `start` end (or stop at `max_plies`):
/// few pieces or an exposed captain, forced results near.
fn endings<G: Game>(start: &G, count: usize, max_plies: usize, seed: u64) -> Vec<G> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut scratch = MoveList::new();
    (0..count)
        .map(|_| {
            let mut line = vec![start.clone()];
            let mut pos = start.clone();
            while let Some(mv) = pos.random_move(&mut rng, &mut scratch) {
                pos.play(mv);
                line.push(pos.clone());
                if line.len() > max_plies {
                    break;
                }
            }
            let back = rng.gen_range(2..=8).min(line.len() - 1);
            line.swap_remove(line.len() - 1 - back)
        })
        .collect()
}

/// Pruning (null move, late move reductions and pruning, reverse futility) may miss a forced
/// result, but every one it reports must be real and at its true distance: plain alpha-beta
/// (equal to minimax) searched exactly that deep confirms it. Returns how many it checked.
fn mates_found_with_pruning_are_real<G: Evaluate>(
    positions: Vec<G>,
    depth: u32,
    config: AlphaBetaConfig,
) -> usize {
    let stop = AtomicBool::new(false);
    let mut checked = 0;
    for pos in positions {
        if pos.status().is_over() {
            continue;
        }
        let mut full = AlphaBeta::<G>::new(Default::default(), config);
        let found = full.search(&pos, &Limits::depth(depth), &stop, &mut |_| {});
        let Score::Mate(plies) = arbiter_ai::alphabeta::score_of(found.score) else {
            continue;
        };
        let plain_config = AlphaBetaConfig {
            plain: true,
            ..Default::default()
        };
        let mut plain = AlphaBeta::<G>::new(Default::default(), plain_config);
        let exact = plain.search(
            &pos,
            &Limits::depth(plies.unsigned_abs()),
            &stop,
            &mut |_| {},
        );
        assert_eq!(
            arbiter_ai::alphabeta::score_of(exact.score),
            Score::Mate(plies),
            "{pos:?}"
        );
        checked += 1;
    }
    checked
}

#[test]
fn surakarta_mates_found_with_pruning_are_real() {
    let start = arbiter_surakarta::Position::new(6, 40).unwrap();
    let checked = mates_found_with_pruning_are_real(
        endings(&start, 150, 2000, 21),
        6,
        AlphaBetaConfig::default(),
    );
    assert!(checked >= 20, "only {checked} forced results to check");
}

/// Duck Chess's own pruning (reverse futility near the horizon, null moves verified from depth
/// 6) at depth 8, on positions near the end of random games, where captains are exposed; with
/// the hashed history (`alphabeta:statistics=0`).
#[test]
fn duck_chess_mates_found_with_pruning_are_real() {
    let start = arbiter_duck::Position::initial();
    let config = AlphaBetaConfig {
        statistics: false,
        ..Default::default()
    };
    let checked = mates_found_with_pruning_are_real(endings(&start, 60, 400, 22), 8, config);
    assert!(checked >= 10, "only {checked} forced results to check");
}

/// The same with the default: Stockfish's statistics of quiet moves, their reductions and their
/// pruning near the horizon (`statistics=1:history_reduction=12288:history_pruning=3`).
#[test]
fn duck_chess_mates_found_with_statistics_are_real() {
    let start = arbiter_duck::Position::initial();
    let config = AlphaBetaConfig::default();
    assert!(config.statistics && config.history_reduction == 12_288);
    let checked = mates_found_with_pruning_are_real(endings(&start, 60, 400, 22), 8, config);
    assert!(checked >= 10, "only {checked} forced results to check");
}

/// The same with late moves reduced by the kind of node (more at expected cut nodes, less on
/// the principal variation): a reduction may miss a result, never invent one.
#[test]
fn duck_chess_mates_found_with_node_reductions_are_real() {
    let start = arbiter_duck::Position::initial();
    let config = AlphaBetaConfig {
        cut_reduction: 2,
        pv_reduction: 1,
        ..Default::default()
    };
    let checked = mates_found_with_pruning_are_real(endings(&start, 60, 400, 22), 8, config);
    assert!(checked >= 10, "only {checked} forced results to check");
}

/// The nodes a search of `start` to `depth` visits with `config`: whether a setting changes
/// the tree.
fn nodes_to_depth<G: Evaluate>(start: &G, depth: u32, config: AlphaBetaConfig) -> u64 {
    let stop = AtomicBool::new(false);
    let mut search = AlphaBeta::<G>::new(Default::default(), config);
    search
        .search(start, &Limits::depth(depth), &stop, &mut |_| {})
        .nodes
}

/// `singular=0`: the search without singular extensions.
fn without_singular_extensions() -> AlphaBetaConfig {
    AlphaBetaConfig {
        singular: false,
        ..Default::default()
    }
}

/// The same with singular extensions (Duck Chess's default): a multi-cut or an extension
/// decided by a search that leaves the table's move out may miss a result, never invent one.
/// They change the search (another tree from the start than `singular=0`'s), so this checks
/// something.
#[test]
fn duck_chess_mates_found_with_singular_extensions_are_real() {
    let start = arbiter_duck::Position::initial();
    let config = AlphaBetaConfig::default();
    let without = without_singular_extensions();
    assert_ne!(
        nodes_to_depth(&start, 9, config),
        nodes_to_depth(&start, 9, without)
    );
    let checked = mates_found_with_pruning_are_real(endings(&start, 60, 400, 22), 8, config);
    assert!(checked >= 10, "only {checked} forced results to check");
}

/// Singular extensions are Duck Chess's alone (only its runs showed them to pay): Surakarta's
/// search is the same tree with the setting on or off.
#[test]
fn surakarta_searches_without_singular_extensions() {
    let start = arbiter_surakarta::Position::new(6, 40).unwrap();
    let with = AlphaBetaConfig::default();
    let without = without_singular_extensions();
    assert_eq!(
        nodes_to_depth(&start, 9, with),
        nodes_to_depth(&start, 9, without)
    );
}

/// Surakarta names a recapture (a capture onto the point the last move landed on) for the
/// search's extension; a step there, or a capture elsewhere, is none. From an arena game.
#[test]
fn surakarta_recaptures_are_captures_onto_the_last_moves_point() {
    let mut pos = arbiter_surakarta::Position::new(6, 40).unwrap();
    let mut last = None;
    for text in "A2-B3 E5-D4 C2-D3 D5-E4 B3-A4 A5-B4 B2-C3 D6-D5".split(' ') {
        let mv = pos.parse_move(text).unwrap();
        pos.play(mv);
        last = Some(mv);
    }
    let capture = pos.parse_move("A4-C6").unwrap();
    assert!(pos.is_capture(capture));
    assert!(
        !pos.recaptures(last.unwrap(), capture),
        "D6-D5 landed on D5"
    );
    pos.play(capture);
    let recapture = pos.parse_move("B4-C6").unwrap();
    assert!(pos.recaptures(capture, recapture));
    let step = pos.parse_move("F5-F4").unwrap();
    assert!(!pos.recaptures(capture, step));
}

/// Duck Chess's pruning near the horizon (futility and late move pruning to depth 2, sparing a
/// move attacking the captain; reverse futility to depth 3) keeps the short wins: on positions
/// near the end of random games, every win plain alpha-beta (nothing pruned) finds at depth 5,
/// the full search at depth 5 finds too.
#[test]
fn duck_chess_pruning_keeps_the_wins_plain_search_finds() {
    let stop = AtomicBool::new(false);
    let depth = Limits::depth(5);
    let search = |plain: bool, pos: &arbiter_duck::Position| {
        let config = AlphaBetaConfig {
            plain,
            ..Default::default()
        };
        let mut player = AlphaBeta::<arbiter_duck::Position>::new(Default::default(), config);
        let found = player.search(pos, &depth, &stop, &mut |_| {});
        arbiter_ai::alphabeta::score_of(found.score)
    };
    let start = arbiter_duck::Position::initial();
    let mut wins = 0;
    for pos in endings(&start, 200, 400, 23) {
        if pos.status().is_over() || !matches!(search(true, &pos), Score::Mate(p) if p > 0) {
            continue;
        }
        wins += 1;
        let full = search(false, &pos);
        assert!(matches!(full, Score::Mate(p) if p > 0), "{full:?}: {pos:?}");
    }
    assert!(wins >= 30, "only {wins} wins to check");
}
