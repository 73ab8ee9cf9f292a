#!/usr/bin/env python3
"""all-MiniLM-L6-v2 end to end: qmm-encode beside ONNX Runtime and tract.

    minilm.py --qmm-encode PATH --models DIR [--shapes 128x1,384x1,128x8]
              [--threads 1,2] [--reps N] [--csv] [--tract PATH]

DIR holds make_minilm.py's outputs (minilm.qmmw, minilm-int8.onnx,
minilm-float.onnx, the wheels). Every engine runs the same sequences (random
token ids, [CLS] first and [SEP] last) of each shape SEQxBATCH on each thread
count, one engine at a time:

  qmm        qmm-encode --bench: the median of --reps embedding calls
  ort-int8   ONNX Runtime on quantize_dynamic's int8 model, graph
             optimizations on (ORT_ENABLE_ALL), intra-op threads as given
  ort-float  the same on the float model
  tract      tract's command line (tract-cli, built with multithread-mm) on
             the int8 file as written (-O, bench, --threads as given): where
             --tract or PATH has it
A peer (ONNX Runtime, tract) that is missing or does not run is skipped, with
one line on standard error saying why.

cosine_vs_float: each engine's embeddings of examples/encoder/sentences.tsv
(134 sentences, tokenized by qmm_encoder's WordPiece) against ONNX Runtime's
float model, the mean cosine (the least in the table's notes; none for tract,
whose command line is timed only). With --csv only the lines
engine,threads,seq,batch,ms,cosine_vs_float on standard output.
"""
import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def say(*args):
    print(*args, file=sys.stderr, flush=True)


def skip(peer, why):
    """One line on why a peer's rows are skipped."""
    if isinstance(why, BaseException):
        lines = str(why).strip().splitlines()
        why = type(why).__name__ + (f": {lines[0]}" if lines else "")
    say(f"{peer}: {why}: its rows are skipped")


def tokenizer_module():
    """The encoder example's tokenizer by path: this Python (the model
    venv's) need not have qmm_encoder, nor qmm, installed."""
    path = os.path.join(ROOT, "examples", "encoder", "python", "qmm_encoder", "tokenizer.py")
    spec = importlib.util.spec_from_file_location("qmm_encoder_tokenizer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sentences():
    with open(os.path.join(ROOT, "examples", "encoder", "sentences.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    return [s for a, b, _ in rows for s in (a, b)]


def random_ids(seq, batch, vocab=30522, cls=101, sep=102):
    ids = np.random.default_rng(seq * 1000 + batch).integers(1000, vocab, (batch, seq))
    ids[:, 0], ids[:, -1] = cls, sep
    return ids.astype(np.int64)


def pool(hidden, mask):
    m = mask[..., None].astype(np.float64)
    e = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)


def ort_embeddings(int8, flt, token_lists):
    """{engine: embeddings of token_lists} of ONNX Runtime on both models;
    None, said why, where it does not run."""
    try:
        import onnxruntime

        embeddings = {name: Ort(path, 1).embed(token_lists)
                      for name, path in (("ort-int8", int8), ("ort-float", flt))}
    except Exception as e:  # anything from a missing or broken install, or a model it refuses
        skip("ONNX Runtime", e)
        return None
    say(f"ONNX Runtime {onnxruntime.__version__}")
    return embeddings


class Ort:
    def __init__(self, path, threads):
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def run(self, ids, mask):
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        return self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]

    def ms(self, seq, batch, reps):
        ids = random_ids(seq, batch)
        mask = np.ones_like(ids)
        for _ in range(2):
            self.run(ids, mask)
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            self.run(ids, mask)
            times.append(1e3 * (time.perf_counter() - t))
        return statistics.median(times)

    def embed(self, token_lists):
        return np.concatenate([pool(self.run(np.array([t]), np.ones((1, len(t)), np.int64)),
                                    np.ones((1, len(t)))) for t in token_lists])


def qmm_ms(binary, model, seq, batch, threads, reps):
    out = subprocess.run([binary, model, "--bench", "--seq", str(seq), "--batch", str(batch),
                          "--threads", str(threads), "--reps", str(reps)],
                         capture_output=True, text=True, check=True).stdout
    ms = float(re.search(r": ([0-9.]+) ms", out).group(1))
    split = re.search(r"split: (.*)", out).group(1)
    return ms, split


def qmm_embed(binary, model, token_lists):
    lines = "".join(" ".join(map(str, t)) + "\n" for t in token_lists)
    out = subprocess.run([binary, model], input=lines, capture_output=True, text=True,
                         check=True).stdout
    return np.array([[float(v) for v in line.split()] for line in out.splitlines()])


def find_tract(given):
    """tract's binary: --tract's, else on PATH or in ~/.cargo/bin; None,
    said why, where there is none to run."""
    path = given or shutil.which("tract") or shutil.which(
        "tract", path=os.path.expanduser("~/.cargo/bin"))
    if path is None:
        skip("tract", "its command line is not installed (scripts/bench.sh --model installs "
             "it with cargo where a recent Rust is there)")
    elif not (os.path.isfile(path) and os.access(path, os.X_OK)):
        skip("tract", f"{path} is not an executable file")
        path = None
    return path


def tract_ms(tract, model, seq, batch, threads):
    """tract's bench on the model's symbols set to the shape, with token ids
    in the vocabulary and a mask of ones (its random integers are otherwise
    all 0); None, said why, where it fails on this shape. OSError where
    tract cannot be run."""
    cmd = [tract, model, "-O", "--threads", str(threads), "bench", "--set", f"batch={batch}",
           "--set", f"sequence={seq}", "--allow-random-input",
           "--random-range", "input_ids=1000.0..30000.0",
           "--random-range", "attention_mask=1.0..1.5"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    text = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr)
    found = re.search(r"([0-9.]+)\s*(ms|s|µs|us)/i", text)
    if proc.returncode != 0 or found is None:
        say(f"tract failed on {seq}x{batch} (exit status {proc.returncode}): "
            f"{' '.join(text.split())[-300:]}")
        return None
    value, unit = float(found.group(1)), found.group(2)
    return value * {"s": 1e3, "ms": 1.0, "µs": 1e-3, "us": 1e-3}[unit]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--qmm-encode", required=True)
    p.add_argument("--models", required=True, help="make_minilm.py's --out directory")
    p.add_argument("--shapes", default="128x1,384x1,128x8", help="SEQxBATCH,...")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--csv", action="store_true")
    p.add_argument("--tract", help="tract's binary (default: `tract` on PATH or in ~/.cargo/bin)")
    args = p.parse_args()
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    model = os.path.join(args.models, "minilm.qmmw")
    int8 = os.path.join(args.models, "minilm-int8.onnx")
    flt = os.path.join(args.models, "minilm-float.onnx")
    vocab = os.path.join(args.models, "vocab.txt")
    if not os.path.isfile(args.qmm_encode):
        p.error(f"--qmm-encode {args.qmm_encode}: no such file")
    for path in (model, vocab):
        if not os.path.isfile(path):
            p.error(f"{path}: no such file (scripts/bench.sh --make-model makes the model files)")
    tract = find_tract(args.tract)

    # Accuracy on real sentences, once per engine.
    tok = tokenizer_module().WordPiece.from_vocab_file(vocab, max_tokens=256)
    token_lists = [tok.encode(s) for s in sentences()]
    cosine = {}
    least = {}
    ort = ort_embeddings(int8, flt, token_lists)
    if ort:
        reference = ort["ort-float"]
        embeddings = {"qmm": qmm_embed(args.qmm_encode, model, token_lists), **ort}
        for name, e in embeddings.items():
            c = (e * reference).sum(1) / np.linalg.norm(e, axis=1) / np.linalg.norm(reference,
                                                                                     axis=1)
            cosine[name], least[name] = c.mean(), c.min()

    rows = []
    for seq, batch in shapes:
        for t in threads:
            ms, split = qmm_ms(args.qmm_encode, model, seq, batch, t, args.reps)
            rows.append(("qmm", t, seq, batch, ms, split))
            if ort:
                for name, path in (("ort-int8", int8), ("ort-float", flt)):
                    reps = max(3, args.reps // (4 if name == "ort-float" else 1))
                    rows.append((name, t, seq, batch, Ort(path, t).ms(seq, batch, reps), ""))
            if tract:
                try:
                    ms = tract_ms(tract, int8, seq, batch, t)
                except OSError as e:
                    skip("tract", e)
                    tract = ms = None
                if ms is not None:
                    rows.append(("tract", t, seq, batch, ms, ""))
            if not args.csv:
                for r in rows[-4:]:
                    if r[1] == t and r[2] == seq and r[3] == batch:
                        say(f"  {r[0]:9s} threads {t} seq {seq} batch {batch}: {r[4]:.2f} ms")

    if args.csv:
        print("engine,threads,seq,batch,ms,cosine_vs_float")
        for name, t, seq, batch, ms, _ in rows:
            c = f"{cosine[name]:.6f}" if name in cosine else ""
            print(f"{name},{t},{seq},{batch},{ms:.3f},{c}")
        return
    print(f"{'seq x batch':>11s} {'threads':>7s} {'engine':>9s} {'ms':>9s} {'qmm speedup':>11s}  "
          "qmm's split")
    for seq, batch in shapes:
        for t in threads:
            here = [r for r in rows if r[1] == t and r[2] == seq and r[3] == batch]
            q = next(r[4] for r in here if r[0] == "qmm")
            for name, _, _, _, ms, split in here:
                speedup = "" if name == "qmm" else f"{ms / q:.2f}x"
                print(f"{seq:>5d} x {batch:<3d} {t:>7d} {name:>9s} {ms:9.2f} {speedup:>11s}  "
                      f"{split}")
    if cosine:
        print("\ncosine to the float model on examples/encoder/sentences.tsv "
              f"({len(token_lists)} sentences): " +
              ", ".join(f"{n} mean {cosine[n]:.6f} least {least[n]:.6f}" for n in cosine))


if __name__ == "__main__":
    main()
