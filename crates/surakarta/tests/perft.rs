use arbiter_core::Side;
use arbiter_surakarta::{divide, perft, Board};

#[test]
fn perft_vectors_from_the_rules_page() {
    let table: [(u8, &[u64]); 4] = [
        (6, &[16, 256, 5382, 111122, 2572484]),
        (8, &[22, 484, 13376, 369664]),
        (10, &[28, 784, 26432, 891136]),
        (12, &[34, 1156, 45968, 1827904]),
    ];
    for (n, expected) in table {
        let start = Board::initial(n).unwrap();
        for (depth, &leaves) in expected.iter().enumerate() {
            assert_eq!(
                perft(&start, Side::First, depth as u32 + 1),
                leaves,
                "n={n} depth={}",
                depth + 1
            );
        }
    }
}

#[test]
fn divide_sums_to_perft() {
    let start = Board::initial(6).unwrap();
    let parts = divide(&start, Side::First, 3);
    assert_eq!(parts.len(), 16);
    assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), 5382);
}
