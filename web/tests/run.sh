#!/usr/bin/env bash
# The browser end-to-end tests: installs what they need (Debian's chromium and the CJK fonts the
# Duck Chess pieces use, playwright-core from the npm registry), then runs them against the
# release binary. Used by .ci/run; needs `cargo build --release` first.
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "installing chromium …"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-cjk > /dev/null
fi
if [ ! -d node_modules/playwright-core ]; then
  npm ci --no-audit --no-fund
fi
export ARBITER_BIN="${ARBITER_BIN:-$(cd ../.. && pwd)/target/release/arbiter}"
[ -x "$ARBITER_BIN" ] || { echo "no arbiter binary at $ARBITER_BIN (run cargo build --release)"; exit 2; }
# The hexapawn example serves a game no file under web/ names (cargo test --release builds it).
export HEXAPAWN_BIN="${HEXAPAWN_BIN:-$(cd ../.. && pwd)/target/release/examples/hexapawn}"
if [ ! -x "$HEXAPAWN_BIN" ]; then
  (cd ../.. && cargo build --release -p arbiter-cli --example hexapawn)
fi
node --test --test-concurrency=1 e2e/
