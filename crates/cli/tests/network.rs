//! The course's interoperability check: `arbiter serve` and two `arbiter connect` processes play
//! a game, and the server's and both clients' record files are identical.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{free_port, start_server, TestDir};

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

fn temp(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-net-{name}-"))
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
    // The game ends by the rules — a captain taken, or the no-capture limit — not by a client
    // running out of time, playing an illegal move or giving up (which end it is depends on the
    // search; crates/cli/tests/quiet_rule.rs checks the limit itself over the network).
    let end = red.split_whitespace().last().unwrap_or_default();
    assert!(matches!(end, "C#" | "S#"), "{red}");
}

/// `arbiter connect 127.0.0.1 PORT ARGS…`, run to its end.
fn connect_output(port: u16, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["connect", "127.0.0.1", &port.to_string()])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn connect_checks_its_arguments_before_connecting() {
    let dir = temp("arguments");
    let (_server, port, _) = start_server(&dir);
    // A name the course refuses, a room out of range, a bad option.
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
        let out = connect_output(port, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn connect_fails_clearly_on_reject_and_on_no_server() {
    let dir = temp("reject");
    let (_server, port, _) = start_server(&dir);
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
    let out = connect_output(port, &["BLACK", "--room", "7", "--name", "second"]);
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
}

/// Plays the first legal move of `game`; the move in the course's notation.
fn play_first_legal_move(game: &mut arbiter_surakarta::Position) -> String {
    use arbiter_core::Game;
    let mut legal = arbiter_core::MoveList::new();
    game.legal_moves(&mut legal);
    let text = game.format_move(legal[0]);
    game.play(legal[0]);
    text
}

/// A course team's client, as the course's programs behave: plays the first legal move it finds
/// and writes its record without a final newline.
fn foreign_client(
    port: u16,
    colour: &str,
    record: &std::path::Path,
) -> std::thread::JoinHandle<()> {
    use arbiter_core::Game;
    use std::io::{BufRead, BufReader, Write};
    let (colour, record) = (colour.to_string(), record.to_path_buf());
    std::thread::spawn(move || {
        let stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut writer = stream.try_clone().unwrap();
        let mut reader = BufReader::new(stream);
        let mut send = |line: String| writer.write_all(format!("{line}\n").as_bytes()).unwrap();
        send(format!(
            r#"{{"op":200000,"data1":"team_x","data2":"{colour}","data3":"1"}}"#
        ));
        let mut game = arbiter_surakarta::Position::new(6, 40).unwrap();
        let mine =
            [arbiter_core::Side::First, arbiter_core::Side::Second][usize::from(colour != "BLACK")];
        let mut moves: Vec<String> = Vec::new();
        loop {
            if game.side_to_move() == mine && !game.is_over() {
                let text = play_first_legal_move(&mut game);
                let (from, to) = text.split_once('-').unwrap();
                send(format!(
                    r#"{{"op":200001,"data1":"{from}","data2":"{to}","data3":""}}"#
                ));
                moves.push(text);
            }
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                panic!("the server closed the connection");
            }
            let m: serde_json::Value = serde_json::from_str(&line).unwrap();
            match m["op"].as_i64() {
                Some(200001) => {
                    let text = format!(
                        "{}-{}",
                        m["data1"].as_str().unwrap(),
                        m["data2"].as_str().unwrap()
                    );
                    let mv = game.parse_move(&text).unwrap();
                    game.play(mv);
                    moves.push(text);
                }
                Some(200006) => {
                    let reason = m["data2"].as_str().unwrap().parse::<u8>().unwrap();
                    let end = arbiter_core::EndReason::from_code(reason).unwrap();
                    let text = arbiter_core::outcome::record_with_end(&moves, end);
                    std::fs::write(&record, text).unwrap();
                    return;
                }
                _ => {}
            }
        }
    })
}

#[test]
fn the_course_check_holds_with_a_course_team_s_client() {
    let dir = temp("mixed");
    let (_server, port, _) = start_server(&dir);
    let ours = connect(
        port,
        "BLACK",
        "team_a",
        &dir.join("black.txt"),
        &["--room", "1"],
    );
    let theirs = foreign_client(port, "WHITE", &dir.join("white.txt"));
    let out = ours.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    theirs.join().unwrap();
    let server = server_record(&dir);
    let black = std::fs::read(dir.join("black.txt")).unwrap();
    let white = std::fs::read(dir.join("white.txt")).unwrap();
    // Byte for byte: the same moves, the same end mark, no final newline anywhere.
    assert_eq!(black, server.as_bytes());
    assert_eq!(white, server.as_bytes());
    assert!(
        !server.ends_with('\n') && server.ends_with('#'),
        "{server:?}"
    );
}

/// `arbiter serve --course-team 7` run in `dir`, listening; its TCP port.
fn course_team_server(dir: &std::path::Path) -> (common::Server, u16) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    command
        .current_dir(dir)
        .args(["serve", "--course-team", "7"]);
    let (server, tcp, _) = common::serve_on_free_ports(command, common::StderrAfterStart::Drained);
    (common::Server::new(server), tcp)
}

#[test]
fn the_course_record_layout() {
    let dir = temp("layout");
    let (_server, tcp) = course_team_server(&dir);
    let clients: Vec<_> = ["BLACK", "WHITE"]
        .iter()
        .map(|colour| {
            let cwd = dir.join(colour);
            std::fs::create_dir_all(&cwd).unwrap();
            Command::new(env!("CARGO_BIN_EXE_arbiter"))
                .current_dir(&cwd)
                .args([
                    "connect",
                    "127.0.0.1",
                    &tcp.to_string(),
                    colour,
                    "--course-team",
                    "7",
                ])
                .args(["--player", "alphabeta:depth=1"])
                .stderr(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in clients {
        assert!(c.wait().unwrap().success());
    }
    let server_file = dir.join("record").join("server").join("Team_7.txt");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !server_file.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let server_record = std::fs::read_to_string(server_file).unwrap();
    for colour in ["BLACK", "WHITE"] {
        let client = dir
            .join(colour)
            .join("record")
            .join("client")
            .join("Team_7.txt");
        assert_eq!(std::fs::read_to_string(client).unwrap(), server_record);
    }
}
