//! `arbiter arena` end to end: a real tournament, JSON, records, outside engines good and bad.

mod common;

use common::arbiter;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_small_tournament_writes_json_and_records() {
    let dir = temp_dir("arena");
    let json = dir.join("result.json");
    let out = arbiter(
        &[
            "arena",
            "surakarta",
            "--player",
            "ab=alphabeta:depth=2",
            "--player",
            "rnd=random",
            "--player",
            "gr=greedy",
            "--games",
            "4",
            "--concurrency",
            "2",
            "--out",
            dir.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("ab vs rnd: 4 games"), "{table}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["game"], "surakarta");
    assert_eq!(report["games"], 12);
    let players = report["players"].as_array().unwrap();
    assert_eq!(players.len(), 3);
    for p in players {
        let score = p["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
        assert_eq!(p["games"], 8);
        for key in ["name", "spec", "wins", "draws", "losses"] {
            assert!(p.get(key).is_some(), "{key}");
        }
    }
    let pairs = report["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3);
    for key in ["a", "b", "wins", "draws", "losses", "elo", "elo_error"] {
        assert!(pairs[0].get(key).is_some(), "{key}");
    }
    for pair in pairs {
        // A number, or null for a pair whose score is 0% or 100%.
        let (elo, wins, games) = (&pair["elo"], &pair["wins"], 8);
        let one_sided = wins == 0 || wins == games;
        assert!(elo.is_f64() || (elo.is_null() && one_sided), "{pair}");
    }
    let index = std::fs::read_to_string(dir.join("games.tsv")).unwrap();
    assert_eq!(index.lines().count(), 13);
    // Surakarta records are in the course notation: moves, then an end mark.
    let record = std::fs::read_to_string(dir.join("game-0001-ab-vs-rnd.txt")).unwrap();
    let parsed = arbiter_surakarta::Record::parse(&record, 6).unwrap();
    assert!(!parsed.moves.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outside_engines_play_and_bad_ones_forfeit() {
    let dir = temp_dir("engines");
    let me = env!("CARGO_BIN_EXE_arbiter");
    let good = format!("good=cmd:{me} engine");
    // Engines that answer the handshake and then misbehave when asked to move.
    let script = |on_go: &str| {
        format!(
            "cmd:while read l; do case \"$l\" in arbiter) echo arbiterok;; isready) echo readyok;; go*) {on_go};; esac; done"
        )
    };
    let crash = format!("crash={}", script("exit 3"));
    let illegal = format!("illegal={}", script("echo bestmove Z9-Z9"));
    let hang = format!("hang={}", script("sleep 30"));
    let out = arbiter(
        &[
            "arena",
            "rc02",
            "--size",
            "4",
            "--player",
            &good,
            "--player",
            &crash,
            "--player",
            &illegal,
            "--player",
            &hang,
            "--games",
            "2",
            "--time-per-move",
            "50",
            "--concurrency",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = std::fs::read_to_string(dir.join("games.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = index
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 12);
    for row in &rows {
        let (first, second, winner, reason) = (row[1], row[2], row[3], row[5]);
        if first == "good" || second == "good" {
            assert_eq!(winner, "good", "{row:?}");
        }
        let loser = if winner == first { second } else { first };
        match loser {
            "crash" => assert!(reason.contains("engine failed"), "{row:?}"),
            "illegal" => assert!(reason.contains("illegal move"), "{row:?}"),
            "hang" => assert!(reason.contains("in time"), "{row:?}"),
            _ => panic!("unexpected loser in {row:?}"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_explained() {
    for (args, needle) in [
        (
            vec!["arena", "duck", "--player", "a=random"],
            "at least two",
        ),
        (
            vec![
                "arena", "duck", "--player", "a=random", "--player", "a=greedy",
            ],
            "two players are called",
        ),
        (
            vec![
                "arena", "duck", "--player", "a=random", "--player", "b=wizard",
            ],
            "unknown player",
        ),
        (
            vec![
                "arena", "duck", "--player", "arandom", "--player", "b=greedy",
            ],
            "NAME=SPEC",
        ),
        (
            vec![
                "arena",
                "surakarta",
                "--size",
                "7",
                "--player",
                "a=random",
                "--player",
                "b=greedy",
            ],
            "6, 8, 10 or 12",
        ),
        (
            vec![
                "arena", "duck", "--player", "a=random", "--player", "b=greedy", "--sprt", "50,0",
            ],
            "below",
        ),
        (
            vec![
                "arena",
                "duck",
                "--player",
                "a=greedy:warp=9",
                "--player",
                "b=greedy",
            ],
            "unknown weight",
        ),
    ] {
        let out = arbiter(&args, b"");
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let out = arbiter(
        &[
            "arena",
            "duck",
            "--player",
            "ab=alphabeta:depth=2",
            "--player",
            "rnd=random",
            "--games",
            "200",
            "--sprt",
            "0,100",
        ],
        b"",
    );
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("SPRT: H1 accepted"), "{table}");
    let games: u32 = table
        .lines()
        .find(|l| l.starts_with("ab vs rnd:"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(games < 200, "{table}");
}
