//! A cluster's identity (issue 75, item 3): the database holds a cluster id, made once with it;
//! every node announces it on NATS, and a node whose NATS already carries another cluster's id
//! refuses to start, naming both ids and both databases.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_pgtest::{TestNats, TestPostgres};
use common::cluster::{temp, Node};
use common::free_port;

/// `arbiter serve` as node `name` of `db` through `nats`, to its end (at most 30 s): whether it
/// succeeded, and its standard error.
fn serve_to_end(name: &str, db: &str, nats: &str) -> (bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["serve", "--tcp", &format!("127.0.0.1:{}", free_port())])
        .args(["--http", &format!("127.0.0.1:{}", free_port())])
        .args(["--db", db, "--cluster", nats, "--node", name])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > until {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn log_has(log: &std::path::Path, text: &str, within: Duration) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if std::fs::read_to_string(log).is_ok_and(|l| l.contains(text)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn a_node_on_another_database_but_the_same_nats_refuses_to_start_naming_both() {
    let (db, pg) = TestPostgres::start();
    let other = pg.create_database("other");
    let nats = TestNats::start();
    let dir = temp("identity");
    let _a = Node::start("a", &db, &nats.url(), &dir);
    let ours = pg
        .psql("SELECT id FROM cluster_identity")
        .trim()
        .to_string();
    assert_eq!(ours.len(), 36, "a UUID: {ours}");
    assert!(log_has(
        &dir.join("a.log"),
        &format!("joined the cluster {ours}"),
        Duration::from_secs(10)
    ));

    let (ok, said) = serve_to_end("b", &other, &nats.url());
    assert!(!ok, "{said}");
    let port = pg.port();
    assert!(
        said.contains(&format!("already carries cluster {ours}")),
        "{said}"
    );
    assert!(
        said.contains(&format!("127.0.0.1:{port}/arbiter")),
        "{said}"
    );
    assert!(
        said.contains(&format!("127.0.0.1:{port}/other holds cluster ")),
        "{said}"
    );
    assert!(said.contains("node a-"), "{said}");
    let theirs = said.split("holds cluster ").nth(1).unwrap_or_default();
    assert!(!theirs.starts_with(&ours), "two ids: {said}");

    // A node of the same database joins, and the id stays what the database made.
    let _c = Node::start("c", &db, &nats.url(), &dir);
    assert!(log_has(
        &dir.join("c.log"),
        &format!("joined the cluster {ours}"),
        Duration::from_secs(10)
    ));
    assert_eq!(pg.psql("SELECT id FROM cluster_identity").trim(), ours);
}
