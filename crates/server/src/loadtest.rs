//! `arbiter loadtest`: many bot games at once against a server, measuring how long a MOVE takes
//! from one bot to the other, and checking every stored game against what the bots saw.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_core::{Game, MoveList, Side};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::client::Connection;
use crate::protocol::{self, Message};

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadtestOptions {
    pub games: usize,
    /// A running server; `None` starts one (`server_exe serve …`) on free local ports.
    pub addr: Option<SocketAddr>,
    pub http: Option<SocketAddr>,
    pub think: Duration,
    pub seed: u64,
    pub server_exe: PathBuf,
}

/// What was measured.
#[derive(Clone, Debug, Default)]
pub struct LoadtestReport {
    pub games: usize,
    pub completed: usize,
    pub moves: usize,
    pub elapsed: Duration,
    pub p50: Duration,
    pub p99: Duration,
    pub max: Duration,
    pub errors: usize,
    pub error_samples: Vec<String>,
    /// Stored games compared with what the bots saw (`None` without an HTTP address).
    pub verified: Option<usize>,
    /// The server's peak resident memory, when it was started by the test.
    pub server_peak_kib: Option<u64>,
}

impl fmt::Display for LoadtestReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        writeln!(
            f,
            "games: {} started, {} completed in {:.1} s ({:.1} games/s, {:.0} moves/s)",
            self.games,
            self.completed,
            secs,
            self.completed as f64 / secs,
            self.moves as f64 / secs
        )?;
        writeln!(
            f,
            "MOVE to forwarded MOVE: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            self.p50.as_secs_f64() * 1e3,
            self.p99.as_secs_f64() * 1e3,
            self.max.as_secs_f64() * 1e3
        )?;
        match self.verified {
            Some(n) => writeln!(
                f,
                "stored games checked against the clients: {n} of {} equal",
                self.completed
            )?,
            None => writeln!(f, "stored games not checked (no HTTP address)")?,
        }
        match self.server_peak_kib {
            Some(kib) => writeln!(f, "server peak memory: {:.1} MiB", kib as f64 / 1024.0)?,
            None => writeln!(
                f,
                "server peak memory: not measured (server not started by the test)"
            )?,
        }
        write!(f, "errors: {}", self.errors)?;
        for e in &self.error_samples {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

/// A server started for the test.
struct ChildServer {
    child: std::process::Child,
    db: PathBuf,
}

impl ChildServer {
    fn peak_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
    }

    fn stop(mut self) {
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

async fn start_server(exe: &PathBuf) -> Result<(ChildServer, SocketAddr, SocketAddr), String> {
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

/// What one bot saw.
struct BotResult {
    name: String,
    moves: Vec<String>,
    record: String,
}

/// The time each game's last MOVE was sent, so the receiving bot can measure the delay.
type SentAt = Arc<Mutex<Option<Instant>>>;

#[allow(clippy::too_many_arguments)]
async fn bot(
    addr: SocketAddr,
    name: String,
    colour: &'static str,
    room: u32,
    think: Duration,
    seed: u64,
    sent_at: SentAt,
    latencies: Arc<Mutex<Vec<Duration>>>,
) -> Result<BotResult, String> {
    let mut conn = Connection::open(&addr.ip().to_string(), addr.port(), true).await?;
    let mut ready = Message::new(protocol::READY, name.clone(), colour, room.to_string());
    ready.extra.insert("game".into(), "surakarta".into());
    conn.send(&ready).await?;
    let side = loop {
        let m = conn.recv().await?.ok_or("closed before the game started")?;
        match m.op {
            protocol::READY => {
                break if m.data2 == "BLACK" {
                    Side::First
                } else {
                    Side::Second
                }
            }
            protocol::REJECT => return Err(format!("rejected: {}", m.data2)),
            _ => {}
        }
    };
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = arbiter_surakarta::GameState::new(6, 40).expect("6 is supported");
    let mut moves = Vec::new();
    loop {
        if pos.current_player == side && !pos.is_over() {
            // People and programs do not all answer in lockstep: think 50-150% of `think`.
            tokio::time::sleep(think.mul_f64(rng.gen_range(0.5..1.5))).await;
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let Some(&mv) = list.get(rng.gen_range(0..list.len().max(1))) else {
                conn.send(&Message::new(protocol::RESIGN, "", "", ""))
                    .await?;
                continue;
            };
            let text = pos.format_move(mv);
            *sent_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
            conn.send(&Message::new(
                protocol::MOVE,
                mv.from().name(),
                mv.to().name(),
                "",
            ))
            .await?;
            moves.push(text);
            pos.play(mv);
        }
        let m = conn.recv().await?.ok_or("closed before the game ended")?;
        match m.op {
            protocol::MOVE => {
                if let Some(at) = sent_at.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    latencies
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(at.elapsed());
                }
                let text = format!("{}-{}", m.data1, m.data2);
                let mv = pos
                    .parse_move(&text)
                    .map_err(|e| format!("the server forwarded {text}: {e}"))?;
                pos.play(mv);
                moves.push(text);
            }
            protocol::END => {
                let reason = m
                    .data2
                    .parse::<u8>()
                    .ok()
                    .and_then(arbiter_surakarta::EndReason::from_code);
                let mut record = moves.join(" ");
                if let Some(letter) = reason.and_then(arbiter_surakarta::notation::end_letter) {
                    record.push_str(&format!(" {letter}#"));
                }
                return Ok(BotResult {
                    name,
                    moves,
                    record,
                });
            }
            _ => {}
        }
    }
}

/// Fetches `path` from `http` with a bare HTTP/1.1 GET; the body of a 200 answer.
pub async fn http_get(http: SocketAddr, path: &str) -> Result<String, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(http)
        .await
        .map_err(|e| e.to_string())?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .await
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or("a malformed HTTP response")?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!("GET {path}: {}", head.lines().next().unwrap_or("")));
    }
    Ok(body.to_string())
}

pub async fn run(options: &LoadtestOptions) -> Result<LoadtestReport, String> {
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let (server, tcp, http) = match options.addr {
        Some(addr) => (None, addr, options.http),
        None => {
            let (server, tcp, http) = start_server(&options.server_exe).await?;
            (Some(server), tcp, Some(http))
        }
    };
    let latencies = Arc::new(Mutex::new(Vec::with_capacity(options.games * 64)));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..options.games {
        let room = 1000 + i as u32;
        let sent_at: SentAt = Arc::new(Mutex::new(None));
        for (colour, tag) in [("BLACK", "a"), ("WHITE", "b")] {
            let name = format!("lt{}_{i}_{tag}", options.seed);
            let seed = options.seed
                ^ (i as u64 * 2 + (tag == "b") as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            tasks.push(tokio::spawn(bot(
                tcp,
                name,
                colour,
                room,
                options.think,
                seed,
                sent_at.clone(),
                latencies.clone(),
            )));
        }
        if i % 50 == 49 {
            // Let the listener's backlog drain.
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    let mut report = LoadtestReport {
        games: options.games,
        ..Default::default()
    };
    let mut results = Vec::new();
    for task in tasks {
        match task.await {
            Ok(Ok(result)) => results.push(result),
            Ok(Err(e)) => {
                report.errors += 1;
                if report.error_samples.len() < 5 {
                    report.error_samples.push(e);
                }
            }
            Err(e) => {
                report.errors += 1;
                report.error_samples.push(format!("a bot failed: {e}"));
            }
        }
    }
    report.elapsed = started.elapsed();
    report.completed = results.iter().filter(|r| r.name.ends_with("_a")).count();
    report.moves = results
        .iter()
        .filter(|r| r.name.ends_with("_a"))
        .map(|r| r.moves.len())
        .sum();
    let mut all = latencies.lock().unwrap_or_else(|e| e.into_inner()).clone();
    all.sort();
    let pick = |q: f64| {
        all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    report.p50 = pick(0.50);
    report.p99 = pick(0.99);
    report.max = all.last().copied().unwrap_or_default();
    if let Some(http) = http {
        let mut verified = 0;
        for bot in results.iter().filter(|r| r.name.ends_with("_a")) {
            let check = async {
                let list =
                    http_get(http, &format!("/api/games?player={}&limit=1", bot.name)).await?;
                let games: serde_json::Value =
                    serde_json::from_str(&list).map_err(|e| e.to_string())?;
                let id = games[0]["id"].as_i64().ok_or("the game is not stored")?;
                let game: serde_json::Value =
                    serde_json::from_str(&http_get(http, &format!("/api/games/{id}")).await?)
                        .map_err(|e| e.to_string())?;
                let stored: Vec<String> = game["moves"]
                    .as_array()
                    .ok_or("no moves")?
                    .iter()
                    .filter_map(|m| m["move"].as_str().map(String::from))
                    .collect();
                if stored != bot.moves || game["record"].as_str() != Some(bot.record.as_str()) {
                    return Err(format!(
                        "game {id} of {} differs from what the bots saw",
                        bot.name
                    ));
                }
                Ok::<_, String>(())
            };
            match check.await {
                Ok(()) => verified += 1,
                Err(e) => {
                    report.errors += 1;
                    if report.error_samples.len() < 10 {
                        report.error_samples.push(e);
                    }
                }
            }
        }
        report.verified = Some(verified);
    }
    if let Some(server) = server {
        report.server_peak_kib = server.peak_kib();
        server.stop();
    }
    Ok(report)
}
