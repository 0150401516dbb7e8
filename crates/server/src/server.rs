//! Starting and stopping the whole server: the listeners bound, storage opened, rooms and
//! transports started; on shutdown, games given their grace period and storage flushed.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use arbiter_ai::Catalogue;

use crate::api::gate::CpuGate;
use crate::api::ApiLimits;
use crate::cluster::{Cluster, ClusterConfig, ClusterError, ClusterIdentity, Drained};
use crate::games::{Registry, SettingsDefaults};
use crate::rooms::{Hub, Records, RoomSetup, SeatLimits, SeatTimes};
use crate::storage::{self, DbLocation, PgLeases, Storage, StorageError, StoreOptions};
use crate::transport::house::HouseAi;
use crate::transport::http::{HttpDeadlines, HttpState};
use crate::transport::limits::Caps;
use crate::transport::proxy::Proxies;
use crate::transport::{self, Admissions, ConnConfig};

/// How `arbiter serve` runs.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub tcp: SocketAddr,
    pub http: SocketAddr,
    /// A SQLite file or a PostgreSQL URL (`--db`).
    pub db: DbLocation,
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
    /// Connections held at once: in all, from one network (an IPv4 /24, an IPv6 /64) and from
    /// one address.
    pub max_connections: usize,
    pub max_connections_per_network: usize,
    pub max_connections_per_ip: usize,
    /// An HTTP client must send a request's headers within this long, also between requests
    /// (HTTP/1 and HTTP/2 alike).
    pub http_header_timeout: Duration,
    /// A request's body must have arrived this long after its headers (or 408).
    pub http_body_timeout: Duration,
    /// An HTTP connection (not a WebSocket) is closed, after its current request, this long
    /// after it opened.
    pub http_max_age: Duration,
    /// A connection that only watches rooms is closed after this long with no message either
    /// way (a live game's moves count; an empty or finished room sends none).
    pub watch_idle_timeout: Duration,
    /// Page origins allowed to open the WebSocket besides the server's own (`*`: any).
    pub allow_origins: Vec<String>,
    /// Host names the HTTP side answers to besides IP addresses and `localhost`.
    pub allow_hosts: Vec<String>,
    /// The HTTP API's limits: request sizes, CPU-heavy requests at once, writes per client.
    pub api: ApiLimits,
    /// On shutdown, running games get this long to end before they are interrupted.
    pub shutdown_grace: Duration,
    /// Seats held at once per address and per network (/24, /64).
    pub seat_limits: SeatLimits,
    /// Load balancers whose connections start with a PROXY protocol header naming the client.
    pub trusted_proxies: Vec<IpAddr>,
    /// This server is one node of a cluster (docs/cluster.md).
    pub cluster: Option<ClusterConfig>,
    /// A READY with `"opponent":"ai"` seats the server's own AI (`--no-house-ai` turns it off).
    pub house_ai: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            tcp: "0.0.0.0:10086".parse().expect("valid address"),
            http: "127.0.0.1:8080".parse().expect("valid address"),
            db: DbLocation::Sqlite(PathBuf::from("arbiter.sqlite")),
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
                first_move: Duration::from_secs(30),
            },
            rate_limit: 200,
            max_db_bytes: None,
            max_connections: 10_000,
            max_connections_per_network: 1_000,
            max_connections_per_ip: 256,
            http_header_timeout: Duration::from_secs(10),
            http_body_timeout: Duration::from_secs(10),
            http_max_age: Duration::from_secs(600),
            watch_idle_timeout: Duration::from_secs(300),
            allow_origins: Vec::new(),
            allow_hosts: Vec::new(),
            api: ApiLimits::default(),
            shutdown_grace: Duration::from_secs(10),
            seat_limits: SeatLimits::default(),
            trusted_proxies: Vec::new(),
            cluster: None,
            house_ai: true,
        }
    }
}

impl ServerConfig {
    /// What a TCP connection needs (a WebSocket's differs in its opening move time).
    fn conn_config(&self, registry: Arc<Registry>, house: Option<HouseAi>) -> ConnConfig {
        ConnConfig {
            registry,
            idle_timeout: self.idle_timeout,
            watch_idle_timeout: self.watch_idle_timeout,
            rate_limit: self.rate_limit,
            opening_timeout_ms: None,
            house,
        }
    }

    fn caps(&self) -> Caps {
        Caps {
            total: self.max_connections,
            per_network: self.max_connections_per_network,
            per_ip: self.max_connections_per_ip,
        }
    }

    /// A balancer's PROXY header must come as soon as a client's request head would.
    fn proxies(&self) -> Proxies {
        Proxies::new(&self.trusted_proxies, self.http_header_timeout)
    }

    fn http_deadlines(&self) -> HttpDeadlines {
        HttpDeadlines {
            header: self.http_header_timeout,
            body: self.http_body_timeout,
            max_age: self.http_max_age,
        }
    }
}

/// The line `arbiter serve` prints once it serves. Started with port 0, a server is found by
/// this line (tests, `arbiter loadtest`): a port chosen before the start can be taken by
/// another program before the server binds it.
pub fn serving_announcement(tcp: SocketAddr, http: SocketAddr) -> String {
    format!("{SERVING_PREFIX}{tcp} and http://{http} (API at /api, WebSocket at /ws); Ctrl-C stops")
}

const SERVING_PREFIX: &str = "arbiter serves the course protocol on ";

/// The TCP and HTTP addresses of a [`serving_announcement`] line; `None` for any other line.
pub fn parse_serving_announcement(line: &str) -> Option<(SocketAddr, SocketAddr)> {
    let rest = line.trim_end().strip_prefix(SERVING_PREFIX)?;
    let (tcp, rest) = rest.split_once(" and http://")?;
    let http = rest.split_whitespace().next()?;
    Some((tcp.parse().ok()?, http.parse().ok()?))
}

/// A started server.
pub struct RunningServer {
    pub tcp_addr: SocketAddr,
    pub http_addr: SocketAddr,
    pub hub: Arc<Hub>,
    pub store: Storage,
    /// This node's part of its cluster, when it is one.
    pub cluster: Option<Arc<Cluster>>,
    grace: Duration,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl RunningServer {
    /// Drains a cluster node (docs/cluster.md, "Draining"): it stops listening at once (the
    /// balancer's health check fails, and a replacement can bind the same ports), hands every
    /// room it owns to another node, and serves its own clients until their games end or
    /// `within` has passed. `None` for a server that is no cluster node (nothing to drain).
    pub async fn drain(&self, within: Duration) -> Option<Drained> {
        let cluster = self.cluster.as_ref()?;
        self.stop_listening();
        Some(cluster.drain(tokio::time::Instant::now() + within).await)
    }

    /// Closes both listeners; connections already made go on.
    fn stop_listening(&self) {
        let _ = self.stop.send(true);
        for task in &self.tasks {
            task.abort();
        }
    }

    /// Stops taking new games, gives running ones the grace period to end, ends the rest as
    /// interrupted, stops listening and waits until everything stored so far is on disk.
    pub async fn shutdown(self) {
        self.hub.shut_down(self.grace).await;
        self.stop_listening();
        self.store.flush().await;
        tracing::info!("server stopped; storage flushed");
    }
}

/// Why the server cannot start; said to the operator, not to clients.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot listen on {addr} ({what}): {source}")]
    Listen {
        addr: SocketAddr,
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    #[error("a cluster's nodes share one database: give every node --db postgres://…")]
    ClusterWithoutSharedDatabase,
    #[error("cannot create {dir}: {source}")]
    Records {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The rooms; one server restores the games its last run left running before anyone connects,
/// so a page coming back finds its game where it was (a cluster's nodes take rooms over).
async fn new_hub(
    config: &ServerConfig,
    storage: &Storage,
    registry: &Arc<Registry>,
    setup: RoomSetup,
) -> Arc<Hub> {
    let hub = Hub::new(storage.clone(), registry.clone(), setup);
    if config.cluster.is_none() {
        hub.restore_stored_games().await;
    }
    hub
}

/// Binds both listeners (port 0 picks a free port), then opens the database and starts serving
/// the games of catalogue `C`. Nothing is created on disk when a port is taken or the
/// configuration is refused (a cluster node on a SQLite file leaves no file behind).
pub async fn start<C: Catalogue>(config: ServerConfig) -> Result<RunningServer, StartError> {
    if config.cluster.is_some() && !matches!(config.db, DbLocation::Postgres(_)) {
        return Err(StartError::ClusterWithoutSharedDatabase);
    }
    // Two connections a game: the default limit of 1024 open files is too few.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let (tcp, tcp_addr) = bind(config.tcp, "TCP").await?;
    let (http, http_addr) = bind(config.http, "HTTP").await?;
    let options = StoreOptions {
        max_bytes: config.max_db_bytes,
    };
    let store = storage::open(&config.db, &options).await?;
    let registry = Registry::of::<C>();
    let setup = room_setup(&config)?;
    let storage: Storage = store.clone();
    let hub = new_hub(&config, &storage, &registry, setup).await;
    let cluster = join_cluster(&config, &hub, &registry, &storage).await?;
    // One gate for the CPU-heavy work of the API and of the server's own AI seat.
    let gate = Arc::new(CpuGate::of(&config.api));
    let house = config.house_ai.then(|| HouseAi::new::<C>(gate.clone()));
    let tcp_conn = config.conn_config(registry, house);
    let web_conn = ConnConfig {
        opening_timeout_ms: Some(config.web_timeout_ms),
        ..tcp_conn.clone()
    };
    let admissions = Admissions::new(config.caps());
    let (stop, stopped) = watch::channel(false);
    let accept = tokio::spawn(transport::tcp::accept(
        tcp,
        hub.clone(),
        tcp_conn,
        admissions.clone(),
        config.proxies(),
    ));
    let state = HttpState::new::<C>(hub.clone(), storage, web_conn, gate, &config);
    let web = tokio::spawn(transport::http::serve(
        http,
        state,
        admissions,
        config.http_deadlines(),
        config.proxies(),
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
        cluster,
        grace: config.shutdown_grace,
        stop,
        tasks: vec![accept, web],
    })
}

/// Joins the cluster the configuration names, if any. Its leases live in the database every
/// node shares, so a node with a file of its own cannot join.
async fn join_cluster(
    config: &ServerConfig,
    hub: &Arc<Hub>,
    registry: &Arc<Registry>,
    storage: &Storage,
) -> Result<Option<Arc<Cluster>>, StartError> {
    let Some(cluster) = &config.cluster else {
        return Ok(None);
    };
    let DbLocation::Postgres(url) = &config.db else {
        return Err(StartError::ClusterWithoutSharedDatabase);
    };
    let leases = Arc::new(PgLeases::connect(url, cluster.lease).await?);
    let (id, db) = leases.identity().await?;
    let cluster = &ClusterConfig {
        identity: Some(ClusterIdentity { id, db }),
        ..cluster.clone()
    };
    let joined = Cluster::join(cluster, hub, registry.clone(), leases, storage.clone()).await?;
    let id = cluster.identity.as_ref().map_or("", |i| i.id.as_str());
    let nats = &cluster.nats;
    tracing::info!("node {} joined the cluster {id} at {nats}", cluster.node);
    Ok(Some(joined))
}

/// A listener on `addr` and the address it got.
async fn bind(
    addr: SocketAddr,
    what: &'static str,
) -> Result<(TcpListener, SocketAddr), StartError> {
    let failed = |source| StartError::Listen { addr, what, source };
    let listener = TcpListener::bind(addr).await.map_err(failed)?;
    let bound = listener.local_addr().map_err(failed)?;
    Ok((listener, bound))
}

/// How rooms are run, from the server's settings.
fn room_setup(config: &ServerConfig) -> Result<RoomSetup, StartError> {
    Ok(RoomSetup {
        records: records(config)?,
        seats: config.seats,
        defaults: SettingsDefaults {
            timeout_ms: config.timeout_ms,
            max_no_capture_round: config.max_no_capture_round,
        },
        seat_limits: config.seat_limits,
    })
}

/// The record files' places, their folders made.
fn records(config: &ServerConfig) -> Result<Records, StartError> {
    let folders = config.records_dir.iter().cloned().chain(
        config
            .course_record
            .iter()
            .filter_map(|f| f.parent().map(Path::to_path_buf)),
    );
    for dir in folders.filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(&dir).map_err(|source| StartError::Records { dir, source })?;
    }
    Ok(Records {
        dir: config.records_dir.clone(),
        course_file: config.course_record.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serving_announcement_gives_back_both_addresses() {
        let (tcp, http) = (
            "127.0.0.1:4100".parse().unwrap(),
            "[::1]:4101".parse().unwrap(),
        );
        let line = serving_announcement(tcp, http) + "\n";
        assert_eq!(parse_serving_announcement(&line), Some((tcp, http)));
        assert_eq!(parse_serving_announcement("2026-12-06 INFO serving"), None);
    }
}
