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
    let (tcp, http) = (free_port(), free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "serve",
            "--tcp",
            &format!("127.0.0.1:{tcp}"),
            "--http",
            &format!("127.0.0.1:{http}"),
        ])
        .arg("--db")
        .arg(db)
        .arg("--records-dir")
        .arg(dir.join("records"))
        .arg("--log")
        .arg(dir.join("server.log"))
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    for port in [tcp, http] {
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    (server, tcp, http)
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
