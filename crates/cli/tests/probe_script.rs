//! `scripts/probe-duck.py` on a game record against the real Fairy-Stockfish: our engine judges
//! the positions under the record's own rules (its `[Options]` header), and options our engine
//! refuses stop the probe with the engine's answer instead of a probe under other rules. It runs
//! with Debian's `/usr/bin/python3` and `fairy-stockfish` (`scripts/ensure-packages.sh`
//! installs it when missing) and `../shared`'s adapter.

mod common;

use std::process::{Command, Output};

use common::TestDir;

fn probe(record_options: &str) -> Output {
    common::ensure_package("fairy-stockfish");
    let dir = TestDir::new("arbiter-probe-");
    let record = dir.join("game.txt");
    std::fs::write(
        &record,
        format!(
            "[Game \"duck\"]\n[Options \"{record_options}\"]\n[Red \"ab\"]\n[Blue \"fsf\"]\n\n\
             g3-g4 c6-d7 a3-b2 g6-f5 C#\n"
        ),
    )
    .unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/probe-duck.py");
    Command::new("/usr/bin/python3")
        .arg(script)
        .args([
            env!("CARGO_BIN_EXE_arbiter"),
            record.to_str().unwrap(),
            "0",
            "50",
        ])
        .output()
        .expect("python runs the probe")
}

#[test]
fn a_record_is_probed_under_its_own_rules() {
    let run = probe("max_no_capture_round 0");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(
        lines[0], "rules: game duck max_no_capture_round 0",
        "{said}"
    );
    // The first player's two positions (plies 0 and 2), each judged by both engines.
    assert!(lines[1].starts_with("0 played g3-g4 | ours ('"), "{said}");
    assert!(lines[2].starts_with("2 played a3-b2 | ours ('"), "{said}");
    assert!(
        lines[1].contains("| fsf ('") && lines[2].contains("| fsf ('"),
        "{said}"
    );
    assert!(lines[3].starts_with("2 positions; "), "{said}");
}

#[test]
fn options_the_engine_refuses_stop_the_probe_with_its_answer() {
    let run = probe("max_no_capture_round many");
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let error = String::from_utf8_lossy(&run.stderr);
    assert!(
        error.contains("the record's options `max_no_capture_round many`")
            && error.contains("max_no_capture_round must be a number, found `many`"),
        "{error}"
    );
    assert!(!String::from_utf8_lossy(&run.stdout).contains(" played "));
}
