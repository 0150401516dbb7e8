//! A server started for the test, as a child process.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A server started for the test.
pub(crate) struct ChildServer {
    child: std::process::Child,
    db: PathBuf,
}

impl ChildServer {
    pub(crate) fn peak_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
    }

    pub(crate) fn stop(mut self) {
        // SIGINT lets it finish its writes; then make sure it is gone.
        let _ = std::process::Command::new("kill")
            .arg("-INT")
            .arg(self.child.id().to_string())
            .status();
        for _ in 0..100 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.db.display()));
        }
    }
}

/// Starts `exe serve` on ports it picks itself (port 0, so no other program can take them
/// between choosing and binding) with a temporary database; the server, its TCP and its HTTP
/// address, read from the line it prints once it serves.
pub(crate) async fn start(exe: &Path) -> Result<(ChildServer, SocketAddr, SocketAddr), String> {
    let db = std::env::temp_dir().join(format!("arbiter-loadtest-{}.sqlite", std::process::id()));
    let mut child = std::process::Command::new(exe)
        .args([
            "serve",
            "--tcp",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
            "--db",
        ])
        .arg(&db)
        .args(["--timeout-ms", "30000"])
        // Every bot connects from this machine: lift the per-address cap.
        .args([
            "--max-connections-per-ip",
            "1000000",
            "--max-connections",
            "1000000",
            "--max-seats-per-ip",
            "1000000",
            "--max-seats-per-network",
            "1000000",
        ])
        .env("RUST_LOG", "info")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let addresses = serving_addresses(child.stderr.take().expect("stderr is piped"));
    let server = ChildServer { child, db };
    for _ in 0..1200 {
        match addresses.try_recv() {
            Ok((tcp, http)) => return Ok((server, tcp, http)),
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                server.stop();
                return Err(format!(
                    "the server {} exited before serving",
                    exe.display()
                ));
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                tokio::time::sleep(Duration::from_millis(50)).await
            }
        }
    }
    server.stop();
    Err("the server did not start serving within 60 s".into())
}

/// The addresses of `arbiter serve`'s "arbiter serves the course protocol on A and http://B …"
/// line, sent once; the rest of stderr (the log) is read and dropped so the pipe never fills.
fn serving_addresses(
    stderr: std::process::ChildStderr,
) -> std::sync::mpsc::Receiver<(SocketAddr, SocketAddr)> {
    use std::io::BufRead;
    let (send, addresses) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(found) = arbiter_server::parse_serving_announcement(&line) {
                let _ = send.send(found);
            }
        }
    });
    addresses
}
