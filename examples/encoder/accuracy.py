#!/usr/bin/env python3
"""How close the int8 encoders come to the float model, on sentences.tsv.

    accuracy.py --model model.qmmw --sentences sentences.tsv \\
                --safetensors model.safetensors \\
                [--onnx-int8 m-int8.onnx] [--onnx-float m.onnx] \\
                [--qmm-embeddings FILE.npy | --qmm-encode PATH]

Every sentence of the file (columns a, b, label; sentence order a1, b1, a2,
b2, ...) is tokenized with qmm_encoder's WordPiece tokenizer
(python/qmm_encoder/tokenizer.py, loaded by path, configured by the .qmmw
file), then embedded by:

  float           reference.encode_float on the fp32 safetensors (float64)
  ref-int8        reference.encode on the .qmmw file, each token's
                  activations quantized on their own (qmm-encode's default)
  ref-int8-seq    the same, each sequence's activations quantized on their
                  own (ONNX Runtime's graph on a batch of 1, unpadded)
  ref-int8-batch  the same, activations quantized over padded batches of
                  --batch sequences at once (ONNX Runtime's way on a batch)
  ort-int8        ONNX Runtime on --onnx-int8, batch of 1, unpadded
  ort-int8-batch  ONNX Runtime on --onnx-int8, padded batches of --batch
  ort-float       ONNX Runtime on --onnx-float, batch of 1
  qmm             --qmm-embeddings (an .npy [sentences, hidden], rows in the
                  order above) or --qmm-encode (qmm-encode's binary: token ids
                  on stdin, one sequence a line, space-separated; one
                  embedding a line on stdout, space-separated floats)
  qmm-seq         --qmm-encode with --activations per-sequence

(ONNX Runtime's outputs, last_hidden_state, are pooled and normalised here as
the .qmmw configuration says.) For each engine it prints the minimum and mean
cosine similarity of its embeddings to float's over all sentences, and the
Spearman rank correlation of its pairs' cosine similarities (a with b) with
float's. ONNX Runtime is optional: without it, its engines are skipped.

--dump-ids FILE writes the token ids in qmm-encode's input format.
NumPy is the only requirement (Debian's python3-numpy will do).
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import qmmw  # noqa: E402
import reference  # noqa: E402


def load_tokenizer_module():
    """python/qmm_encoder/tokenizer.py by path: importing the qmm_encoder
    package would load its compiled extension and qmm, which this script
    does not need."""
    path = os.path.join(HERE, "python", "qmm_encoder", "tokenizer.py")
    spec = importlib.util.spec_from_file_location("qmm_encoder_tokenizer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_pairs(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    header = lines[0].rstrip("\r").split("\t")
    if header[:3] != ["a", "b", "label"]:
        sys.exit(f"{path}: the first line must be a<TAB>b<TAB>label, not {lines[0]!r}")
    pairs = []
    for n, line in enumerate(lines[1:], 2):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) != 3:
            sys.exit(f"{path}:{n}: {len(cols)} columns, expected 3")
        pairs.append(tuple(cols))
    return pairs


def rank_average(x):
    """Ranks 1..n, ties sharing their average rank."""
    x = np.asarray(x, np.float64)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), np.float64)
    sx = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sx[j + 1] == sx[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(x, y):
    rx, ry = rank_average(x), rank_average(y)
    rx -= rx.mean()
    ry -= ry.mean()
    den = np.sqrt((rx * rx).sum() * (ry * ry).sum())
    return float((rx * ry).sum() / den) if den > 0 else float("nan")


def cosines(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return (a * b).sum(-1) / np.maximum(norms, 1e-300)


def batches(n, size):
    size = n if size <= 0 else size
    for start in range(0, n, size):
        yield slice(start, min(n, start + size))


def trim(ids, mask):
    """Cut a batch's columns after the last unmasked token."""
    n = int(np.flatnonzero(mask.any(0))[-1]) + 1
    return ids[:, :n], mask[:, :n]


# -- ONNX Runtime ------------------------------------------------------------

def ort_engine(path, config, ids, mask, batch, threads):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    out_name = "last_hidden_state" if "last_hidden_state" in outputs else outputs[0]
    result = np.zeros((ids.shape[0], config["hidden"]), np.float64)
    rows = list(batches(ids.shape[0], batch))
    for sl in rows:
        bi, bm = trim(ids[sl], mask[sl])
        feed = {"input_ids": bi, "attention_mask": bm, "token_type_ids": np.zeros_like(bi)}
        missing = [n for n in inputs if n not in feed]
        if missing:
            raise RuntimeError(f"{path}: unknown model inputs {missing}")
        (out,) = session.run([out_name], {n: feed[n] for n in inputs})
        if out.ndim == 3:
            result[sl] = reference.pool(config, out.astype(np.float64), bm)
        else:  # already pooled
            e = out.astype(np.float64)
            if config["normalize"]:
                e /= np.maximum(np.linalg.norm(e, axis=-1, keepdims=True), 1e-12)
            result[sl] = e
    return result


# -- qmm-encode ----------------------------------------------------------------

def ids_lines(ids, mask):
    """One sequence a line, token ids space-separated (padding left out)."""
    return "".join(" ".join(str(int(t)) for t in row[m != 0]) + "\n" for row, m in zip(ids, mask))


def qmm_encode_engine(binary, model, ids, mask, hidden, activations="per-token"):
    """qmm-encode MODEL --activations A: token ids on stdin, one sequence a
    line; one embedding a line on stdout, `hidden` floats (%.9g)."""
    command = [binary, model, "--activations", activations]
    proc = subprocess.run(command, input=ids_lines(ids, mask), capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(command)}: exit status {proc.returncode}\n{proc.stderr.strip()}")
    rows = [line.split() for line in proc.stdout.splitlines() if line.strip()]
    if len(rows) != ids.shape[0] or any(len(r) != hidden for r in rows):
        sys.exit(f"{' '.join(command)}: expected {ids.shape[0]} lines of {hidden} numbers, got "
                 f"{len(rows)} lines of {sorted(set(len(r) for r in rows))} numbers")
    return np.array([[float(v) for v in r] for r in rows], np.float64)


# -- main ----------------------------------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="the int8 model, .qmmw")
    p.add_argument("--sentences", required=True, help="a<TAB>b<TAB>label file")
    p.add_argument("--safetensors", required=True,
                   help="the fp32 model.safetensors (the float reference)")
    p.add_argument("--onnx-int8", help="ONNX Runtime's int8 model (quantize_dynamic's output)")
    p.add_argument("--onnx-float", help="the float ONNX model")
    q = p.add_mutually_exclusive_group()
    q.add_argument("--qmm-embeddings", help=".npy [sentences, hidden] from qmm-encode")
    q.add_argument("--qmm-encode", help="qmm-encode's binary (see the hook in qmm_encode_engine)")
    p.add_argument("--batch", type=int, default=16,
                   help="sequences a batch for the whole-batch engines "
                        "(0: all at once; default 16)")
    p.add_argument("--no-batch-engines", action="store_true",
                   help="skip ref-int8-batch and ort-int8-batch")
    p.add_argument("--ort-threads", type=int, default=1,
                   help="ONNX Runtime's intra-op threads (default 1)")
    p.add_argument("--limit", type=int, default=0, help="use only the first N pairs")
    p.add_argument("--dump-ids", help="write the token ids (qmm-encode's input) to this file")
    p.add_argument("--save", help="save every engine's embeddings to this .npz")
    args = p.parse_args(argv)
    for opt in ("model", "sentences", "safetensors", "onnx_int8", "onnx_float",
                "qmm_embeddings", "qmm_encode"):
        path = getattr(args, opt)
        if path is not None and not os.path.isfile(path):
            p.error(f"--{opt.replace('_', '-')} {path}: no such file")

    t0 = time.time()
    config, tensors = qmmw.read(args.model)
    vocab = tensors["vocab"].tobytes().decode("utf-8").split("\n")
    tok = load_tokenizer_module().WordPiece.from_config(config, vocab)
    pairs = read_pairs(args.sentences)
    if args.limit:
        pairs = pairs[:args.limit]
    sentences = [s for a, b, _ in pairs for s in (a, b)]
    labels = np.array([lab for _, _, lab in pairs])
    ids, mask = tok.encode_batch(sentences)
    lengths = mask.sum(1)
    print(f"{len(pairs)} pairs, {len(sentences)} sentences, {int(lengths.sum())} tokens "
          f"(length {lengths.min()} to {lengths.max()}, median {int(np.median(lengths))}); "
          f"model {os.path.basename(args.model)}: {config['layers']} layers, "
          f"hidden {config['hidden']} "
          f"(read and tokenized in {time.time() - t0:.1f} s)")
    if args.dump_ids:
        with open(args.dump_ids, "w") as f:
            f.write(ids_lines(ids, mask))
        print(f"token ids written to {args.dump_ids}")

    engines = {}
    times = {}

    def run(name, fn):
        t = time.time()
        engines[name] = fn()
        times[name] = time.time() - t
        print(f"  {name}: {times[name]:.1f} s", flush=True)

    print("embedding:")
    weights = reference.load_safetensors(args.safetensors)

    def float_all():
        out = np.zeros((len(sentences), config["hidden"]))
        for sl in batches(len(sentences), args.batch):
            bi, bm = trim(ids[sl], mask[sl])
            out[sl] = reference.encode_float(weights, config, bi, bm)
        return out

    def ref_int8(per_sequence, per_token=False):
        def fn():
            out = np.zeros((len(sentences), config["hidden"]))
            for sl in batches(len(sentences), args.batch):
                bi, bm = trim(ids[sl], mask[sl])
                out[sl] = reference.encode(config, tensors, bi, bm, per_sequence=per_sequence,
                                           per_token=per_token)
            return out
        return fn

    run("float", float_all)
    run("ref-int8", ref_int8(True, per_token=True))
    run("ref-int8-seq", ref_int8(True))
    if not args.no_batch_engines:
        run("ref-int8-batch", ref_int8(False))

    if args.onnx_int8 or args.onnx_float:
        try:
            import onnxruntime
            print(f"  (onnxruntime {onnxruntime.__version__}, {args.ort_threads} thread(s))")
        except ImportError:
            print("  onnxruntime is not installed here: ONNX Runtime's engines skipped")
            args.onnx_int8 = args.onnx_float = None
    if args.onnx_int8:
        run("ort-int8", lambda: ort_engine(args.onnx_int8, config, ids, mask, 1, args.ort_threads))
        if not args.no_batch_engines:
            size = args.batch or len(sentences)
            run("ort-int8-batch", lambda: ort_engine(args.onnx_int8, config, ids, mask, size,
                                                     args.ort_threads))
    if args.onnx_float:
        run("ort-float", lambda: ort_engine(args.onnx_float, config, ids, mask, 1,
                                            args.ort_threads))
    if args.qmm_embeddings:
        e = np.load(args.qmm_embeddings)
        if e.shape != (len(sentences), config["hidden"]):
            sys.exit(f"{args.qmm_embeddings}: shape {e.shape}, "
                     f"expected {(len(sentences), config['hidden'])}")
        engines["qmm"] = e.astype(np.float64)
    if args.qmm_encode:
        run("qmm", lambda: qmm_encode_engine(args.qmm_encode, args.model, ids, mask,
                                             config["hidden"]))
        run("qmm-seq", lambda: qmm_encode_engine(args.qmm_encode, args.model, ids, mask,
                                                 config["hidden"], "per-sequence"))

    ref = engines["float"]
    pair_ref = cosines(ref[0::2], ref[1::2])
    print()
    print(f"{'engine':16s} {'min cos':>10s} {'mean cos':>10s} {'worst sentence':>15s} "
          f"{'Spearman':>9s} {'close/far mean pair cos':>24s}")
    for name, e in engines.items():
        c = cosines(e, ref)
        pc = cosines(e[0::2], e[1::2])
        rho = spearman(pc, pair_ref)
        close = pc[labels == "close"].mean() if (labels == "close").any() else float("nan")
        far = pc[labels == "far"].mean() if (labels == "far").any() else float("nan")
        worst = int(np.argmin(c))
        where = "#%d (%d tok)" % (worst, lengths[worst])
        print(f"{name:16s} {c.min():10.6f} {c.mean():10.6f} {where:>15s} "
              f"{rho:9.6f} {close:11.4f} / {far:.4f}")

    def agree(x, y):
        if x in engines and y in engines:
            c = cosines(engines[x], engines[y])
            d = np.abs(engines[x] - engines[y]).max(1)
            same = int((d <= 1e-5).sum())
            print(f"{x + ' vs ' + y:34s} min cos {c.min():.8f}, mean {c.mean():.8f}; "
                  f"max |diff| {d.max():.2e}; {same} of {len(c)} sentences within 1e-5")

    print()
    agree("ref-int8-seq", "ort-int8")
    agree("ref-int8-batch", "ort-int8-batch")
    agree("ref-int8-seq", "ref-int8-batch")
    agree("ort-int8", "ort-int8-batch")
    agree("qmm", "ref-int8")
    agree("qmm-seq", "ref-int8-seq")
    agree("qmm-seq", "ort-int8")
    agree("float", "ort-float")
    if args.save:
        np.savez(args.save, ids=ids, mask=mask,
                 **{k.replace("-", "_"): v for k, v in engines.items()})
        print(f"embeddings saved to {args.save}")
    print(f"total {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
