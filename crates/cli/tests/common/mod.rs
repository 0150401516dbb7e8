//! Running the real `arbiter` binary from tests.

#![allow(dead_code)]

pub mod cluster;
pub mod course_bots;
pub mod course_games;

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub use arbiter_pgtest::TestDir;

/// Runs `arbiter ARGS` with `stdin` and waits for it.
pub fn arbiter(args: &[&str], stdin: &[u8]) -> Output {
    arbiter_with_env(args, &[], stdin)
}

/// Runs `arbiter ARGS` with the environment variables `env` set, `stdin`, and waits for it.
pub fn arbiter_with_env(args: &[&str], env: &[(&str, &std::ffi::OsStr)], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the arbiter binary runs");
    // Feed stdin from a thread: a judge writes while it reads, and both pipes can fill up.
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    output
}

/// Runs `arbiter arena ARGS --out DIR` and checks that it succeeded (records for later steps).
pub fn arena_into(dir: &std::path::Path, args: &[&str]) {
    let mut all = vec!["arena"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", dir.to_str().unwrap()]);
    let out = arbiter(&all, b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `arbiter judge GAME` over every case in the repository's `tests/data/SUB` and checks
/// the output byte for byte.
pub fn assert_judge_reproduces(game: &str, sub: &str, test: &str) {
    let dir = arbiter_core::shared_data::locate(env!("CARGO_MANIFEST_DIR"), sub, test);
    let cases = arbiter_core::shared_data::cases(&dir);
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    for (input, answer) in cases {
        let out = arbiter(&["judge", game], &std::fs::read(&input).unwrap());
        assert!(
            out.status.success(),
            "{}: {}",
            input.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == std::fs::read(&answer).unwrap(),
            "{} differs",
            input.display()
        );
    }
}

/// A running `arbiter serve`, stopped when dropped.
pub struct Server(Child);

impl Server {
    pub fn new(child: Child) -> Server {
        Server(child)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `arbiter serve` on free local ports with its files in `dir`; returns the TCP and HTTP
/// ports once it accepts connections.
pub fn start_server(dir: &std::path::Path) -> (Server, u16, u16) {
    start_server_on(dir, dir.join("games.sqlite").as_os_str())
}

/// The same with `--db db` (a SQLite file or a PostgreSQL URL).
pub fn start_server_on(dir: &std::path::Path, db: &std::ffi::OsStr) -> (Server, u16, u16) {
    start_server_with(dir, db, &[])
}

/// The same with more options of `serve`.
pub fn start_server_with(
    dir: &std::path::Path,
    db: &std::ffi::OsStr,
    extra: &[&str],
) -> (Server, u16, u16) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    command
        .arg("serve")
        .arg("--db")
        .arg(db)
        .arg("--records-dir")
        .arg(dir.join("records"))
        .arg("--log")
        .arg(dir.join("server.log"))
        .args(extra);
    let (child, tcp, http) = serve_on_free_ports(command, StderrAfterStart::Drained);
    (Server(child), tcp, http)
}

/// What happens to a server's stderr once it serves.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum StderrAfterStart {
    /// Read and thrown away, so the pipe never fills.
    Drained,
    /// Left open and never read: the pipe fills, as under a careless service manager.
    Unread,
}

/// Starts `command` (an `arbiter serve …` without `--tcp` and `--http`) on ports the server
/// picks itself (port 0); its TCP and HTTP ports, read from the line it prints once it serves.
/// A port chosen beforehand can be taken by another test's connection before the server binds
/// it, which failed CI as "the server did not start".
pub fn serve_on_free_ports(mut command: Command, after: StderrAfterStart) -> (Child, u16, u16) {
    let mut child = command
        .args(["--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the arbiter binary runs");
    let lines = stderr_lines(child.stderr.take().unwrap(), after);
    match serving_ports(&lines) {
        Ok((tcp, http)) => (child, tcp, http),
        Err(why) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{why}")
        }
    }
}

/// The lines of `stderr`, read by a thread of its own up to the line that says the server
/// serves, and then on to the end or not at all.
fn stderr_lines(
    stderr: std::process::ChildStderr,
    after: StderrAfterStart,
) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(stderr);
        let mut line = String::new();
        while matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
            let serving = ports_of_serving_line(&line).is_some();
            let _ = send.send(std::mem::take(&mut line));
            if serving && after == StderrAfterStart::Unread {
                // Keeps the pipe open without reading it for as long as the test runs.
                std::mem::forget(reader);
                return;
            }
        }
    });
    lines
}

/// The TCP and HTTP ports of `arbiter serve`'s "arbiter serves the course protocol on A and
/// http://B …" line; what it printed instead if it exits or takes over a minute.
fn serving_ports(lines: &std::sync::mpsc::Receiver<String>) -> Result<(u16, u16), String> {
    use std::sync::mpsc::RecvTimeoutError;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut printed = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => {
                if let Some(ports) = ports_of_serving_line(&line) {
                    return Ok(ports);
                }
                printed.push(line);
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(format!(
                    "the server exited before serving:\n{}",
                    printed.concat()
                ))
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "the server did not serve within 60 s:\n{}",
                    printed.concat()
                ))
            }
        }
    }
}

fn ports_of_serving_line(line: &str) -> Option<(u16, u16)> {
    arbiter_server::parse_serving_announcement(line).map(|(tcp, http)| (tcp.port(), http.port()))
}

/// A bare HTTP/1.1 request to a local port; the status code and the body.
pub fn http(port: u16, method: &str, path: &str, body: &str) -> (u16, String) {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    // A chunked body: the sizes sit on their own lines around the text.
    let body = if answer
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// `arbiter tune duck --selfplay PATH` of `games` quick games (300 nodes a move, the quiet-move
/// rule off) with `seed` on `threads` threads.
pub fn duck_selfplay(path: &std::path::Path, games: &str, seed: &str, threads: &str) -> Output {
    let path = path.to_str().unwrap();
    arbiter(
        &[
            "tune",
            "duck",
            "--max-no-capture-round",
            "0",
            "--selfplay",
            path,
            "--games",
            games,
            "--nodes",
            "300",
            "--seed",
            seed,
            "--threads",
            threads,
        ],
        b"",
    )
}

/// Installs Debian `package` when its program is missing (`scripts/ensure-packages.sh`), failing
/// the test with the script's name when it cannot.
pub fn ensure_package(package: &str) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/ensure-packages.sh"
    );
    let installed = Command::new("bash").args([script, package]).status();
    assert!(
        installed.is_ok_and(|s| s.success()),
        "{package} is missing and {script} could not install it"
    );
}
