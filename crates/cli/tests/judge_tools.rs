//! `arbiter judge` as a problem setter uses it beside a contest's testlib checker: standard
//! input as `-`, a byte-order mark, numbers out of range, `--strict`, `--expect`, streaming,
//! one exit status for files, Surakarta's ranges and records, game names in any case.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{arbiter, TestDir};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-test-{name}-"))
}

const DUCK: &str = "3\n0 0 1 0\n0 0 1 0\n9 0 8 0\n";
const DUCK_ANSWER: &str = "red car;NA;no;no\nInvalid command\nblue car;NA;no;no\n";

#[test]
fn a_dash_is_standard_input() {
    let out = arbiter(&["judge", "duck", "-"], DUCK.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), DUCK_ANSWER);
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let with_bom = format!("\u{feff}{DUCK}");
    let out = arbiter(&["judge", "duck"], with_bom.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), DUCK_ANSWER);
    let out = arbiter(&["judge", "rc02"], "\u{feff}4 0\n".as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = arbiter(
        &["judge", "surakarta"],
        "\u{feff}new 6 40\nstate\n".as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn numbers_out_of_range_are_refused_by_name() {
    for (game, input, needle) in [
        ("duck", "99999999999999999999\n0 0 1 0\n", "Q"),
        ("rc02", "4 99999999999999999999\n", "K"),
        ("rc02", "99999999999999999999 1\n", "N"),
    ] {
        let out = arbiter(&["judge", game], input.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        let err = text(&out.stderr);
        assert!(err.contains("line 1"), "{err}");
        assert!(
            err.contains(needle) && err.contains("out of range"),
            "{err}"
        );
    }
}

#[test]
fn strict_refuses_extra_tokens_and_trailing_input_naming_the_line() {
    for (game, input, line) in [
        ("duck", "1\n0 0 1 0 7\n", "line 2"),
        ("duck", "1 0 0 1 0\n", "line 1"),
        ("duck", "1\n0 0 1 0\n9 0 8 0\n", "line 3"),
        ("duck", "2\n0 0\n1 0\n9 0 8 0\n", "line 3"),
        ("rc02", "4 0\n1 1 1 2\n", "line 2"),
        ("rc02", "4 1 1 1 1 2\n", "line 1"),
        ("surakarta", "new 6 40 1\n", "line 1"),
    ] {
        let lenient = arbiter(&["judge", game], input.as_bytes());
        if game != "surakarta" {
            assert!(
                lenient.status.success(),
                "{input:?}: {}",
                text(&lenient.stderr)
            );
        }
        let out = arbiter(&["judge", game, "--strict"], input.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        let err = text(&out.stderr);
        assert!(err.contains(line), "{input:?}: {err}");
    }
    let out = arbiter(&["judge", "duck", "--strict"], DUCK.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn expect_compares_with_an_answer_file_and_names_the_first_difference() {
    let dir = temp("expect");
    let answer = dir.join("duck.ans");
    std::fs::write(&answer, DUCK_ANSWER).unwrap();
    let out = arbiter(
        &["judge", "duck", "--expect", answer.to_str().unwrap()],
        DUCK.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("ok"), "{}", text(&out.stdout));
    let wrong = DUCK_ANSWER.replace("blue car;NA;no;no", "blue car;NA;yes;no");
    std::fs::write(&answer, wrong).unwrap();
    let out = arbiter(
        &["judge", "duck", "--expect", answer.to_str().unwrap()],
        DUCK.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(said.contains("line 3"), "{said}");
    assert!(said.contains("blue car;NA;no;no"), "{said}");
    assert!(said.contains("blue car;NA;yes;no"), "{said}");
    std::fs::write(&answer, "red car;NA;no;no\n").unwrap();
    let out = arbiter(
        &["judge", "duck", "--expect", answer.to_str().unwrap()],
        DUCK.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(said.contains("line 2"), "{said}");
}

#[test]
fn the_rc02_judge_answers_as_soon_as_the_answer_is_known() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["judge", "rc02"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The first move is illegal (an empty cell): the answer is 0 whatever follows.
    stdin.write_all(b"4 3\n1 2 1 3\n").unwrap();
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(10));
    drop(stdin);
    let _ = child.wait();
    assert_eq!(
        line.as_deref(),
        Ok("0\n"),
        "no answer before the input ended"
    );
}

#[test]
fn a_missing_file_and_a_directory_exit_alike() {
    let dir = temp("files");
    let missing = arbiter(&["judge", "duck", "/nonexistent/game.in"], b"");
    let directory = arbiter(&["judge", "duck", dir.to_str().unwrap()], b"");
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing.stderr));
    assert_eq!(
        directory.status.code(),
        Some(2),
        "{}",
        text(&directory.stderr)
    );
    assert!(
        text(&directory.stderr).contains("cannot read"),
        "{}",
        text(&directory.stderr)
    );
}

#[test]
fn surakarta_ranges_agree_with_arbiter_games() {
    let games = text(&arbiter(&["games"], b"").stdout);
    assert!(
        games.contains("max_no_capture_round (default 40, from 1 to 1000000"),
        "{games}"
    );
    for (input, needle) in [
        (
            "new 6 0\n",
            "max_no_capture_round must be from 1 to 1000000, found 0",
        ),
        ("new 6 1000001\n", "found 1000001"),
        ("new 6 40\ntargets 9 9\n", "x must be from 0 to 5"),
        ("new 8 40\ntargets 0 8\n", "y must be from 0 to 7"),
    ] {
        let out = arbiter(&["judge", "surakarta"], input.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        let err = text(&out.stderr);
        assert!(err.contains(needle), "{input:?}: {err}");
    }
    let out = arbiter(&["judge", "surakarta"], b"new 6 1000000\ntargets 5 5\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A finished Surakarta game as the server's `--records-dir` writes it: the moves and the
/// end mark on one line, no newline at the end.
fn server_record(dir: &std::path::Path) -> String {
    let out = arbiter(
        &[
            "arena",
            "surakarta",
            "--player",
            "a=greedy",
            "--player",
            "b=random",
            "--games",
            "1",
            "--seed",
            "4",
            "--out",
            dir.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = std::fs::read_to_string(dir.join("game-0001-a-vs-b.txt")).unwrap();
    let line = record
        .lines()
        .find(|l| !l.starts_with('[') && !l.trim().is_empty())
        .unwrap();
    line.trim_end().to_string()
}

#[test]
fn a_course_record_is_judged_move_by_move_and_its_end_checked() {
    let dir = temp("record");
    let record = server_record(&dir);
    let path = dir.join("000001-room1.txt");
    std::fs::write(&path, &record).unwrap();
    let out = arbiter(
        &["judge", "surakarta", "--record", path.to_str().unwrap()],
        b"",
    );
    let said = text(&out.stdout);
    assert!(out.status.success(), "{said}{}", text(&out.stderr));
    let moves = record.split(' ').count() - 1;
    assert_eq!(said.lines().count(), moves + 1, "{said}");
    assert!(said.lines().last().unwrap().contains("agrees"), "{said}");
    // The same end mark after one move fewer: the game was not over there.
    let (before, mark) = record.rsplit_once(' ').unwrap();
    let shorter = format!("{} {mark}", before.rsplit_once(' ').unwrap().0);
    std::fs::write(&path, shorter).unwrap();
    let out = arbiter(
        &["judge", "surakarta", "--record", path.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains(mark), "{}", text(&out.stdout));
    std::fs::write(&path, "A2-B3 Z9-Z9").unwrap();
    let out = arbiter(
        &["judge", "surakarta", "--record", path.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Z9-Z9"), "{}", text(&out.stderr));
}

#[test]
fn game_names_are_read_in_any_case_and_by_their_aliases() {
    for name in ["DUCK", "Duck", "p5380", "P5380"] {
        let out = arbiter(&["judge", name], DUCK.as_bytes());
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), DUCK_ANSWER, "{name}");
    }
    let out = arbiter(&["perft", "Surakarta", "2", "--size", "6"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = arbiter(&["games"], b"");
    assert!(text(&out.stdout).contains("p5380"), "{}", text(&out.stdout));
}
