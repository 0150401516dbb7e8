//! A nats-server of a test's own, on a free loopback port, stopped when dropped; installed from
//! Debian's `nats-server` package when missing (`scripts/ensure-packages.sh`). The cluster tests
//! of this crate and of the command line share it.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct TestNats {
    child: Option<Child>,
    port: u16,
}

fn binary() -> String {
    let find = || {
        ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
    };
    if let Some(path) = find() {
        return path.to_string();
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/ensure-packages.sh"
    );
    let installed = Command::new("bash").args([script, "nats-server"]).status();
    assert!(
        installed.is_ok_and(|s| s.success()),
        "nats-server is missing and {script} could not install it"
    );
    find().expect("nats-server installed").to_string()
}

impl TestNats {
    /// Starts a server and waits until it takes connections.
    pub fn start() -> TestNats {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut nats = TestNats { child: None, port };
        nats.restart();
        nats
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Kills the server (its clients see it vanish).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Freezes the server (SIGSTOP): its connections stay open and take nothing, as a hung
    /// machine's would, until [`TestNats::thaw`].
    pub fn freeze(&mut self) {
        self.signal("-STOP");
    }

    /// Lets a frozen server run on (SIGCONT).
    pub fn thaw(&mut self) {
        self.signal("-CONT");
    }

    fn signal(&self, name: &str) {
        if let Some(child) = &self.child {
            let sent = Command::new("kill")
                .args([name, &child.id().to_string()])
                .status();
            assert!(sent.is_ok_and(|s| s.success()), "kill {name} nats-server");
        }
    }

    /// Starts the server again on the same port.
    pub fn restart(&mut self) {
        self.stop();
        let child = Command::new(binary())
            .args(["-a", "127.0.0.1", "-p", &self.port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for TestNats {
    fn drop(&mut self) {
        self.stop();
    }
}
