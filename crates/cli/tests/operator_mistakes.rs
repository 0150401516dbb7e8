//! Operator mistakes and a quiet log (issue 75, item 5), as the operator sees them: the exit
//! code and message of `arbiter serve`, the files left on disk, the lines of the log.

mod common;

use std::io::Write;
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_pgtest::{TestNats, TestPostgres};
use arbiter_server::protocol::READY;
use common::cluster::{temp, Node, Player};
use common::{ensure_package, free_port, TestDir};
use serde_json::json;

/// `arbiter serve ARGS` run in `dir`, to its end: its exit status and standard error.
fn serve_in(dir: &std::path::Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("serve")
        .args(["--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0"])
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_misspelt_database_scheme_is_refused_by_name_and_nothing_is_made_on_disk() {
    let dir = TestDir::new("arbiter-scheme-");
    let url = "postgress://arbiter:s3cret@127.0.0.1:5432/games";
    let (ok, said) = serve_in(dir.path(), &["--db", url]);
    assert!(!ok, "{said}");
    assert!(said.contains("`postgress://`"), "{said}");
    assert!(
        said.contains("postgres://") && said.contains("postgresql://"),
        "{said}"
    );
    assert!(!said.contains("s3cret"), "{said}");
    assert_eq!(files_in(dir.path()), Vec::<String>::new());
}

#[test]
fn a_sqlite_node_refused_for_a_cluster_leaves_no_files_behind() {
    let dir = TestDir::new("arbiter-cluster-sqlite-");
    let nats = format!("nats://127.0.0.1:{}", free_port());
    let (ok, said) = serve_in(dir.path(), &["--db", "games.sqlite", "--cluster", &nats]);
    assert!(!ok, "{said}");
    assert!(said.contains("--db postgres://"), "{said}");
    assert_eq!(files_in(dir.path()), Vec::<String>::new());
}

/// The log's lines that contain `text`.
fn lines_with(log: &std::path::Path, text: &str) -> Vec<String> {
    let log = std::fs::read_to_string(log).unwrap_or_default();
    log.lines()
        .filter(|l| l.contains(text))
        .map(String::from)
        .collect()
}

/// Waits until the log has a line with `text`, for `within`.
fn wait_for_line(log: &std::path::Path, text: &str, within: Duration) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if !lines_with(log, text).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// haproxy in front of one node's course port, checking it every 200 ms; stopped when dropped.
struct Haproxy(std::process::Child);

impl Haproxy {
    fn start(dir: &std::path::Path, front: u16, node: u16) -> Haproxy {
        ensure_package("haproxy");
        let config = format!(
            "defaults\n    mode tcp\n    timeout connect 5s\n    timeout client 1m\n    \
             timeout server 1m\nfrontend course\n    bind 127.0.0.1:{front}\n    \
             default_backend nodes\nbackend nodes\n    server n1 127.0.0.1:{node} check \
             send-proxy check-send-proxy inter 200ms\n"
        );
        let file = dir.join("haproxy.cfg");
        std::fs::write(&file, config).unwrap();
        let child = Command::new("/usr/sbin/haproxy")
            .arg("-f")
            .arg(&file)
            .arg("-db")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Haproxy(child)
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn haproxys_health_checks_are_logged_at_debug_level_and_its_clients_at_info() {
    let dir = TestDir::new("arbiter-checks-");
    let log = dir.join("server.log");
    let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    command
        .arg("serve")
        .args(["--trusted-proxy", "127.0.0.1", "--db"])
        .arg(dir.join("games.sqlite"))
        .arg("--log")
        .arg(&log)
        .env("RUST_LOG", "info,arbiter_server::transport=debug");
    let (server, tcp, _) = common::serve_on_free_ports(command, common::StderrAfterStart::Drained);
    let front = free_port();
    let _server = common::Server::new(server);
    let _haproxy = Haproxy::start(dir.path(), front, tcp);
    let checks = "the balancer's health check";
    assert!(
        wait_for_line(&log, checks, Duration::from_secs(20)),
        "no check seen"
    );
    std::thread::sleep(Duration::from_secs(1));
    let mut client = TcpStream::connect(("127.0.0.1", front)).unwrap();
    let me = client.local_addr().unwrap();
    writeln!(client, "not a message").unwrap();
    drop(client);
    let closed = format!("connection {me} closed");
    assert!(
        wait_for_line(&log, &closed, Duration::from_secs(10)),
        "{me}"
    );
    let info = |l: &String| l.contains(" INFO ");
    let checks_logged = lines_with(&log, checks);
    assert!(checks_logged.len() >= 3, "{checks_logged:?}");
    assert!(
        checks_logged.iter().all(|l| l.contains("DEBUG")),
        "{checks_logged:?}"
    );
    let at_info: Vec<String> = lines_with(&log, "connection")
        .into_iter()
        .filter(info)
        .collect();
    let from = format!("connection from {me} (TCP)");
    assert_eq!(at_info.len(), 2, "only the client's two lines: {at_info:?}");
    assert!(
        at_info[0].contains(&from) && at_info[1].contains(&closed),
        "{at_info:?}"
    );
}

#[test]
fn a_room_that_cannot_be_claimed_is_warned_of_once_per_10_s_with_a_count() {
    let (db, mut pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("claims");
    let node = Node::start("a", &db, &nats.url(), dir.path());
    pg.stop();
    let mut alice = Player::connect(&node);
    alice.send(READY, "alice", "BLACK", "9", json!({}));
    let log = dir.join("a.log");
    assert!(wait_for_line(&log, "cannot claim", Duration::from_secs(10)));
    std::thread::sleep(Duration::from_millis(11_000));
    let said = lines_with(&log, "cannot claim");
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].contains("room 9: cannot claim"), "{said:?}");
    assert!(
        said[1].contains("more like it in the last 10 s"),
        "{said:?}"
    );
}

#[test]
fn a_second_node_under_a_taken_name_warns_and_one_started_after_it_stopped_does_not() {
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("names");
    let mut first = Node::start("a", &db, &nats.url(), dir.path());
    let second_dir = temp("names-second");
    let second = Node::start("a", &db, &nats.url(), second_dir.path());
    let warning = "another running node is named `a`";
    let second_log = second_dir.join("a.log");
    assert!(wait_for_line(&second_log, warning, Duration::from_secs(10)));
    assert!(lines_with(&second_log, warning)[0].contains("WARN"));
    assert!(lines_with(&dir.join("a.log"), warning).is_empty());
    drop(second);
    first.kill();
    let again_dir = temp("names-again");
    let _again = Node::start("a", &db, &nats.url(), again_dir.path());
    let again_log = again_dir.join("a.log");
    assert!(wait_for_line(
        &again_log,
        "joined the cluster",
        Duration::from_secs(10)
    ));
    assert!(lines_with(&again_log, warning).is_empty());
}

/// Many course clients on one machine (a test harness, a school's NAT) meet the seat cap per
/// address: each is refused with the reason, and the host's log names the flag to raise, once.
#[test]
fn a_seat_cap_that_refuses_players_names_its_flag_in_the_log_once() {
    let dir = TestDir::new("arbiter-seat-cap-");
    let cap = ["--max-seats-per-ip", "2"];
    let (_server, tcp, _) =
        common::start_server_with(dir.path(), dir.join("g.sqlite").as_os_str(), &cap);
    let mut refused = Vec::new();
    let mut clients = Vec::new();
    for room in 1..=4 {
        let mut client = TcpStream::connect(("127.0.0.1", tcp)).unwrap();
        let ready = json!({"op": READY, "data1": format!("p{room}"), "data2": "BLACK",
            "data3": room.to_string()});
        writeln!(client, "{ready}").unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let mut line = String::new();
        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(&client), &mut line);
        if line.contains("too many seats") {
            refused.push(line);
        }
        clients.push(client);
    }
    assert_eq!(refused.len(), 2, "rooms 3 and 4 refused: {refused:?}");
    let log = dir.join("server.log");
    let warning = "raise --max-seats-per-ip";
    assert!(wait_for_line(&log, warning, Duration::from_secs(5)));
    assert_eq!(lines_with(&log, warning).len(), 1, "said once a minute");
}
