//! Network play: the course's Surakarta protocol over TCP, the same JSON messages over a
//! WebSocket, the project's extension (Duck Chess and RC-02 games, spectators), rooms with
//! clocks, every game in SQLite, an HTTP JSON API and the headless client (`arbiter connect`;
//! the load test is the `arbiter-loadtest` crate). The protocol is documented in `docs/protocol.md`.

pub mod client;
mod conn;
pub mod games;
mod http;
mod limits;
mod outbox;
pub mod protocol;
mod room;
pub mod store;
mod web;
pub mod web_api;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use arbiter_ai::Catalogue;
pub use conn::ConnConfig;
use conn::{Next, Session};
use games::Registry;
use games::SettingsDefaults;
use limits::{Admissions, Admitted};
use outbox::{Inbox, WRITE_TIMEOUT};
use protocol::{Line, LineBuffer};
pub use room::{Hub, Records, RoomInfo, RoomSetup, SeatTimes};
pub use store::{Store, StoreOptions};

/// How `arbiter serve` runs.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub tcp: SocketAddr,
    pub http: SocketAddr,
    pub db: PathBuf,
    pub timeout_ms: u64,
    /// The same for rooms opened over the WebSocket (people at the page, not bots).
    pub web_timeout_ms: u64,
    /// Overrides every game's own no-capture limit for rooms whose READY does not set it.
    pub max_no_capture_round: Option<u32>,
    pub records_dir: Option<PathBuf>,
    /// The course harness's record file (`record/server/Team_X.txt`), written after each game.
    pub course_record: Option<PathBuf>,
    /// A connection without a seat, a watched room or protocol progress this long is closed.
    pub idle_timeout: Duration,
    /// How long seats are kept for waiting players and after a game.
    pub seats: SeatTimes,
    /// Messages per second per client (bursts of twice as many).
    pub rate_limit: u32,
    /// The database may not grow past this many bytes.
    pub max_db_bytes: Option<u64>,
    /// Connections held at once, in all and from one address.
    pub max_connections: usize,
    pub max_connections_per_ip: usize,
    /// An HTTP client must send a request's headers within this long, also between requests.
    pub http_header_timeout: Duration,
    /// Page origins allowed to open the WebSocket besides the server's own (`*`: any).
    pub allow_origins: Vec<String>,
    /// Host names the HTTP side answers to besides IP addresses and `localhost`.
    pub allow_hosts: Vec<String>,
    /// AI and analysis requests computed at once (more wait in a short queue, then get 503).
    pub ai_workers: usize,
    /// On shutdown, running games get this long to end before they are interrupted.
    pub shutdown_grace: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            tcp: "0.0.0.0:10086".parse().expect("valid address"),
            http: "127.0.0.1:8080".parse().expect("valid address"),
            db: PathBuf::from("arbiter.sqlite"),
            timeout_ms: 3000,
            web_timeout_ms: 20_000,
            max_no_capture_round: None,
            records_dir: None,
            course_record: None,
            idle_timeout: Duration::from_secs(60),
            seats: SeatTimes {
                wait_timeout: Duration::from_secs(600),
                rematch_window: Duration::from_secs(120),
                seat_grace: Duration::from_secs(30),
            },
            rate_limit: 200,
            max_db_bytes: None,
            max_connections: 10_000,
            max_connections_per_ip: 256,
            http_header_timeout: Duration::from_secs(10),
            allow_origins: Vec::new(),
            allow_hosts: Vec::new(),
            ai_workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// A started server.
pub struct RunningServer {
    pub tcp_addr: SocketAddr,
    pub http_addr: SocketAddr,
    pub hub: Arc<Hub>,
    pub store: Store,
    grace: Duration,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl RunningServer {
    /// Stops taking new games, gives running ones the grace period to end, ends the rest as
    /// interrupted, stops listening and waits until everything stored so far is on disk.
    pub async fn shutdown(self) {
        self.hub.shut_down(self.grace).await;
        let _ = self.stop.send(true);
        for task in self.tasks {
            task.abort();
        }
        self.store.flush().await;
        tracing::info!("server stopped; storage flushed");
    }
}

/// Binds both listeners (port 0 picks a free port), then opens the database and starts serving
/// the games of catalogue `C`. Nothing is created on disk when a port is taken.
pub async fn start<C: Catalogue>(config: ServerConfig) -> Result<RunningServer, String> {
    // Two connections a game: the default limit of 1024 open files is too few.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let tcp = TcpListener::bind(config.tcp)
        .await
        .map_err(|e| format!("cannot listen on {} (TCP): {e}", config.tcp))?;
    let http = TcpListener::bind(config.http)
        .await
        .map_err(|e| format!("cannot listen on {} (HTTP): {e}", config.http))?;
    let (tcp_addr, http_addr) = (
        tcp.local_addr().map_err(|e| e.to_string())?,
        http.local_addr().map_err(|e| e.to_string())?,
    );
    let store = Store::open(
        &config.db,
        &StoreOptions {
            max_bytes: config.max_db_bytes,
        },
    )?;
    let records = records(&config)?;
    let registry = Registry::of::<C>();
    let setup = RoomSetup {
        records,
        seats: config.seats,
        defaults: SettingsDefaults {
            timeout_ms: config.timeout_ms,
            max_no_capture_round: config.max_no_capture_round,
        },
    };
    let hub = Hub::new(store.clone(), registry.clone(), setup);
    let conn_config = ConnConfig {
        registry,
        idle_timeout: config.idle_timeout,
        rate_limit: config.rate_limit,
        opening_timeout_ms: None,
    };
    let admissions = Admissions::new(config.max_connections, config.max_connections_per_ip);
    let (stop, stopped) = watch::channel(false);
    let accept = tokio::spawn(accept_tcp(
        tcp,
        hub.clone(),
        conn_config.clone(),
        admissions.clone(),
    ));
    let web_conn = ConnConfig {
        opening_timeout_ms: Some(config.web_timeout_ms),
        ..conn_config.clone()
    };
    let state = http::AppState::new(hub.clone(), store.clone(), web_conn, &config);
    let web = tokio::spawn(http::serve(
        http,
        state,
        admissions,
        config.http_header_timeout,
        stopped,
    ));
    tracing::info!(
        "serving the course protocol on {tcp_addr} (TCP) and HTTP/WebSocket on {http_addr}"
    );
    Ok(RunningServer {
        tcp_addr,
        http_addr,
        hub,
        store,
        grace: config.shutdown_grace,
        stop,
        tasks: vec![accept, web],
    })
}

/// The record files' places, their folders made.
fn records(config: &ServerConfig) -> Result<Records, String> {
    let folders = config.records_dir.iter().cloned().chain(
        config
            .course_record
            .iter()
            .filter_map(|f| f.parent().map(Path::to_path_buf)),
    );
    for dir in folders.filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    Ok(Records {
        dir: config.records_dir.clone(),
        course_file: config.course_record.clone(),
    })
}

async fn accept_tcp(
    listener: TcpListener,
    hub: Arc<Hub>,
    config: ConnConfig,
    admissions: Arc<Admissions>,
) {
    loop {
        match listener.accept().await {
            Ok((stream, addr)) => match admissions.admit(addr.ip()) {
                Ok(admitted) => {
                    tokio::spawn(serve_tcp(
                        stream,
                        addr,
                        hub.clone(),
                        config.clone(),
                        admitted,
                    ));
                }
                Err(why) => {
                    tracing::warn!("refused a connection from {addr}: {why}");
                    tokio::spawn(refuse_tcp(stream, why));
                }
            },
            Err(e) => {
                tracing::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Tells a refused client why in the protocol's words, then hangs up.
async fn refuse_tcp(mut stream: TcpStream, why: String) {
    let reject = protocol::Message::new(protocol::REJECT, "", why, "");
    let line = format!("{}\n", reject.to_line());
    let _ = tokio::time::timeout(Duration::from_secs(2), stream.write_all(line.as_bytes())).await;
}

/// Writes queued lines until the outbox closes or a write stalls (the client stopped reading).
async fn write_lines(mut inbox: Inbox, mut writer: impl AsyncWrite + Unpin) {
    while let Some(line) = inbox.next().await {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        match tokio::time::timeout(WRITE_TIMEOUT, writer.write_all(&bytes)).await {
            Ok(Ok(())) => inbox.written(&line),
            Ok(Err(_)) => break,
            Err(_) => {
                tracing::warn!(
                    "a client read nothing for {} s: closing it",
                    WRITE_TIMEOUT.as_secs()
                );
                break;
            }
        }
    }
    inbox.close();
    let _ = tokio::time::timeout(Duration::from_secs(1), writer.shutdown()).await;
}

/// Probes an idle peer so one that vanished without closing (a dead host, a pulled cable) is
/// found within about a minute.
fn keep_alive(stream: &TcpStream) {
    let probes = socket2::TcpKeepalive::new()
        .with_time(Duration::from_secs(30))
        .with_interval(Duration::from_secs(10))
        .with_retries(3);
    let _ = socket2::SockRef::from(stream).set_tcp_keepalive(&probes);
}

async fn serve_tcp(
    stream: TcpStream,
    addr: SocketAddr,
    hub: Arc<Hub>,
    config: ConnConfig,
    _admitted: Admitted,
) {
    let _ = stream.set_nodelay(true);
    keep_alive(&stream);
    let (mut reader, writer) = stream.into_split();
    let (mut session, inbox) = Session::new(addr.to_string(), hub, config);
    tracing::info!("connection from {addr} (TCP)");
    let mut writer_task = tokio::spawn(write_lines(inbox, writer));
    let mut buf = vec![0u8; 8192];
    let mut lines = LineBuffer::default();
    'reading: loop {
        let deadline = session.idle_deadline();
        let read = tokio::select! {
            read = reader.read(&mut buf) => read,
            _ = &mut writer_task => break 'reading,
            _ = session.changed() => continue 'reading,
            _ = async { tokio::time::sleep_until(deadline.expect("guarded")).await }, if deadline.is_some() => {
                tracing::info!("closing {addr}: no protocol progress for {} s", session.idle_limit().as_secs());
                break 'reading;
            }
        };
        let n = match read {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for line in lines.push(&buf[..n]) {
            let next = match line {
                Line::Text(text) => session.line(&text),
                Line::Bad(why) => session.bad_line(why),
            };
            if next == Next::Close {
                break 'reading;
            }
        }
    }
    session.closed();
    let _ = writer_task.await;
}

/// Keeps the log writers' background threads alive; drop it last (it flushes what is queued).
pub struct LogGuards(#[allow(dead_code)] Vec<tracing_appender::non_blocking::WorkerGuard>);

/// Logs to stderr and, with `log_file`, to that file too. Lines are handed to writer threads
/// through bounded queues: when a writer falls behind (a full disk, a stderr pipe nobody reads)
/// lines are dropped and counted rather than the game loop waiting, and the count is logged.
pub fn init_logging(log_file: Option<&Path>) -> Result<LogGuards, String> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let filter =
        || tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let mut counters = Vec::new();
    let mut writer = |w| {
        let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
            .lossy(true)
            .buffered_lines_limit(LOG_QUEUE)
            .finish(w);
        counters.push(writer.error_counter());
        (writer, guard)
    };
    let (stderr_writer, stderr_guard) =
        writer(Box::new(std::io::stderr()) as Box<dyn std::io::Write + Send>);
    // Colours only for a person at a terminal, never in a redirected file or pipe.
    let stderr = tracing_subscriber::fmt::layer()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(stderr_writer)
        .with_filter(filter());
    let mut guards = vec![stderr_guard];
    let file_layer = match log_file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open the log {}: {e}", path.display()))?;
            let (file_writer, guard) = writer(Box::new(file));
            guards.push(guard);
            Some(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(file_writer)
                    .with_filter(filter()),
            )
        }
        None => None,
    };
    tracing_subscriber::registry()
        .with(stderr)
        .with(file_layer)
        .try_init()
        .map_err(|e| format!("cannot start logging: {e}"))?;
    report_dropped_lines(counters);
    Ok(LogGuards(guards))
}

/// Lines each log writer may have queued before new ones are dropped.
const LOG_QUEUE: usize = 64 * 1024;

/// Says now and then how many log lines were dropped because a writer fell behind.
fn report_dropped_lines(counters: Vec<tracing_appender::non_blocking::ErrorCounter>) {
    let _ = std::thread::Builder::new()
        .name("arbiter-log-count".into())
        .spawn(move || {
            let mut reported = 0;
            loop {
                std::thread::sleep(Duration::from_secs(10));
                let dropped: usize = counters.iter().map(|c| c.dropped_lines()).sum();
                if dropped > reported {
                    tracing::warn!(
                        "{} log lines dropped so far ({} in the last 10 s): a log writer falls behind",
                        dropped,
                        dropped - reported
                    );
                    reported = dropped;
                }
            }
        });
}
