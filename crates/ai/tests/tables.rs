//! Alpha-beta with Surakarta's endgame tables: it keeps every win the tables see, and plays a
//! won ending out to the win.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use arbiter_ai::alphabeta::PROVEN_BOUND;
use arbiter_ai::{AlphaBeta, AlphaBetaConfig, Limits, PlayerSpec};
use arbiter_core::{Game, Side, Status};
use arbiter_surakarta::endgame::{Tables, Wdl, LIMIT};
use arbiter_surakarta::{Board, Point, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn random_position(rng: &mut StdRng, ours: usize, theirs: usize) -> Position {
    let mut pos = Position::new(6, LIMIT).unwrap();
    pos.board = Board::empty(6).unwrap();
    pos.current_player = if rng.gen() { Side::First } else { Side::Second };
    for (side, count) in [
        (pos.current_player, ours),
        (pos.current_player.opponent(), theirs),
    ] {
        let mut placed = 0;
        while placed < count {
            let p = Point::new(rng.gen_range(0..6), rng.gen_range(0..6));
            if pos.board.get(p).is_none() {
                pos.board.set(p, Some(side));
                placed += 1;
            }
        }
    }
    pos.num_round = 100;
    pos.last_captured_round = 100 - rng.gen_range(1..=LIMIT);
    pos
}

/// Won positions (for the side to move) of small materials.
fn won_positions(tables: &Tables, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let (a, b) = [(2, 2), (2, 1), (1, 2), (1, 1)][rng.gen_range(0..4)];
        let pos = random_position(&mut rng, a, b);
        if tables.probe(&pos) == Some(Wdl::Win) {
            found.push(pos);
        }
    }
    found
}

fn player(tables: &Arc<Tables>) -> AlphaBeta<Position> {
    AlphaBeta::new(Default::default(), AlphaBetaConfig::default()).with_tables(tables.clone())
}

#[test]
fn with_tables_every_chosen_move_keeps_the_win() {
    let tables = Arc::new(Tables::build(2, &mut |_| {}));
    let stop = AtomicBool::new(false);
    for pos in won_positions(&tables, 150, 1) {
        let result = player(&tables).search(&pos, &Limits::depth(3), &stop, &mut |_| {});
        let mut after = pos.clone();
        after.play(result.best.unwrap());
        let kept = match after.status() {
            Status::Won(side) => side == pos.current_player,
            Status::Drawn => false,
            Status::Ongoing => tables.probe(&after) == Some(Wdl::Loss),
        };
        assert!(kept, "{}", pos.to_position_file());
        assert!(result.score >= PROVEN_BOUND, "score {}", result.score);
    }
}

#[test]
fn with_tables_a_won_ending_is_played_out_to_the_win() {
    let tables = Arc::new(Tables::build(2, &mut |_| {}));
    let stop = AtomicBool::new(false);
    for start in won_positions(&tables, 12, 2) {
        let winner = start.current_player;
        let mut pos = start.clone();
        let mut players = [player(&tables), player(&tables)];
        while !pos.status().is_over() {
            let side = pos.current_player.index();
            let result = players[side].search(&pos, &Limits::depth(2), &stop, &mut |_| {});
            pos.play(result.best.unwrap());
        }
        assert_eq!(
            pos.status(),
            Status::Won(winner),
            "{}",
            start.to_position_file()
        );
    }
}

#[test]
fn a_table_spec_names_what_is_missing() {
    let spec: PlayerSpec = "alphabeta:tables=/nonexistent/tables".parse().unwrap();
    let e = spec.build::<Position>(1).err().unwrap().to_string();
    assert!(
        e.contains("/nonexistent/tables/surakarta6-1v1.tbl") && e.contains("arbiter tables"),
        "{e}"
    );
    let e = spec
        .build::<arbiter_duck::Position>(1)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("no endgame tables"), "{e}");
    assert!("alphabeta:tables=".parse::<PlayerSpec>().is_err());
    for other in ["mcts:tables=/t", "easy:tables=/t", "greedy:tables=/t"] {
        let spec: PlayerSpec = other.parse().unwrap();
        let e = spec.build::<Position>(1).err().unwrap().to_string();
        assert!(e.contains("only an alpha-beta player"), "{other}: {e}");
    }
}
