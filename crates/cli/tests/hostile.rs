//! Attacks on the real processes: a log pipe nobody reads, `kill -9`, Ctrl-C, endless input
//! lines, and an analysis asked to think forever.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{arbiter, http, serve_on_free_ports, StderrAfterStart, TestDir};

fn temp(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-hostile-{name}-"))
}

/// `arbiter serve` on free ports with `extra` arguments; its stderr read or left unread.
fn serve(dir: &std::path::Path, extra: &[&str], stderr: StderrAfterStart) -> (Child, u16, u16) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    command
        .arg("serve")
        .arg("--db")
        .arg(dir.join("games.sqlite"))
        .args(extra);
    serve_on_free_ports(command, stderr)
}

struct Player {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Player {
    fn send(&mut self, line: &str) {
        self.stream
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
    }

    fn recv(&mut self) -> serde_json::Value {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("an answer in time");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    fn play(&mut self, mv: &str) {
        let (from, to) = mv.split_once('-').unwrap();
        self.send(&format!(
            r#"{{"op":200001,"data1":"{from}","data2":"{to}","data3":""}}"#
        ));
    }
}

/// Red and blue in a Duck Chess game without a no-capture limit, in `room`.
fn duck_players(tcp: u16, room: &str) -> (Player, Player) {
    let mut players: Vec<Player> = ["RED", "BLUE"]
        .iter()
        .enumerate()
        .map(|(i, colour)| {
            let stream = TcpStream::connect(("127.0.0.1", tcp)).unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let reader = BufReader::new(stream.try_clone().unwrap());
            let mut p = Player { stream, reader };
            p.send(&format!(
                r#"{{"op":200000,"data1":"p{i}","data2":"{colour}","data3":"{room}","game":"duck","max_no_capture_round":0}}"#
            ));
            p
        })
        .collect();
    for p in players.iter_mut() {
        assert_eq!(p.recv()["op"], 200000);
    }
    let blue = players.pop().unwrap();
    (players.pop().unwrap(), blue)
}

const CYCLE: [&str; 4] = ["a0-a1", "a9-a8", "a1-a0", "a8-a9"];

/// Plays `plies` moves of the cycle; each must be forwarded.
fn cycle(red: &mut Player, blue: &mut Player, plies: usize) {
    for ply in 0..plies {
        let (mover, other) = if ply % 2 == 0 {
            (&mut *red, &mut *blue)
        } else {
            (&mut *blue, &mut *red)
        };
        mover.play(CYCLE[ply % 4]);
        let m = other.recv();
        assert_eq!(m["op"], 200001, "ply {ply}: {m}");
    }
}

#[test]
fn a_log_pipe_nobody_reads_never_stops_the_games() {
    let dir = temp("logpipe");
    // stderr goes into a pipe this test never reads: it fills after a few hundred lines.
    let (mut server, tcp, _) = serve(&dir, &[], StderrAfterStart::Unread);
    let (mut red, mut blue) = duck_players(tcp, "5");
    let started = Instant::now();
    cycle(&mut red, &mut blue, 3000);
    assert!(started.elapsed() < Duration::from_secs(60));
    let _ = server.kill();
    let _ = server.wait();
}

/// Ctrl-C, as a person at the terminal would press it.
fn interrupt(server: &std::process::Child) {
    Command::new("kill")
        .args(["-INT", &server.id().to_string()])
        .status()
        .unwrap();
}

#[test]
fn ctrl_c_stops_in_time_when_stderr_is_a_pipe_nobody_reads() {
    let dir = temp("ctrlc-pipe");
    // stderr goes into a pipe this test never reads; the moves' log lines fill it.
    let (mut server, tcp, _) = serve(&dir, &["--shutdown-grace", "1"], StderrAfterStart::Unread);
    let (mut red, mut blue) = duck_players(tcp, "9");
    cycle(&mut red, &mut blue, 800);
    let stopped = Instant::now();
    interrupt(&server);
    let deadline = stopped + Duration::from_secs(10);
    while server.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = server.kill();
            let _ = server.wait();
            panic!("Ctrl-C did not stop the server within 10 s (grace 1 s)");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_crash_loses_no_forwarded_move_and_its_course_game_ends_as_both_left() {
    let dir = temp("crash");
    let (mut server, tcp, _) = serve(&dir, &[], StderrAfterStart::Drained);
    let (mut red, mut blue) = duck_players(tcp, "6");
    cycle(&mut red, &mut blue, 51);
    // kill -9: no chance to write anything more.
    server.kill().unwrap();
    server.wait().unwrap();
    let (mut server, _, web) = serve(&dir, &[], StderrAfterStart::Drained);
    // The restarted server carries the game on, but two course clients whose sockets died with
    // the server cannot come back: both gone, the game ends without a result (ABANDONED).
    let ended = Instant::now() + Duration::from_secs(10);
    let game = loop {
        let (status, body) = http(web, "GET", "/api/games/1", "");
        assert_eq!(status, 200, "{body}");
        let game: serde_json::Value = serde_json::from_str(&body).unwrap();
        if !game["end_reason"].is_null() || Instant::now() > ended {
            break game;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(game["end_reason"], "ABANDONED");
    assert_eq!(game["moves"].as_array().unwrap().len(), 51);
    assert!(
        game["record"].as_str().unwrap().ends_with("a9-a8 a1-a0 N#"),
        "{game}"
    );
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn ctrl_c_ends_running_games_as_interrupted_after_the_grace_period() {
    let dir = temp("ctrlc");
    let (server, tcp, _) = serve(&dir, &["--shutdown-grace", "1"], StderrAfterStart::Drained);
    let (mut red, mut blue) = duck_players(tcp, "7");
    cycle(&mut red, &mut blue, 3);
    let stopped = Instant::now();
    interrupt(&server);
    for p in [&mut red, &mut blue] {
        let end = p.recv();
        assert_eq!(
            (end["op"].as_i64(), end["data2"].as_str()),
            (Some(200006), Some("7")),
            "{end}"
        );
        assert_eq!(end["plies"], 3);
    }
    let out = server.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(stopped.elapsed() < Duration::from_secs(10));
    let (mut server, _, web) = serve(&dir, &[], StderrAfterStart::Drained);
    let (_, body) = http(web, "GET", "/api/games/1", "");
    let game: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(game["end_reason"], "INTERRUPTED");
    assert_eq!(game["record"], "a0-a1 a9-a8 a1-a0 X#");
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn a_second_server_on_the_same_database_is_refused_before_it_listens() {
    let dir = temp("second");
    let (mut first, _, _) = serve(&dir, &[], StderrAfterStart::Drained);
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "serve",
            "--tcp",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
            "--db",
        ])
        .arg(dir.join("games.sqlite"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("another arbiter server is using"), "{err}");
    let _ = first.kill();
    let _ = first.wait();
}

/// `arbiter serve` on `db` (another name for a database in use): it must fail, soon; its stderr.
fn refused_server(db: &std::path::Path) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "serve",
            "--tcp",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
            "--db",
        ])
        .arg(db)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("a second server started on {db:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "a second server ran on {db:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_second_server_on_a_symlink_or_hard_link_is_refused_and_touches_no_game() {
    let dir = temp("links");
    let (mut first, tcp, web) = serve(&dir, &[], StderrAfterStart::Drained);
    let (mut red, mut blue) = duck_players(tcp, "8");
    cycle(&mut red, &mut blue, 4);
    let db = dir.join("games.sqlite");
    let symlink = dir.join("symlink.sqlite");
    let hard_link = dir.join("hard-link.sqlite");
    std::os::unix::fs::symlink(&db, &symlink).unwrap();
    std::fs::hard_link(&db, &hard_link).unwrap();
    for other in [&symlink, &hard_link] {
        let err = refused_server(other);
        assert!(err.contains("another arbiter server is using"), "{err}");
    }
    // The first server's game goes on, still running in the database.
    cycle(&mut red, &mut blue, 4);
    let (_, body) = http(web, "GET", "/api/games/1", "");
    let game: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(game["ended_at"].is_null(), "{game}");
    assert_eq!(game["moves"].as_array().unwrap().len(), 8, "{game}");
    let _ = first.kill();
    let _ = first.wait();
}

#[test]
fn endless_input_lines_are_refused_clearly() {
    let endless = vec![b'7'; 3 << 20];
    for game in ["duck", "surakarta", "rc02"] {
        let started = Instant::now();
        let out = arbiter(&["judge", game], &endless);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{game}: {err}");
        assert!(
            err.contains("line 1: the line is longer than 1024 KiB"),
            "{game}: {err}"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
    }
    let out = arbiter(&["engine"], &endless);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("error the line is longer than 1024 KiB; the engine stops"),
        "{text}"
    );
}

#[test]
fn analyze_answers_isready_and_stop_and_keeps_to_its_time() {
    // Eight plies (the most `losing` takes) of checks for every Duck Chess move: about 0.9 s on
    // an idle machine since the search prunes at the horizon (six plies finished in 0.55 s once
    // move generation got faster, before it), six times the 150 ms allowed.
    let started = Instant::now();
    let out = arbiter(
        &["engine"],
        b"game duck\nanalyze depth 1 losing 8 movetime 150\nisready\nquit\n",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    // isready is answered while the analysis runs, before its result.
    assert_eq!(lines.first(), Some(&"readyok"), "{text}");
    assert!(
        text.contains("info string the time ran out before these moves were checked"),
        "{text}"
    );
    assert!(lines.last().unwrap().starts_with("bestmove "), "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // Without a time limit, stop ends it.
    let mut engine = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = engine.stdin.take().unwrap();
    input
        .write_all(b"game duck\nanalyze depth 1 losing 8\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let stopped = Instant::now();
    input.write_all(b"stop\nquit\n").unwrap();
    drop(input);
    let out = engine.wait_with_output().unwrap();
    assert!(
        stopped.elapsed() < Duration::from_secs(3),
        "{:?}",
        stopped.elapsed()
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("bestmove "));
}
