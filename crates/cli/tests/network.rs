//! The course's interoperability check: `arbiter serve` and two `arbiter connect` processes play
//! a game, and the server's and both clients' record files are identical.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{free_port, start_server};

fn connect(port: u16, colour: &str, name: &str, record: &std::path::Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "connect",
            "127.0.0.1",
            &port.to_string(),
            colour,
            "--name",
            name,
            "--player",
            "alphabeta:depth=2",
        ])
        .args(extra)
        .arg("--record")
        .arg(record)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The server's record of the last finished game, once it has written it (up to 5 s).
fn server_record(dir: &std::path::Path) -> String {
    let latest = dir.join("records").join("latest.txt");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !latest.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read_to_string(&latest).unwrap()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-net-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_course_check_server_and_two_clients_agree() {
    let dir = temp("check");
    let (_server, port, _) = start_server(&dir);
    let black = connect(port, "BLACK", "team_a", &dir.join("black.txt"), &[]);
    let white = connect(port, "WHITE", "team_b", &dir.join("white.txt"), &[]);
    for child in [black, white] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let server_record = server_record(&dir);
    let black = std::fs::read_to_string(dir.join("black.txt")).unwrap();
    let white = std::fs::read_to_string(dir.join("white.txt")).unwrap();
    assert_eq!(black, server_record);
    assert_eq!(white, server_record);
    assert!(server_record.trim_end().ends_with('#'), "{server_record}");
    arbiter_surakarta::Record::parse(&server_record, 6).expect("course notation");
    // Every message is logged with its move number, direction, peer and data.
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap();
    assert!(
        log.contains("recv peer=") && log.contains("op=MOVE") && log.contains("data1="),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_duck_chess_game_between_two_clients() {
    let dir = temp("duck");
    let (_server, port, _) = start_server(&dir);
    let red = connect(
        port,
        "RED",
        "r",
        &dir.join("red.txt"),
        &["--game", "duck", "--room", "3"],
    );
    let blue = connect(
        port,
        "BLUE",
        "b",
        &dir.join("blue.txt"),
        &["--game", "duck", "--room", "3"],
    );
    for child in [red, blue] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let red = std::fs::read_to_string(dir.join("red.txt")).unwrap();
    assert_eq!(red, std::fs::read_to_string(dir.join("blue.txt")).unwrap());
    assert_eq!(red, server_record(&dir));
    // Two depth-2 searchers fall into a cycle; the no-capture limit ends it as a draw.
    assert!(red.trim_end().ends_with("S#"), "{red}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn connect_fails_clearly_on_reject_and_on_no_server() {
    let dir = temp("reject");
    let (_server, port, _) = start_server(&dir);
    let client = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["connect", "127.0.0.1", &port.to_string()])
            .args(args)
            .output()
            .unwrap()
    };
    // Checked before connecting: a name the course refuses, a room out of range, a bad option.
    for (args, says) in [
        (
            &["BLACK", "--name", "bad name!"][..],
            "letters, digits and _",
        ),
        (&["BLACK", "--room", "1000001"][..], "1000001"),
        (
            &["RED", "--game", "duck", "--size", "8"][..],
            "no option `size`",
        ),
        (&["RED", "--game", "chess"][..], "unknown game `chess`"),
    ] {
        let out = client(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "{args:?}: {err}"
        );
    }
    // Refused by the server: the colour is taken in that room.
    let mut waiting = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "connect",
            "127.0.0.1",
            &port.to_string(),
            "BLACK",
            "--room",
            "7",
        ])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let out = client(&["BLACK", "--room", "7", "--name", "second"]);
    let _ = waiting.kill();
    let _ = waiting.wait();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("refused") && err.contains("colour is taken"),
        "{err}"
    );
    let closed = free_port();
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["connect", "127.0.0.1", &closed.to_string(), "WHITE"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot connect"));
    let _ = std::fs::remove_dir_all(&dir);
}
