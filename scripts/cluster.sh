#!/usr/bin/env bash
# A local arbiter cluster in one command (docs/cluster.md): PostgreSQL in a temporary data folder
# on a free port, nats-server, N `arbiter serve` nodes (3 by default) and haproxy in front with
# one HTTP/WebSocket port and one course TCP port (PROXY protocol to the nodes, so their limits
# per address see the real clients). Installs the Debian packages postgresql, nats-server and
# haproxy when missing. Prints the URL; Ctrl-C stops everything and removes the folder.
# Usage: scripts/cluster.sh [--nodes N] [--http PORT] [--tcp PORT] [--binary PATH] [--keep]
#                           [-- SERVE-FLAGS…]   (given to every node, e.g. -- --max-seats-per-ip 5000)
set -euo pipefail
cd "$(dirname "$0")/.."

nodes=3
http_port=8080
tcp_port=10086
binary="${ARBITER_BIN:-target/release/arbiter}"
keep=""
serve_flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes="$2"; shift 2 ;;
    --http) http_port="$2"; shift 2 ;;
    --tcp) tcp_port="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --) shift; serve_flags=("$@"); break ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "cluster.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

scripts/ensure-packages.sh postgresql nats-server haproxy
if [ ! -x "$binary" ]; then
  echo "building $binary …"
  cargo build --release -p arbiter-cli
fi
pg_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

work="$(mktemp -d /tmp/arbiter-cluster.XXXXXX)"
pids=()
as_postgres=()
if [ "$(id -u)" -eq 0 ]; then
  as_postgres=(runuser -u postgres --)
  chown postgres "$work"
fi

stop_all() {
  echo "stopping the cluster …"
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -z "$keep" ]; then rm -rf "$work"; else echo "kept $work"; fi
}
trap stop_all EXIT
trap 'exit 130' INT TERM

wait_port() {
  for _ in $(seq 1 200); do
    if (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "cluster.sh: nothing listens on port $1 ($2); see the logs in $work" >&2
  keep=1
  exit 1
}

# PostgreSQL: a data folder of its own, trust on loopback only, socket in the folder.
pg_port="$(free_port)"
"${as_postgres[@]}" "$pg_bin/initdb" -D "$work/pg" -A trust -U postgres > "$work/initdb.log"
"${as_postgres[@]}" "$pg_bin/postgres" -D "$work/pg" -p "$pg_port" -k "$work" \
  -c listen_addresses=127.0.0.1 > "$work/postgres.log" 2>&1 &
pids+=($!)
wait_port "$pg_port" postgres
for _ in $(seq 1 100); do
  "${as_postgres[@]}" "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc 'select 1' \
    > /dev/null 2>&1 && break
  sleep 0.1
done
"${as_postgres[@]}" "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc 'CREATE DATABASE arbiter'
db="postgres://postgres@127.0.0.1:$pg_port/arbiter"

nats_port="$(free_port)"
/usr/sbin/nats-server -a 127.0.0.1 -p "$nats_port" > "$work/nats.log" 2>&1 &
pids+=($!)
wait_port "$nats_port" nats-server

web_servers=""
course_servers=""
for i in $(seq 1 "$nodes"); do
  node_http="$(free_port)"
  node_tcp="$(free_port)"
  "$binary" serve --http "127.0.0.1:$node_http" --tcp "127.0.0.1:$node_tcp" --db "$db" \
    --cluster "nats://127.0.0.1:$nats_port" --node "node$i" --trusted-proxy 127.0.0.1 \
    --allow-origin "http://127.0.0.1:$http_port" --allow-origin "http://localhost:$http_port" \
    --log "$work/node$i.log" "${serve_flags[@]}" 2> "$work/node$i.err" &
  pids+=($!)
  wait_port "$node_http" "node$i"
  web_servers+="    server node$i 127.0.0.1:$node_http check send-proxy check-send-proxy inter 1s fall 2 rise 1"$'\n'
  course_servers+="    server node$i 127.0.0.1:$node_tcp check send-proxy check-send-proxy inter 1s fall 2 rise 1"$'\n'
done

# Two descriptors a proxied connection: as many connections as the open-file limit allows.
ulimit -n "$(ulimit -Hn)" 2> /dev/null || true
maxconn=$(( ($(ulimit -n) - 200) / 2 ))
[ "$maxconn" -gt 50000 ] && maxconn=50000
cat > "$work/haproxy.cfg" <<CFG
global
    maxconn $maxconn
defaults
    mode tcp
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
haproxy -f "$work/haproxy.cfg" -db > "$work/haproxy.log" 2>&1 &
pids+=($!)
wait_port "$http_port" haproxy
wait_port "$tcp_port" haproxy

echo "arbiter cluster of $nodes nodes: http://127.0.0.1:$http_port (course protocol on 127.0.0.1:$tcp_port)"
echo "PostgreSQL $db, NATS nats://127.0.0.1:$nats_port; logs in $work; Ctrl-C stops everything"
wait -n "${pids[@]}" || true
echo "cluster.sh: a part of the cluster stopped; see the logs in $work" >&2
keep=1
