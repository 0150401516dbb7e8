//! A PostgreSQL server of its own for a test: [`TestPostgres::start`] makes a data folder in a
//! temporary directory (`initdb`, as the `postgres` user when running as root, since PostgreSQL
//! refuses to run as root), starts `postgres` on a free loopback port with its socket in that
//! directory, and gives the URL of an empty database `arbiter`; dropping the guard stops the
//! server and removes the folder. Nothing needs Docker or a running service: the binaries come
//! from Debian's `postgresql` package, which `scripts/ensure-packages.sh` installs when missing.
//!
//! A watchdog process stops the server should the test process die without dropping the guard
//! (a panic in another thread, a kill).
//!
//! ```no_run
//! let (url, _pg) = arbiter_pgtest::TestPostgres::start();
//! // … arbiter serve --db <url>, or PgStore::connect(&url) …
//! ```
//!
//! [`TestNats`] is a nats-server of a test's own, the same way (the cluster tests).
//!
//! [`TestDir`] is a test's own temporary folder, removed when the test ends and kept (its path
//! printed) when the test failed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod nats;
mod temp_dir;

pub use nats::TestNats;
pub use temp_dir::TestDir;

/// A running test server; stopped (and its folder removed) when dropped.
pub struct TestPostgres {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    /// The user the server runs as (`postgres` when this process is root).
    ids: Option<(u32, u32)>,
    server: Option<Child>,
    watchdog: Option<Child>,
}

/// The folder with `initdb` and `postgres`, installing Debian's package when it is missing.
fn bin_dir() -> PathBuf {
    let find = || -> Option<PathBuf> {
        let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(|e| {
                let e = e.ok()?;
                let version = e.file_name().to_str()?.parse().ok()?;
                let bin = e.path().join("bin");
                bin.join("postgres").exists().then_some((version, bin))
            })
            .collect();
        found.sort();
        found.pop().map(|(_, bin)| bin)
    };
    if let Some(bin) = find() {
        return bin;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/ensure-packages.sh"
    );
    let installed = Command::new("bash").args([script, "postgresql"]).status();
    assert!(
        installed.is_ok_and(|s| s.success()),
        "PostgreSQL is missing and {script} could not install it"
    );
    find().expect("PostgreSQL installed under /usr/lib/postgresql")
}

/// The uid and gid of `postgres` when this process is root (PostgreSQL refuses to run as root).
fn server_ids() -> Option<(u32, u32)> {
    let id = |args: &[&str]| -> Option<u32> {
        let out = Command::new("id").args(args).output().ok()?;
        String::from_utf8(out.stdout).ok()?.trim().parse().ok()
    };
    if id(&["-u"])? != 0 {
        return None;
    }
    let ids = (id(&["-u", "postgres"]), id(&["-g", "postgres"]));
    match ids {
        (Some(uid), Some(gid)) => Some((uid, gid)),
        _ => panic!("running as root, but there is no user postgres to run PostgreSQL as"),
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

impl TestPostgres {
    /// Starts a server; the URL of its database `arbiter` (user `arbiter`, no password) and the
    /// guard that stops it.
    pub fn start() -> (String, TestPostgres) {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let ids = server_ids();
        // The server's user must reach the folder: root's TMPDIR may be private to root.
        let base = match ids {
            Some(_) => PathBuf::from("/tmp"),
            None => std::env::temp_dir(),
        };
        let dir = base.join(format!("arbiter-pg-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        if let Some((uid, gid)) = ids {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).expect("chown to postgres");
        }
        let mut pg = TestPostgres {
            bin: bin_dir(),
            dir,
            port: 0,
            ids,
            server: None,
            watchdog: None,
        };
        pg.initdb();
        // Another test may take the port between choosing and listening: try a few.
        for attempt in 0.. {
            pg.port = free_port();
            match pg.run() {
                Ok(()) => break,
                Err(e) if attempt < 3 => eprintln!("test PostgreSQL: {e}; trying another port"),
                Err(e) => panic!("test PostgreSQL does not start: {e}"),
            }
        }
        pg.tool("createdb", &["arbiter"]);
        (pg.url(), pg)
    }

    /// The URL of database `arbiter`.
    pub fn url(&self) -> String {
        self.database_url("arbiter")
    }

    /// The URL of database `name` on this server (see [`TestPostgres::create_database`]).
    pub fn database_url(&self, name: &str) -> String {
        format!("postgres://arbiter@127.0.0.1:{}/{name}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// A new empty database on this server; its URL.
    pub fn create_database(&self, name: &str) -> String {
        self.tool("createdb", &[name]);
        self.database_url(name)
    }

    /// Runs SQL on database `arbiter` with `psql` (for tests that set a database up by hand).
    pub fn psql(&self, sql: &str) -> String {
        self.tool(
            "psql",
            &[
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                "arbiter",
                "-c",
                sql,
            ],
        )
    }

    /// Stops the server at once (an immediate shutdown, as a crash would); the data stays, and
    /// [`TestPostgres::restart`] starts it again on the same port.
    pub fn stop(&mut self) {
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
        if let Some(mut server) = self.server.take() {
            let _ = Command::new("kill")
                .args(["-QUIT", &server.id().to_string()])
                .status();
            let until = Instant::now() + Duration::from_secs(10);
            while Instant::now() < until {
                if let Ok(Some(_)) = server.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = server.kill();
            let _ = server.wait();
        }
    }

    /// Starts a stopped server again on the same port, with its data.
    pub fn restart(&mut self) {
        self.stop();
        if let Err(e) = self.run() {
            panic!("test PostgreSQL does not start again: {e}");
        }
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// A command run as the server's user.
    fn command(&self, program: &Path) -> Command {
        let mut command = Command::new(program);
        if let Some((uid, gid)) = self.ids {
            use std::os::unix::process::CommandExt;
            command.uid(uid).gid(gid);
        }
        command.env("LC_ALL", "C").current_dir(&self.dir);
        command
    }

    fn initdb(&self) {
        let out = self
            .command(&self.bin.join("initdb"))
            .arg("-D")
            .arg(self.data())
            .args(["-U", "arbiter", "--auth=trust", "-E", "UTF8", "--locale=C"])
            .args(["--no-sync", "--no-instructions"])
            .output()
            .expect("initdb runs");
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Starts `postgres` and waits until it takes connections.
    fn run(&mut self) -> Result<(), String> {
        let log =
            std::fs::File::create(self.dir.join("postgres.log")).map_err(|e| e.to_string())?;
        if let Some((uid, gid)) = self.ids {
            let _ = std::os::unix::fs::chown(self.dir.join("postgres.log"), Some(uid), Some(gid));
        }
        let mut server = self
            .command(&self.bin.join("postgres"))
            .arg("-D")
            .arg(self.data())
            .args(["-p", &self.port.to_string(), "-k"])
            .arg(&self.dir)
            .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
            .args(["-c", "full_page_writes=off", "-c", "max_connections=300"])
            .args(["-c", "shared_buffers=16MB"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot run postgres: {e}"))?;
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = server.try_wait() {
                let log =
                    std::fs::read_to_string(self.dir.join("postgres.log")).unwrap_or_default();
                return Err(format!("postgres exited ({status}): {log}"));
            }
            let ready = Command::new(self.bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                break;
            }
            if Instant::now() > until {
                let _ = server.kill();
                let _ = server.wait();
                return Err("postgres did not take connections within 60 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.watchdog = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "while kill -0 {parent} 2>/dev/null; do sleep 1; done; kill -QUIT {server} 2>/dev/null; sleep 2; rm -rf '{dir}'",
                parent = std::process::id(),
                server = server.id(),
                dir = self.dir.display(),
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok();
        self.server = Some(server);
        Ok(())
    }

    /// Runs one of PostgreSQL's programs against this server; its output.
    fn tool(&self, name: &str, args: &[&str]) -> String {
        let out = Command::new(self.bin.join(name))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "arbiter",
            ])
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{name} runs: {e}"));
        assert!(
            out.status.success(),
            "{name} {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
