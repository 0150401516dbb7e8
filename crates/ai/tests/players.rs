//! Players on every game: legal answers, forced wins found, losing moves flagged, determinism.

use std::sync::atomic::AtomicBool;

use arbiter_ai::{analyze, AlphaBeta, AlphaBetaConfig, Evaluate, Limits, PlayerSpec, Score};
use arbiter_core::{Game, MoveList, Side};

fn legal<G: Game>(game: &G, mv: G::Move) -> bool {
    let mut moves = MoveList::new();
    game.legal_moves(&mut moves);
    moves.contains(&mv)
}

fn every_spec_plays_a_legal_move<G: Evaluate + arbiter_core::Rules>(start: G) {
    let stop = AtomicBool::new(false);
    for text in [
        "random",
        "greedy",
        "alphabeta:depth=2",
        "mcts:iterations=200",
        "easy",
        "medium:ms=20",
        "hard:ms=20",
    ] {
        let spec: PlayerSpec = text.parse().unwrap();
        let mut player = spec.build::<G>(7).unwrap();
        let limits = spec.resolve(G::definition().id).limits(Some(50));
        let mv = player
            .choose(&start, &limits, &stop, &mut |_| {})
            .expect("a move");
        assert!(
            legal(&start, mv),
            "{text} played an illegal move on {}",
            G::definition().id
        );
    }
}

#[test]
fn every_player_on_every_game() {
    every_spec_plays_a_legal_move(arbiter_duck::Position::initial());
    for n in [6, 8, 12] {
        every_spec_plays_a_legal_move(arbiter_surakarta::Position::new(n, 40).unwrap());
    }
    for n in [4, 6, 10] {
        every_spec_plays_a_legal_move(arbiter_rc02::Position::initial(n).unwrap());
    }
}

#[test]
fn alphabeta_takes_a_winning_capture() {
    // Red's car can take blue's captain along the e-file.
    let pos = arbiter_duck::Position::from_fen("4k4/9/9/9/9/9/9/9/9/3KR4 r").unwrap();
    let stop = AtomicBool::new(false);
    let mut ab =
        AlphaBeta::<arbiter_duck::Position>::new(Default::default(), AlphaBetaConfig::default());
    let result = ab.search(&pos, &Limits::depth(3), &stop, &mut |_| {});
    assert_eq!(
        result.best.map(|m| m.to_string()),
        Some("e0-e9".to_string())
    );
    assert_eq!(
        arbiter_ai::alphabeta::score_of(result.score),
        Score::Mate(1)
    );
}

#[test]
fn alphabeta_wins_a_surakarta_endgame() {
    // White's last piece can be captured: black wins at once (a CHECKMATE end).
    let text = ". . . . . . \nB . . . . . \n. . . . . . \n. . . . . . \n. . . . . . \n. . . . W . \n\
                current_player: B\nnum_round: 9\nlast_captured_round: 0\nend_reason: NONE\nwinner: .\nmax_no_capture_round: 40\n";
    let state = arbiter_surakarta::Position::from_position_file(text).unwrap();
    let stop = AtomicBool::new(false);
    let mut ab = AlphaBeta::<arbiter_surakarta::Position>::new(
        Default::default(),
        AlphaBetaConfig::default(),
    );
    let result = ab.search(&state, &Limits::depth(4), &stop, &mut |_| {});
    let best = result.best.unwrap();
    let mut after = state.clone();
    after.play(best);
    assert_eq!(
        after.status(),
        arbiter_core::Status::Won(Side::First),
        "{best:?}"
    );
}

#[test]
fn analysis_flags_the_losing_moves() {
    // Red's captain on e0 must not step onto the d-file that blue's car controls.
    let pos = arbiter_duck::Position::from_fen("3r4k/9/9/9/9/9/9/9/9/4K4 r").unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let found = analyze(&pos, &Default::default(), &Limits::depth(3), 2, &stop);
    let losing: Vec<String> = found.losing_moves.iter().map(|m| m.to_string()).collect();
    assert_eq!(losing, vec!["e0-d0".to_string()]);
    assert!(found.best.is_some_and(|m| m.to_string() != "e0-d0"));
}

#[test]
fn same_seed_same_game() {
    let start = arbiter_rc02::Position::initial(6).unwrap();
    let play = |spec: &str| {
        let spec: PlayerSpec = spec.parse().unwrap();
        let stop = AtomicBool::new(false);
        let mut players = [
            spec.build::<arbiter_rc02::Position>(11).unwrap(),
            spec.build::<arbiter_rc02::Position>(12).unwrap(),
        ];
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for ply in 0..30 {
            if pos.status().is_over() {
                break;
            }
            let mv = players[ply % 2]
                .choose(&pos, &spec.limits(None), &stop, &mut |_| {})
                .unwrap();
            moves.push(mv);
            pos.play(mv);
        }
        moves
    };
    for spec in [
        "random",
        "greedy",
        "mcts:iterations=300",
        "alphabeta:depth=3",
    ] {
        assert_eq!(play(spec), play(spec), "{spec}");
    }
}

#[test]
fn node_limits_are_honoured() {
    let start = arbiter_surakarta::Position::new(6, 40).unwrap();
    let stop = AtomicBool::new(false);
    let mut ab = AlphaBeta::<arbiter_surakarta::Position>::new(
        Default::default(),
        AlphaBetaConfig::default(),
    );
    let limits = Limits {
        nodes: Some(5_000),
        ..Limits::default()
    };
    let result = ab.search(&start, &limits, &stop, &mut |_| {});
    assert!(result.nodes <= 5_000);
    assert!(result.best.is_some());
    // A stop request ends the search at once.
    let stop = AtomicBool::new(true);
    let result = ab.search(&start, &Limits::default(), &stop, &mut |_| {});
    assert!(result.best.is_some());
}
