"""Plies per second of random games through each way of playing from Python.

    python python/bench.py [GAME ...] [--arbiter target/release/arbiter]

For each game: `random_playouts` (whole games in Rust, the code `arbiter bench` times, which
this runs beside it when the binary is there), `VectorGame` stepped with its own random legal
actions (with and without observations), and a Python loop over `Game` (by move text, and by
action with the observation and the mask an agent would read). The numbers are reported in
python/README.md.
"""

import argparse
import pathlib
import random
import re
import subprocess
import time

import arbiter


def timed(run, seconds=2.0):
    """Plies per second of `run()` (which returns the plies it played), repeated for about
    `seconds`."""
    plies, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        plies += run()
    return plies / (time.perf_counter() - began)


def playouts(game, n):
    result = arbiter.random_playouts(game, n)
    return result["plies"] / result["seconds"], n / result["seconds"]


def cli_bench(binary, game, n):
    out = subprocess.run(
        [str(binary), "bench", game, "--playouts", str(n)], capture_output=True, text=True
    ).stdout
    found = re.search(r"([0-9]+) playouts/s, mean ([0-9.]+) plies", out)
    rate, mean = float(found.group(1)), float(found.group(2))
    return rate * mean, rate


def vector(game, n, observe, steps=200):
    batch = arbiter.VectorGame(game, n, seed=1)
    batch.reset()

    def run():
        for _ in range(steps):
            batch.step(batch.random_actions(), observe=observe)
        return n * steps

    return timed(run)


def python_text_loop(game):
    rng = random.Random(1)

    def run():
        g = arbiter.Game(game)
        while not g.is_over():
            g.play(rng.choice(g.legal_moves()))
        return g.ply

    return timed(run)


def python_agent_loop(game):
    rng = random.Random(1)

    def run():
        g = arbiter.Game(game)
        while not g.is_over():
            g.observation()
            g.legal_mask()
            g.play_action(int(rng.choice(g.legal_actions())))
        return g.ply

    return timed(run)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=arbiter.games())
    repo = pathlib.Path(__file__).resolve().parents[1]
    parser.add_argument("--arbiter", default=repo / "target" / "release" / "arbiter")
    parser.add_argument("--playouts", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=256, help="games in the VectorGame")
    args = parser.parse_args()
    binary = pathlib.Path(args.arbiter)
    rows = []
    for game in args.games:
        plies, rate = playouts(game, args.playouts)
        rows.append((game, f"random_playouts({args.playouts})", plies, f"{rate:,.0f} games/s"))
        if binary.is_file():
            plies, rate = cli_bench(binary, game, args.playouts)
            rows.append((game, f"arbiter bench --playouts {args.playouts}", plies, f"{rate:,.0f} games/s"))
        for observe in (False, True):
            label = f"VectorGame({args.batch}).step, observe={observe}"
            rows.append((game, label, vector(game, args.batch, observe), ""))
        rows.append((game, "Python loop: legal_moves, play", python_text_loop(game), ""))
        rows.append((game, "Python loop: observation, legal_mask, play_action", python_agent_loop(game), ""))
    print("| game | how | plies/s | |")
    print("|---|---|---:|---|")
    for game, how, plies, note in rows:
        print(f"| {game} | {how} | {plies:,.0f} | {note} |")


if __name__ == "__main__":
    main()
