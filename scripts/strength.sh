#!/usr/bin/env bash
# The strength matches of docs/strength.md, each an arena run with its table printed.
#
# Standard matches (without --grid):
#   1. Duck Chess: alphabeta:ms=100 against Fairy-Stockfish at 100 ms a move (installs the
#      Debian package `fairy-stockfish` when it is missing; the adapter and the P5380 variant
#      definition come from ../shared/peers/fairy-stockfish);
#   2. Surakarta 6×6 and RC-02 6×6: alphabeta:ms=100 against the same player of another build
#      (--baseline BIN, e.g. an older main built into its own target directory; add
#      --old-protocol for builds before the game registry, see scripts/old-engine.sh), when given;
#   3. the levels: easy, medium and hard on Surakarta 6×6 and RC-02 6×6.
# Usage: scripts/strength.sh [--games N] [--baseline PATH-TO-OLD-arbiter [--old-protocol]]
#                            [--only duck|surakarta|rc02|levels]
#
# The grid (issue 31): one match per cell of opening length × quiet-move rule × games at once
# × time a move × machine load × seed, every cell on the game's opening suite
# (tests/data/openings), each opening played with both colours; a markdown table row per cell
# (W-D-L, pentanomial counts, score, Elo ± from the pairs) is appended to --table as cells end.
#   scripts/strength.sh --grid [--game duck|surakarta|rc02] [--games 40]
#       [--a NAME=SPEC] [--b NAME=SPEC]           players (default: alphabeta against
#                                                 Fairy-Stockfish for duck, mcts otherwise)
#       [--plies 2,4,6,8] [--quiet default,off] [--concurrency 1,2] [--times 100,1000]
#       [--load idle,busy] [--seeds 1,2,3] [--table FILE] [--arbiter BIN]
# `busy` runs `yes > /dev/null` pinned to the last core (taskset) for the cell's duration.
set -euo pipefail
cd "$(dirname "$0")/.."

games=""
baseline=""
only=""
old_protocol=""
grid=""
grid_game="duck"
a_player=""
b_player=""
plies_list="2,4,6,8"
quiet_list="default,off"
concurrency_list="1,2"
times_list="100,1000"
load_list="idle,busy"
seeds_list="1,2,3"
table=""
arbiter=""
while [ $# -gt 0 ]; do
  case "$1" in
    --games) games="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --old-protocol) old_protocol=1; shift ;;
    --grid) grid=1; shift ;;
    --game) grid_game="$2"; shift 2 ;;
    --a) a_player="$2"; shift 2 ;;
    --b) b_player="$2"; shift 2 ;;
    --plies) plies_list="$2"; shift 2 ;;
    --quiet) quiet_list="$2"; shift 2 ;;
    --concurrency) concurrency_list="$2"; shift 2 ;;
    --times) times_list="$2"; shift 2 ;;
    --load) load_list="$2"; shift 2 ;;
    --seeds) seeds_list="$2"; shift 2 ;;
    --table) table="$2"; shift 2 ;;
    --arbiter) arbiter="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;; # the header, whatever its length
    *) echo "strength.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

peers="$(cd .. && pwd)/shared/peers/fairy-stockfish"
out="target/strength"
mkdir -p "$out"
if [ -z "$arbiter" ]; then
  cargo build --release --locked
  arbiter=target/release/arbiter
fi

wanted() { [ -z "$only" ] || [ "$only" = "$1" ]; }

# Installs Debian packages that are missing (as root, or through sudo).
apt_install() {
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  echo "installing $* …"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" > /dev/null
}

need_fairy_stockfish() {
  [ -x /usr/games/fairy-stockfish ] || apt_install fairy-stockfish
  [ -x "$peers/adapter" ] || { echo "no adapter at $peers/adapter" >&2; exit 2; }
}

# ---------------------------------------------------------------------------------------- grid
busy_pid=""
stop_busy() {
  if [ -n "$busy_pid" ]; then
    kill "$busy_pid" 2> /dev/null || true
    wait "$busy_pid" 2> /dev/null || true
    busy_pid=""
  fi
}
trap stop_busy EXIT

start_busy() {
  local core
  core=$(( $(nproc) - 1 ))
  if command -v taskset > /dev/null; then
    taskset -c "$core" yes > /dev/null &
  else
    yes > /dev/null &
  fi
  busy_pid=$!
}

# One markdown row from an arena --json file: the first pair, from the first player's side.
grid_row() {
  local json="$1" conditions="$2"
  jq -r --arg cond "$conditions" '
    .pairs[0] as $p | $p.pentanomial as $q
    | ($p.wins + $p.draws + $p.losses) as $n
    | (if $n > 0 then (100 * ($p.wins + 0.5 * $p.draws) / $n) else 50 end) as $score
    | (if $q.elo == null then (if $score > 50 then "+inf" else "-inf" end)
       else ((if $q.elo >= 0 then "+" else "" end) + ($q.elo | round | tostring)
             + " ± " + ($q.elo_error | round | tostring)) end) as $elo
    | "| \($cond) | \($n) | \($p.wins)-\($p.draws)-\($p.losses) | "
      + ($q.counts | map(tostring) | join("-"))
      + " | \($score * 10 | round / 10)% | \($elo) |"' "$json"
}

run_grid() {
  command -v jq > /dev/null || apt_install jq
  local suite="tests/data/openings/$grid_game.txt" size_args=()
  case "$grid_game" in
    duck) ;;
    surakarta|rc02) size_args=(--size 6); suite="tests/data/openings/$grid_game-6.txt" ;;
    *) echo "--game must be duck, surakarta or rc02" >&2; exit 2 ;;
  esac
  [ -f "$suite" ] || { echo "no opening suite $suite" >&2; exit 2; }
  # Cells of other players than the defaults get their own folders and table, so runs never
  # overwrite each other's games or share a table headed by another run's players: the given
  # specs, reduced to file-name characters.
  local players_tag=""
  if [ -n "$a_player$b_player" ]; then
    players_tag="-$(printf '%s' "$a_player${a_player:+${b_player:+_}}$b_player" | tr -c 'A-Za-z0-9_.=+' '_' | cut -c1-80)"
  fi
  if [ -z "$a_player" ]; then a_player="ab=alphabeta"; fi
  if [ -z "$b_player" ]; then
    if [ "$grid_game" = duck ]; then
      need_fairy_stockfish
      b_player="fsf=cmd:$peers/adapter"
    else
      b_player="mc=mcts"
    fi
  fi
  : "${games:=40}"
  : "${table:=$out/grid-$grid_game$players_tag.md}"
  if [ ! -s "$table" ]; then
    {
      echo "$grid_game: ${a_player%%=*} (\`${a_player#*=}\`) against ${b_player%%=*} (\`${b_player#*=}\`), W-D-L and pentanomial (LL-LD-DD/WL-WD-WW) for the first; Elo ± from the pairs"
      echo
      echo "| plies | quiet-move rule | at once | ms a move | load | seed | games | W-D-L | pentanomial | score | Elo |"
      echo "|---|---|---|---|---|---|---|---|---|---|---|"
    } > "$table"
  fi
  local plies quiet conc ms load seed
  for seed in ${seeds_list//,/ }; do
  for ms in ${times_list//,/ }; do
  for load in ${load_list//,/ }; do
  for conc in ${concurrency_list//,/ }; do
  for quiet in ${quiet_list//,/ }; do
  for plies in ${plies_list//,/ }; do
    local rule_args=() cell="$out/grid-$grid_game$players_tag-p$plies-q$quiet-c$conc-t$ms-$load-s$seed"
    case "$quiet" in
      default) ;;
      # Surakarta's rule cannot be 0: a limit no game reaches turns it off.
      off) if [ "$grid_game" = surakarta ]; then rule_args=(--max-no-capture-round 1000000)
           else rule_args=(--max-no-capture-round 0); fi ;;
      *) echo "--quiet takes default and off" >&2; exit 2 ;;
    esac
    echo "== $grid_game: $plies plies, quiet rule $quiet, $conc at once, $ms ms, $load, seed $seed"
    [ "$load" = busy ] && start_busy
    "$arbiter" arena "$grid_game" "${size_args[@]}" "${rule_args[@]}" \
      --player "$a_player" --player "$b_player" --games "$games" --time-per-move "$ms" \
      --concurrency "$conc" --suite "$suite" --openings "$plies" --seed "$seed" \
      --out "$cell" --json "$cell.json"
    stop_busy
    grid_row "$cell.json" "$plies | $quiet | $conc | $ms | $load | $seed" >> "$table"
  done; done; done; done; done; done
  echo "grid table in $table"
}

if [ -n "$grid" ]; then
  run_grid
  exit 0
fi

# ------------------------------------------------------------------------- standard matches
: "${games:=40}"
if wanted duck; then
  need_fairy_stockfish
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
