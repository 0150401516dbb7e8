#!/usr/bin/env bash
# Runs a command beside a load that comes and goes: `yes > /dev/null` pinned to each core for ON
# seconds, then nothing for OFF seconds, over and over until the command ends (issue 80's test of
# time on a game clock under load, docs/strength.md). Exits with the command's status.
#   scripts/intermittent-load.sh [--on SECONDS] [--off SECONDS] [--cores LIST] -- COMMAND [ARGS…]
# Defaults: 3 s on, 3 s off, every core (`--cores 1` loads only the second).
set -euo pipefail

on=3
off=3
cores=""
while [ $# -gt 0 ]; do
  case "$1" in
    --on) on="$2"; shift 2 ;;
    --off) off="$2"; shift 2 ;;
    --cores) cores="$2"; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "intermittent-load.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ $# -eq 0 ]; then
  echo "intermittent-load.sh: no command after -- (see --help)" >&2
  exit 2
fi
[ -n "$cores" ] || cores="$(seq -s, 0 $(($(nproc) - 1)))"

load() {
  local pids=()
  trap 'kill "${pids[@]}" 2> /dev/null; exit 0' TERM
  while true; do
    for core in ${cores//,/ }; do
      taskset -c "$core" yes > /dev/null &
      pids+=($!)
    done
    # `sleep & wait`: a TERM is handled at once, not after the sleep.
    sleep "$on" &
    wait $!
    kill "${pids[@]}" 2> /dev/null || true
    pids=()
    sleep "$off" &
    wait $!
  done
}

load &
loader=$!
trap 'kill -TERM "$loader" 2> /dev/null || true; wait "$loader" 2> /dev/null || true' EXIT
"$@"
