//! Running the real `arbiter` binary from tests.

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
