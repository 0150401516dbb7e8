//! The official THUPC 2019 data through the library judge, byte for byte.

use arbiter_core::shared_data;

#[test]
fn official_data_matches_byte_for_byte() {
    let dir = shared_data::locate(env!("CARGO_MANIFEST_DIR"), "duck/official", "duck golden");
    let cases = shared_data::cases(&dir);
    assert_eq!(
        cases.len(),
        5,
        "expected sample + 4 official cases in {}",
        dir.display()
    );
    for (input, answer) in cases {
        let input_text = std::fs::read_to_string(&input).unwrap();
        let expected = std::fs::read_to_string(&answer).unwrap();
        let got = arbiter_duck::judge_str(&input_text).unwrap();
        assert!(
            got == expected,
            "{} differs from {}",
            input.display(),
            answer.display()
        );
    }
}
