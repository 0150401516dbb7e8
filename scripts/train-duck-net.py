#!/usr/bin/env python3
"""Trains the learnt correction to the hand-written Duck Chess evaluation (crates/ai/src/eval/duck/net.rs).

Each DATA line (`#` lines and blank lines are skipped) is GAME<TAB>STATIC<TAB>SCORE<TAB>RESULT<TAB>IDX,...:
the game's id, the hand-written evaluation and the search's score (centipawns), the game's result
(1, 0.5 or 0), all for the side to move, and the active inputs, each
`block*630 + kind*90 + row*9 + col` (block 0 the side to move's pieces, 1 the opponent's, 2 and 3
those of them that stand threatened; rows from the side to move's back rank). The network is
hidden = clamp(b1 + sum W1[idx], 0, 1), correction = W2 . hidden + b2 centipawns, fitted so that
sigmoid((STATIC + correction) / K) matches LAMBDA * sigmoid(SCORE / K) + (1 - LAMBDA) * RESULT;
K is fitted first to the scores and results. Whole games (HOLDOUT per cent) are kept out to
choose the best epoch and to stop early.

NET is plain text: `arbiter-duck-net 1 N H` (N inputs, --inputs), a `#` line saying how it was
made, the H hidden biases, N lines of H input weights, the H output weights, and the output bias
(numbers `%.5g`).

Needs numpy only. Usage: scripts/train-duck-net.py DATA [DATA...] --out NET [options]
"""
import argparse
import math
import os
import re
import shlex
import sys
import time
from array import array

PIECE_INPUTS = 1260  # blocks 0 and 1: where each side's pieces stand
THREAT_INPUTS = 2520  # and blocks 2 and 3: which of them stand threatened (net.rs, `threatened`)
INPUTS = PIECE_INPUTS  # the network's inputs (--inputs); data inputs at or past it are dropped
PAD = INPUTS  # the index that pads short input lists (a zero row of W1 that never learns)
MAX_HIDDEN = 64  # the most hidden units the engine reads (MAX_HIDDEN in net.rs)
NUMBER = re.compile(r"-?\d+")
INDICES = re.compile(r"\d+(?:,\d+)*")
RESULTS = {"1": 1.0, "1.0": 1.0, "0.5": 0.5, ".5": 0.5, "0": 0.0, "0.0": 0.0}
np = None  # numpy, imported once the thread count is set


class DataError(Exception):
    """A line or file that cannot be read; the message names where."""


def parse_args():
    parser = argparse.ArgumentParser(
        usage="%(prog)s DATA [DATA...] --out NET [--hidden 32] [--lambda 0.7] [--epochs 30] "
        "[--patience 4] [--lr 1e-3] [--batch 1024] [--l2 1e-6] [--holdout 5] [--seed 1] "
        "[--threads 1] [--inputs 1260] [--init NET] [--max-positions N]",
        description=__doc__.split("\n\n")[0],
        epilog="Augmentation: in every epoch each training position is mirrored left to right "
        "(col -> 8 - col in every input) with probability 1/2; held-out positions never are. "
        "Internally the output weights are kept in units of K centipawns (so that Adam's steps "
        "suit them); they are written in centipawns.",
    )
    parser.add_argument("data", nargs="+", metavar="DATA",
                        help="files of labelled positions, one a line: GAME, STATIC, SCORE, RESULT, IDX,... tab-separated.")
    parser.add_argument("--out", required=True, metavar="NET",
                        help="where the network is written (through NET.tmp, renamed when complete).")
    parser.add_argument("--hidden", type=int, default=32, metavar="H",
                        help=f"how many hidden units the network has (1 to {MAX_HIDDEN}, the engine's limit).")
    parser.add_argument("--lambda", dest="lam", type=float, default=0.7, metavar="LAMBDA",
                        help="the target's weight on the search score, the rest going to the game's result.")
    parser.add_argument("--epochs", type=int, default=30,
                        help="the most passes over the training positions.")
    parser.add_argument("--patience", type=int, default=4,
                        help="stop once this many epochs in a row have not bettered the best held-out loss.")
    parser.add_argument("--lr", type=float, default=1e-3,
                        help="Adam's learning rate.")
    parser.add_argument("--batch", type=int, default=1024,
                        help="positions per minibatch.")
    parser.add_argument("--l2", type=float, default=1e-6,
                        help="the penalty per unit of the sum of squared input weights W1.")
    parser.add_argument("--holdout", type=float, default=5.0, metavar="PERCENT",
                        help="the share of games (chosen with SEED) kept out of training to judge it.")
    parser.add_argument("--seed", type=int, default=1,
                        help="seeds the initial weights, the held-out games, the order and the mirroring.")
    parser.add_argument("--threads", type=int, default=1,
                        help="how many threads numpy's linear algebra may use.")
    parser.add_argument("--max-gap", type=int, default=0, metavar="CP",
                        help="leave out the positions whose search score and hand-written value differ by more "
                             "than CP centipawns: tactics the search saw, which no table of where pieces stand "
                             "can learn and which otherwise make half of the loss; 0 keeps all.")
    parser.add_argument("--inputs", type=int, default=PIECE_INPUTS, choices=(PIECE_INPUTS, THREAT_INPUTS),
                        help=f"the network's inputs: {PIECE_INPUTS}, where the pieces stand, or {THREAT_INPUTS}, "
                             "also which of them stand threatened (data written before the threats counts "
                             "none; inputs past N are dropped).")
    parser.add_argument("--init", metavar="NET",
                        help="start from the network in NET (as this script writes it; its inputs and hidden "
                             "units must be --inputs and --hidden) instead of random weights: fine-tuning a "
                             "network on new positions, kept only where an epoch betters its held-out loss.")
    parser.add_argument("--max-positions", type=int, default=0, metavar="N",
                        help="read only the first N positions (across the files in the order given); 0 reads all.")
    args = parser.parse_args()
    if not 1 <= args.hidden <= MAX_HIDDEN:
        parser.error(f"--hidden must be 1 to {MAX_HIDDEN}")
    if not 0.0 <= args.lam <= 1.0:
        parser.error("--lambda must be 0 to 1")
    if args.epochs < 1 or args.patience < 1 or args.batch < 1 or args.threads < 1:
        parser.error("--epochs, --patience, --batch and --threads must be at least 1")
    if not args.lr > 0 or not args.l2 >= 0:
        parser.error("--lr must be positive and --l2 not negative")
    if not 0 < args.holdout < 100:
        parser.error("--holdout must be more than 0 and less than 100")
    if args.max_positions < 0 or args.max_gap < 0:
        parser.error("--max-positions and --max-gap must not be negative")
    return args


def read_data(paths, limit):
    """Reads the positions: the columns as numpy arrays, the inputs padded with PAD."""
    game_of, statics, scores = array("i"), array("i"), array("i")
    results, counts, flat = array("f"), array("i"), array("h")
    games = {}  # (file number, GAME) -> game number
    n = 0
    for file_no, path in enumerate(paths):
        if limit and n >= limit:
            break
        try:
            f = open(path, encoding="utf-8", errors="replace")
        except OSError as e:
            raise DataError(f"cannot read {path}: {e.strerror}") from None
        with f:
            for line_no, line in enumerate(f, 1):
                stripped = line.strip()
                if not stripped or stripped.startswith("#"):
                    continue
                try:
                    game, static, score, result, idx = parse_line(line.rstrip("\r\n"))
                except ValueError as e:
                    if not line.endswith("\n"):
                        # The cut-off last line of a stopped `tune --selfplay` run.
                        print(f"{path}:{line_no}: an incomplete last line, left out", file=sys.stderr)
                        continue
                    shown = stripped if len(stripped) <= 80 else stripped[:77] + "..."
                    raise DataError(f"{path}:{line_no}: {e}: {shown!r}") from None
                game_of.append(games.setdefault((file_no, game), len(games)))
                statics.append(static)
                scores.append(score)
                results.append(result)
                counts.append(len(idx))
                flat.extend(idx)
                n += 1
                if limit and n >= limit:
                    break
    if n == 0:
        raise DataError("no positions in " + ", ".join(paths))
    counts = np.frombuffer(counts, dtype=np.int32).astype(np.int64)
    flat = np.frombuffer(flat, dtype=np.int16)
    idx = np.full((n, int(counts.max())), PAD, dtype=np.int16)
    rows = np.repeat(np.arange(n), counts)
    starts = np.cumsum(counts) - counts
    idx[rows, np.arange(len(flat)) - np.repeat(starts, counts)] = flat
    return (np.frombuffer(game_of, dtype=np.int32).copy(), len(games),
            np.frombuffer(statics, dtype=np.int32).astype(np.float64),
            np.frombuffer(scores, dtype=np.int32).astype(np.float64),
            np.frombuffer(results, dtype=np.float32).astype(np.float64), idx)


def parse_line(line):
    """The fields of one data line; a ValueError says what is wrong."""
    fields = line.split("\t")
    if len(fields) != 5:
        raise ValueError(f"expected 5 tab-separated fields, found {len(fields)}")
    game, static, score, result, idx = (x.strip() for x in fields)
    for name, value in (("GAME", game), ("STATIC", static), ("SCORE", score)):
        if not NUMBER.fullmatch(value):
            raise ValueError(f"{name} is not an integer")
    score = int(score)
    if abs(score) >= 3000:
        raise ValueError("|SCORE| is not below 3000")
    if result not in RESULTS:
        raise ValueError("RESULT is not 1, 0.5 or 0")
    if not INDICES.fullmatch(idx):
        raise ValueError("the inputs are not a comma-separated list of integers")
    idx = [int(x) for x in idx.split(",")]
    if max(idx) >= THREAT_INPUTS:
        raise ValueError(f"an input is not below {THREAT_INPUTS}")
    if len(set(idx)) != len(idx):
        raise ValueError("an input is repeated")
    idx = [i for i in idx if i < INPUTS] or [PAD]
    return int(game), int(static), score, RESULTS[result], idx


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def fit_scale(scores, results):
    """The K in 50..2000 that minimises mean (sigmoid(SCORE / K) - RESULT)^2 (golden section)."""
    def cost(k):
        return float(np.mean((sigmoid(scores / k) - results) ** 2))
    a, b = 50.0, 2000.0
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = cost(c), cost(d)
    while b - a > 0.01:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = cost(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = cost(d)
    return (a + b) / 2


class Model:
    """The network; the output weights w2, b2 are in units of K centipawns."""

    def __init__(self, hidden, rng):
        f32 = np.float32
        self.params = {
            # Row PAD is the padding's: zero, and its gradient is zeroed, so it stays zero.
            "w1": np.vstack([rng.normal(0.0, 0.05, (INPUTS, hidden)), np.zeros((1, hidden))]).astype(f32),
            "b1": np.full(hidden, 0.5, dtype=f32),
            "w2": np.zeros(hidden, dtype=f32),
            "b2": np.zeros(1, dtype=f32),
        }
        self.m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.steps = 0
        self.buffer = None

    def dense(self, idx):
        """The 0/1 input matrix of a batch (a reused buffer; `clear` empties it again)."""
        b = idx.shape[0]
        if self.buffer is None or self.buffer.shape[0] < b:
            self.buffer = np.zeros((b, INPUTS + 1), dtype=np.float32)
        x = self.buffer[:b]
        rows = np.arange(b)[:, None]
        x[rows, idx] = 1.0
        return x, rows

    def clear(self, idx, rows):
        self.buffer[rows, idx] = 0.0

    def forward(self, x):
        p = self.params
        z = x @ p["w1"] + p["b1"]
        h = np.clip(z, 0.0, 1.0)
        return z, h, h @ p["w2"] + p["b2"][0]

    def correction(self, idx, chunk=4096):
        """The output (in units of K) for every position of `idx`."""
        out = np.empty(idx.shape[0], dtype=np.float64)
        for s in range(0, idx.shape[0], chunk):
            part = idx[s:s + chunk]
            x, rows = self.dense(part)
            out[s:s + chunk] = self.forward(x)[2]
            self.clear(part, rows)
        return out

    def step(self, idx, base, target, lr, l2):
        """One Adam step on a batch; returns the batch's mean squared error (before the step)."""
        p = self.params
        x, rows = self.dense(idx)
        z, h, u = self.forward(x)
        pred = sigmoid(base + u)
        err = pred - target
        # d(mean err^2)/du, u being the output in units of K.
        gu = (2.0 / len(err)) * err * pred * (1.0 - pred)
        dz = np.outer(gu, p["w2"]) * ((z > 0.0) & (z < 1.0))
        grads = {
            "w1": x.T @ dz + (2.0 * l2) * p["w1"],
            "b1": dz.sum(axis=0),
            "w2": h.T @ gu,
            "b2": np.array([gu.sum()], dtype=np.float32),
        }
        self.clear(idx, rows)
        grads["w1"][PAD] = 0.0
        self.steps += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        scale = lr * math.sqrt(1.0 - b2 ** self.steps) / (1.0 - b1 ** self.steps)
        for k, g in grads.items():
            g = g.astype(np.float32, copy=False)
            self.m[k] *= b1
            self.m[k] += (1.0 - b1) * g
            self.v[k] *= b2
            self.v[k] += (1.0 - b2) * g * g
            p[k] -= scale * self.m[k] / (np.sqrt(self.v[k]) + eps)
        return float(np.mean(err.astype(np.float64) ** 2))

    def snapshot(self):
        return {k: v.copy() for k, v in self.params.items()}


def mirror_table():
    """MIRROR[i] is input i with its column c replaced by 8 - c (PAD stays PAD)."""
    i = np.arange(INPUTS + 1)
    col = i % 9
    table = i - col + (8 - col)
    table[PAD] = PAD
    return table.astype(np.int16)


def write_net(path, params, k, description):
    """Writes the network through PATH.tmp, renamed once complete."""
    w1 = params["w1"][:INPUTS].astype(np.float64)
    b1 = params["b1"].astype(np.float64)
    w2 = params["w2"].astype(np.float64) * k
    b2 = float(params["b2"][0]) * k
    if not all(np.all(np.isfinite(a)) for a in (w1, b1, w2)) or not math.isfinite(b2):
        raise DataError("the trained weights are not all finite; nothing written")

    def row(values):
        return " ".join("%.5g" % v for v in values) + "\n"

    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(f"arbiter-duck-net 1 {INPUTS} {len(b1)}\n")
            f.write("# " + " ".join(description.split()) + "\n")
            f.write(row(b1))
            for r in w1:
                f.write(row(r))
            f.write(row(w2))
            f.write("%.5g\n" % b2)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise DataError(f"cannot write {path}: {e.strerror}") from None
        raise


def read_net(path, inputs, hidden, k):
    """The parameters of the network in PATH (write_net's format), output weights in units of K."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [(n, l) for n, l in enumerate(f, 1) if l.strip() and not l.startswith("#")]
    except OSError as e:
        raise DataError(f"cannot read {path}: {e.strerror}") from None
    if not lines or lines[0][1].split() != ["arbiter-duck-net", "1", str(inputs), str(hidden)]:
        raise DataError(f"{path}:1: expected `arbiter-duck-net 1 {inputs} {hidden}` (--inputs, --hidden)")
    if len(lines) != inputs + 4:
        raise DataError(f"{path}: expected {inputs + 4} lines of numbers, found {len(lines)}")

    def numbers(n, line, count):
        try:
            values = np.array(line.split(), dtype=np.float64)
        except ValueError:
            values = None
        if values is None or len(values) != count or not np.all(np.isfinite(values)):
            raise DataError(f"{path}:{n}: expected {count} numbers")
        return values

    b1 = numbers(*lines[1], hidden)
    w1 = np.vstack([numbers(*line, hidden) for line in lines[2:2 + inputs]] + [np.zeros((1, hidden))])
    w2 = numbers(*lines[2 + inputs], hidden) / k
    b2 = numbers(*lines[3 + inputs], 1) / k
    f32 = np.float32
    return {"w1": w1.astype(f32), "b1": b1.astype(f32), "w2": w2.astype(f32), "b2": b2.astype(f32)}


def train(args):
    t0 = time.time()
    game_of, n_games, statics, scores, results, idx = read_data(args.data, args.max_positions)
    n = len(statics)
    print(f"read {n} positions of {n_games} games from {len(args.data)} file(s) "
          f"in {time.time() - t0:.1f} s", flush=True)

    rng = np.random.default_rng(args.seed)
    n_held = max(1, round(n_games * args.holdout / 100))
    if n_held >= n_games:
        raise DataError(f"{n_games} game(s) are too few to hold {args.holdout:g}% out")
    held_games = np.zeros(n_games, dtype=bool)
    held_games[rng.permutation(n_games)[:n_held]] = True
    held = held_games[game_of]
    keep = np.ones(n, dtype=bool)
    if args.max_gap:
        keep = np.abs(scores - statics) <= args.max_gap
        print(f"{n - keep.sum()} positions ({100 * (1 - keep.mean()):.2f}%) differ by more than "
              f"{args.max_gap} centipawns from the search and are left out", flush=True)
    tr, ho = np.flatnonzero(~held & keep), np.flatnonzero(held & keep)
    if len(tr) == 0 or len(ho) == 0:
        raise DataError(f"--max-gap {args.max_gap} leaves no positions to "
                        f"{'train on' if len(tr) == 0 else 'hold out'}; give a larger gap")
    print(f"training on {len(tr)} positions ({n_games - n_held} games), "
          f"holding out {len(ho)} ({n_held} games)", flush=True)

    k = fit_scale(scores[tr], results[tr])
    print(f"K = {k:.1f} centipawns (mean (sigmoid(SCORE/K) - RESULT)^2 = "
          f"{np.mean((sigmoid(scores[tr] / k) - results[tr]) ** 2):.6f})", flush=True)

    target = (args.lam * sigmoid(scores / k) + (1.0 - args.lam) * results).astype(np.float32)
    base = (statics / k).astype(np.float32)  # STATIC in units of K
    tr_idx, tr_base, tr_target = idx[tr], base[tr], target[tr]
    ho_idx, ho_base, ho_target = idx[ho], base[ho].astype(np.float64), target[ho].astype(np.float64)
    del idx, base, target

    def held_loss(u):
        return float(np.mean((sigmoid(ho_base + u) - ho_target) ** 2))

    baseline = held_loss(0.0)
    model = Model(args.hidden, rng)
    mirror = mirror_table()
    # Epoch 0 is the untrained network, whose correction is 0 (or the --init network): the
    # loss to better.
    best = baseline
    if args.init:
        model.params = read_net(args.init, INPUTS, args.hidden, k)
        best = held_loss(model.correction(ho_idx))
        print(f"starting from {args.init}: held-out loss {best:.6f}", flush=True)
    best_epoch, best_params = 0, model.snapshot()
    print("epoch  train-loss  held-out-loss  baseline  seconds", flush=True)
    for epoch in range(1, args.epochs + 1):
        start = time.time()
        order = rng.permutation(len(tr_idx))
        flips = rng.random(len(tr_idx)) < 0.5
        total = 0.0
        for s in range(0, len(order), args.batch):
            sel = order[s:s + args.batch]
            bidx = tr_idx[sel]
            bidx = np.where(flips[sel, None], mirror[bidx], bidx)
            total += model.step(bidx, tr_base[sel], tr_target[sel], args.lr, args.l2) * len(sel)
        loss = held_loss(model.correction(ho_idx))
        print(f"{epoch:5d}  {total / len(order):10.6f}  {loss:13.6f}  {baseline:8.6f}  "
              f"{time.time() - start:7.1f}", flush=True)
        if loss < best:
            best, best_epoch, best_params = loss, epoch, model.snapshot()
        elif epoch - best_epoch >= args.patience:
            print(f"no better held-out loss for {args.patience} epochs; stopping", flush=True)
            break

    if best_epoch == 0:
        print("no epoch bettered the starting network; writing it as it was" if args.init else
              "no epoch bettered the zero correction; writing the untrained network (correction 0)")
    model.params = best_params
    mean_abs = float(np.mean(np.abs(model.correction(ho_idx)))) * k
    print(f"held-out loss: baseline (no correction) {baseline:.6f}, best {best:.6f} "
          f"(epoch {best_epoch}, {100 * (baseline - best) / baseline:+.2f}% better)")
    print(f"mean |correction| on the held-out positions: {mean_abs:.1f} centipawns")
    description = (f"trained by `{shlex.join(sys.argv)}` on {len(tr)} positions, K {k:.1f}, "
                   f"lambda {args.lam:g}, held-out loss {best:.6f} vs baseline {baseline:.6f}")
    write_net(args.out, best_params, k, description)
    print(f"wrote {args.out}")


def main():
    global np, INPUTS, PAD
    args = parse_args()
    INPUTS = PAD = args.inputs
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    try:
        import numpy
    except ImportError:
        sys.exit("train-duck-net.py needs numpy (pip install numpy)")
    np = numpy
    try:
        train(args)
    except DataError as e:
        print(f"train-duck-net.py: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("\ninterrupted; no network written", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
