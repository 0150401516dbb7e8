#!/usr/bin/env bash
# The slow attacks on the server (see scripts/hostile.py): builds the release binary, then runs
# them all, or those named (idle-http, trickle, spectators, kill, judge-flood, ai-hangup,
# games-flood, api-errors, rooms-page, body-deadline, h2-idle, watch-idle, network-cap,
# db-links, ctrl-c-pipe, token-guess, seat-hoard, old-tricks).
# Takes about ten minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
python3 scripts/hostile.py target/release/arbiter "$@"
