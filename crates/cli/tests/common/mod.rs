//! Running the real `arbiter` binary from tests.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `arbiter ARGS` with `stdin` and waits for it.
pub fn arbiter(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the arbiter binary runs");
    // Feed stdin from a thread: a judge writes while it reads, and both pipes can fill up.
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    output
}

/// Runs `arbiter judge GAME` over every case in `../shared/data/SUB` and checks the output byte
/// for byte (skipped, saying so, when the data is missing).
pub fn assert_judge_reproduces(game: &str, sub: &str, test: &str) {
    let Some(dir) = arbiter_core::shared_data::locate(env!("CARGO_MANIFEST_DIR"), sub, test) else {
        return;
    };
    let cases = arbiter_core::shared_data::cases(&dir);
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    for (input, answer) in cases {
        let out = arbiter(&["judge", game], &std::fs::read(&input).unwrap());
        assert!(
            out.status.success(),
            "{}: {}",
            input.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == std::fs::read(&answer).unwrap(),
            "{} differs",
            input.display()
        );
    }
}
