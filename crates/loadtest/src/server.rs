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

fn free_port() -> Result<SocketAddr, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    listener.local_addr().map_err(|e| e.to_string())
}

/// Starts `exe serve` on free local ports with a temporary database; the server, its TCP and
/// its HTTP address once it listens.
pub(crate) async fn start(exe: &Path) -> Result<(ChildServer, SocketAddr, SocketAddr), String> {
    let (tcp, http) = (free_port()?, free_port()?);
    let db = std::env::temp_dir().join(format!("arbiter-loadtest-{}.sqlite", std::process::id()));
    let child = std::process::Command::new(exe)
        .args([
            "serve",
            "--tcp",
            &tcp.to_string(),
            "--http",
            &http.to_string(),
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
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let server = ChildServer { child, db };
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(tcp).await.is_ok() {
            return Ok((server, tcp, http));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.stop();
    Err("the server did not start listening within 10 s".into())
}
