#!/usr/bin/env bash
# Installs the Debian packages named on the command line when their programs are missing, so the
# cluster tests, scripts/cluster.sh and the network scripts' tests run on a fresh machine. Names:
# nats-server, postgresql, haproxy, fairy-stockfish, python3-numpy (numpy for Debian's
# /usr/bin/python3). Quiet on success; exits non-zero with apt's message when an install fails.
set -euo pipefail

binary_of() {
  case "$1" in
    nats-server) echo /usr/sbin/nats-server ;;
    postgresql) ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | head -n1 ;;
    haproxy) echo /usr/sbin/haproxy ;;
    fairy-stockfish) echo /usr/games/fairy-stockfish ;;
    *) echo "ensure-packages: unknown package '$1'" >&2; exit 2 ;;
  esac
}

missing=()
for package in "$@"; do
  if [ "$package" = python3-numpy ]; then
    /usr/bin/python3 -c 'import numpy' 2>/dev/null || missing+=("$package")
    continue
  fi
  path="$(binary_of "$package")"
  if [ -z "$path" ] || [ ! -x "$path" ]; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
# One install at a time: parallel tests may all find the package missing.
exec 9>/tmp/arbiter-ensure-packages.lock
flock 9
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" > /dev/null
