//! The real `arbiter` binary on the RC-02 game: the shared cases and bad input.

mod common;

use common::{arbiter, assert_judge_reproduces};

#[test]
fn judge_rc02_reproduces_the_cases() {
    assert_judge_reproduces("rc02", "rc02", "cli rc02 golden");
}

#[test]
fn bad_input_exits_2_naming_the_line() {
    for (input, line) in [
        ("7 1\n1 3 2 3\n", "line 1"),
        ("4 3\n1 3 2 3\n", "line 3"),
        ("4 1\n1 3 2 z\n", "line 2"),
    ] {
        let out = arbiter(&["judge", "rc02"], input.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(line),
            "{input:?}"
        );
    }
}
