//! The real `arbiter` binary on Duck Chess: the official data once end to end, bad input, perft.

mod common;

use common::{arbiter, assert_judge_reproduces};

#[test]
fn judge_duck_reproduces_the_official_data() {
    assert_judge_reproduces("duck", "duck/official", "cli duck golden");
}

#[test]
fn malformed_duck_input_exits_2_naming_the_line() {
    for (input, line) in [
        ("2\n0 0 1 0\n0 0 x 1\n", "line 3"),
        ("3\n0 0 1 0\n", "line 3"),
        ("-1\n", "line 1"),
        ("abc\n", "line 1"),
    ] {
        let out = arbiter(&["judge", "duck"], input.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(line), "{input:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn perft_duck_prints_the_total_and_divide() {
    let out = arbiter(&["perft", "duck", "3"], b"");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "80066\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("leaves/s"));
    let out = arbiter(&["perft", "duck", "2", "--divide"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 44);
    assert_eq!(lines[43], "1849");
    assert!(lines[0].starts_with("a0-a1 "), "{}", lines[0]);
}

#[test]
fn help_lists_every_subcommand() {
    let out = arbiter(&["--help"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    for sub in ["judge", "perft"] {
        assert!(text.contains(sub), "{text}");
        let sub_help = arbiter(&[sub, "--help"], b"");
        assert!(sub_help.status.success(), "{sub} --help");
    }
}
