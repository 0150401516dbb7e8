//! The four samples of the problem statement (part of the problem text), and the shared cases.

use arbiter_core::shared_data;
use arbiter_rc02::judge_str;

const SAMPLES: [(&str, &str); 4] = [
    ("4 1\n1 4 1 3", "0\n"),
    ("4 2\n1 3 2 3\n3 4 3 3\n", "1\nhhll\nh..l\n..ll\nhh.l\n"),
    (
        "6 7\n1 3 2 3\n4 1 4 2\n3 1 4 1\n6 4 5 4\n2 1 3 1\n5 4 6 4\n1 1 2 1",
        "1\n.hhh..\nh..l.l\n.h...l\nh....l\nh....l\nhhhlll\n",
    ),
    (
        "6 22\n1 3 2 3\n4 1 4 2\n3 1 4 1\n6 4 5 4\n2 1 3 1\n5 4 6 4\n1 1 2 1\n6 2 5 2\n3 1 3 2\n6 4 5 4\n2 1 2 2\n\
         4 6 4 5\n3 6 4 6\n5 4 6 4\n2 6 3 6\n6 4 5 4\n1 6 2 6\n6 5 6 6\n2 6 2 5\n6 6 5 6\n2 5 2 6\n6 6 5 6\n",
        "2\nred\n...h..\nhhh...\n.h...l\nh...l.\nh..l..\n.hhh..\n",
    ),
];

#[test]
fn the_four_samples() {
    for (i, (input, expected)) in SAMPLES.iter().enumerate() {
        assert_eq!(judge_str(input).unwrap(), *expected, "sample {}", i + 1);
    }
}

#[test]
fn moves_after_the_end_are_ignored_even_when_illegal() {
    // Sample 4's 22nd move is illegal but comes after red has won.
    let (input, expected) = SAMPLES[3];
    let garbage = format!("{}\n7 7 7 7\n", input.replacen("6 22", "6 23", 1));
    assert_eq!(judge_str(&garbage).unwrap(), expected);
}

#[test]
fn an_illegal_move_before_the_end_prints_0() {
    assert_eq!(
        judge_str("4 3\n1 3 2 3\n1 3 1 2\n4 4 4 3\n").unwrap(),
        "0\n"
    );
    assert_eq!(judge_str("6 1\n-5 2 1 1\n").unwrap(), "0\n");
    // Found by fuzzing: the most negative integer must not overflow.
    assert_eq!(
        judge_str("4 1\n-99999999999999999999 1 1 1\n").unwrap(),
        "0\n"
    );
}

#[test]
fn malformed_input_names_the_line() {
    use arbiter_rc02::JudgeError;
    for (input, line) in [
        ("5 1\n1 3 2 3\n", 1),
        ("12 0\n", 1),
        ("4\n-1\n", 2),
        ("4 2\n1 3 2 3\n", 3),
        ("4 1\n1 3 x 3\n", 2),
    ] {
        match judge_str(input) {
            Err(JudgeError::Input(e)) => assert_eq!(e.line, line, "{input:?}: {e}"),
            other => panic!("{input:?}: expected an input error, got {other:?}"),
        }
    }
}

#[test]
fn shared_cases_match_byte_for_byte() {
    let dir = shared_data::locate(env!("CARGO_MANIFEST_DIR"), "rc02", "rc02 golden");
    let cases = shared_data::cases(&dir);
    assert!(cases.len() >= 4);
    for (input, answer) in cases {
        let got = judge_str(&std::fs::read_to_string(&input).unwrap()).unwrap();
        assert_eq!(
            got,
            std::fs::read_to_string(&answer).unwrap(),
            "{}",
            input.display()
        );
    }
}
