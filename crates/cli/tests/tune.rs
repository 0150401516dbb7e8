//! `arbiter tune` end to end: an arena run's records in, fitted weights out; bad records named.

mod common;

use common::{arbiter, arena_into, TestDir};

fn records(name: &str) -> TestDir {
    let dir = TestDir::new(&format!("arbiter-tune-{name}-"));
    let players = ["--player", "a=alphabeta:depth=2", "--player", "b=greedy"];
    let rest = ["--games", "6", "--concurrency", "2", "--seed", "3"];
    arena_into(&dir, &[&["surakarta"], &players[..], &rest[..]].concat());
    dir
}

/// The cells of the row of `tune`'s table that starts with `name`.
fn table_row(table: &str, name: &str) -> Vec<String> {
    table
        .lines()
        .find(|l| l.starts_with(&format!("{name}\t")))
        .unwrap_or_else(|| panic!("no row for {name}: {table}"))
        .split('\t')
        .map(str::to_string)
        .collect()
}

#[test]
fn fits_the_weights_to_an_arena_run_and_prints_a_spec() {
    let dir = records("fit");
    let out = arbiter(
        &[
            "tune",
            "surakarta",
            "--records",
            dir.to_str().unwrap(),
            "--weights",
            "interior,corner",
        ],
        b"",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("quiet positions from 6 games"), "{stderr}");
    assert!(stderr.contains("round 1 (step 8)"), "{stderr}");
    let error_line = stdout.lines().next().unwrap();
    let errors: Vec<f64> = error_line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(errors[1] <= errors[0], "{error_line}");
    let row = |name: &str| table_row(&stdout, name);
    assert_eq!(row("piece"), ["piece", "100", "100"], "the scale stays");
    assert_eq!(
        row("mobility")[1],
        row("mobility")[2],
        "an unnamed weight stays"
    );
    let spec = row("spec");
    assert!(spec[1].starts_with("alphabeta"), "{stdout}");
    // The spec plays: the arena accepts it.
    let check = arbiter(
        &[
            "arena",
            "surakarta",
            "--player",
            &format!("t={}:depth=1", spec[1]),
            "--player",
            "r=random",
            "--games",
            "2",
        ],
        b"",
    );
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn a_holdout_is_left_out_of_the_fit_and_judged_after_it() {
    let dir = records("holdout");
    let path = dir.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "tune",
            "surakarta",
            "--records",
            path,
            "--weights",
            "interior",
        ];
        args.extend_from_slice(extra);
        arbiter(&args, b"")
    };
    let all = run(&[]);
    let out = run(&["--holdout", "50"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("quiet positions from 4 games"), "{stderr}");
    let held = stdout
        .lines()
        .find(|l| l.starts_with("held out: error "))
        .unwrap_or_else(|| panic!("no held-out line: {stdout}"));
    assert!(held.ends_with("positions of 2 games"), "{held}");
    let count = |text: &str| -> usize {
        let words: Vec<&str> = text.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "quiet").expect("a count");
        words[at - 1].parse().expect("a number")
    };
    let held_positions: usize = held.split_whitespace().nth(7).unwrap().parse().unwrap();
    assert_eq!(
        count(&stderr) + held_positions,
        count(&String::from_utf8_lossy(&all.stderr)),
        "every position is either fitted or held out: {held}"
    );
    assert!(!String::from_utf8_lossy(&all.stdout).contains("held out"));
    let none = run(&["--holdout", "1"]);
    assert!(none.status.success());
    let said = String::from_utf8_lossy(&none.stderr);
    assert!(said.contains("--holdout 1: no game held out"), "{said}");
    let bad = run(&["--holdout", "100"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--holdout"));
}

#[test]
fn bad_records_and_weights_are_named() {
    let dir = records("bad");
    let path = dir.to_str().unwrap();
    let tune = |extra: &[&str]| {
        let mut args = vec!["tune", "surakarta", "--records", path];
        args.extend_from_slice(extra);
        let out = arbiter(&args, b"");
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(tune(&["--weights", "speed"]).contains("unknown weight `speed` (weights: piece"));

    let record = dir.join("game-0002-b-vs-a.txt");
    std::fs::write(&record, "A2-A3 A2-A3\n").unwrap();
    let message = tune(&[]);
    assert!(
        message.contains("game-0002-b-vs-a.txt: move 2 `A2-A3`"),
        "{message}"
    );

    let index = dir.join("games.tsv");
    let text = std::fs::read_to_string(&index).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fields: Vec<&str> = lines[1].split('\t').collect();
    fields[3] = "nobody";
    lines[1] = fields.join("\t");
    std::fs::write(&index, lines.join("\n")).unwrap();
    let message = tune(&[]);
    assert!(
        message.contains("games.tsv:2: winner `nobody` is neither player"),
        "{message}"
    );

    std::fs::remove_file(&index).unwrap();
    assert!(tune(&[]).contains("games.tsv (made by `arena --out`)"));
}

/// Runs `tune surakarta` with `args`, returning (success, stdout, stderr).
fn tune_surakarta(args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["tune", "surakarta"];
    all.extend_from_slice(args);
    let out = arbiter(&all, b"");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn exported_positions_come_back_as_labels_and_are_fitted() {
    let dir = records("export");
    let exported = dir.join("positions.txt");
    let (ok, _, stderr) = tune_surakarta(&[
        "--records",
        dir.to_str().unwrap(),
        "--export",
        exported.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&exported).unwrap();
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert!(
        text.starts_with("# quiet positions from ply 8 of "),
        "{text}"
    );
    assert!(
        stderr.contains(&format!("{} positions written", lines.len())),
        "{stderr}"
    );
    let unique: std::collections::HashSet<&str> = lines.iter().copied().collect();
    assert!(lines.len() > 10 && unique.len() == lines.len(), "{text}");

    // Every exported position is quiet, so a label file of them keeps them all.
    let labels = dir.join("labels.tsv");
    let labelled: String = lines.iter().map(|l| format!("0.5\t{l}\tnote\n")).collect();
    std::fs::write(&labels, format!("# all level\n{labelled}")).unwrap();
    let (ok, stdout, stderr) = tune_surakarta(&[
        "--labels",
        labels.to_str().unwrap(),
        "--weights",
        "interior",
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{} quiet positions (0 others left out)",
            lines.len()
        )),
        "{stderr}"
    );
    assert!(
        stdout.contains(&format!("over {} positions", lines.len())),
        "{stdout}"
    );
}

#[test]
fn bad_labels_are_named_by_line() {
    let dir = TestDir::new("arbiter-tune-labels-");
    let labels = dir.join("labels.tsv");
    let path = labels.to_str().unwrap();
    let message = |text: &str| {
        std::fs::write(&labels, text).unwrap();
        let (ok, _, stderr) = tune_surakarta(&["--labels", path]);
        assert!(!ok, "{text:?} was accepted");
        stderr
    };
    let m = message("# c\n1.5\tA2-A3\n");
    assert!(
        m.contains("labels.tsv:2: `1.5` is not an expected score from 0 to 1"),
        "{m}"
    );
    let m = message("0.5\t\n0.25\tA2-A3 A2-A3\n");
    assert!(
        m.contains("labels.tsv:2") && m.contains("move 2 `A2-A3`"),
        "{m}"
    );
    let (ok, _, stderr) = tune_surakarta(&[]);
    assert!(!ok && stderr.contains("--records"), "{stderr}");
}

/// `tune duck --selfplay` into a file of `dir`, with `threads`; the file's lines, sorted.
fn selfplay(dir: &TestDir, name: &str, threads: &str) -> Vec<String> {
    let path = dir.join(name);
    let out = common::duck_selfplay(&path, "4", "2", threads);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("4 games, "), "{stderr}");
    let mut lines: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

#[test]
fn selfplay_writes_labelled_positions_whatever_the_threads() {
    let dir = TestDir::new("arbiter-tune-selfplay-");
    let lines = selfplay(&dir, "one.tsv", "1");
    assert!(lines.len() > 40, "{} positions from 4 games", lines.len());
    let mut results = std::collections::HashMap::new();
    for line in &lines {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 5, "{line}");
        let game: usize = fields[0].parse().unwrap();
        assert!(game < 4, "{line}");
        let [_static, score]: [i32; 2] = [1, 2].map(|i| fields[i].parse().unwrap());
        assert!(score.abs() < 1000, "{line}");
        let result = fields[3];
        assert!(["0", "0.5", "1"].contains(&result), "{line}");
        let inputs: Vec<u16> = fields[4].split(',').map(|i| i.parse().unwrap()).collect();
        // Where the pieces stand (below 1260), then which of them stand threatened: each a
        // piece's input moved up by 1260.
        let (pieces, threats): (Vec<u16>, Vec<u16>) = inputs.iter().partition(|&&i| i < 1260);
        assert!((2..=32).contains(&pieces.len()), "{line}");
        assert!(
            threats
                .iter()
                .all(|&t| t < 2520 && pieces.contains(&(t - 1260))),
            "{line}"
        );
        // Exactly one own captain (block 0, kind 0) and one enemy captain (block 1, kind 0).
        assert_eq!(inputs.iter().filter(|&&i| i < 90).count(), 1, "{line}");
        assert_eq!(
            inputs.iter().filter(|&&i| (630..720).contains(&i)).count(),
            1
        );
        results
            .entry(game)
            .or_insert_with(Vec::new)
            .push(result.to_string());
    }
    for (game, seen) in results {
        // A game's result, told to each side: a draw to both, else a win to one and a loss
        // to the other.
        let draw = seen.iter().all(|r| r == "0.5");
        assert!(
            draw || !seen.contains(&"0.5".to_string()),
            "game {game}: {seen:?}"
        );
    }
    assert_eq!(
        selfplay(&dir, "two.tsv", "2"),
        lines,
        "the same games on two threads"
    );
}

#[test]
fn selfplay_is_refused_for_a_game_without_a_learnt_evaluation() {
    let dir = TestDir::new("arbiter-tune-selfplay-refused-");
    let path = dir.join("out.tsv");
    let (ok, _, stderr) = tune_surakarta(&["--selfplay", path.to_str().unwrap(), "--games", "1"]);
    assert!(!ok);
    assert!(stderr.contains("no learnt evaluation"), "{stderr}");
}

#[test]
fn selfplay_names_a_file_it_cannot_write() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let args = [
        "--selfplay",
        "/dev/full",
        "--games",
        "1000",
        "--nodes",
        "300",
    ];
    let out = arbiter(
        &[&["tune", "duck", "--threads", "2"], &args[..]].concat(),
        b"",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("cannot write /dev/full"), "{stderr}");
    assert!(
        !stderr.contains("50 games"),
        "played on after the error: {stderr}"
    );
}

#[test]
fn selfplay_options_without_selfplay_are_refused() {
    let dir = records("selfplay-options");
    let records = dir.path().to_str().unwrap();
    for option in [
        &["--games", "5"][..],
        &["--nodes", "100"],
        &["--player", "alphabeta"],
        &["--seed", "2"],
        &["--threads", "1"],
        &["--suite", "x.txt"],
    ] {
        let (ok, stdout, stderr) = tune_surakarta(&[&["--records", records][..], option].concat());
        assert!(!ok, "{option:?} was accepted: {stdout}");
        assert!(stderr.contains("--selfplay"), "{option:?}: {stderr}");
    }
}

#[test]
fn fit_options_beside_export_are_refused() {
    let dir = records("export-options");
    let records = dir.path().to_str().unwrap();
    let exported = dir.join("positions.txt");
    let labels = dir.join("labels.tsv");
    std::fs::write(&labels, "# none\n").unwrap();
    let export = ["--records", records, "--export", exported.to_str().unwrap()];
    for option in [
        &["--labels", labels.to_str().unwrap()][..],
        &["--weights", "interior"],
        &["--holdout", "10"],
        &["--rounds", "3"],
        &["--step", "2"],
    ] {
        let (ok, stdout, stderr) = tune_surakarta(&[&export[..], option].concat());
        assert!(!ok, "{option:?} was accepted: {stdout}");
        assert!(stderr.contains("--export"), "{option:?}: {stderr}");
        assert!(!exported.exists(), "{option:?} wrote the export");
    }
}
