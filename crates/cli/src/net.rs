//! `arbiter serve`, `arbiter connect` and `arbiter loadtest`: argument parsing and dispatch.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use arbiter_ai::registry::{self, Catalogue};
use arbiter_server::client::{connect, ConnectOptions};
use arbiter_server::cluster::ClusterConfig;
use arbiter_server::storage::DbLocation;
use arbiter_server::ServerConfig;
use clap::Args;

#[derive(Args)]
#[command(args_override_self = true)]
pub struct ServeArgs {
    /// Read settings from this TOML file first, one key per flag (`max_connections = 5000`,
    /// `trusted_proxy = ["10.0.0.1"]`); flags on the command line win.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Run as one node of a cluster, through this NATS server (nats://HOST:PORT); every node
    /// must use the same --db postgres://… (docs/cluster.md).
    #[arg(long, value_name = "NATS_URL")]
    cluster: Option<String>,
    /// This node's name, unique in its cluster [default: the host name and the HTTP port]
    #[arg(long, value_name = "NAME", requires = "cluster")]
    node: Option<String>,
    /// How long a node's hold on a room lasts unrenewed: when its node stops, another takes
    /// the room over this long after (renewed every third of it).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10,
        requires = "cluster"
    )]
    lease_seconds: u64,
    /// Address of the course protocol's TCP listener (HOST:PORT; a name like localhost works).
    #[arg(long, default_value = "0.0.0.0:10086", value_parser = socket_address)]
    tcp: SocketAddr,
    /// Address of the HTTP API, the WebSocket (/ws) and the web page.
    #[arg(long, default_value = "127.0.0.1:8080", value_parser = socket_address)]
    http: SocketAddr,
    /// Where every game is stored: a SQLite file (created when missing; one server at a time),
    /// or a PostgreSQL database, postgres://USER@HOST:PORT/DATABASE (for a cluster; its tables
    /// are created or migrated at start).
    /// (Parsed by us, not by clap: clap's error would repeat the URL with its password.)
    #[arg(long, value_name = "FILE|URL", default_value = "arbiter.sqlite")]
    db: String,
    /// Time a player has for each move, for rooms whose READY does not set its own.
    #[arg(long, value_name = "MS", default_value_t = 3000)]
    timeout_ms: u64,
    /// The same for rooms a page opens over the WebSocket without choosing a time control
    /// (people, not bots: the course's 3 s is too short for a hand on a mouse).
    #[arg(long, value_name = "MS", default_value_t = 20_000)]
    web_timeout_ms: u64,
    /// Moves in a row without a capture that end a game (Surakarta by its rule, the others as
    /// a draw), for rooms whose READY does not set it; each game's own default without it.
    #[arg(long, value_name = "N")]
    max_no_capture_round: Option<u32>,
    /// Also write each finished game's record (course notation) as a file here.
    #[arg(long, value_name = "DIR")]
    records_dir: Option<PathBuf>,
    /// Also write each finished game's record to record/server/Team_TEAM.txt, as the course's
    /// automatic check expects of a team's server.
    #[arg(long, value_name = "TEAM")]
    course_team: Option<String>,
    /// Also write the log to this file.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Close a connection that makes no protocol progress for this long while it holds no seat
    /// and watches no room.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    idle_timeout: u64,
    /// Close a connection that only watches rooms after this long with no message either way
    /// (a live game's moves keep it open; an empty or finished room sends none).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    watch_idle_timeout: u64,
    /// An HTTP client (HTTP/1 or HTTP/2) must send a request's headers within this long, also
    /// while its connection idles between requests.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    http_header_timeout: u64,
    /// A request's body must arrive within this long of its headers, or it gets 408.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    http_body_timeout: u64,
    /// Close an HTTP connection (not a WebSocket) after its current request once it is this old;
    /// clients open a new one.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    http_max_age: u64,
    /// How long a ready player keeps its seat while waiting for an opponent.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    wait_timeout: u64,
    /// How long players keep their seats after a game to ask for a rematch.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    rematch_window: u64,
    /// How long a page that lost its connection mid-game (or was reloaded) keeps its seat to
    /// come back, its clock running, before that counts as leaving the game.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    seat_grace: u64,
    /// How long a page (a seat held with a seat token) has for its first move: before it its
    /// clock does not run, and missing it aborts the game without a result, as on lichess.
    /// Course clients' first moves are on the course's clock.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    first_move_seconds: u64,
    /// Connections held at once (TCP, HTTP and WebSocket together).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_connections: usize,
    /// Connections one network (an IPv4 /24, an IPv6 /64) may hold at once, so no one network
    /// can take them all [default: a tenth of --max-connections, but at least
    /// --max-connections-per-ip]
    #[arg(long, value_name = "N")]
    max_connections_per_network: Option<usize>,
    /// Connections one address may hold at once.
    #[arg(long, value_name = "N", default_value_t = 256)]
    max_connections_per_ip: usize,
    /// Let pages from this origin open the WebSocket (like https://games.example.org; `*` for
    /// any); pages are allowed only from the server's own address otherwise.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// Answer HTTP requests for this host name too (IP addresses and localhost always work),
    /// for a server reached by a name.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
    /// A load balancer (an IP address, like haproxy's) whose connections start with a PROXY
    /// protocol header (haproxy: `send-proxy` or `send-proxy-v2`); the limits per address then
    /// apply to the client the header names. Connections from it without a header are dropped.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// Refuse to grow the database past this many MiB (games that cannot be stored end).
    #[arg(long, value_name = "MIB")]
    max_db_mib: Option<u64>,
    /// On Ctrl-C, running games get this long to end before they are ended as interrupted.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    shutdown_grace: u64,
    /// A cluster node stopped with Ctrl-C or SIGTERM drains first: it stops listening, hands
    /// its rooms to the other nodes and serves its course clients until their games end, for
    /// at most this long (docs/cluster.md, "Draining").
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    drain_seconds: u64,
    #[command(flatten)]
    api: crate::api_limits::ApiLimitArgs,
    /// Seats (waiting, playing or just after a game) one address may hold at once, in all
    /// rooms together.
    #[arg(long, value_name = "N", default_value_t = 16)]
    max_seats_per_ip: usize,
    /// Seats one network (an IPv4 /24, an IPv6 /64) may hold at once.
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_seats_per_network: usize,
    /// Refuse READYs that ask for the server's own AI as opponent (`"opponent":"ai"`); by
    /// default the server seats one, its searches sharing the CPU gate of --cpu-workers.
    #[arg(long)]
    no_house_ai: bool,
}

/// `HOST:PORT`, where HOST may be a name (`localhost:8080`).
fn socket_address(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    text.to_socket_addrs()
        .map_err(|e| format!("`{text}` is not HOST:PORT ({e})"))?
        .next()
        .ok_or_else(|| format!("`{text}` names no address"))
}

fn course_record(team: &str, side: &str) -> anyhow::Result<PathBuf> {
    if team.is_empty() || !team.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        bail!("--course-team `{team}`: letters, digits and _ only, like 7");
    }
    Ok(PathBuf::from("record")
        .join(side)
        .join(format!("Team_{team}.txt")))
}

/// The cluster this node joins, named by --cluster, --node and --lease-seconds.
fn cluster_config(args: &ServeArgs) -> anyhow::Result<Option<ClusterConfig>> {
    let Some(nats) = args.cluster.clone() else {
        return Ok(None);
    };
    let node = args
        .node
        .clone()
        .unwrap_or_else(|| default_node_name(args.http.port()));
    ClusterConfig::check_node_name(&node).map_err(|e| anyhow::anyhow!("--node {e}"))?;
    if !(3..=600).contains(&args.lease_seconds) {
        bail!("--lease-seconds: 3 to 600, not {}", args.lease_seconds);
    }
    let lease = Duration::from_secs(args.lease_seconds);
    Ok(Some(ClusterConfig::new(nats, node, lease)))
}

/// The host's name (dots as dashes) and the HTTP port: unique on one machine and readable.
fn default_node_name(http_port: u16) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "node".into());
    let host: String = host
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(50)
        .collect();
    format!("{host}-{http_port}")
}

fn server_config(args: ServeArgs) -> anyhow::Result<ServerConfig> {
    arbiter_server::games::GameSettings::check_timeout(args.timeout_ms)
        .map_err(|e| anyhow::anyhow!("--timeout-ms: {e}"))?;
    arbiter_server::games::GameSettings::check_timeout(args.web_timeout_ms)
        .map_err(|e| anyhow::anyhow!("--web-timeout-ms: {e}"))?;
    let seconds = Duration::from_secs;
    let cluster = cluster_config(&args)?;
    let db = DbLocation::parse(&args.db).map_err(|e| anyhow::anyhow!("--db: {e}"))?;
    if cluster.is_some() && !matches!(db, DbLocation::Postgres(_)) {
        // Refused before the SQLite file (and its -wal, -shm) is made.
        bail!(
            "{}",
            arbiter_server::server::StartError::ClusterWithoutSharedDatabase
        );
    }
    Ok(ServerConfig {
        cluster,
        tcp: args.tcp,
        http: args.http,
        db,
        timeout_ms: args.timeout_ms,
        web_timeout_ms: args.web_timeout_ms,
        max_no_capture_round: args.max_no_capture_round,
        records_dir: args.records_dir,
        course_record: args
            .course_team
            .as_deref()
            .map(|t| course_record(t, "server"))
            .transpose()?,
        idle_timeout: seconds(args.idle_timeout.max(1)),
        watch_idle_timeout: seconds(args.watch_idle_timeout.max(1)),
        http_header_timeout: seconds(args.http_header_timeout.max(1)),
        http_body_timeout: seconds(args.http_body_timeout.max(1)),
        http_max_age: seconds(args.http_max_age.max(1)),
        seats: arbiter_server::SeatTimes {
            wait_timeout: seconds(args.wait_timeout.max(1)),
            rematch_window: seconds(args.rematch_window.max(1)),
            seat_grace: seconds(args.seat_grace),
            first_move: seconds(args.first_move_seconds.max(1)),
        },
        max_db_bytes: args.max_db_mib.map(|m| m.saturating_mul(1 << 20)),
        max_connections: args.max_connections,
        max_connections_per_network: args
            .max_connections_per_network
            .unwrap_or((args.max_connections / 10).max(args.max_connections_per_ip)),
        max_connections_per_ip: args.max_connections_per_ip,
        allow_origins: args.allow_origins,
        allow_hosts: args.allow_hosts,
        trusted_proxies: args.trusted_proxies,
        shutdown_grace: seconds(args.shutdown_grace),
        api: args.api.limits(),
        seat_limits: arbiter_server::SeatLimits {
            per_ip: args.max_seats_per_ip.max(1),
            per_net: args.max_seats_per_network.max(1),
        },
        house_ai: !args.no_house_ai,
        ..ServerConfig::default()
    })
}

pub fn serve<C: Catalogue>(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let log = args.log.clone();
    let drain_for = Duration::from_secs(args.drain_seconds);
    let config = server_config(args)?;
    let _guard = arbiter_server::init_logging(log.as_deref()).map_err(anyhow::Error::msg)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let server = arbiter_server::start::<C>(config)
            .await
            .map_err(anyhow::Error::msg)?;
        say(arbiter_server::serving_announcement(
            server.tcp_addr,
            server.http_addr,
        ));
        let asked = stop_asked().await?;
        if server.cluster.is_none() && asked == StopSignal::Term {
            // A service manager's restart: the running games stay in the database as they are
            // and carry on when the server starts again (as after a crash), instead of ending.
            say("SIGTERM: stopping at once; running games carry on from the database when the server starts again".into());
            return Ok(());
        }
        if server.cluster.is_some() {
            say(format!("{asked}: draining — no new connections; rooms go to the other nodes; course clients here play on until their games end (at most {} s; Ctrl-C or SIGTERM again stops at once) …", drain_for.as_secs()));
            tokio::select! {
                drained = server.drain(drain_for) => say_drained(drained),
                _ = stop_asked() => {
                    say("stopped at once".into());
                    return Ok(());
                }
            }
        }
        say("stopping: running games get their grace period, then end as interrupted (Ctrl-C again to stop at once) …".into());
        tokio::select! {
            _ = server.shutdown() => {}
            _ = stop_asked() => say("stopped at once".into()),
        }
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Waits for Ctrl-C (SIGINT) or SIGTERM, the signal service managers and `kill` send; which.
async fn stop_asked() -> anyhow::Result<StopSignal> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).context("cannot wait for SIGTERM")?;
    tokio::select! {
        interrupted = tokio::signal::ctrl_c() => {
            interrupted.context("cannot wait for Ctrl-C")?;
            Ok(StopSignal::CtrlC)
        }
        _ = term.recv() => Ok(StopSignal::Term),
    }
}

/// The signal that asked the server to stop: a single server treats a service manager's
/// SIGTERM (a restart) differently from an operator's Ctrl-C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StopSignal {
    CtrlC,
    Term,
}

impl std::fmt::Display for StopSignal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopSignal::CtrlC => "Ctrl-C",
            StopSignal::Term => "SIGTERM",
        })
    }
}

fn say_drained(drained: Option<arbiter_server::cluster::Drained>) {
    let Some(d) = drained else { return };
    say(format!(
        "drained: {} rooms handed to other nodes, {} pages and spectators sent to other nodes, {} seated clients with no game to play closed, {} still playing at the end of --drain-seconds (closed)",
        d.handed_over, d.sent_elsewhere, d.closed_idle, d.still_seated
    ));
}

/// Tells the operator something on stderr without ever waiting for it: a stderr pipe nobody
/// reads must not stop the server from starting to wait for Ctrl-C or from stopping. The line
/// is written by a thread of its own, which the process does not wait for when it exits.
fn say(text: String) {
    let _ = std::thread::Builder::new()
        .name("arbiter-say".into())
        .spawn(move || eprintln!("{text}"));
}

#[derive(Args)]
pub struct ConnectArgs {
    /// The server's host name or address.
    host: String,
    /// The server's TCP port.
    port: u16,
    /// BLACK or WHITE (RED or BLUE for Duck Chess and RC-02), or ANY to let the server choose.
    colour: String,
    /// The user name sent in READY (letters, digits, _).
    #[arg(long, default_value = "arbiter")]
    name: String,
    /// The room: 0-255 on a course server; up to 1000000 on arbiter's (sent with the extension).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    room: u32,
    /// The game to ask for (`arbiter games`); without it, the course's plain READY (Surakarta).
    #[arg(long)]
    game: Option<String>,
    /// Board size to ask for; the server's READY decides.
    #[arg(long)]
    size: Option<u64>,
    /// Give up when no game has started after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    wait: u64,
    /// The player that chooses the moves.
    #[arg(long, value_name = "SPEC", default_value = "alphabeta:ms=200")]
    player: String,
    /// Write the game record (course notation) to this file.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Write the record to record/client/Team_TEAM.txt, as the course's automatic check expects
    /// of a team's client.
    #[arg(long, value_name = "TEAM", conflicts_with = "record")]
    course_team: Option<String>,
    /// Seed of the player's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No log line per message sent and received, nor the note every 10 s while waiting for an
    /// opponent (the summary and any error still go to standard error).
    #[arg(long, short)]
    quiet: bool,
}

/// What `arbiter connect` was asked, checked: the colour word, the course's name rule, the
/// game and its size, the player.
fn connect_options<C: Catalogue>(args: ConnectArgs) -> anyhow::Result<ConnectOptions> {
    let colour = match args.colour.to_ascii_uppercase().as_str() {
        "ANY" | "" => String::new(),
        c @ ("BLACK" | "WHITE" | "RED" | "BLUE") => c.to_string(),
        other => bail!("colour must be BLACK, WHITE, RED, BLUE or ANY, not `{other}`"),
    };
    if args.name.len() > 64
        || !args
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        bail!(
            "--name `{}`: letters, digits and _ only, at most 64 (the course's rule)",
            args.name
        );
    }
    let mut asked = Vec::new();
    if let Some(game) = &args.game {
        let given = args.size.map(|size| ("size", size));
        registry::options::<C>(game, given)?;
        asked.extend(args.size.map(|size| ("size".to_string(), size)));
    } else if let Some(size) = args.size {
        registry::options::<C>(arbiter_server::protocol::COURSE_GAME, [("size", size)])?;
        asked.push(("size".to_string(), size));
    }
    let player: arbiter_ai::PlayerSpec = args.player.parse()?;
    let options = ConnectOptions {
        host: args.host,
        port: args.port,
        colour,
        name: args.name,
        room: args.room,
        game: args.game,
        options: asked,
        player,
        record: match &args.course_team {
            Some(team) => Some(course_record(team, "client")?),
            None => args.record,
        },
        seed: args.seed,
        wait: Duration::from_secs(args.wait),
        quiet: args.quiet,
        gate: None,
    };
    Ok(options)
}

pub fn connect_command<C: Catalogue>(args: ConnectArgs) -> anyhow::Result<ExitCode> {
    let options = connect_options::<C>(args)?;
    let _guard = arbiter_server::init_logging(None).map_err(anyhow::Error::msg)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    match runtime.block_on(connect::<C>(&options)) {
        Ok(outcome) => {
            let result = match outcome.winner {
                Some(w) if w == outcome.side => "won",
                Some(_) => "lost",
                None => "drew",
            };
            // The client is named as it named itself in READY.
            let me = if options.name.is_empty() {
                "arbiter"
            } else {
                options.name.as_str()
            };
            eprintln!(
                "game over against {}: {me} {result} ({})",
                outcome.opponent,
                outcome
                    .end_reason
                    .map_or("unknown end".to_string(), |r| r.name().to_string())
            );
            println!("{}", outcome.record);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("arbiter connect: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

#[derive(Args)]
pub struct LoadtestArgs {
    /// The game the bots play (`arbiter games` lists them); each game at its default options.
    #[arg(long, default_value = arbiter_server::protocol::COURSE_GAME)]
    game: String,
    /// Concurrent games (two TCP connections each).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// A running server's TCP address; without it, a server is started for the test.
    #[arg(long)]
    addr: Option<SocketAddr>,
    /// That server's HTTP address (to check the stored games).
    #[arg(long)]
    http: Option<SocketAddr>,
    /// How long a bot waits before each move.
    #[arg(long, value_name = "MS", default_value_t = 100)]
    think_ms: u64,
    /// Seed of the bots' moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn loadtest<C: Catalogue>(args: LoadtestArgs) -> anyhow::Result<ExitCode> {
    registry::definition::<C>(&args.game)?;
    let exe = std::env::current_exe().context("cannot find the arbiter executable")?;
    let options = arbiter_loadtest::LoadtestOptions {
        game: args.game,
        games: args.games,
        addr: args.addr,
        http: args.http,
        think: Duration::from_millis(args.think_ms),
        seed: args.seed,
        server_exe: exe,
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime
        .block_on(arbiter_loadtest::run::<C>(&options))
        .map_err(anyhow::Error::msg)?;
    println!("{report}");
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
