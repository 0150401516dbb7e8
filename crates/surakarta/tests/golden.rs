//! The course reference's answers, byte for byte, through the library judge.

use arbiter_core::shared_data;

#[test]
fn reference_streams_match_byte_for_byte() {
    let dir = shared_data::locate(
        env!("CARGO_MANIFEST_DIR"),
        "surakarta/reference",
        "surakarta golden",
    );
    let cases = shared_data::cases(&dir);
    assert!(
        cases.len() >= 5,
        "expected the reference streams in {}",
        dir.display()
    );
    for (input, answer) in cases {
        let got = arbiter_surakarta::judge_str(&std::fs::read_to_string(&input).unwrap()).unwrap();
        let expected = std::fs::read_to_string(&answer).unwrap();
        if got != expected {
            let line = got.lines().zip(expected.lines()).position(|(a, b)| a != b);
            panic!(
                "{} differs from {} (first differing output line: {line:?})",
                input.display(),
                answer.display()
            );
        }
    }
}

#[test]
fn course_position_files_load_and_write_back() {
    let dir = shared_data::locate(
        env!("CARGO_MANIFEST_DIR"),
        "surakarta/course-positions",
        "surakarta positions",
    );
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "txt") {
            let text = std::fs::read_to_string(&path).unwrap();
            let state = arbiter_surakarta::Position::from_position_file(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(state.to_position_file(), text, "{}", path.display());
            seen += 1;
        }
    }
    assert!(seen >= 9);
}
