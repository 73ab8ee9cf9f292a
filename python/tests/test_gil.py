"""Products release the GIL: while one Python thread is inside a long qmm
call, another keeps running Python code; and calls from many threads at once
give every caller its own exact result."""
import threading
import time

import numpy as np

import qmm

RNG = np.random.default_rng(13)


def ran_during(call):
    """Timestamps of a Python loop run beside call(), and the call's span."""
    started, span = threading.Event(), []

    def worker():
        started.set()
        t0 = time.perf_counter()
        call()
        span.extend([t0, time.perf_counter()])

    ticks = []
    t = threading.Thread(target=worker)
    t.start()
    started.wait()
    while t.is_alive():
        ticks.append(time.perf_counter())
    t.join()
    return ticks, span


def lasting(make, seconds=0.15):
    """make(count) -> a call of `count` units of work, scaled to last
    `seconds` or more."""
    count = 1
    while True:
        call = make(count)
        t0 = time.perf_counter()
        call()
        if time.perf_counter() - t0 >= seconds or count >= 1 << 16:
            return call
        count *= 4


def test_products_release_the_gil():
    """Held through the call, the GIL would let the loop tick at most for a
    switch interval (5 ms) after the call's start; released, the loop ticks
    all through. So the middle fifth of a call of 150 ms must see ticks.
    Each case is one Python call: between calls the interpreter hands the
    GIL over whatever the extension does."""
    a64 = RNG.standard_normal((96, 96))
    w8 = RNG.integers(-128, 127, (4096, 64), dtype=np.int8)
    x8 = RNG.integers(0, 255, (64, 4096), dtype=np.uint8)
    layer = qmm.Linear(w8, layout="in_out")
    cases = {
        "matmul": lambda r: lambda: qmm.matmul(
            np.broadcast_to(x8.view(np.int8), (r, 64, 4096)), w8),
        "gemm": lambda r: lambda: qmm.gemm(np.broadcast_to(x8, (r, 64, 4096)), w8,
                                           a_zero_point=3, out_dtype=np.float32, scale=0.5),
        "Linear": lambda r: lambda: layer(np.broadcast_to(x8, (r, 64, 4096))),
        "dgemm_crt": lambda r: lambda: qmm.dgemm_crt(np.tile(a64, (r, 1)), a64),
        "quantize": lambda r: lambda: qmm.quantize_symmetric(np.tile(a64, (r, 1))),
    }
    qmm.set_num_threads(1)
    try:
        for name, make in cases.items():
            ticks, (start, end) = ran_during(lasting(make))
            lo, hi = start + 0.4 * (end - start), start + 0.6 * (end - start)
            assert any(lo < t < hi for t in ticks), f"{name}: no Python ran during the call"
    finally:
        qmm.set_num_threads(0)


def test_concurrent_callers_get_exact_results():
    a = [RNG.integers(-128, 127, (64 + i, 200), dtype=np.int8) for i in range(6)]
    b = RNG.integers(0, 255, (200, 48), dtype=np.uint8)
    want = [np.matmul(x.astype(np.int64), b.astype(np.int64)) for x in a]
    got = [None] * len(a)

    def work(i):
        for _ in range(30):
            got[i] = qmm.gemm(a[i], b, b_zero_point=7)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(a))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(len(a)):
        row_sums = a[i].astype(np.int64).sum(1, keepdims=True)
        np.testing.assert_array_equal(got[i], want[i] - 7 * row_sums)
