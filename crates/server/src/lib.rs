//! Network play: the course's Surakarta protocol over TCP, the same JSON messages over a
//! WebSocket, the project's extension (Duck Chess and RC-02 games, spectators), rooms with
//! clocks, every game in SQLite, an HTTP JSON API, the headless client (`arbiter connect`) and
//! the load test. The protocol is documented in `docs/protocol.md`.

pub mod client;
mod conn;
pub mod games;
mod http;
pub mod loadtest;
pub mod protocol;
mod room;
pub mod store;
mod web;
pub mod web_api;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use arbiter_ai::Catalogue;
pub use conn::ConnConfig;
use conn::{Next, Session};
use games::Registry;
use protocol::{Line, LineBuffer};
use room::Outgoing;
pub use room::{Hub, RoomInfo};
pub use store::{Store, StoreOptions};

/// How `arbiter serve` runs.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub tcp: SocketAddr,
    pub http: SocketAddr,
    pub db: PathBuf,
    pub timeout_ms: u64,
    /// Overrides every game's own no-capture limit for rooms whose READY does not set it.
    pub max_no_capture_round: Option<u32>,
    pub records_dir: Option<PathBuf>,
    /// A client that says nothing this long after connecting is disconnected.
    pub idle_timeout: Duration,
    /// Messages per second per client (bursts of twice as many).
    pub rate_limit: u32,
    /// The database may not grow past this many bytes.
    pub max_db_bytes: Option<u64>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            tcp: "0.0.0.0:10086".parse().expect("valid address"),
            http: "127.0.0.1:8080".parse().expect("valid address"),
            db: PathBuf::from("arbiter.sqlite"),
            timeout_ms: 3000,
            max_no_capture_round: None,
            records_dir: None,
            idle_timeout: Duration::from_secs(60),
            rate_limit: 200,
            max_db_bytes: None,
        }
    }
}

/// A started server.
pub struct RunningServer {
    pub tcp_addr: SocketAddr,
    pub http_addr: SocketAddr,
    pub hub: Arc<Hub>,
    pub store: Store,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl RunningServer {
    /// Stops accepting connections and waits until everything stored so far is on disk.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        for task in self.tasks {
            task.abort();
        }
        self.store.flush().await;
        tracing::info!("server stopped; storage flushed");
    }
}

/// Binds both listeners (port 0 picks a free port) and starts serving the games of catalogue `C`.
pub async fn start<C: Catalogue>(config: ServerConfig) -> Result<RunningServer, String> {
    let registry = Registry::of::<C>();
    // Two connections a game: the default limit of 1024 open files is too few.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let store = Store::open(
        &config.db,
        &StoreOptions {
            max_bytes: config.max_db_bytes,
        },
    )?;
    if let Some(dir) = &config.records_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let hub = Hub::new(store.clone(), config.records_dir.clone(), registry.clone());
    let conn_config = ConnConfig {
        registry,
        timeout_ms: config.timeout_ms,
        max_no_capture_round: config.max_no_capture_round,
        idle_timeout: config.idle_timeout,
        rate_limit: config.rate_limit,
    };
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
    let (stop, stopped) = watch::channel(false);
    let accept = {
        let (hub, conn_config) = (hub.clone(), conn_config.clone());
        tokio::spawn(async move {
            loop {
                match tcp.accept().await {
                    Ok((stream, addr)) => {
                        let _ = stream.set_nodelay(true);
                        tokio::spawn(serve_tcp(stream, addr, hub.clone(), conn_config.clone()));
                    }
                    Err(e) => {
                        tracing::warn!("accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
            }
        })
    };
    let app = http::router(http::AppState {
        hub: hub.clone(),
        store: store.clone(),
        conn: conn_config,
    });
    let web = tokio::spawn(async move {
        let mut stopped = stopped;
        let serve = axum::serve(
            http,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            let _ = stopped.wait_for(|s| *s).await;
        });
        if let Err(e) = serve.await {
            tracing::error!("HTTP server failed: {e}");
        }
    });
    tracing::info!(
        "serving the course protocol on {tcp_addr} (TCP) and HTTP/WebSocket on {http_addr}"
    );
    Ok(RunningServer {
        tcp_addr,
        http_addr,
        hub,
        store,
        stop,
        tasks: vec![accept, web],
    })
}

async fn serve_tcp(stream: TcpStream, addr: SocketAddr, hub: Arc<Hub>, config: ConnConfig) {
    let idle = config.idle_timeout;
    let (mut reader, mut writer) = stream.into_split();
    let (mut session, mut outgoing) = Session::new(addr.to_string(), hub, config);
    tracing::info!("connection from {addr} (TCP)");
    let mut writer_task = tokio::spawn(async move {
        while let Some(out) = outgoing.recv().await {
            match out {
                Outgoing::Message(m) => {
                    let mut line = m.to_line();
                    line.push('\n');
                    if writer.write_all(line.as_bytes()).await.is_err() {
                        break;
                    }
                }
                Outgoing::Close => break,
            }
        }
        let _ = writer.shutdown().await;
    });
    let mut buf = vec![0u8; 8192];
    let mut lines = LineBuffer::default();
    let mut spoke = false;
    'reading: loop {
        let read = tokio::select! {
            read = reader.read(&mut buf) => read,
            _ = &mut writer_task => break 'reading,
            _ = tokio::time::sleep(idle), if !spoke => {
                tracing::info!("closing {addr}: said nothing for {} s", idle.as_secs());
                break 'reading;
            }
        };
        let n = match read {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for line in lines.push(&buf[..n]) {
            let next = match line {
                Line::Text(text) => {
                    spoke = true;
                    session.line(&text).await
                }
                Line::Bad(why) => session.bad_line(why),
            };
            if next == Next::Close {
                break 'reading;
            }
        }
    }
    session.closed().await;
    let _ = session.peer().tx.try_send(Outgoing::Close);
}

/// Keeps the log writers' background threads alive; drop it last (it flushes what is queued).
pub struct LogGuards(#[allow(dead_code)] Vec<tracing_appender::non_blocking::WorkerGuard>);

/// Logs to stderr and, with `log_file`, to that file too. Lines are handed to writer threads,
/// so a busy server never waits on a terminal or a disk to log a message.
pub fn init_logging(log_file: Option<&Path>) -> Result<LogGuards, String> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let filter =
        || tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    // Not lossy: when the writers fall behind, logging waits rather than dropping lines.
    let writer = |w| {
        tracing_appender::non_blocking::NonBlockingBuilder::default()
            .lossy(false)
            .finish(w)
    };
    let (stderr_writer, stderr_guard) =
        writer(Box::new(std::io::stderr()) as Box<dyn std::io::Write + Send>);
    let stderr = tracing_subscriber::fmt::layer()
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
    Ok(LogGuards(guards))
}
