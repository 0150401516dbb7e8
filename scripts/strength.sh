#!/usr/bin/env bash
# The standard strength matches of docs/strength.md, each an arena run with its table printed:
#   1. Duck Chess: alphabeta:ms=100 against Fairy-Stockfish at 100 ms a move (installs the
#      Debian package `fairy-stockfish` when it is missing; the adapter and the P5380 variant
#      definition come from ../shared/peers/fairy-stockfish);
#   2. Surakarta 6×6 and RC-02 6×6: alphabeta:ms=100 against the same player of another build
#      (--baseline BIN, e.g. an older main built into its own target directory; add
#      --old-protocol for builds before the game registry, see scripts/old-engine.sh), when given;
#   3. the levels: easy, medium and hard on Surakarta 6×6 and RC-02 6×6.
# Usage: scripts/strength.sh [--games N] [--baseline PATH-TO-OLD-arbiter [--old-protocol]]
#                            [--only duck|surakarta|rc02|levels]
set -euo pipefail
cd "$(dirname "$0")/.."

games=40
baseline=""
only=""
old_protocol=""
while [ $# -gt 0 ]; do
  case "$1" in
    --games) games="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --old-protocol) old_protocol=1; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "strength.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

peers="$(cd .. && pwd)/shared/peers/fairy-stockfish"
out="target/strength"
mkdir -p "$out"
cargo build --release --locked
arbiter=target/release/arbiter

wanted() { [ -z "$only" ] || [ "$only" = "$1" ]; }

if wanted duck; then
  if [ ! -x /usr/games/fairy-stockfish ]; then
    echo "installing fairy-stockfish …"
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq fairy-stockfish > /dev/null
  fi
  [ -x "$peers/adapter" ] || { echo "no adapter at $peers/adapter" >&2; exit 2; }
  echo "== Duck Chess: alphabeta:ms=100 vs Fairy-Stockfish 100 ms, $games games"
  # P5380 has no quiet-move draw, and Fairy-Stockfish's variant knows none.
  "$arbiter" arena duck --max-no-capture-round 0 --player ab=alphabeta:ms=100 \
    --player "fsf=cmd:$peers/adapter" \
    --games "$games" --time-per-move 100 --concurrency 2 --openings 4 --seed 1 \
    --out "$out/duck-fsf" --json "$out/duck-fsf.json"
fi

if [ -n "$baseline" ]; then
  [ -x "$baseline" ] || { echo "--baseline $baseline is not an executable" >&2; exit 2; }
  if [ -n "$old_protocol" ]; then
    old_engine="scripts/old-engine.sh $(realpath "$baseline")"
  else
    old_engine="$(realpath "$baseline") engine"
  fi
  for game in surakarta rc02; do
    wanted "$game" || continue
    echo "== $game 6×6: alphabeta:ms=100, this build vs $baseline, $games games"
    "$arbiter" arena "$game" --size 6 --player "new=cmd:$arbiter engine" \
      --player "old=cmd:$old_engine" --games "$games" --time-per-move 100 --concurrency 2 \
      --openings 4 --seed 1 --out "$out/$game-baseline" --json "$out/$game-baseline.json"
  done
fi

if wanted levels; then
  for game in "surakarta --size 6" "rc02 --size 6"; do
    echo "== levels on $game, $games games a pair"
    # shellcheck disable=SC2086
    "$arbiter" arena $game --player easy=easy --player medium=medium --player hard=hard \
      --games "$games" --concurrency 1 --openings 4 --seed 1 \
      --json "$out/levels-${game%% *}.json"
  done
fi
echo "results in $out/"
