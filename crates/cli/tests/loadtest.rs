//! `arbiter loadtest` through the real binary: 300 concurrent games against the server it
//! starts, and that server's store refused none of their writes and was given none again (issue
//! 79: under load SQLite answered "database is locked" and each such move waited 400 ms for a
//! second try). Counts, not times: how fast a move goes is the benchmark's business
//! (docs/cluster.md, "One node under load").

mod common;

/// The numbers of the report's line `store: W writes, R refused, T retried`.
fn store_counts(report: &str) -> Option<[u64; 3]> {
    let line = report.lines().find_map(|l| l.strip_prefix("store: "))?;
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    numbers.try_into().ok()
}

#[test]
fn three_hundred_games_at_once_and_the_store_refuses_none_of_their_writes() {
    let out = common::arbiter(&["loadtest", "--games", "300", "--seed", "79"], b"");
    let report = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{report}\n{stderr}");
    assert!(report.contains("300 started, 300 completed"), "{report}");
    assert!(
        report.contains("stored games checked against the clients: 300 of 300 equal"),
        "{report}"
    );
    let [writes, refused, retried] = store_counts(&report).expect(&report);
    assert_eq!((refused, retried), (0, 0), "{report}");
    // At least each game's start, end and first move went through the store.
    assert!(writes >= 900, "{report}");
    assert!(report.contains("errors: 0"), "{report}");
}
