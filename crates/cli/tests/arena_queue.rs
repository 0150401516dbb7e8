//! The arena queue end to end (docs/arena.md#many-machines): the real binary submits tests to a
//! PostgreSQL database started by the test, and `arbiter worker` processes play them.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_pgtest::TestPostgres;
use common::{arbiter, http, start_server, start_server_on, TestDir};

fn temp_dir(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-queue-{name}-"))
}

/// Runs `arbiter ARGS`, asserting success; its standard output.
fn run_ok(args: &[&str]) -> String {
    let out = arbiter(args, b"");
    assert!(
        out.status.success(),
        "arbiter {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Submits a match to the queue; its test id.
fn submit(url: &str, args: &[&str]) -> String {
    let mut all = vec!["arena", "surakarta"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--queue", url]);
    run_ok(&all).trim().to_string()
}

/// A worker process, its stderr in a file; killed when dropped.
struct Worker {
    child: Child,
    log: PathBuf,
}

impl Worker {
    fn start(url: &str, name: &str, dir: &Path, extra: &[&str]) -> Worker {
        let log = dir.join(format!("{name}.log"));
        let child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["worker", url, "--name", name, "--heartbeat-ms", "300"])
            .arg("--records")
            .arg(dir.join(name))
            .args(extra)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Worker { child, log }
    }

    /// Waits for the worker to exit by itself; its log.
    fn wait(&mut self, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let log = self.log();
                assert!(status.success(), "worker failed: {log}");
                return log;
            }
            assert!(
                Instant::now() < deadline,
                "worker still running: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The record files (name → contents) under each of `dirs`, and `games.tsv`'s lines.
fn records(dirs: &[PathBuf]) -> (BTreeMap<String, String>, Vec<String>) {
    let (mut files, mut index) = (BTreeMap::new(), Vec::new());
    for dir in dirs.iter().filter(|d| d.exists()) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            // Played on another day the date would differ; everything else must not.
            let text: String = text
                .lines()
                .filter(|l| !l.starts_with("[Date "))
                .map(|l| format!("{l}\n"))
                .collect();
            if name == "arena-args" {
                // The local run's arguments, kept for `--resume`.
                continue;
            }
            if name == "games.tsv" {
                index.extend(text.lines().skip(1).map(str::to_string));
            } else {
                assert!(files.insert(name.clone(), text).is_none(), "{name} twice");
            }
        }
    }
    index.sort();
    (files, index)
}

#[test]
fn three_workers_play_a_fixed_match_exactly_like_a_local_run() {
    let (url, _pg) = TestPostgres::start();
    let dir = temp_dir("fixed");
    let local = dir.join("local");
    let match_args = [
        "--player",
        "rnd=random",
        "--player",
        "gr=greedy",
        "--games",
        "14",
        "--seed",
        "7",
    ];
    let mut args = vec!["arena", "surakarta", "--out", local.to_str().unwrap()];
    args.extend_from_slice(&match_args);
    run_ok(&args);
    let mut queued = match_args.to_vec();
    queued.extend_from_slice(&["--batch-pairs", "2"]);
    let id = submit(&url, &queued);
    assert_eq!(id, "1");
    let before = run_ok(&["arena", "status", &url, &id]);
    assert!(before.contains("games: 0 of 14"), "{before}");
    assert!(before.contains("[running]"), "{before}");
    let mut workers: Vec<Worker> = (1..=3)
        .map(|i| Worker::start(&url, &format!("w{i}"), &dir, &["--until-idle"]))
        .collect();
    for w in &mut workers {
        w.wait(Duration::from_secs(120));
    }
    let status = run_ok(&["arena", "status", &url]);
    assert!(
        status.contains("test 1: rnd vs gr (surakarta)  [finished]"),
        "{status}"
    );
    assert!(status.contains("games: 14 of 14"), "{status}");
    assert!(status.contains("pairs: 7 ("), "{status}");
    assert!(status.contains("workers playing: none"), "{status}");
    let dirs: Vec<PathBuf> = (1..=3).map(|i| dir.join(format!("w{i}/test-1"))).collect();
    let (played, index) = records(&dirs);
    let (wanted, local_index) = records(&[local]);
    assert_eq!(played.len(), 14);
    assert_eq!(played, wanted, "each game as the local run played it");
    assert_eq!(
        index, local_index,
        "games.tsv: the same results, opening by opening"
    );
    let counts = _pg.psql("SELECT count(*), count(DISTINCT pair) FROM arena_results");
    assert_eq!(counts.trim(), "7|7");
    tests_page_shows(&url, &dir);
}

/// `/tests` of a server on the queue's database shows the finished test; on SQLite it says why
/// there is none.
fn tests_page_shows(url: &str, dir: &Path) {
    let pg_dir = dir.join("serve-pg");
    std::fs::create_dir_all(&pg_dir).unwrap();
    let (_server, _, port) = start_server_on(&pg_dir, url.as_ref());
    let (status, page) = http(port, "GET", "/tests", "");
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains(
            "<td>1</td><td>rnd vs gr (surakarta)</td><td>100 ms a move, 4-ply random openings, \
             no resign rule, no draw rule, seed 7</td>"
        ),
        "{page}"
    );
    assert!(
        page.contains("<td>all 14 games played</td><td>14 of 14</td>"),
        "{page}"
    );
    let lite_dir = dir.join("serve-lite");
    std::fs::create_dir_all(&lite_dir).unwrap();
    let (_lite, _, port) = start_server(&lite_dir);
    let (status, body) = http(port, "GET", "/tests", "");
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("keeps its games in SQLite"), "{body}");
}

#[test]
fn a_worker_with_another_engine_binary_refuses_the_test() {
    let (url, pg) = TestPostgres::start();
    let dir = temp_dir("hash");
    let engine = dir.join("engine");
    std::fs::copy(env!("CARGO_BIN_EXE_arbiter"), &engine).unwrap();
    let player = format!("--player=eng=cmd:{} engine", engine.display());
    let id = submit(&url, &[&player, "--player", "rnd=random", "--games", "2"]);
    // The engine is rebuilt on this machine: same path, other contents.
    let mut bytes = std::fs::read(&engine).unwrap();
    bytes.extend_from_slice(b"rebuilt");
    std::fs::write(&engine, bytes).unwrap();
    let mut worker = Worker::start(&url, "other", &dir, &["--until-idle"]);
    let log = worker.wait(Duration::from_secs(30));
    assert!(
        log.contains(&format!(
            "refusing test {id}: engine eng is {}",
            engine.display()
        )),
        "{log}"
    );
    assert!(log.contains("but the test was submitted with"), "{log}");
    assert!(log.contains("worker done: 0 games played"), "{log}");
    // The batch is given back for a worker with the right binary.
    let batches = pg.psql("SELECT state, attempt FROM arena_batches");
    assert_eq!(batches.trim(), "pending|1");
}

/// Waits until `arena status` shows at least `games` games counted for test 1.
fn wait_for_games(url: &str, games: u32) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = run_ok(&["arena", "status", url, "1"]);
        let counted: u32 = status
            .split("games: ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        if counted >= games {
            return;
        }
        assert!(Instant::now() < deadline, "no games counted: {status}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_killed_workers_batch_is_played_again_and_no_pair_counts_twice() {
    let (url, pg) = TestPostgres::start();
    let dir = temp_dir("kill");
    // One batch of four pairs, slow enough to kill the worker in the middle of it.
    let id = submit(
        &url,
        &[
            "--player",
            "ab=alphabeta:ms=60",
            "--player",
            "rnd=random",
            "--games",
            "8",
            "--batch-pairs",
            "4",
            "--time-per-move",
            "60",
        ],
    );
    assert_eq!(id, "1");
    let mut first = Worker::start(&url, "doomed", &dir, &[]);
    wait_for_games(&url, 2);
    let playing = run_ok(&["arena", "status", &url, "1"]);
    assert!(
        playing.contains("workers playing: doomed (#1)"),
        "{playing}"
    );
    first.child.kill().unwrap(); // SIGKILL: no goodbye, the lease runs out
    first.child.wait().unwrap();
    let counted_before: i64 = pg
        .psql("SELECT count(*) FROM arena_results")
        .trim()
        .parse()
        .unwrap();
    assert!(
        (1..4).contains(&counted_before),
        "killed mid-batch: {counted_before}"
    );
    let mut second = Worker::start(&url, "heir", &dir, &["--until-idle"]);
    let log = second.wait(Duration::from_secs(120));
    assert!(log.contains("batch 1 (attempt 2): pairs 0..=3"), "{log}");
    assert!(
        log.contains(&format!("{counted_before} counted already")),
        "{log}"
    );
    let status = run_ok(&["arena", "status", &url, "1"]);
    assert!(status.contains("[finished]"), "{status}");
    assert!(status.contains("games: 8 of 8"), "{status}");
    let by_attempt =
        pg.psql("SELECT attempt, count(*) FROM arena_results GROUP BY attempt ORDER BY attempt");
    let expected = format!("1|{counted_before}\n2|{}", 4 - counted_before);
    assert_eq!(by_attempt.trim(), expected);
    let (_, index) = records(&[dir.join("heir/test-1")]);
    assert_eq!(index.len() as i64, 2 * (4 - counted_before), "{index:?}");
}

#[test]
fn an_interrupted_worker_gives_its_batch_back_at_once() {
    let (url, pg) = TestPostgres::start();
    let dir = temp_dir("interrupt");
    let slow = ["--player", "ab=alphabeta:ms=60", "--player", "rnd=random"];
    let id = submit(
        &url,
        &[&slow[..], &["--games", "8", "--batch-pairs", "4"]].concat(),
    );
    let mut worker = Worker::start(&url, "stopped", &dir, &[]);
    wait_for_games(&url, 2);
    let pid = worker.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let log = worker.wait(Duration::from_secs(20));
    assert!(log.contains("interrupted: batches given back: 1"), "{log}");
    // Given back, not lapsed: free at once for the next worker, as its attempt 2.
    let batch = pg.psql("SELECT state, attempt, worker_id IS NULL FROM arena_batches");
    assert_eq!(batch.trim(), "pending|1|t");
    let status = run_ok(&["arena", "status", &url, &id]);
    assert!(status.contains("[running]") && status.contains("workers playing: none"));
}

#[test]
fn an_sprt_of_a_player_against_itself_decides_and_the_workers_stop() {
    let (url, pg) = TestPostgres::start();
    let dir = temp_dir("sprt");
    // Random against random is about 0 Elo: H0 (0) against H1 (300) is soon accepted.
    let id = submit(
        &url,
        &[
            "--player",
            "a=random",
            "--player",
            "b=random",
            "--games",
            "2000",
            "--sprt",
            "0,300",
            "--batch-pairs",
            "2",
            "--resign",
            "600,8",
            "--draw",
            "10,20,40",
            "--nodes-per-move",
            "1000",
        ],
    );
    let mut workers: Vec<Worker> = (1..=3)
        .map(|i| Worker::start(&url, &format!("s{i}"), &dir, &["--until-idle"]))
        .collect();
    let mut played = 0;
    for w in &mut workers {
        let log = w.wait(Duration::from_secs(60));
        let done = log.lines().last().unwrap();
        played += done
            .strip_prefix("worker done: ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or_else(|| panic!("{log}"));
    }
    let status = run_ok(&["arena", "status", &url, &id]);
    assert!(status.contains("[H0 accepted]"), "{status}");
    assert!(status.contains("result: H0 accepted after"), "{status}");
    shows_conditions(
        &status,
        "1000 nodes a move, 4-ply random openings, resign at 600 cp for 8 plies, \
         draw within 10 cp for 20 plies after ply 40, seed 1",
    );
    let counted: u32 = pg
        .psql("SELECT 2 * count(*) FROM arena_results")
        .trim()
        .parse()
        .unwrap();
    assert!(counted < 2000 && status.contains(&format!("games: {counted} of 2000")));
    // Promptly: a worker finishes at most the pair it was playing when the test decided.
    assert!(
        played <= counted + 3 * 2,
        "played {played}, counted {counted}"
    );
    let left = pg.psql("SELECT count(*) FROM arena_batches WHERE state IN ('pending', 'claimed')");
    assert_eq!(left.trim(), "0");
}

/// `arena status` names the test's conditions, adjudication rules included.
fn shows_conditions(status: &str, conditions: &str) {
    assert!(
        status.contains(&format!("conditions: {conditions}\n")),
        "{status}"
    );
}

#[test]
fn queue_arguments_are_checked_before_anything_is_stored() {
    let port = common::free_port(); // nothing listens: no argument below gets as far as it
    let url = format!("postgres://arbiter@127.0.0.1:{port}/arbiter");
    let fails = |args: &[String], says: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = arbiter(&args, b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "{args:?}: {err}"
        );
    };
    let two = [
        "arena",
        "surakarta",
        "--player",
        "a=random",
        "--player",
        "b=random",
    ];
    let with = |more: &[&'static str]| -> Vec<String> {
        let all = [&two[..], more, &["--queue"]].concat();
        let mut all: Vec<String> = all.into_iter().map(String::from).collect();
        all.push(url.clone());
        all
    };
    fails(
        &with(&["--games", "3"]),
        "--games must be even with --queue",
    );
    fails(&with(&["--player", "c=random"]), "between two players");
    fails(
        &with(&["--batch-pairs", "0"]),
        "--batch-pairs must be at least 1",
    );
    fails(&with(&["--out", "x"]), "cannot be used with");
    fails(&with(&[]), "cannot reach the queue's database 127.0.0.1");
    fails(
        &["worker".into(), "not a url".into()],
        "invalid PostgreSQL URL",
    );
    let status = ["arena".to_string(), "status".into(), url.clone()];
    fails(&status, "cannot reach the queue's database");
}
