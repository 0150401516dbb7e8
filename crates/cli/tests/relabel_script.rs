//! `scripts/relabel-duck-net.py` on real self-play rows against the real Fairy-Stockfish: every
//! row it writes is a row of the data with only its score changed, `--mix 0` changes none, the
//! teacher's scores agree in sign with our search's where both call the position decided (a
//! position rebuilt with the sides swapped would disagree), and a bad row is named by its line.
//! It runs with Debian's `/usr/bin/python3` and `fairy-stockfish`, which
//! `scripts/ensure-packages.sh` installs when missing, and `../shared`'s variant definition.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::TestDir;

fn relabel(data: &Path, out: &Path, options: &[&str]) -> Output {
    common::ensure_package("fairy-stockfish");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/relabel-duck-net.py"
    );
    Command::new("/usr/bin/python3")
        .arg(script)
        .args([data.to_str().unwrap(), out.to_str().unwrap()])
        .args(options)
        .output()
        .expect("python runs the relabelling")
}

/// The data rows of a file (no `#` lines), split into their fields.
fn rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn score(row: &[String]) -> i32 {
    row[2].parse().unwrap()
}

/// Runs the relabelling and returns what it wrote, after checking it succeeded and left no
/// part files behind.
fn relabelled(data: &Path, out: &Path, options: &[&str]) -> Vec<Vec<String>> {
    let run = relabel(data, out, options);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let leftovers: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|name| name.contains(".part") || name.ends_with(".options"))
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
    rows(out)
}

/// Whether `written` is `data` with rows left out and scores changed: the same rows in the same
/// order, every field but the score as it was.
fn is_relabelled_subsequence(written: &[Vec<String>], data: &[Vec<String>]) -> bool {
    let without_score = |r: &[String]| [&r[..2], &r[3..]].concat();
    let mut source = data.iter();
    written
        .iter()
        .all(|w| source.any(|d| without_score(d) == without_score(w)))
}

#[test]
fn relabelled_rows_keep_their_positions_and_take_the_teachers_scores() {
    let dir = TestDir::new("arbiter-relabel-");
    let data_path = dir.join("data.tsv");
    let selfplay = common::duck_selfplay(&data_path, "6", "5", "1");
    assert!(
        selfplay.status.success(),
        "{}",
        String::from_utf8_lossy(&selfplay.stderr)
    );
    let data = rows(&data_path);
    assert!(data.len() > 100, "{} rows", data.len());

    // With none of the teacher's judgement, two jobs' parts merge back into the data as it was.
    let unchanged = relabelled(
        &data_path,
        &dir.join("mix0.tsv"),
        &["--nodes", "50", "--jobs", "2", "--mix", "0"],
    );
    let kept: Vec<_> = data
        .iter()
        .filter(|r| score(r).abs() < 3000)
        .cloned()
        .collect();
    assert_eq!(unchanged, kept);

    let taught = relabelled(
        &data_path,
        &dir.join("mix1.tsv"),
        &["--nodes", "400", "--jobs", "2", "--mix", "1"],
    );
    assert!(
        taught.len() * 10 >= data.len() * 9,
        "{} of {}",
        taught.len(),
        data.len()
    );
    assert!(is_relabelled_subsequence(&taught, &data));
    let ours = |w: &Vec<String>| {
        data.iter()
            .find(|d| d[4] == w[4] && d[0] == w[0])
            .map(|d| score(d))
            .unwrap()
    };
    let decided: Vec<(i32, i32)> = taught
        .iter()
        .map(|w| (ours(w), score(w)))
        .filter(|&(a, b)| a.abs() >= 300 && b.abs() >= 150)
        .collect();
    let agree = decided
        .iter()
        .filter(|(a, b)| a.signum() == b.signum())
        .count();
    assert!(decided.len() >= 10, "only {} decided rows", decided.len());
    assert!(
        agree * 10 >= decided.len() * 8,
        "{agree} of {} decided rows agree in sign",
        decided.len()
    );
}

/// The network's inputs of the start position, red to move (net.rs: `block * 630 + kind * 90 +
/// row * 9 + column`, kinds in the order captain, guard, elephant, horse, car, duck, soldier;
/// rows from red's back rank), written out here from the start's FEN.
fn start_inputs() -> String {
    let fen = "rheakaehr/9/d7d/p1p1p1p1p/9/9/P1P1P1P1P/D7D/9/RHEAKAEHR";
    let mut inputs = Vec::new();
    for (rank, text) in fen.split('/').enumerate() {
        let row = 9 - rank;
        let mut column = 0;
        for c in text.chars() {
            if let Some(empty) = c.to_digit(10) {
                column += empty as usize;
                continue;
            }
            let kind = "kaehrdp".find(c.to_ascii_lowercase()).unwrap();
            let block = usize::from(c.is_ascii_lowercase());
            inputs.push((block * 630 + kind * 90 + row * 9 + column).to_string());
            column += 1;
        }
    }
    inputs.join(",")
}

#[test]
fn a_bad_row_is_named_and_left_out() {
    let dir = TestDir::new("arbiter-relabel-bad-");
    let data = dir.join("bad.tsv");
    // The start position's inputs (red to move), twice, around a row whose score is not a number.
    let start = start_inputs();
    let good = format!("0\t10\t20\t1\t{start}\n");
    std::fs::write(&data, format!("{good}0\t10\tx\t1\t{start}\n{good}")).unwrap();
    let out = dir.join("out.tsv");
    let run = relabel(&data, &out, &["--nodes", "50", "--jobs", "1"]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(
        err.contains("bad.tsv:2: STATIC and SCORE must be integers"),
        "{err}"
    );
    let written = rows(&out);
    assert_eq!(written.len(), 2, "{written:?}");
    // The start is level: Fairy-Stockfish's score of it is small, for either side.
    assert!(written.iter().all(|r| score(r).abs() < 150), "{written:?}");
}
