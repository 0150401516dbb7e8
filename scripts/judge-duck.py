#!/usr/bin/env python3
"""Has Fairy-Stockfish judge every move of both sides of Duck Chess arena records.

For each position of each record up to --plies (past the opening's --skip plies), the judge
searches the position for MS milliseconds, then (when the move played was not its own choice)
the position after the move played. The move's cost is the judge's best score minus the score it
gives the move played (the second search's, negated), in its centipawns for the side that moved;
a mate counts as 2000. Both sides are judged alike, so the opponent's own cost is the yardstick
of the judge's noise (a move it chose itself at a longer time also costs something at MS).

Writes one line per move to OUT (`RECORD PLY PLAYER MOVE JUDGES_MOVE BEST PLAYED COST`; a
stopped run resumes where it stopped) and prints, for each player, the moves judged, the mean
cost a move, the moves costing 80 or more, and the judge's mean score for it by stretch of 20
plies.

Usage: scripts/judge-duck.py OUT DIR... [--ms 200] [--plies 100] [--skip 4]
DIR is an arena `--out` folder (`game-NNNN-A-vs-B.txt`, first line the moves). Needs
../shared/peers/fairy-stockfish/adapter and the Debian package fairy-stockfish.
"""
import argparse
import glob
import os
import re
import sys
from collections import defaultdict

from duck_engines import ADAPTER, Engine

MATE = 2000
RECORD = re.compile(r"game-\d+-(.+)-vs-(.+)\.txt$")


def centipawns(score):
    if score is None:
        return 0
    kind, amount = score
    if kind == "mate":
        return MATE if amount > 0 else -MATE
    return max(-MATE, min(MATE, amount))


def records(dirs):
    for folder in dirs:
        paths = sorted(glob.glob(os.path.join(folder, "game-*.txt")))
        if not paths:
            sys.exit(f"{folder}: no game-NNNN-A-vs-B.txt records")
        for path in paths:
            names = RECORD.search(path)
            if not names:
                print(f"{path}: skipped, not named game-NNNN-A-vs-B.txt", file=sys.stderr)
                continue
            try:
                with open(path) as f:
                    # The moves' line: the first after the header lines (`[Red "a"]`, …).
                    line = next((l for l in f if l.strip() and not l.startswith("[")), "")
                    moves = [m for m in line.split() if "-" in m]
            except OSError as e:
                sys.exit(f"cannot read {path}: {e.strerror}")
            label = f"{os.path.basename(os.path.normpath(folder))}/{os.path.basename(path)}"
            yield label, (names[1], names[2]), moves


def done_lines(out):
    if not os.path.exists(out):
        return set()
    with open(out) as f:
        return {tuple(line.split()[:2]) for line in f if line.strip()}


def judge(engine, moves, ply, ms):
    best, score, _ = engine.search(moves[:ply], ms)
    best_cp = centipawns(score)
    if best == moves[ply]:
        return best, best_cp, best_cp
    _, after, _ = engine.search(moves[:ply + 1], ms)
    return best, best_cp, -centipawns(after)


def summary(out):
    per = defaultdict(lambda: [0, 0, 0])
    stretch = defaultdict(list)
    with open(out) as f:
        for line in f:
            _, ply, player, _, _, best, _, cost = line.split()
            if abs(int(best)) >= MATE:
                continue
            stats = per[player]
            stats[0] += 1
            stats[1] += max(-100, min(600, int(cost)))
            stats[2] += int(cost) >= 80
            stretch[player, int(ply) // 20].append(int(best))
    for player, (n, total, big) in sorted(per.items()):
        by = " ".join(f"{s * 20}-{s * 20 + 19}: {sum(v) / len(v):+.0f}"
                      for (p, s), v in sorted(stretch.items()) if p == player)
        print(f"{player}: {n} moves, mean cost {total / n:.1f}, {big} costing 80+; "
              f"the judge's score by plies: {by}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--ms", type=int, default=200)
    ap.add_argument("--plies", type=int, default=100)
    ap.add_argument("--skip", type=int, default=4)
    args = ap.parse_args()
    done = done_lines(args.out)
    if not os.access(ADAPTER, os.X_OK):
        sys.exit(f"{ADAPTER} is not an executable: keep ../shared beside the checkout")
    engine = Engine([ADAPTER])
    with open(args.out, "a") as out:
        for name, players, moves in records(args.dirs):
            for ply in range(args.skip, min(args.plies, len(moves))):
                if (name, str(ply)) in done:
                    continue
                try:
                    best, best_cp, played_cp = judge(engine, moves, ply, args.ms)
                except RuntimeError as e:
                    sys.exit(f"Fairy-Stockfish failed at {name} ply {ply}: {e}")
                out.write(f"{name} {ply} {players[ply % 2]} {moves[ply]} {best} {best_cp} "
                          f"{played_cp} {best_cp - played_cp}\n")
                out.flush()
            print(f"{name}: judged", file=sys.stderr)
    engine.quit()
    summary(args.out)


if __name__ == "__main__":
    main()
