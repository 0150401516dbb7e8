//! The real `arbiter` binary on Surakarta: the reference streams, bad commands, perft, bench.

mod common;

use common::{arbiter, assert_judge_reproduces, TestDir};

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

/// `arbiter tables`: a small build, then a larger one that keeps the files already there and
/// adds the 4-piece tables, and a span the code cannot build refused with its flag's name.
#[test]
fn tables_are_built_extended_and_a_bad_span_is_named() {
    let dir = TestDir::new("arbiter-tables-");
    let out = dir.path().to_str().unwrap();
    let tables = |extra: &[&str]| {
        let mut args = vec!["tables", "surakarta", "--size", "6", "--out", out];
        args.extend_from_slice(extra);
        arbiter(&args, b"")
    };
    let first = tables(&["--max-pieces", "2"]);
    assert!(first.status.success(), "{first:?}");
    let said = String::from_utf8_lossy(&first.stdout);
    assert!(said.contains("tables up to 2 against 2"), "{said}");
    let two_v_two = dir.path().join("surakarta6-2v2.tbl");
    let modified = || std::fs::metadata(&two_v_two).unwrap().modified().unwrap();
    let first_written = modified();
    let second = tables(&["--max-pieces", "4", "--max-total", "5"]);
    assert_eq!(
        modified(),
        first_written,
        "a kept table is not written again"
    );
    assert!(second.status.success(), "{second:?}");
    let (said, progress) = (
        String::from_utf8_lossy(&second.stdout),
        String::from_utf8_lossy(&second.stderr),
    );
    assert!(
        progress.contains("up to 2 against 2 already there, kept"),
        "{progress}"
    );
    assert!(!progress.contains("2v2: "), "2v2 solved again: {progress}");
    // A pair of a million positions or more (2v3 with 3v2) reports every layer.
    assert!(
        progress.contains("2v3: 1042272 positions, valuing captures into smaller tables")
            && progress.contains("2v3: captures valued")
            && progress.contains("2v3: 1 of 40 layers"),
        "{progress}"
    );
    let at = |line: &str| progress.find(line).unwrap();
    assert!(
        at("2v3: 1042272 positions, valuing") < at("2v3: captures valued"),
        "the valuing is announced before it starts: {progress}"
    );
    assert!(!progress.contains("1v3: 1 of 40 layers"), "{progress}");
    assert!(
        said.contains("up to 2 against 2, and 1v3 3v1 2v3 3v2 1v4 4v1"),
        "{said}"
    );
    for name in [
        "surakarta6-4v1.tbl",
        "surakarta6-1v4.tbl",
        "surakarta6-2v2.tbl",
    ] {
        assert!(dir.path().join(name).is_file(), "{name} written");
    }
    let bad = tables(&["--max-pieces", "5"]);
    assert_eq!(bad.status.code(), Some(1), "{bad:?}");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--max-pieces must be 1 to 4"));
}
