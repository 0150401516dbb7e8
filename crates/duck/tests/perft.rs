use arbiter_duck::{divide, perft, Position};

#[test]
fn perft_from_the_rules_page() {
    let start = Position::initial();
    for (depth, expected) in [(0, 1), (1, 43), (2, 1849), (3, 80066), (4, 3466638)] {
        assert_eq!(perft(&start, depth), expected, "perft({depth})");
    }
}

#[test]
fn divide_sums_to_perft() {
    let start = Position::initial();
    let parts = divide(&start, 3);
    assert_eq!(parts.len(), 43);
    assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), 80066);
}

#[test]
fn an_ended_game_has_no_moves() {
    let pos = Position::from_fen("9/9/9/9/9/9/9/9/9/4K4 b").unwrap();
    assert_eq!(perft(&pos, 1), 0);
    assert_eq!(perft(&pos, 3), 0);
}
