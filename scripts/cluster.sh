#!/usr/bin/env bash
# A local arbiter cluster (docs/cluster.md#try-it): PostgreSQL, nats-server, N `arbiter serve`
# nodes (3 by default) and haproxy in front with one HTTP/WebSocket port and one course TCP port
# (PROXY protocol to the nodes). Installs the Debian packages postgresql, nats-server and haproxy
# when missing. Everything lives in one data folder (--dir): the database, each part's log, pid
# and command line. A part that exits is reported and the others go on; `restart PART` starts it
# again. The folder is kept (the next start reuses its database) unless --clean is given.
#
# Usage: scripts/cluster.sh [start] [--nodes N] [--lease-seconds S] [--http PORT] [--tcp PORT]
#                           [--binary PATH] [--dir DIR] [--clean] [-- SERVE-FLAGS…]
#        scripts/cluster.sh status  [--dir DIR]   each part: running or exited (exit 1 if any exited)
#        scripts/cluster.sh restart PART [--dir DIR]   PART: node1…nodeN, nats, postgres, haproxy
#        scripts/cluster.sh stop    [--dir DIR]   stops a cluster started in another shell
# `start` runs in the foreground; Ctrl-C (or `stop`) stops every part. --clean starts from an
# empty folder and removes it when the cluster stops.
set -euo pipefail
cd "$(dirname "$0")/.."

command="start"
case "${1:-}" in
  start|status|restart|stop) command="$1"; shift ;;
esac
part=""
if [ "$command" = restart ]; then
  part="${1:?cluster.sh restart: which part? (node1, nats, postgres, haproxy)}"; shift
fi

nodes=3
lease_seconds=10
http_port=8080
tcp_port=10086
binary="${ARBITER_BIN:-target/release/arbiter}"
dir="${ARBITER_CLUSTER_DIR:-target/cluster}"
clean=""
serve_flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes="$2"; shift 2 ;;
    --lease-seconds) lease_seconds="$2"; shift 2 ;;
    --http) http_port="$2"; shift 2 ;;
    --tcp) tcp_port="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --clean) clean=1; shift ;;
    --keep) shift ;; # the folder is always kept now; accepted for old command lines
    --) shift; serve_flags=("$@"); break ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;; # the header, whatever its length
    *) echo "cluster.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ "$command" = start ] && mkdir -p "$dir"
dir="$(cd "$dir" 2>/dev/null && pwd || echo "$dir")"

# --- the parts: each has dir/cmd/PART (its command line), dir/pids/PART, dir/logs/PART.log ---

parts() { [ -d "$dir/cmd" ] && ls "$dir/cmd" | sort -V; }

pid_of() { cat "$dir/pids/$1" 2>/dev/null || true; }

running() {
  local pid
  pid="$(pid_of "$1")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# Starts PART from its saved command line, in the background, its output appended to its log.
launch() {
  local p="$1"
  setsid bash -c "exec $(cat "$dir/cmd/$p")" >> "$dir/logs/$p.log" 2>&1 < /dev/null &
  echo $! > "$dir/pids/$p"
}

# Saves PART's command line (each word quoted) and starts it.
define() {
  local p="$1"; shift
  printf '%q ' "$@" > "$dir/cmd/$p"
  launch "$p"
}

# Stops PART: SIGTERM, then SIGKILL after 15 s. (A node drains on its first SIGTERM and stops
# at once on a second: see stop_nodes.)
halt() {
  local pid
  pid="$(pid_of "$1")"
  [ -z "$pid" ] && return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
}

port_of() { cat "$dir/ports/$1" 2>/dev/null || true; }

listens() { (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Retires node PART for a restart: SIGTERM starts its drain (docs/cluster.md#draining), which
# closes its ports at once and hands its rooms to the other nodes; the old process then serves
# its course clients until their games end (at most --drain-seconds) while the new one starts
# on the same ports. SIGKILL if it still listens after 15 s.
retire() {
  local pid http tcp
  pid="$(pid_of "$1")"; http="$(port_of "$1")"; tcp="$(port_of "$1.tcp")"
  [ -z "$pid" ] && return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || return 0
    if ! listens "$http" && ! listens "$tcp"; then
      echo "$1 (pid $pid) drains: it finishes its course clients' games in the background"
      return 0
    fi
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
}

# Stops every node: all drain at once (so none takes another's rooms), then a second SIGTERM
# stops each at once; the games they ran stay in the database, and the next start takes them
# over.
stop_nodes() {
  local p pid
  for p in $(parts | grep '^node'); do
    pid="$(pid_of "$p")"
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  sleep 0.5
  for p in $(parts | grep '^node'); do halt "$p"; done
}

wait_port() {
  for _ in $(seq 1 300); do
    if (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "cluster.sh: nothing listens on port $1 ($2); see $dir/logs/$2.log" >&2
  return 1
}

status() {
  if [ -z "$(parts)" ]; then
    echo "cluster.sh: no cluster in $dir" >&2
    return 3
  fi
  local down=0 p
  for p in $(parts); do
    if running "$p"; then
      printf '%-10s running  pid %-8s port %s\n' "$p" "$(pid_of "$p")" "$(port_of "$p")"
    else
      printf '%-10s EXITED   see %s\n' "$p" "$dir/logs/$p.log"
      down=1
    fi
  done
  return $down
}

case "$command" in
  status) status; exit $? ;;
  restart)
    [ -f "$dir/cmd/$part" ] || { echo "cluster.sh: no part $part in $dir (see status)" >&2; exit 2; }
    case "$part" in
      node*) retire "$part" ;;
      *) halt "$part" ;;
    esac
    launch "$part"
    port="$(port_of "$part")"
    [ -n "$port" ] && wait_port "$port" "$part"
    echo "$part started again (pid $(pid_of "$part"))"
    exit 0 ;;
  stop)
    [ -f "$dir/supervisor.pid" ] && kill "$(cat "$dir/supervisor.pid")" 2>/dev/null || true
    stop_nodes
    for p in $(parts | grep -v '^node'); do halt "$p"; done
    exit 0 ;;
esac

# --- start ---

if [ -f "$dir/supervisor.pid" ] && kill -0 "$(cat "$dir/supervisor.pid")" 2>/dev/null; then
  echo "cluster.sh: a cluster already runs from $dir (pid $(cat "$dir/supervisor.pid")); stop it first" >&2
  exit 1
fi
if [ -n "$clean" ]; then
  rm -rf "${dir:?}"/*
fi
mkdir -p "$dir/cmd" "$dir/pids" "$dir/logs" "$dir/ports" "$dir/run"
rm -f "$dir"/cmd/* "$dir"/pids/* "$dir"/ports/*
echo $$ > "$dir/supervisor.pid"

scripts/ensure-packages.sh postgresql nats-server haproxy
if [ ! -x "$binary" ]; then
  echo "building $binary …"
  cargo build --release -p arbiter-cli
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
pg_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

as_postgres=()
if [ "$(id -u)" -eq 0 ]; then
  as_postgres=(runuser -u postgres --)
  chown postgres "$dir/run"
fi

stop_all() {
  trap - EXIT INT TERM
  echo "stopping the cluster …"
  local p
  stop_nodes
  for p in $(parts | grep -v '^postgres$' | grep -v '^node'); do halt "$p"; done
  halt postgres
  rm -f "$dir/supervisor.pid"
  if [ -n "$clean" ]; then rm -rf "${dir:?}"; else echo "kept $dir (its database is reused by the next start; --clean removes it)"; fi
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# PostgreSQL: the folder's own data (made once), trust on loopback only, socket in dir/run.
fresh=""
if [ ! -f "$dir/pg/PG_VERSION" ]; then
  fresh=1
  mkdir -p "$dir/pg"
  [ "$(id -u)" -eq 0 ] && chown postgres "$dir/pg"
  "${as_postgres[@]}" "$pg_bin/initdb" -D "$dir/pg" -A trust -U postgres > "$dir/logs/initdb.log"
fi
pg_port="$(free_port)"
echo "$pg_port" > "$dir/ports/postgres"
define postgres "${as_postgres[@]}" "$pg_bin/postgres" -D "$dir/pg" -p "$pg_port" -k "$dir/run" \
  -c listen_addresses=127.0.0.1
wait_port "$pg_port" postgres
for _ in $(seq 1 100); do
  "${as_postgres[@]}" "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc 'select 1' \
    > /dev/null 2>&1 && break
  sleep 0.1
done
if [ -n "$fresh" ]; then
  "${as_postgres[@]}" "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc 'CREATE DATABASE arbiter'
fi
db="postgres://postgres@127.0.0.1:$pg_port/arbiter"

nats_port="$(free_port)"
echo "$nats_port" > "$dir/ports/nats"
define nats /usr/sbin/nats-server -a 127.0.0.1 -p "$nats_port"
wait_port "$nats_port" nats

web_servers=""
course_servers=""
for i in $(seq 1 "$nodes"); do
  node_http="$(free_port)"
  node_tcp="$(free_port)"
  echo "$node_http" > "$dir/ports/node$i"
  echo "$node_tcp" > "$dir/ports/node$i.tcp"
  define "node$i" "$binary" serve --http "127.0.0.1:$node_http" --tcp "127.0.0.1:$node_tcp" \
    --db "$db" --cluster "nats://127.0.0.1:$nats_port" --node "node$i" \
    --lease-seconds "$lease_seconds" --trusted-proxy 127.0.0.1 \
    --allow-origin "http://127.0.0.1:$http_port" --allow-origin "http://localhost:$http_port" \
    "${serve_flags[@]}"
  wait_port "$node_http" "node$i"
  web_servers+="    server node$i 127.0.0.1:$node_http check send-proxy check-send-proxy inter 1s fall 2 rise 1"$'\n'
  course_servers+="    server node$i 127.0.0.1:$node_tcp check send-proxy check-send-proxy inter 1s fall 2 rise 1"$'\n'
done

# Two descriptors a proxied connection: as many connections as the open-file limit allows.
ulimit -n "$(ulimit -Hn)" 2> /dev/null || true
maxconn=$(( ($(ulimit -n) - 200) / 2 ))
[ "$maxconn" -gt 50000 ] && maxconn=50000
cat > "$dir/haproxy.cfg" <<CFG
global
    maxconn $maxconn
defaults
    mode tcp
    # A node that drains refuses connections at once: try another.
    option redispatch
    retries 3
    timeout connect 5s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
frontend web
    bind 127.0.0.1:$http_port
    default_backend web_nodes
backend web_nodes
    balance leastconn
$web_servers
frontend course
    bind 127.0.0.1:$tcp_port
    default_backend course_nodes
backend course_nodes
    balance leastconn
$course_servers
CFG
echo "$http_port" > "$dir/ports/haproxy"
define haproxy /usr/sbin/haproxy -f "$dir/haproxy.cfg" -db
wait_port "$http_port" haproxy
wait_port "$tcp_port" haproxy

echo "arbiter cluster of $nodes nodes: http://127.0.0.1:$http_port (course protocol on 127.0.0.1:$tcp_port)"
echo "PostgreSQL $db, NATS nats://127.0.0.1:$nats_port; data and logs in $dir"
echo "scripts/cluster.sh status | restart PART | stop (--dir $dir); Ctrl-C stops everything"

# Watch the parts: one that exits is reported once (with its exit status when known) and the
# others go on; `restart PART` from another shell starts it again under a new pid.
declare -A reported=()
while true; do
  for p in $(parts); do
    pid="$(pid_of "$p")"
    if running "$p"; then continue; fi
    [ "${reported[$p]:-}" = "$pid" ] && continue
    reported[$p]="$pid"
    status_text=""
    if wait "$pid" 2>/dev/null; then status_text=" (status 0)"; else
      code=$?; [ "$code" -ne 127 ] && status_text=" (status $code)"; fi
    echo "cluster.sh: $p exited$status_text; the rest go on. Its log: $dir/logs/$p.log;" \
      "scripts/cluster.sh restart $p --dir $dir starts it again" >&2
  done
  sleep 1
done
