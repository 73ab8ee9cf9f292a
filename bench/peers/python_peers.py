#!/usr/bin/env python3
"""qmm against the Python stacks a user would pick instead of it.

Times PyTorch's torch._int_mm (int8 x int8 -> int32) and ONNX Runtime's
MatMulInteger (uint8 A with zero point 128, int8 B a constant initializer,
which ORT prepacks once) on C[m x n] = A[m x k] . B[k x n], the same product
qmm_i8_i32 computes: A's uint8 values less the zero point are qmm's int8 A.
Each result is compared with the exact product over all of C. A peer that is
not installed is skipped with one line on stderr; that is not a failure.

With --qmm-bench PATH, qmm-bench --csv runs the same shapes on the same thread
counts, and a last table gives qmm's GOPS over each peer's.

Each timed call goes through Python (ORT through an I/O binding with its
output preallocated, torch._int_mm with out=): a few microseconds per call,
which matter only on the smallest products.

Exit status: 0 when everything that is installed ran (peers that compute a
wrong result included: the table says so); 1 when qmm-bench failed or its
check did; 2 for bad arguments.
"""

import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
import time

DEFAULT_SHAPES = ["1024x1024x1024", "4096x4096x4096", "128x384x384", "128x384x1536",
                  "128x1536x384"]
# qmm-bench-peers' bound: operands, reference and results are held at once.
MAX_SIZE = 65536
MAX_THREADS = 1024  # QMM_MAX_THREADS
# Without --reps, as qmm-bench: about 0.2 s of timed calls, from 5 to 1000.
TIME_BUDGET_S = 0.2
MIN_REPS, MAX_REPS = 5, 1000
WARMUP_CALLS = 2
# ORT's MatMulInteger operator, and the zero point that makes its uint8 A
# the int8 A of the other contenders.
ONNX_OPSET = 13
ONNX_IR_VERSION = 8
A_ZERO_POINT = 128


def parse_shape(text):
    parts = text.split("x")
    if len(parts) != 3 or not all(p.isdigit() and 1 <= int(p) <= MAX_SIZE for p in parts):
        raise argparse.ArgumentTypeError(
            "bad shape %r (MxKxN, each from 1 to %d)" % (text, MAX_SIZE))
    return tuple(int(p) for p in parts)


def parse_threads(text):
    counts = text.split(",")
    if not all(c.isdigit() and 1 <= int(c) <= MAX_THREADS for c in counts):
        raise argparse.ArgumentTypeError(
            "bad thread counts %r (N[,M...], each from 1 to %d)" % (text, MAX_THREADS))
    return [int(c) for c in counts]


def parse_reps(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError("bad repetition count %r" % text)
    return int(text)


def usable_cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def shape_text(shape):
    return "%dx%dx%d" % shape


def first_line(error, width=120):
    """An exception as one line of at most about width characters."""
    text = str(error).strip()
    text = text.splitlines()[0] if text else ""
    if len(text) > width:
        text = text[:width] + "..."
    return "%s: %s" % (type(error).__name__, text)


class Unavailable(Exception):
    """A peer that cannot run here, and why, in one line."""


class TorchIntMm:
    name = "torch._int_mm"
    short = "torch"

    def load(self):
        try:
            import torch
        except Exception as e:  # a broken install raises more than ImportError
            raise Unavailable("torch not importable (%s)" % first_line(e))
        if not hasattr(torch, "_int_mm"):
            raise Unavailable("torch %s has no torch._int_mm (PyTorch 2.1 and later have it)"
                              % torch.__version__)
        self.torch = torch
        return "torch " + torch.__version__

    def prepare(self, a, b, threads):
        """The timed call, and the array it leaves the result in."""
        torch = self.torch
        torch.set_num_threads(threads)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        out = torch.empty((a.shape[0], b.shape[1]), dtype=torch.int32)
        return (lambda: torch._int_mm(ta, tb, out=out)), out.numpy()


class OrtMatMulInteger:
    name = "ORT MatMulInteger u8s8"
    short = "ORT"

    def load(self):
        try:
            import onnxruntime
        except Exception as e:
            raise Unavailable("onnxruntime not importable (%s)" % first_line(e))
        try:
            import onnx
            from onnx import helper, numpy_helper
        except Exception as e:
            raise Unavailable("onnxruntime %s found, but not onnx, which builds its model (%s)"
                              % (onnxruntime.__version__, first_line(e)))
        self.ort, self.onnx, self.helper, self.numpy_helper = (onnxruntime, onnx, helper,
                                                               numpy_helper)
        return "onnxruntime %s (onnx %s)" % (onnxruntime.__version__, onnx.__version__)

    def model(self, m, k, n, b):
        helper, TensorProto = self.helper, self.onnx.TensorProto
        graph = helper.make_graph(
            [helper.make_node("MatMulInteger", ["A", "B", "a_zero_point"], ["Y"])],
            "qmm_python_peers",
            [helper.make_tensor_value_info("A", TensorProto.UINT8, [m, k])],
            [helper.make_tensor_value_info("Y", TensorProto.INT32, [m, n])],
            initializer=[
                self.numpy_helper.from_array(b, "B"),
                helper.make_tensor("a_zero_point", TensorProto.UINT8, [], [A_ZERO_POINT]),
            ])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", ONNX_OPSET)])
        # Pinned rather than the onnx package's newest, which an older ORT refuses.
        model.ir_version = ONNX_IR_VERSION
        return model.SerializeToString()

    def prepare(self, a, b, threads):
        import numpy as np
        ort = self.ort
        m, k = a.shape
        n = b.shape[1]
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        session = ort.InferenceSession(self.model(m, k, n, b), options,
                                       providers=["CPUExecutionProvider"])
        a_u8 = (a.astype(np.int16) + A_ZERO_POINT).astype(np.uint8)
        out = np.empty((m, n), dtype=np.int32)
        binding = session.io_binding()
        binding.bind_cpu_input("A", a_u8)
        binding.bind_output("Y", "cpu", 0, np.int32, out.shape, out.ctypes.data)

        def call():
            session.run_with_iobinding(binding)
        call.bound_input = a_u8  # bound by address: it must live as long as the call
        return call, out


PEERS = [TorchIntMm(), OrtMatMulInteger()]


def load_peers():
    """The peers that run here, with their versions; one line on stderr for each other."""
    try:
        import numpy
    except Exception as e:
        for peer in PEERS:
            print("python-peers: %s skipped: numpy not importable (%s)"
                  % (peer.name, first_line(e)), file=sys.stderr)
        return [], None
    found = []
    for peer in PEERS:
        try:
            found.append((peer, peer.load()))
        except Unavailable as e:
            print("python-peers: %s skipped: %s" % (peer.name, e), file=sys.stderr)
    return found, "numpy " + numpy.__version__


def operands(shape, seed):
    """Full-range int8 A and B, with -128 * -128 in C(0,0), and the exact C
    wrapped to int32 as every contender's is. float64 sums of int8 products
    are exact while k * 2^14 < 2^53: far beyond MAX_SIZE, so BLAS's dgemm
    gives the int64 product at its speed."""
    import numpy as np
    m, k, n = shape
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, size=(m, k), dtype=np.int8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    a[0, 0] = b[0, 0] = -128
    exact = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64)
    wrapped = (exact + 2**31) % 2**32 - 2**31
    return a, b, wrapped


def max_error(result, reference):
    import numpy as np
    return int(np.max(np.abs(result.astype(np.int64) - reference)))


def time_calls(call, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_peer(peer, shape, threads, a, b, reference, fixed_reps):
    """One row: reps, median seconds, max |error|; or a refusal's text."""
    try:
        call, result = peer.prepare(a, b, threads)
        start = time.perf_counter()
        for _ in range(WARMUP_CALLS):
            call()
        warm = (time.perf_counter() - start) / WARMUP_CALLS
    except Exception as e:
        return {"refused": first_line(e)}
    reps = fixed_reps or max(MIN_REPS, min(MAX_REPS, int(TIME_BUDGET_S / max(warm, 1e-9))))
    median = time_calls(call, reps)
    return {"reps": reps, "seconds": median, "error": max_error(result, reference)}


def run_qmm_bench(path, shapes, threads, fixed_reps):
    """qmm-bench's rows for these shapes on this many threads, by shape; or
    an error message."""
    command = [path, "--csv", "--threads", str(threads)]
    for shape in shapes:
        command += ["--shape", shape_text(shape)]
    if fixed_reps:
        command += ["--reps", str(fixed_reps)]
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)
    except OSError as e:
        return None, "cannot run %s: %s" % (path, e)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no message"]
        return None, "%s exited with %d: %s" % (" ".join(command), done.returncode, tail[0])
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    needed = ["m", "k", "n", "kernel", "reps", "median_seconds", "gops", "check"]
    if not rows or any(column not in rows[0] for column in needed):
        return None, "%s printed no CSV with the columns %s" % (path, ",".join(needed))
    return {(int(r["m"]), int(r["k"]), int(r["n"])): r for r in rows}, None


def gops(shape, seconds):
    m, k, n = shape
    return 2.0 * m * n * k / seconds / 1e9


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or "unknown CPU"


ROW = "%-16s %7s  %-24s %6s %12s %10s  %s"


def print_row(csv_out, shape, threads, name, implementation, reps, seconds, verdict,
              qmm_gops):
    if csv_out:
        ratio = "" if seconds is None or qmm_gops is None else "%.4f" % (
            qmm_gops / gops(shape, seconds))
        csv_out.writerow(list(shape) + [threads, name, implementation, reps or "",
                                        "" if seconds is None else "%.8e" % seconds,
                                        "" if seconds is None else "%.4f" % gops(shape, seconds),
                                        verdict, ratio])
        return
    print(ROW % (shape_text(shape), threads, name, reps or "-",
                 "-" if seconds is None else "%.1f" % (seconds * 1e6),
                 "-" if seconds is None else "%.2f" % gops(shape, seconds), verdict))


def verdict_text(error):
    return "0 (exact)" if error == 0 else "%d (NOT exact)" % error


def main():
    parser = argparse.ArgumentParser(
        description="Time torch._int_mm and ONNX Runtime's MatMulInteger (u8s8, constant "
                    "weights) where installed, beside qmm-bench.")
    parser.add_argument("--shape", action="append", type=parse_shape, metavar="MxKxN",
                        help="repeatable; default: " + ", ".join(DEFAULT_SHAPES))
    parser.add_argument("--threads", type=parse_threads, metavar="N[,M...]",
                        help="torch.set_num_threads and ORT's intra_op_num_threads (and "
                             "qmm-bench --threads) for each count; default: 1,%d (the CPUs "
                             "this process may use)" % usable_cpus())
    parser.add_argument("--reps", type=parse_reps, metavar="N",
                        help="timed calls per row (default: about %.1f s of calls, %d to %d)"
                        % (TIME_BUDGET_S, MIN_REPS, MAX_REPS))
    parser.add_argument("--qmm-bench", metavar="PATH",
                        help="run this qmm-bench on the same shapes and thread counts, and "
                             "print qmm's GOPS over each peer's")
    parser.add_argument("--csv", action="store_true",
                        help="one comma-separated line per row (skips stay on stderr)")
    args = parser.parse_args()
    shapes = args.shape or [parse_shape(s) for s in DEFAULT_SHAPES]
    cpus = usable_cpus()
    thread_counts = args.threads or ([1, cpus] if cpus > 1 else [1])

    peers, numpy_version = load_peers()
    status = 0
    qmm = {}
    if args.qmm_bench:
        for threads in thread_counts:
            rows, error = run_qmm_bench(args.qmm_bench, shapes, threads, args.reps)
            if error:
                print("python-peers: qmm-bench: " + error, file=sys.stderr)
                status = 1
                continue
            for shape, row in rows.items():
                qmm[shape, threads] = row
                if row["check"] != "ok":
                    status = 1

    versions = [v for _, v in peers] + ([numpy_version] if numpy_version else [])
    csv_out = csv.writer(sys.stdout) if args.csv else None
    if csv_out:
        csv_out.writerow(["m", "k", "n", "threads", "contender", "implementation", "reps",
                          "median_seconds", "gops", "check", "qmm_over_this"])
    else:
        with open("/proc/loadavg") if os.path.exists("/proc/loadavg") else io.StringIO("?") as f:
            load = f.read().split()[0]
        print("python-peers on %s (%d CPUs usable, load average %s); %s"
              % (cpu_name(), cpus, load, "; ".join(versions) or "no Python peer"))
        print("GOPS = 2mnk / median seconds / 1e9; check: max |C - exact int32 C| over all of C")
        print(ROW % ("shape MxKxN", "threads", "contender", "reps", "median us", "GOPS",
                     "check"))

    gops_of = {}
    for index, shape in enumerate(shapes):
        a = b = reference = None
        if peers:
            a, b, reference = operands(shape, seed=index)
        for threads in thread_counts:
            row = qmm.get((shape, threads))
            qmm_gops = float(row["gops"]) if row else None
            if row:
                print_row(csv_out, shape, threads, "qmm (qmm-bench)", row["kernel"],
                          int(row["reps"]), float(row["median_seconds"]),
                          row["check"] if csv_out else "%s (%s)" % (row["check"], row["kernel"]),
                          qmm_gops)
            for peer, version in peers:
                r = run_peer(peer, shape, threads, a, b, reference, args.reps)
                if "refused" in r:
                    print_row(csv_out, shape, threads, peer.name, version, None, None,
                              "refused: " + r["refused"], None)
                    continue
                gops_of[shape, threads, peer.short] = gops(shape, r["seconds"])
                print_row(csv_out, shape, threads, peer.name, version, r["reps"], r["seconds"],
                          verdict_text(r["error"]), qmm_gops)
        sys.stdout.flush()

    if qmm and peers and not csv_out:
        print("\nqmm over each peer (GOPS / GOPS; above 1: qmm faster)")
        header = "%-16s %7s %10s" % ("shape MxKxN", "threads", "qmm GOPS")
        for peer, _ in peers:
            header += " %10s %10s" % (peer.short + " GOPS", "qmm/" + peer.short)
        print(header)
        for shape in shapes:
            for threads in thread_counts:
                row = qmm.get((shape, threads))
                if not row:
                    continue
                line = "%-16s %7d %10.2f" % (shape_text(shape), threads, float(row["gops"]))
                for peer, _ in peers:
                    g = gops_of.get((shape, threads, peer.short))
                    line += (" %10.2f %9.2fx" % (g, float(row["gops"]) / g) if g
                             else " %10s %10s" % ("-", "-"))
                print(line)
    return status


if __name__ == "__main__":
    sys.exit(main())
