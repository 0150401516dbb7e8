//! The real `arbiter` binary on Surakarta: the reference streams, bad commands, perft, bench.

mod common;

use common::{arbiter, assert_judge_reproduces};

#[test]
fn judge_surakarta_reproduces_the_reference() {
    assert_judge_reproduces("surakarta", "surakarta/reference", "cli surakarta golden");
}

#[test]
fn bad_commands_exit_2_naming_the_line() {
    for (input, line) in [
        ("new 6 40\njump 1 2\n", "line 2"),
        ("new 9 40\n", "line 1"),
        ("probe 1 1 2 2 Q\n", "line 1"),
        ("new 6 40\n\n# c\nmove 1 x 2 2 B\n", "line 4"),
    ] {
        let out = arbiter(&["judge", "surakarta"], input.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(line), "{input:?}: {err}");
    }
}

#[test]
fn perft_and_bench() {
    let out = arbiter(&["perft", "surakarta", "3", "--size", "8"], b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "13376\n");
    let out = arbiter(&["perft", "surakarta", "2", "--size", "7"], b"");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("6, 8, 10 or 12"));
    let out = arbiter(
        &["bench", "surakarta", "--playouts", "50", "--seed", "3"],
        b"",
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("playouts/s") && text.contains("mean"),
        "{text}"
    );
}
