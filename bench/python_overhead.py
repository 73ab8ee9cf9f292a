#!/usr/bin/env python3
"""What a call through qmm's Python package costs over the same call from C.

For each shape (MxKxN) and thread count, times a Python loop of
qmm.matmul(a, b, out=c) against qmm_i8_i32_strided on the same arrays in a C
loop in the same process (qmm._qmm._time_matmul: the call qmm.matmul makes),
and two more Python loops: qmm.matmul(a, b), allocating its result each time
(a user's first try), and the bare cost of entering C from Python
(_time_matmul called for one product each time: what any binding pays, so
that "matmul out=" less "bare" is the cost of qmm's own argument handling).
Rounds alternate the methods (the machine is shared and noisy) and each
round is the mean of `reps` calls; a time is the median of its rounds, an
overhead the median over rounds of that round's time over C's in the same
round, minus one, so that the machine's drift cancels.

Run it with the Python that has qmm installed (scripts/bench.sh --python).
"""
import argparse
import statistics
import sys
import time

import numpy as np

import qmm
from qmm import _qmm

ROUND_SECONDS = 0.02


def parse_shape(text):
    parts = text.split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise argparse.ArgumentTypeError(f"bad shape {text!r} (MxKxN)")
    return tuple(int(p) for p in parts)


def into_buffer(a, b, c, reps, matmul=qmm.matmul):
    start = time.perf_counter()
    for _ in range(reps):
        matmul(a, b, out=c)
    return (time.perf_counter() - start) / reps


def allocating(a, b, c, reps, matmul=qmm.matmul):
    start = time.perf_counter()
    for _ in range(reps):
        matmul(a, b)
    return (time.perf_counter() - start) / reps


def bare(a, b, c, reps, time_one=_qmm._time_matmul):
    start = time.perf_counter()
    for _ in range(reps):
        time_one(a, b, c, 1)
    return (time.perf_counter() - start) / reps


def measure(m, k, n, rounds):
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 127, (m, k), dtype=np.int8)
    b = rng.integers(-128, 127, (k, n), dtype=np.int8)
    c = np.empty((m, n), dtype=np.int32)
    one = _qmm._time_matmul(a, b, c, 3)
    reps = max(3, int(ROUND_SECONDS / max(one, 1e-7)))
    methods = {"C": _qmm._time_matmul, "out=": into_buffer, "alloc": allocating, "bare": bare}
    times = {name: [] for name in methods}
    for _ in range(rounds):
        for name, method in methods.items():
            times[name].append(method(a, b, c, reps))
    if not np.array_equal(c, np.matmul(a.astype(np.int64), b.astype(np.int64))):
        sys.exit("qmm.matmul's result is wrong")
    medians = {name: statistics.median(t) for name, t in times.items()}
    over = {name: statistics.median(x / c - 1 for x, c in zip(t, times["C"]))
            for name, t in times.items()}
    return medians, over


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", type=parse_shape, action="append",
                        help="MxKxN (repeatable; default 128x384x384)")
    parser.add_argument("--threads", default=None,
                        help="thread counts, comma-separated (default: 1 and all CPUs)")
    parser.add_argument("--rounds", type=int, default=41)
    args = parser.parse_args()
    shapes = args.shape or [(128, 384, 384)]
    qmm.set_num_threads(0)
    every = qmm.get_num_threads()
    counts = ([int(t) for t in args.threads.split(",")] if args.threads
              else sorted({1, every}))
    print(f"qmm {qmm.__version__}, features {','.join(qmm.cpu_features()) or 'none'}; "
          f"median of {args.rounds} rounds")
    print(f"{'shape':>14} {'threads':>7} {'kernel':>30} {'C us':>8} {'out= us':>8} "
          f"{'over C':>7} {'alloc us':>8} {'over C':>7} {'bare us':>8} {'over C':>7} "
          f"{'GOPS':>7}")
    for m, k, n in shapes:
        for threads in counts:
            qmm.set_num_threads(threads)
            t, ratio = measure(m, k, n, args.rounds)
            gops = 2 * m * n * k / t["C"] / 1e9
            over = {name: f"{ratio[name] * 100:6.1f}%" for name in t}
            print(f"{f'{m}x{k}x{n}':>14} {threads:>7} {qmm.kernel_name(m, n, k):>30} "
                  f"{t['C'] * 1e6:8.2f} {t['out='] * 1e6:8.2f} {over['out=']} "
                  f"{t['alloc'] * 1e6:8.2f} {over['alloc']} {t['bare'] * 1e6:8.2f} "
                  f"{over['bare']} {gops:7.1f}")
    qmm.set_num_threads(0)


if __name__ == "__main__":
    main()
