#!/usr/bin/env python3
"""Which pieces each player of a Duck Chess arena run lost, kind by kind.

Reads an `arena --out` folder (games.tsv and one record per game), replays every game's moves
on a plain board (a move onto an occupied point captures it) up to ply PLIES, and counts the
pieces PLAYER lost and the pieces its opponents lost, by kind: captain K, guard A, elephant E,
horse H, car R, duck D, soldier P. One line a game, then the totals and the mean a game.
A player that loses more of one kind than its opponents do, with the other kinds level, is
giving those pieces away: its evaluation holds them cheaper than the opponent's does.

Usage: scripts/captures-duck.py DIR PLAYER [PLIES]   (PLIES: 100 unless given; 0 for all)
  e.g. scripts/captures-duck.py target/strength/grid-duck-p4-qdefault-c2-t1000-idle-s5 ab 100
Only the standard start is known; a record must start from it (every arena run's does).
"""
import collections
import os
import re
import sys

START = "rheakaehr/9/d7d/p1p1p1p1p/9/9/P1P1P1P1P/D7D/9/RHEAKAEHR"
MOVE = re.compile(r"^([a-i])(\d)-([a-i])(\d)$")
KINDS = "KAEHRDP"


def start_board():
    """Point (row, column) -> piece letter; the FEN's first row is row 9 (blue's back rank)."""
    board = {}
    for i, row in enumerate(START.split("/")):
        column = 0
        for c in row:
            if c.isdigit():
                column += int(c)
            else:
                board[(9 - i, column)] = c
                column += 1
    return board


def lost_pieces(path, plies):
    """The letters captured in the record at `path`, first side's (upper case) and second's."""
    board = start_board()
    lost = {True: collections.Counter(), False: collections.Counter()}
    with open(path) as f:
        # Header lines (`[Red "a"]`, …) come before the moves.
        words = [w for line in f if not line.startswith("[") for w in line.split()]
    for ply, word in enumerate(words):
        if word.endswith("#") or (plies and ply >= plies):
            break
        m = MOVE.match(word)
        if not m:
            sys.exit(f"{path}: move {ply + 1} `{word}` is not a Duck Chess move")
        origin = (int(m[2]), ord(m[1]) - ord("a"))
        target = (int(m[4]), ord(m[3]) - ord("a"))
        if origin not in board:
            sys.exit(f"{path}: move {ply + 1} `{word}` starts from an empty point")
        if target in board:
            victim = board[target]
            lost[victim.isupper()][victim.upper()] += 1
        board[target] = board.pop(origin)
    return lost[True], lost[False]


def games(folder):
    """(first player, second player, record path) of each line of games.tsv, or of each record
    named `game-N-FIRST-vs-SECOND.txt` where a stopped run of an older build left no index."""
    index = os.path.join(folder, "games.tsv")
    if not os.path.exists(index):
        for name in sorted(os.listdir(folder)):
            m = re.match(r"^game-\d+-(.+)-vs-(.+)\.txt$", name)
            if m:
                yield m[1], m[2], os.path.join(folder, name)
        return
    with open(index) as f:
        lines = f.read().splitlines()[1:]
    for n, line in enumerate(lines, start=2):
        fields = line.split("\t")
        if len(fields) != 7:
            sys.exit(f"{folder}/games.tsv:{n}: expected 7 tab-separated fields")
        yield fields[1], fields[2], os.path.join(folder, fields[6])


def row(counts):
    return " ".join(f"{k}{counts[k]}" for k in KINDS if counts[k])


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    folder, player = sys.argv[1], sys.argv[2]
    plies = int(sys.argv[3]) if len(sys.argv) == 4 else 100
    totals = {"own": collections.Counter(), "theirs": collections.Counter()}
    count = 0
    for first, second, path in games(folder):
        if player not in (first, second):
            continue
        by_first, by_second = lost_pieces(path, plies)
        own, theirs = (by_first, by_second) if player == first else (by_second, by_first)
        totals["own"].update(own)
        totals["theirs"].update(theirs)
        count += 1
        print(f"{os.path.basename(path)}\t{player} lost {row(own)}\topponent lost {row(theirs)}")
    if count == 0:
        sys.exit(f"no game of `{player}` in {folder}/games.tsv")
    print(f"{count} games, plies up to {plies or 'the end'}")
    print("kind\t" + "\t".join(KINDS))
    for side in ("own", "theirs"):
        name = player if side == "own" else "opponent"
        means = [f"{totals[side][k] / count:.2f}" for k in KINDS]
        print(f"{name} a game\t" + "\t".join(means))


if __name__ == "__main__":
    main()
