//! `arbiter arena --nodes-per-move`: matches limited by nodes, the same however busy the machine.

mod common;

use common::{arbiter, TestDir};

/// `--nodes-per-move`: the outside engine is sent `go nodes N` (read from what it received),
/// the inside player without a limit of its own stops at N nodes, and so a second run with two
/// games at once plays exactly the same games.
#[test]
fn a_match_by_nodes_plays_the_same_games_every_time() {
    let dir = TestDir::new("arbiter-test-nodes-");
    let heard = dir.join("heard.txt");
    let engine = format!(
        "engine=cmd:tee -a {} | {} engine",
        heard.display(),
        env!("CARGO_BIN_EXE_arbiter")
    );
    let run = |name: &str, concurrency: &str| {
        let out_dir = dir.join(name);
        let args = [
            "arena",
            "duck",
            "--player",
            "inside=alphabeta",
            "--player",
            &engine,
            "--games",
            "2",
            "--nodes-per-move",
            "3000",
            "--max-plies",
            "24",
            "--concurrency",
            concurrency,
            "--out",
            out_dir.to_str().unwrap(),
        ];
        let out = arbiter(&args, b"");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let records = [
            "game-0001-inside-vs-engine.txt",
            "game-0002-engine-vs-inside.txt",
        ];
        records.map(|f| std::fs::read_to_string(out_dir.join(f)).unwrap())
    };
    let first = run("first", "1");
    assert_eq!(first, run("second", "2"));
    // Two engines at once append to the file, so lines may interleave: count the words.
    let heard = std::fs::read_to_string(&heard).unwrap();
    assert!(heard.matches("go nodes 3000").count() >= 20, "{heard}");
    assert_eq!(
        heard.matches("go ").count(),
        heard.matches("go nodes 3000").count()
    );
    assert!(!heard.contains("movetime"), "{heard}");
}
