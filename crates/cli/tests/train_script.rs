//! `scripts/train-duck-net.py` on real self-play data: the network it writes is one the engine
//! reads, and bad data or options are named with a non-zero exit. It runs with Debian's
//! `/usr/bin/python3` and `python3-numpy`, which `scripts/ensure-packages.sh` installs when
//! missing.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{arbiter_with_env, TestDir};

/// Debian's python with numpy, installed when missing.
fn python() -> &'static str {
    common::ensure_package("python3-numpy");
    "/usr/bin/python3"
}

fn train(args: &[&str]) -> Output {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/train-duck-net.py"
    );
    Command::new(python())
        .arg(script)
        .args(args)
        .output()
        .expect("python runs the trainer")
}

/// Positions of a few quick self-play games, written to `path`.
fn selfplay(path: &Path) {
    let out = common::duck_selfplay(path, "12", "5", "2");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_trained_network_is_read_by_the_engine() {
    let dir = TestDir::new("arbiter-train-net-");
    let data = dir.join("data.tsv");
    selfplay(&data);
    // Both kinds of network from the same data: the pieces alone, and with the threats.
    for inputs in ["1260", "2520"] {
        trained_network_is_read(&dir, &data, inputs);
    }
}

/// Trains a network of `inputs` on `data` and has the engine search with it.
fn trained_network_is_read(dir: &TestDir, data: &Path, inputs: &str) {
    let net = dir.join(format!("net{inputs}.txt"));
    let args = [
        "--out",
        net.to_str().unwrap(),
        "--hidden",
        "4",
        "--epochs",
        "3",
        "--inputs",
        inputs,
    ];
    let out = train(&[&[data.to_str().unwrap()], &args[..], &["--holdout", "25"]].concat());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("held-out loss"), "{said}");
    let text = std::fs::read_to_string(&net).unwrap();
    let header = format!("arbiter-duck-net 1 {inputs} 4\n");
    assert!(text.starts_with(&header), "{text:.200}");
    let input = "game duck\nsetoption name learnt value 100\nposition startpos\ngo depth 2\nquit\n";
    let env = [("ARBITER_DUCK_NET", net.as_os_str())];
    let engine = arbiter_with_env(&["engine"], &env, input.as_bytes());
    let (answer, complaint) = (engine.stdout, engine.stderr);
    assert!(String::from_utf8_lossy(&answer).contains("bestmove "));
    assert!(
        complaint.is_empty(),
        "{}",
        String::from_utf8_lossy(&complaint)
    );
}

#[test]
fn bad_data_and_options_are_named_and_write_nothing() {
    let dir = TestDir::new("arbiter-train-bad-");
    let data = dir.join("bad.tsv");
    let good = "0\t10\t20\t1\t4,634\n";
    std::fs::write(&data, format!("{good}{good}0\t10\tx\t1\t4,634\n")).unwrap();
    let net = dir.join("net.txt");
    let out_args = ["--out", net.to_str().unwrap()];
    let data_arg = data.to_str().unwrap();
    for (extra, needle) in [
        (&[][..], "bad.tsv:3"),
        (&["--lambda", "2"][..], "--lambda must be 0 to 1"),
    ] {
        let out = train(&[&[data_arg], &out_args[..], extra].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?}");
        assert!(err.contains(needle), "{extra:?}: {err}");
        assert!(!net.exists(), "{extra:?}");
    }
    let gaps = dir.join("gaps.tsv");
    let far: String = (0..20)
        .map(|g| format!("{g}\t0\t900\t1\t4,634\n"))
        .collect();
    std::fs::write(&gaps, far).unwrap();
    let out = train(
        &[
            &[gaps.to_str().unwrap()],
            &out_args[..],
            &["--max-gap", "300"],
        ]
        .concat(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--max-gap 300 leaves no positions"), "{err}");
    assert!(!net.exists());
}

#[test]
fn a_network_fine_tuned_with_init_starts_from_the_one_given() {
    let dir = TestDir::new("arbiter-train-init-");
    let data = dir.join("data.tsv");
    selfplay(&data);
    let (first, tuned) = (dir.join("first.txt"), dir.join("tuned.txt"));
    let common = [data.to_str().unwrap(), "--lambda", "1", "--inputs", "2520"];
    let common = [&common[..], &["--holdout", "25", "--hidden", "4"]].concat();
    let out = train(
        &[
            &common[..],
            &["--out", first.to_str().unwrap(), "--epochs", "3"],
        ]
        .concat(),
    );
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{said}");
    // The first run's best held-out loss is where the second starts, on the same held-out games.
    let best = said
        .split("best ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    let init = ["--init", first.to_str().unwrap(), "--epochs", "1"];
    let out = train(&[&common[..], &init[..], &["--out", tuned.to_str().unwrap()]].concat());
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!("held-out loss {best}\n")),
        "{best}: {said}"
    );
    assert!(std::fs::read_to_string(&tuned)
        .unwrap()
        .starts_with("arbiter-duck-net 1 2520 4\n"));

    // A network of another shape is named, and nothing is written.
    let other = dir.join("other.txt");
    let wrong = ["--hidden", "5", "--out", other.to_str().unwrap()];
    // (The later `--hidden` is the one taken.)
    let args = [&common[..], &init[..2], &wrong[..]].concat();
    let out = train(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("expected `arbiter-duck-net 1 2520 5`"),
        "{err}"
    );
    assert!(!other.exists());
}
