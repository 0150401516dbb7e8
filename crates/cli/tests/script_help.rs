//! `--help` of the operator scripts prints their whole header comment: the first line and the
//! last, so a header that grows (or a help that prints a fixed line range) is caught. All three
//! scripts print it with the same awk line; make-duck-net.sh's header is the one that was cut.

use std::path::Path;
use std::process::Command;

/// `bash scripts/NAME --help`: its exit code and standard output.
fn help(name: &str) -> (Option<i32>, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(name);
    let out = Command::new("bash")
        .arg(script)
        .arg("--help")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into(),
    )
}

fn assert_whole_header(name: &str, first: &str, last: &str) {
    let (code, text) = help(name);
    assert_eq!(code, Some(0), "{name}: {text}");
    assert!(text.starts_with(first), "{name}: {text}");
    assert!(text.trim_end().ends_with(last), "{name}: {text}");
    assert!(!text.contains("#!/"), "{name} printed its shebang: {text}");
}

#[test]
fn cluster_help_shows_the_whole_header() {
    assert_whole_header(
        "cluster.sh",
        "# A local arbiter cluster",
        "# empty folder and removes it when the cluster stops.",
    );
}

#[test]
fn strength_help_shows_the_whole_header() {
    assert_whole_header(
        "strength.sh",
        "# The strength matches of docs/strength.md",
        "pinned to the last core (taskset) for the cell's duration.",
    );
}

#[test]
fn make_net_help_shows_the_whole_header_down_to_what_the_script_needs() {
    assert_whole_header(
        "make-duck-net.sh",
        "# Makes a Duck Chess network",
        "scripts/ensure-packages.sh) and ../shared/peers/fairy-stockfish.",
    );
}
