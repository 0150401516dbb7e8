//! Round trips: the position file and the record notation read back what they wrote.

use arbiter_core::{Game, MoveList, Side};
use arbiter_surakarta::{EndReason, Move, Point, Position, Record};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A game of random legal moves, with its record.
fn random_game(n: u8, plies: usize, seed: u64) -> (Position, Record) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut state = Position::new(n, 20).unwrap();
    let mut record = Record::default();
    for _ in 0..plies {
        let mut moves = MoveList::new();
        state.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.gen_range(0..moves.len())];
        record.moves.push(mv);
        let result = state.play_legal(mv);
        if result.end != EndReason::None {
            record.end = Some(result.end);
        }
    }
    (state, record)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn position_files_round_trip(
        size in prop::sample::select(vec![6u8, 8, 10, 12]),
        plies in 0usize..200,
        seed in any::<u64>(),
    ) {
        let (state, _) = random_game(size, plies, seed);
        let text = state.to_position_file();
        let back = Position::from_position_file(&text).unwrap();
        prop_assert_eq!(&back, &state);
        prop_assert_eq!(back.to_position_file(), text);
    }

    #[test]
    fn records_round_trip(
        size in prop::sample::select(vec![6u8, 8, 10, 12]),
        plies in 0usize..200,
        seed in any::<u64>(),
        end in prop::option::of(prop::sample::select(vec![
            EndReason::Stalemate, EndReason::Checkmate, EndReason::Resign, EndReason::Timeout, EndReason::IllegalMove,
        ])),
    ) {
        let (_, mut record) = random_game(size, plies, seed);
        if record.end.is_none() {
            record.end = end;
        }
        let text = record.to_string();
        prop_assert_eq!(Record::parse(&text, size).unwrap(), record);
    }
}

#[test]
fn moves_parse_through_the_game_trait() {
    let state = Position::new(6, 40).unwrap();
    let mv = Game::parse_move(&state, "A2-A3").unwrap();
    assert_eq!(mv, Move::new(Point::new(0, 1), Point::new(0, 2)));
    assert_eq!(Game::format_move(&state, mv), "A2-A3");
    assert!(Game::parse_move(&state, "A2-A4")
        .unwrap_err()
        .reason
        .contains("ILLIGAL_NON_CAPTURE_MOVE"));
    assert!(Game::parse_move(&state, "A5-A4")
        .unwrap_err()
        .reason
        .contains("NOT_PLAYER_PIECE"));
    assert!(Game::parse_move(&state, "A2A3").is_err());
    assert_eq!(Game::side_to_move(&state), Side::First);
}
