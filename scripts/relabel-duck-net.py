#!/usr/bin/env python3
"""Relabels the learnt correction's training rows with Fairy-Stockfish's scores.

DATA is what `arbiter tune duck --selfplay` wrote (GAME, STATIC, SCORE, RESULT, INPUTS; see
scripts/train-duck-net.py). Each row's position is rebuilt from its inputs (blocks 0 and 1 say
where every piece stands, rows counted from the side to move's back rank; the side to move
becomes Fairy-Stockfish's white, which the game's mirror symmetry allows) and searched by
Fairy-Stockfish to NODES nodes. OUT gets the row with SCORE replaced by
round(MIX * SCALE * fsf + (1 - MIX) * SCORE): SCALE turns its centipawns into ours, MIX weighs
its judgement against our search's. A row whose new score is 3,000 or more from level (a mate
found) is left out, as train-duck-net.py refuses it. With --own-gap CP, a row whose own SCORE is
more than CP from its STATIC is left out before it is searched: a tactic our search saw below a
quiet-looking position, which train-duck-net.py's --max-gap leaves out of our own labels. Past
that, a wide gap between Fairy-Stockfish's score and our static value is its judgement differing
from ours, what the network is to learn, so train such labels with a wider --max-gap.

JOBS engines run at once, job j taking the games with GAME % JOBS == j in file order. Each row is
searched to a node count from empty tables, so its label is the same on any machine, under any
load, with any JOBS and after a stop (about a fifth slower than keeping the tables). OUT is
written through one part file per job (OUT.partJ), which a stopped run continues; OUT is written
from them, game by game in file order, once every part is complete. A stopped run goes on only
with the options it started with (kept in OUT.options), so its parts line up with the rows.

Usage: scripts/relabel-duck-net.py DATA OUT [--nodes 10000] [--jobs 2] [--scale 1] [--mix 1]
                                   [--own-gap CP]
Needs the Debian package fairy-stockfish (scripts/strength.sh installs it) and
../shared/peers/fairy-stockfish/duck.ini.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INI = os.path.join(HERE, "../../shared/peers/fairy-stockfish/duck.ini")
ENGINE = "/usr/games/fairy-stockfish"
LETTERS = "kaehrdp"  # the kinds in net.rs's order: captain guard elephant horse car duck soldier
MATE = 10_000
LIMIT = 3000  # train-duck-net.py refuses |SCORE| at or above it


def fen(inputs):
    """Fairy-Stockfish's FEN of a row's position, the side to move as white."""
    board = [[None] * 9 for _ in range(10)]
    for index in inputs:
        block, rest = divmod(index, 630)
        if block > 1:
            continue  # the threat blocks repeat pieces already placed
        kind, square = divmod(rest, 90)
        row, col = divmod(square, 9)
        board[row][col] = LETTERS[kind].upper() if block == 0 else LETTERS[kind]
    ranks = []
    for row in range(9, -1, -1):
        text, empty = "", 0
        for piece in board[row]:
            if piece is None:
                empty += 1
                continue
            text += (str(empty) if empty else "") + piece
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks) + " w - - 0 1"


class Fsf:
    def __init__(self):
        self.process = subprocess.Popen([ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        for line in ("uci", f"setoption name VariantPath value {INI}",
                     "setoption name UCI_Variant value duckchess", "setoption name Hash value 16",
                     "setoption name Threads value 1", "isready"):
            self.send(line)
        self.until("readyok")

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, word):
        for line in self.process.stdout:
            if line.split()[:1] == [word]:
                return line
        raise RuntimeError("Fairy-Stockfish ended before answering")

    def score(self, position, nodes):
        """Its score (centipawns for the side to move; a mate as +-MATE) after `nodes` nodes,
        from empty tables: a row's label must not hang on the rows searched before it, or a
        resumed run, or one with another JOBS, would label differently."""
        self.send("ucinewgame")
        self.send("position fen " + position)
        self.send(f"go nodes {nodes}")
        score = None
        for line in self.process.stdout:
            words = line.split()
            if words[:1] == ["info"] and "score" in words:
                at = words.index("score")
                score = (words[at + 1], int(words[at + 2]))
            elif words[:1] == ["bestmove"]:
                if score is None:
                    raise RuntimeError(f"no score for {position}")
                kind, amount = score
                return amount if kind == "cp" else (MATE if amount > 0 else -MATE)
        raise RuntimeError("Fairy-Stockfish ended before answering")

    def quit(self):
        self.send("quit")
        self.process.wait(timeout=10)


def rows(path):
    """(line number, fields) of every data row."""
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        sys.exit(f"cannot read {path}: {e.strerror}")
    with f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 5 or not line.endswith("\n"):
                print(f"{path}:{number}: not a complete row of 5 fields, left out", file=sys.stderr)
                continue
            problem = row_problem(fields)
            if problem:
                print(f"{path}:{number}: {problem}, left out", file=sys.stderr)
                continue
            yield number, fields


def row_problem(fields):
    """What is wrong with a row's fields for relabelling, or None."""
    game, static, score, _, inputs = fields
    if not re.fullmatch(r"[0-9]+", game):
        return f"GAME `{game}` is not a game number"
    if not all(re.fullmatch(r"-?[0-9]+", x) for x in (static, score)):
        return "STATIC and SCORE must be integers"
    if not all(x.isdigit() and int(x) < 4 * 630 for x in inputs.split(",")):
        return "INPUTS must be input numbers below 2520, comma-separated"
    return None


def same_options(args):
    """Refuses to continue parts written with other options (their rows would not line up, or
    would be labelled otherwise); records the options for a run that starts afresh."""
    wanted = f"{os.path.abspath(args.data)} nodes {args.nodes} jobs {args.jobs} " \
             f"scale {args.scale} mix {args.mix} own-gap {args.own_gap}\n"
    record = f"{args.out}.options"
    parts = [f"{args.out}.part{j}" for j in range(args.jobs)]
    if os.path.exists(record):
        with open(record) as f:
            had = f.read()
        if had != wanted:
            sys.exit(f"{args.out}'s part files were written with {had.strip()}; run again with "
                     f"those options, or delete {args.out}.part* and {record} to start afresh")
    elif any(os.path.exists(p) for p in parts):
        sys.exit(f"{args.out}.part* exist without {record}: delete them to start afresh")
    with open(record, "w") as f:
        f.write(wanted)


def complete_rows(part):
    """The rows a part file already has, after cutting off a last row a stopped run left half
    written (so the run goes on from the row before it)."""
    if not os.path.exists(part):
        return 0
    with open(part, "rb+") as f:
        text = f.read()
        whole = text[: text.rfind(b"\n") + 1]
        f.truncate(len(whole))
    return whole.count(b"\n")


def relabel(args, data, job, failures):
    """Job `job`'s games of `data` into OUT.partJOB, after the rows it already has."""
    part = f"{args.out}.part{job}"
    done = complete_rows(part)
    engine, started, count = None, time.time(), 0
    try:
        engine = Fsf()
        with open(part, "a") as out:
            for number, (game, static, score, result, inputs) in data:
                if int(game) % args.jobs != job:
                    continue
                count += 1
                if count <= done:
                    continue
                fsf = engine.score(fen(int(x) for x in inputs.split(",")), args.nodes)
                new = round(args.mix * args.scale * fsf + (1 - args.mix) * int(score))
                keep = abs(new) < LIMIT
                out.write(f"{game}\t{static}\t{new}\t{result}\t{inputs}\n" if keep else "-\n")
                out.flush()
                if count % 5000 == 0:
                    print(f"job {job}: {count} rows, {time.time() - started:.0f} s",
                          file=sys.stderr, flush=True)
    except Exception as e:  # reported by main, which fails the run
        failures.append(f"job {job}: {e}")
    finally:
        if engine is not None:
            engine.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", metavar="DATA")
    parser.add_argument("out", metavar="OUT")
    parser.add_argument("--nodes", type=int, default=10000, help="Fairy-Stockfish's nodes a row")
    parser.add_argument("--jobs", type=int, default=2, help="engines at once")
    parser.add_argument("--scale", type=float, default=1.0, help="our centipawns per its one")
    parser.add_argument("--mix", type=float, default=1.0,
                        help="weight of its score against the row's (0 to 1)")
    parser.add_argument("--own-gap", type=int, default=0, metavar="CP",
                        help="leave out rows whose SCORE is more than CP from STATIC (0: none)")
    args = parser.parse_args()
    if not os.access(ENGINE, os.X_OK) or not os.path.exists(INI):
        sys.exit(f"needs {ENGINE} (scripts/strength.sh installs it) and {INI}")
    if args.nodes < 1 or args.jobs < 1 or not 0 <= args.mix <= 1 or args.own_gap < 0:
        parser.error("--nodes and --jobs must be positive, --mix within 0..1, --own-gap >= 0")
    data = list(rows(args.data))  # read (and its bad rows reported) once, not once a job
    if args.own_gap:
        total = len(data)
        data = [(n, f) for n, f in data if abs(int(f[2]) - int(f[1])) <= args.own_gap]
        print(f"{total - len(data)} of {total} rows have SCORE more than {args.own_gap} from "
              "STATIC and are left out", file=sys.stderr)
    same_options(args)
    failures = []
    threads = [threading.Thread(target=relabel, args=(args, data, job, failures))
               for job in range(args.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        sys.exit("Fairy-Stockfish failed: " + "; ".join(failures))
    merge(args, data)


def merge(args, data):
    """OUT from the parts, each row back in its place in DATA's order."""
    parts = [open(f"{args.out}.part{job}") for job in range(args.jobs)]
    kept = left = 0
    with open(args.out + ".tmp", "w") as out:
        out.write(f"# {shlex.join(sys.argv)}\n")
        for number, (game, *_) in data:
            line = parts[int(game) % args.jobs].readline()
            if not line:
                sys.exit(f"{args.out}.part{int(game) % args.jobs} ends before {args.data}:"
                         f"{number}'s row: a part was cut short; delete it and run again")
            if line == "-\n":
                left += 1
            else:
                out.write(line)
                kept += 1
    os.replace(args.out + ".tmp", args.out)
    for job, part in enumerate(parts):
        part.close()
        os.remove(f"{args.out}.part{job}")
    os.remove(f"{args.out}.options")
    print(f"wrote {kept} rows to {args.out} ({left} left out, |score| >= {LIMIT})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
