#!/usr/bin/env bash
# Makes a Duck Chess network (the learnt correction, crates/ai/src/eval/duck/net.rs) from
# nothing, the way the built-in one was made: self-play games of the default player, each
# position labelled half by Fairy-Stockfish and half by our search, then trained.
#
#   scripts/make-duck-net.sh DIR [--batch RULE:GAMES:SEED]... [--nodes 10000] [--fsf-nodes 10000]
#       [--mix 0.5] [--scale 1.18] [--jobs 2] [--hidden 32] [--epochs 30] [--arbiter BIN]
#
# Steps, each skipped when its output in DIR is complete, so a stopped run goes on where it
# stopped (given the same options):
#   1. per batch, `arbiter tune duck --selfplay DIR/selfplay-RULE-SEED.tsv --games GAMES
#      --nodes N --seed SEED --suite tests/data/openings/duck.txt`; RULE `default` plays the
#      quiet-move rule at its default, `off` without it (`--max-no-capture-round 0`);
#      default batches: default:900:41 and off:900:42;
#   2. per batch, scripts/relabel-duck-net.py into DIR/fs-RULE-SEED.tsv (Fairy-Stockfish at
#      --fsf-nodes, `--mix`, `--scale`, `--jobs` engines at once);
#   3. scripts/train-duck-net.py on all of them into DIR/net.txt (`--lambda 1 --holdout 10
#      --max-gap 300 --inputs 2520`, `--hidden`, `--epochs`).
# Self-play and labels work to node counts, so the data is the same on any machine, any load;
# self-play made by another build of arbiter (another binary) is played again.
# Ends with the arena command that compares DIR/net.txt with the built-in network.
# Needs Fairy-Stockfish and numpy for /usr/bin/python3 (installed when missing, through
# scripts/ensure-packages.sh) and ../shared/peers/fairy-stockfish.
set -euo pipefail

# The comment block above, whatever its length.
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; }
die() { echo "make-duck-net.sh: $*" >&2; exit 2; }

scripts="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$scripts")"
dir="" arbiter="" batches=() nodes=10000 fsf_nodes=10000 mix=0.5 scale=1.18 jobs=2
hidden=32 epochs=30

number() { [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -gt 0 ] || die "$1 takes a positive whole number, not '$2'"; }
decimal() { [[ "$2" =~ ^[0-9]*\.?[0-9]+$ ]] || die "$1 takes a number, not '$2'"; }

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --*) [ $# -ge 2 ] || die "$1 needs a value" ;;
    esac
    case "$1" in
      --batch) [[ "$2" =~ ^(default|off):[1-9][0-9]*:[0-9]+$ ]] \
                 || die "--batch takes RULE:GAMES:SEED with RULE default or off, not '$2'"
               batches+=("$2"); shift 2 ;;
      --nodes) number "$1" "$2"; nodes="$2"; shift 2 ;;
      --fsf-nodes) number "$1" "$2"; fsf_nodes="$2"; shift 2 ;;
      --jobs) number "$1" "$2"; jobs="$2"; shift 2 ;;
      --hidden) number "$1" "$2"; [ "$2" -le 64 ] || die "--hidden takes 1 to 64 (the engine's limit), not '$2'"
                hidden="$2"; shift 2 ;;
      --epochs) number "$1" "$2"; epochs="$2"; shift 2 ;;
      --mix) decimal "$1" "$2"; awk "BEGIN { exit !($2 <= 1) }" || die "--mix takes 0 to 1, not '$2'"
             mix="$2"; shift 2 ;;
      --scale) decimal "$1" "$2"; scale="$2"; shift 2 ;;
      --arbiter) arbiter="$2"; shift 2 ;;
      -*) die "unknown option $1 (see --help)" ;;
      *) [ -z "$dir" ] || die "one DIR only ('$dir', then '$1')"; dir="$1"; shift ;;
    esac
  done
  [ -n "$dir" ] || { usage >&2; exit 2; }
  [ ${#batches[@]} -gt 0 ] || batches=(default:900:41 off:900:42)
}

# Step 1 for one batch; a file without its `.done` mark was cut off, and self-play cannot
# resume, so it is played again.
selfplay() {
  local rule="$1" games="$2" seed="$3" rule_args=()
  local out="$dir/selfplay-$rule-$seed.tsv"
  [ "$rule" = off ] && rule_args=(--max-no-capture-round 0)
  local stamp="$games games at $nodes nodes by the build $build"
  if [ -f "$out.done" ] && [ "$(cat "$out.done")" = "$stamp" ]; then
    echo "== self-play $rule, seed $seed: kept ($out)"
    return
  fi
  echo "== self-play $rule, seed $seed: $games games at $nodes nodes"
  rm -f "$out" "$out.done" "$dir/fs-$rule-$seed.tsv"*  # labels of other games
  "$arbiter" tune duck "${rule_args[@]}" --selfplay "$out" --games "$games" --nodes "$nodes" \
    --suite "$root/tests/data/openings/duck.txt" --seed "$seed"
  echo "$stamp" > "$out.done"
}

# Step 2 for one batch: the relabelling resumes by itself and writes OUT only when complete;
# labels made with other options are made again.
relabel() {
  local rule="$1" seed="$2"
  local out="$dir/fs-$rule-$seed.tsv" stamp="$fsf_nodes nodes, mix $mix, scale $scale"
  if [ -s "$out" ] && [ -f "$out.done" ] && [ "$(cat "$out.done")" = "$stamp" ]; then
    echo "== relabelling $rule, seed $seed: kept ($out)"
    return
  fi
  [ -f "$out.done" ] && rm -f "$out" "$out".part* "$out.options" "$out.done"
  echo "== relabelling $rule, seed $seed by Fairy-Stockfish at $fsf_nodes nodes (--mix $mix)"
  /usr/bin/python3 "$scripts/relabel-duck-net.py" "$dir/selfplay-$rule-$seed.tsv" "$out" \
    --nodes "$fsf_nodes" --jobs "$jobs" --scale "$scale" --mix "$mix"
  echo "$stamp" > "$out.done"
}

main() {
  parse_args "$@"
  [ -z "$arbiter" ] || [ -x "$arbiter" ] || die "--arbiter $arbiter is not an executable"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if [ -z "$arbiter" ]; then
    (cd "$root" && cargo build --release --locked -p arbiter-cli)
    arbiter="$root/target/release/arbiter"
  fi
  # Games of another build are other games: the self-play stamp names the binary's contents.
  build="$(sha256sum "$arbiter" | cut -c1-16)"
  "$scripts/ensure-packages.sh" fairy-stockfish python3-numpy
  local batch relabelled=()
  for batch in "${batches[@]}"; do
    IFS=: read -r rule games seed <<< "$batch"
    selfplay "$rule" "$games" "$seed"
    relabel "$rule" "$seed"
    relabelled+=("$dir/fs-$rule-$seed.tsv")
  done
  echo "== training $hidden hidden units on ${#relabelled[@]} files"
  /usr/bin/python3 "$scripts/train-duck-net.py" "${relabelled[@]}" --out "$dir/net.txt" \
    --hidden "$hidden" --epochs "$epochs" --lambda 1 --holdout 10 --max-gap 300 --inputs 2520
  echo "network in $dir/net.txt; against the built-in one, at a node count so its speed does not count:"
  echo "  $arbiter arena duck --player \"new=cmd:env ARBITER_DUCK_NET=$dir/net.txt $arbiter engine\" \\"
  echo "    --player \"old=cmd:$arbiter engine\" --nodes-per-move 20000 --concurrency 2 \\"
  echo "    --suite $root/tests/data/openings/duck.txt --sprt 0,10 --resign 500,6 --draw 20,16,60 --games 6000"
}

main "$@"
