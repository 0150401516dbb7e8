//! `arbiter arena --out` stopped from outside: what it leaves on disk.

/// A long run stopped from outside (an SPRT cut short, Ctrl-C) still leaves `games.tsv` with a
/// line for each game it finished, each naming a record that is there.
#[test]
fn a_run_killed_midway_leaves_an_index_of_its_finished_games() {
    let dir = arbiter_pgtest::TestDir::new("arbiter-test-arena-killed-");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["arena", "surakarta", "--player", "a=alphabeta:depth=1"])
        .args([
            "--player", "b=greedy", "--games", "100000", "--seed", "3", "--out",
        ])
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the arbiter binary runs");
    let index = dir.join("games.tsv");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut lines = 0;
    while lines < 4 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        lines = std::fs::read_to_string(&index).map_or(0, |text| text.lines().count());
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&index).expect("games.tsv is written as games finish");
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows.len() >= 4, "{text}");
    assert!(rows[0].starts_with("game\tfirst\tsecond"), "{text}");
    for row in &rows[1..] {
        let file = row.rsplit('\t').next().unwrap();
        assert!(dir.join(file).is_file(), "{row}: no record {file}");
    }
}
