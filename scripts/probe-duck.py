#!/usr/bin/env python3
"""Where a Duck Chess game against Fairy-Stockfish was lost: both engines judge each position.

For every position of a game record where SIDE (0: the side that moved first, 1: the other) was
to move, our engine and Fairy-Stockfish each search it for MS milliseconds, fresh. One line a
position: the move played, each engine's choice, score (for the side to move) and depth; then a
summary: the first ply where each engine scored the position 150 or more below level, the mean
gap between the scores, the median depths, how often our choice was Fairy-Stockfish's, and the
three largest falls of Fairy-Stockfish's score from one of SIDE's positions not yet lost to its
next: the moves that lost the game.
Fairy-Stockfish's centipawns are its own scale, so the gap is a direction, not a measurement.
Our engine plays under the record's rules (its `[Options]` header, e.g. the quiet-move rule off:
`max_no_capture_round 0`); Fairy-Stockfish always under P5380's, which have no such rule.

Usage: scripts/probe-duck.py ARBITER RECORD SIDE [MS]
  e.g. scripts/probe-duck.py target/release/arbiter \
       target/strength/grid-duck-p4-qdefault-c2-t1000-idle-s5/game-0017-ab-vs-fsf.txt 0 1000
Needs ../shared/peers/fairy-stockfish/adapter and the Debian package fairy-stockfish
(scripts/strength.sh installs it).
"""
import os
import sys

from duck_engines import ADAPTER, Engine

LOSING = -150


def value(score):
    """A reported (kind, amount) as centipawns, a mate as ±100000 (None stays None)."""
    if score is None:
        return None
    kind, amount = score
    if kind == "mate":
        return 100_000 if amount > 0 else -100_000
    return amount


def search(engine, moves, ms):
    """(best move, score in centipawns, depth) of a fresh search after `moves`."""
    try:
        best, score, depth = engine.search(moves, ms)
    except RuntimeError as e:
        sys.exit(str(e))
    return best, value(score), depth


def summary(rows):
    first = lambda k: next((r["ply"] for r in rows if r[k][1] is not None and r[k][1] <= LOSING), None)
    gaps = [r["ours"][1] - r["fsf"][1] for r in rows
            if r["ours"][1] is not None and r["fsf"][1] is not None
            and abs(r["ours"][1]) < 3000 and abs(r["fsf"][1]) < 3000]
    median = lambda k: sorted(r[k][2] or 0 for r in rows)[len(rows) // 2]
    agree = sum(r["ours"][0] == r["fsf"][0] for r in rows)
    print(f"{len(rows)} positions; {LOSING} or below first at ply {first('ours')} (ours), "
          f"{first('fsf')} (Fairy-Stockfish); mean gap (ours - Fairy-Stockfish) "
          f"{sum(gaps) / max(1, len(gaps)):+.0f}; median depth {median('ours')} (ours), "
          f"{median('fsf')} (Fairy-Stockfish); our choice was Fairy-Stockfish's {agree}/{len(rows)}")


def falls(rows, count=3):
    """The `count` largest falls of Fairy-Stockfish's score from one of SIDE's positions not yet
    lost (above LOSING) to the next (the move played and the reply; mates and unscored positions
    left out): the moves that lost the game."""
    scored = [r for r in rows if r["fsf"][1] is not None and abs(r["fsf"][1]) < 3000]
    steps = [(a["fsf"][1] - b["fsf"][1], a, b) for a, b in zip(scored, scored[1:])
             if b["ply"] == a["ply"] + 2 and a["fsf"][1] > LOSING]
    for fall, a, b in sorted(steps, key=lambda s: -s[0])[:count]:
        if fall > 0:
            print(f"fall of {fall} at ply {a['ply']}: played {a['played']} (Fairy-Stockfish "
                  f"{a['fsf'][0]}, ours {a['ours'][0]}), {a['fsf'][1]} -> {b['fsf'][1]}")


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    arbiter, record, side = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ms = sys.argv[4] if len(sys.argv) == 5 else "1000"
    for path in (arbiter, ADAPTER):
        if not os.access(path, os.X_OK):
            sys.exit(f"{path} is not an executable: build arbiter (cargo build --release) and "
                     "keep ../shared beside the checkout")
    try:
        with open(record) as f:
            lines = f.read().splitlines()
    except OSError as e:
        sys.exit(f"cannot read the game record {record}: {e.strerror}")
    # Header lines (`[Red "a"]`, `[Options "max_no_capture_round 0"]`) come before the moves.
    options = next((line.split('"')[1] for line in lines
                    if line.startswith("[Options ") and line.count('"') >= 2), "")
    words = [w for line in lines if not line.startswith("[") for w in line.split()]
    moves = [w for w in words if "-" in w and "#" not in w]
    print(f"rules: game duck {options}".strip(), flush=True)
    try:
        ours = Engine([arbiter, "engine"], options)
    except RuntimeError as e:
        sys.exit(f"the record's options `{options}`: {e}")
    try:
        fsf = Engine([ADAPTER])
    except RuntimeError as e:
        sys.exit(f"Fairy-Stockfish did not start: {e}")
    rows = []
    for ply in range(side, len(moves), 2):
        row = {"ply": ply, "played": moves[ply], "ours": search(ours, moves[:ply], ms),
               "fsf": search(fsf, moves[:ply], ms)}
        print(ply, "played", moves[ply], "| ours", row["ours"], "| fsf", row["fsf"], flush=True)
        rows.append(row)
    for engine in (ours, fsf):
        engine.quit()
    if rows:
        summary(rows)
        falls(rows)


if __name__ == "__main__":
    main()
