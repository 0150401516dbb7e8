//! What the command line says when something is wrong or asked for: each message a newcomer
//! met that hid the problem, now checked on the real binary.

mod common;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Command, Stdio};

use common::{arbiter, TestDir};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-msg-{name}-"))
}

#[test]
fn the_help_says_what_arbiter_is() {
    let out = arbiter(&["--help"], b"");
    let help = text(&out.stdout);
    assert!(
        help.starts_with("arbiter: judges, engines, tournaments and a game server"),
        "{help}"
    );
    assert!(!help.contains("dispatch"), "{help}");
}

#[test]
fn judges_read_a_file_argument_and_explain_their_input() {
    let dir = temp("judge-file");
    let input = dir.join("game.in");
    std::fs::write(&input, "1\n3 0 4 0\n").unwrap();
    let out = arbiter(&["judge", "duck", input.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "red soldier;NA;no;no\n");
    let missing = arbiter(&["judge", "duck", "/nonexistent/game.in"], b"");
    assert!(!missing.status.success());
    assert!(text(&missing.stderr).contains("cannot read /nonexistent/game.in"));
    let help = text(&arbiter(&["judge", "--help"], b"").stdout);
    for needle in [
        "new N M",
        "max_no_capture_round is M",
        "end REASON",
        "standard input",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}

#[test]
fn options_a_game_does_not_have_are_refused_everywhere() {
    let out = arbiter(&["perft", "duck", "2", "--size", "8"], b"");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("there is no option `size`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn connect_checks_its_arguments_before_connecting() {
    // Port 9 on this machine: nothing listens, so an argument error must come first to show.
    let room = arbiter(
        &["connect", "127.0.0.1", "9", "BLACK", "--room", "1000001"],
        b"",
    );
    assert!(!room.status.success());
    assert!(
        text(&room.stderr).contains("1000001"),
        "{}",
        text(&room.stderr)
    );
    let name = arbiter(
        &["connect", "127.0.0.1", "9", "BLACK", "--name", "bad name!"],
        b"",
    );
    assert!(!name.status.success());
    let err = text(&name.stderr);
    assert!(
        err.contains("--name `bad name!`") && !err.contains("connect to"),
        "{err}"
    );
}

#[test]
fn the_engine_names_the_option_it_does_not_know_and_shows_positions_in_words() {
    let session = "arbiter\ngame rc02 size 4\nsetoption name player value hard\nsetoption name bogus value 1\nshow\nquit\n";
    let out = arbiter(&["engine"], session.as_bytes());
    let said = text(&out.stdout);
    assert!(said.contains("error unknown option `bogus`"), "{said}");
    assert!(!said.contains("player `hard`"), "{said}");
    assert!(
        said.contains("info string red to move, 4 legal moves"),
        "{said}"
    );
    assert!(!said.contains("Ongoing"), "{said}");
}

#[test]
fn serve_takes_a_host_name_and_writes_no_colour_codes_into_a_pipe() {
    let dir = temp("serve-localhost");
    let db = dir.join("games.sqlite");
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "serve",
            "--http",
            "localhost:0",
            "--tcp",
            "127.0.0.1:0",
            "--db",
        ])
        .arg(&db)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // stderr is a pipe here, not a terminal: the banner and the log come without colour codes.
    let mut log = BufReader::new(child.stderr.take().unwrap());
    // The banner and the server's first log line come from two threads, in either order.
    let mut lines = [String::new(), String::new()];
    for line in &mut lines {
        log.read_line(line).unwrap();
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let [banner, next] = if lines[0].contains("http://") {
        lines
    } else {
        let [a, b] = lines;
        [b, a]
    };
    assert!(banner.contains("http://127.0.0.1:"), "{banner}");
    assert!(next.contains("serving the course protocol"), "{next}");
    for line in [&banner, &next] {
        assert!(
            !line.contains('\u{1b}'),
            "ANSI codes in a redirected log: {line:?}"
        );
    }
}

#[test]
fn serve_on_a_taken_port_fails_and_creates_no_database() {
    let dir = temp("serve-taken");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let db = dir.join("games.sqlite");
    let tcp = format!("127.0.0.1:{port}");
    let out = arbiter(
        &[
            "serve",
            "--tcp",
            &tcp,
            "--http",
            "127.0.0.1:0",
            "--db",
            db.to_str().unwrap(),
        ],
        b"",
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("cannot listen on"),
        "{}",
        text(&out.stderr)
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn the_mcts_bench_counts_playouts_and_alpha_beta_counts_nodes() {
    let mcts = arbiter(
        &[
            "bench",
            "surakarta",
            "--search",
            "mcts",
            "--ms",
            "50",
            "--positions",
            "1",
        ],
        b"",
    );
    let said = text(&mcts.stdout) + &text(&mcts.stderr);
    assert!(
        said.contains("playouts/s") && !said.contains("nodes/s"),
        "{said}"
    );
    let ab = arbiter(
        &[
            "bench",
            "rc02",
            "--search",
            "alphabeta",
            "--ms",
            "50",
            "--positions",
            "1",
        ],
        b"",
    );
    let said = text(&ab.stdout) + &text(&ab.stderr);
    assert!(said.contains("nodes/s"), "{said}");
}
