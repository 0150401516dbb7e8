//! `scripts/cluster.sh` as an operator's tool (issue 75, item 4), run for real on loopback with
//! free ports: a node that exits is reported and the rest go on serving; `status` says which
//! part is down and `restart` brings it back; Ctrl-C (SIGTERM) stops every part and keeps the
//! data folder; `--clean` starts from an empty folder and removes it at `stop`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{free_port, http, TestDir};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/cluster.sh")
}

/// `cluster.sh ARGS --dir DIR` to its end.
fn run(args: &[&str], dir: &Path) -> Output {
    Command::new("bash")
        .arg(script())
        .args(args)
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap()
}

/// A cluster started by the script in the foreground; stopped (`cluster.sh stop`) when dropped.
struct Cluster {
    child: Child,
    dir: PathBuf,
    out: PathBuf,
    err: PathBuf,
}

impl Cluster {
    fn start(dir: &Path, logs: &Path, extra: &[&str]) -> (Cluster, u16) {
        let (web, course) = (free_port(), free_port());
        let (out, err) = (logs.join("script.out"), logs.join("script.err"));
        let child = Command::new("bash")
            .arg(script())
            .args(["start", "--nodes", "2", "--lease-seconds", "3"])
            .args(["--http", &web.to_string(), "--tcp", &course.to_string()])
            .args(["--binary", env!("CARGO_BIN_EXE_arbiter")])
            .arg("--dir")
            .arg(dir)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap();
        let cluster = Cluster {
            child,
            dir: dir.to_path_buf(),
            out,
            err,
        };
        let until = Instant::now() + Duration::from_secs(180);
        let started = "arbiter cluster of 2 nodes";
        let mut cluster = cluster;
        while !cluster.says(&cluster.out, started, 1) {
            let gone = cluster.child.try_wait().unwrap().is_some();
            assert!(!gone && Instant::now() < until, "{}", cluster.said());
        }
        (cluster, web)
    }

    /// Waits up to `seconds` for `file` to contain `text`.
    fn says(&self, file: &Path, text: &str, seconds: u64) -> bool {
        let until = Instant::now() + Duration::from_secs(seconds);
        while Instant::now() < until {
            if std::fs::read_to_string(file).is_ok_and(|t| t.contains(text)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    fn said(&self) -> String {
        let read = |f: &Path| std::fs::read_to_string(f).unwrap_or_default();
        format!("{}{}", read(&self.out), read(&self.err))
    }

    fn pid(&self, part: &str) -> String {
        let pid = std::fs::read_to_string(self.dir.join("pids").join(part)).unwrap();
        pid.trim().to_string()
    }

    /// Waits up to 60 s for the script to end.
    fn ended(&mut self) -> bool {
        let until = Instant::now() + Duration::from_secs(60);
        while Instant::now() < until {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = run(&["stop"], &self.dir);
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn alive(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The data folder: under /tmp and open to all, since PostgreSQL runs as `postgres` when the
/// tests run as root (a test's own temporary folder is private).
struct DataDir(PathBuf);

impl DataDir {
    fn new(name: &str) -> DataDir {
        let pid = std::process::id();
        let dir = PathBuf::from(format!("/tmp/arbiter-cluster-script-{name}-{pid}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        DataDir(dir)
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_node_that_exits_is_reported_the_rest_go_on_and_restart_brings_it_back() {
    let data = DataDir::new("exits");
    let logs = TestDir::new("arbiter-cluster-script-");
    let (mut cluster, web) = Cluster::start(&data.0, &logs, &[]);
    let status = run(&["status"], &data.0);
    let text = String::from_utf8_lossy(&status.stdout).to_string();
    assert!(status.status.success(), "{text}");
    for part in ["postgres", "nats", "node1", "node2", "haproxy"] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(part) && l.contains("running")),
            "{text}"
        );
    }

    let node2 = cluster.pid("node2");
    assert!(Command::new("kill")
        .args(["-9", &node2])
        .status()
        .unwrap()
        .success());
    assert!(
        cluster.says(&cluster.err, "node2 exited", 15),
        "{}",
        cluster.said()
    );
    let status = run(&["status"], &data.0);
    let text = String::from_utf8_lossy(&status.stdout).to_string();
    assert_eq!(status.status.code(), Some(1), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("node2") && l.contains("EXITED")),
        "{text}"
    );
    for part in ["postgres", "nats", "node1", "haproxy"] {
        assert!(
            alive(&cluster.pid(part)),
            "{part} stopped with node2: {}",
            cluster.said()
        );
    }
    let until = Instant::now() + Duration::from_secs(15);
    while http(web, "GET", "/api/games", "").0 != 200 {
        assert!(
            Instant::now() < until,
            "haproxy finds no node: {}",
            cluster.said()
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    let restarted = run(&["restart", "node2"], &data.0);
    assert!(restarted.status.success(), "{restarted:?}");
    assert_ne!(cluster.pid("node2"), node2);
    assert!(run(&["status"], &data.0).status.success());
    sigterm_stops_every_part_and_keeps_the_data(&mut cluster, &data);
}

/// SIGTERM to the script (Ctrl-C) stops every part and keeps the database.
fn sigterm_stops_every_part_and_keeps_the_data(cluster: &mut Cluster, data: &DataDir) {
    let pids: Vec<String> = ["postgres", "nats", "node1", "node2", "haproxy"]
        .iter()
        .map(|p| cluster.pid(p))
        .collect();
    let script_pid = cluster.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &script_pid])
        .status()
        .unwrap()
        .success());
    assert!(cluster.ended(), "{}", cluster.said());
    for pid in &pids {
        assert!(!alive(pid), "pid {pid} still runs: {}", cluster.said());
    }
    assert!(
        data.0.join("pg/PG_VERSION").exists(),
        "the data folder was kept"
    );
    assert!(cluster.said().contains("kept"), "{}", cluster.said());
}

#[test]
fn clean_starts_from_an_empty_folder_and_stop_removes_it() {
    let data = DataDir::new("clean");
    std::fs::write(data.0.join("old-file"), "from an earlier run").unwrap();
    let logs = TestDir::new("arbiter-cluster-script-clean-");
    let (mut cluster, _) = Cluster::start(&data.0, &logs, &["--clean"]);
    assert!(!data.0.join("old-file").exists());
    let stopped = run(&["stop"], &data.0);
    assert!(stopped.status.success(), "{stopped:?}");
    assert!(cluster.ended(), "{}", cluster.said());
    assert!(!data.0.exists(), "{}", cluster.said());
}
