//! `scripts/captures-duck.py` on a real arena run: every game that ended with a captain taken
//! shows that captain among the loser's lost pieces, and the totals add up the games' lines.

mod common;

use std::path::Path;
use std::process::Command;

use common::{arena_into, TestDir};

/// A finished arena run of greedy against random (captains get taken), in a fresh folder.
fn arena_run(dir: &Path) {
    let players = ["--player", "g=greedy", "--player", "r=random"];
    arena_into(
        dir,
        &[&["duck"], &players[..], &["--games", "4", "--seed", "7"]].concat(),
    );
}

/// Who lost each game by its captain, from games.tsv: (record file, loser).
fn captains_taken(dir: &Path) -> Vec<(String, String)> {
    let index = std::fs::read_to_string(dir.join("games.tsv")).unwrap();
    index
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect::<Vec<_>>())
        .filter(|f| f[5].contains("captain") && f[3] != "draw")
        .map(|f| {
            let loser = if f[3] == f[1] { &f[2] } else { &f[1] };
            (f[6].clone(), loser.clone())
        })
        .collect()
}

#[test]
fn the_lost_pieces_name_each_taken_captain_and_add_up() {
    let dir = TestDir::new("arbiter-captures-");
    arena_run(&dir);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/captures-duck.py");
    let out = Command::new("python3")
        .arg(&script)
        .args([dir.to_str().unwrap(), "g", "0"])
        .output()
        .expect("python3 runs the script");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let taken = captains_taken(&dir);
    assert!(!taken.is_empty(), "greedy takes a captain within 4 games");
    for (file, loser) in &taken {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(file.as_str()))
            .unwrap_or_else(|| panic!("no line for {file}: {stdout}"));
        let column = if loser == "g" { 1 } else { 2 };
        let lost = line.split('\t').nth(column).unwrap();
        assert!(
            lost.contains("K1"),
            "{loser} lost its captain in {file}: {line}"
        );
    }
    assert!(stdout.contains("4 games, plies up to the end"), "{stdout}");
    let captains: usize = stdout
        .lines()
        .filter(|l| l.starts_with("game-"))
        .map(|l| l.matches("K1").count())
        .sum();
    assert_eq!(captains, taken.len(), "{stdout}");
}
