#!/usr/bin/env python3
"""Labels Duck Chess positions with Fairy-Stockfish's judgement, for `arbiter tune --labels`.

POSITIONS is what `arbiter tune duck --records DIR... --export POSITIONS` wrote: one position a
line, as the moves from the start that reach it. COUNT of them (all when 0), drawn with SEED,
are each searched by Fairy-Stockfish for MS milliseconds from a fresh table, JOBS at a time.
Each answer is appended to OUT as `EXPECTED<TAB>MOVES<TAB>fsf cp N depth D`: EXPECTED is the
expected score for the side to move, 1 / (1 + 10^(-cp/400)) (a mate counts as 1 or 0). A
position already in OUT is not searched again, so a stopped run goes on where it stopped.

Usage: scripts/label-duck.py POSITIONS OUT [--ms 300] [--jobs 2] [--count 0] [--seed 1]
Needs ../shared/peers/fairy-stockfish/adapter and the Debian package fairy-stockfish
(scripts/strength.sh installs it).
"""
import argparse
import os
import queue
import random
import sys
import threading
import time

from duck_engines import ADAPTER, Engine

SCALE = 400


def expected(kind, amount):
    """The expected score of a reported score for the side to move."""
    if kind == "mate":
        return 1.0 if amount > 0 else 0.0
    return 1.0 / (1.0 + 10 ** (-amount / SCALE))


def read_lines(path):
    try:
        with open(path) as f:
            return [line.rstrip("\n") for line in f]
    except OSError as e:
        sys.exit(f"cannot read {path}: {e.strerror}")


def todo(args):
    """The positions to judge: COUNT drawn with SEED, less those OUT already has."""
    positions = [line.strip() for line in read_lines(args.positions)
                 if not line.startswith("#")]
    if args.count:
        random.Random(args.seed).shuffle(positions)
        positions = positions[:args.count]
    done = set()
    if os.path.exists(args.out):
        done = {line.split("\t")[1] for line in read_lines(args.out)
                if line and not line.startswith("#") and line.count("\t") >= 1}
    return [p for p in positions if p not in done], len(done)


def work(jobs, results, ms):
    """Judges positions from `jobs` until none is left; a failure (an engine that cannot start
    or stops answering) goes to `results` as `(None, error)`, which ends the run."""
    engine = None
    try:
        engine = Engine([ADAPTER])
        while True:
            try:
                moves = jobs.get_nowait()
            except queue.Empty:
                break
            _, score, depth = engine.search(moves.split(), ms)
            if score is None:
                raise RuntimeError(f"no score for `{moves}`")
            results.put((moves, (*score, depth or 0)))
    except Exception as e:  # reported by the writer, which stops the run
        results.put((None, e))
    finally:
        if engine is not None:
            engine.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("positions")
    parser.add_argument("out")
    parser.add_argument("--ms", type=int, default=300, help="search time a position")
    parser.add_argument("--jobs", type=int, default=2, help="engines running at once")
    parser.add_argument("--count", type=int, default=0, help="positions to draw (0: all)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the draw")
    args = parser.parse_args()
    if not os.access(ADAPTER, os.X_OK):
        sys.exit(f"{ADAPTER} is not an executable: keep ../shared beside the checkout")
    positions, already = todo(args)
    print(f"{len(positions)} positions to label ({already} already in {args.out}), "
          f"{args.ms} ms each, {args.jobs} at a time", file=sys.stderr)
    jobs, results = queue.Queue(), queue.Queue()
    for p in positions:
        jobs.put(p)
    threads = [threading.Thread(target=work, args=(jobs, results, args.ms), daemon=True)
               for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    started = time.time()
    with open(args.out, "a") as out:
        if not already:
            out.write(f"# Fairy-Stockfish at {args.ms} ms; expected = 1/(1+10^(-cp/{SCALE}))\n")
        for n in range(1, len(positions) + 1):
            moves, answer = results.get()
            if moves is None:
                sys.exit(f"Fairy-Stockfish failed: {answer}")
            kind, amount, depth = answer
            out.write(f"{expected(kind, amount):.4f}\t{moves}\tfsf {kind} {amount} depth {depth}\n")
            out.flush()
            if n % 100 == 0 or n == len(positions):
                rate = n / (time.time() - started)
                print(f"{n}/{len(positions)} labelled, {rate:.1f}/s, "
                      f"{(len(positions) - n) / rate / 60:.0f} min left", file=sys.stderr)


if __name__ == "__main__":
    main()
