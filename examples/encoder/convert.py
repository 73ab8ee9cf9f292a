#!/usr/bin/env python3
"""Convert a BERT sentence encoder quantized by ONNX Runtime's quantize_dynamic
into qmm-encode's weight file (.qmmw, FORMAT.md), so that ONNX Runtime and
qmm-encode run the same int8 weights.

    convert.py model-int8.onnx --config config.json -o model.qmmw

The other model files default to their places beside config.json (a
sentence-transformers model directory): modules.json, the pooling module's
config.json (1_Pooling/), vocab.txt, tokenizer_config.json and
sentence_bert_config.json.

Weights are found by the graph's structure, not by node order or generated
names: each MatMulInteger(DynamicQuantizeLinear(x), W, x_zp, W_zp) -> Cast ->
Mul(x_scale * W_scale) -> Add(bias) is one weight product, and its bias
initializer's name (...encoder.layer.L.attention.self.query.bias etc.) says
which.  The embedding tables are the Gather data initializers (quantized ones
followed by DequantizeLinear), the LayerNorm parameters the
LayerNormalization inputs, both named as Hugging Face names them.
"""
import argparse
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qmmw  # noqa: E402

# Hugging Face's BERT module names -> FORMAT.md's weight product names.
_PRODUCTS = {
    "attention.self.query": "query",
    "attention.self.key": "key",
    "attention.self.value": "value",
    "attention.output.dense": "attention_output",
    "intermediate.dense": "intermediate",
    "output.dense": "output",
}
_PRODUCT_BIAS = re.compile(r"(?:^|\.)encoder\.layer\.(\d+)\.("
                           + "|".join(map(re.escape, _PRODUCTS)) + r")\.bias$")
_NORM = re.compile(r"(?:^|\.)(?:(embeddings)|encoder\.layer\.(\d+)\.(attention\.output|output))"
                   r"\.LayerNorm\.weight$")
_EMBEDDING = re.compile(r"(?:^|\.)embeddings\.(word|position|token_type)_embeddings\.weight"
                        r"(?:_quantized)?$")


class ConvertError(Exception):
    pass


class _Graph:
    """An ONNX graph with the look-ups a pattern match needs."""

    def __init__(self, path):
        import onnx
        from onnx import numpy_helper

        try:
            self.graph = onnx.load(path).graph
        except OSError:
            raise
        except Exception as e:  # protobuf's DecodeError has no common base class to name
            raise ConvertError(f"{path}: not an ONNX model ({e})")
        self.inits = {i.name: i for i in self.graph.initializer}
        self._to_array = numpy_helper.to_array
        self._attribute = onnx.helper.get_attribute_value
        self.producer = {o: n for n in self.graph.node for o in n.output}
        self.consumers = {}
        for n in self.graph.node:
            for name in n.input:
                self.consumers.setdefault(name, []).append(n)
        # ONNX lists nodes in topological order, so one pass finds every value
        # computed from initializers alone (e.g. a weight dequantized by Cast
        # and Mul).
        self.constants = set(self.inits)
        for n in self.graph.node:
            inputs = [i for i in n.input if i]
            if n.op_type == "Constant" or inputs and all(i in self.constants for i in inputs):
                self.constants.update(n.output)
            if n.domain not in ("", "ai.onnx"):
                raise ConvertError(f"node {n.name}: op {n.domain}:{n.op_type} is not a standard "
                                   "ONNX op; convert the model quantize_dynamic wrote, not an "
                                   "optimized one")

    def array(self, name, what):
        if name not in self.inits:
            raise ConvertError(f"{what}: {name!r} is not an initializer")
        return self._to_array(self.inits[name])

    def attribute(self, node, name, default=None):
        for a in node.attribute:
            if a.name == name:
                return self._attribute(a)
        return default

    def only_consumer(self, name, op_type, what):
        nodes = self.consumers.get(name, [])
        if len(nodes) != 1 or nodes[0].op_type != op_type:
            found = ", ".join(n.op_type for n in nodes) or "nothing"
            raise ConvertError(f"{what}: {name!r} should feed one {op_type}, feeds {found}")
        return nodes[0]

    def other_input(self, node, name):
        others = [i for i in node.input if i != name]
        if len(others) != 1:
            raise ConvertError(f"node {node.name}: expected two distinct inputs to "
                               f"{node.op_type}")
        return others[0]


def _weight_product(g, mm):
    """(layer, tensors) of one MatMulInteger weight product."""
    what = f"MatMulInteger {mm.name}"
    if len(mm.input) < 3 or not mm.input[2]:
        raise ConvertError(f"{what}: no activation zero point "
                           "(expected DynamicQuantizeLinear's)")
    x, w_name, x_zp = mm.input[:3]
    w_zp_name = mm.input[3] if len(mm.input) > 3 and mm.input[3] else None
    dql = g.producer.get(x)
    if (dql is None or dql.op_type != "DynamicQuantizeLinear"
            or list(dql.output) != [x, dql.output[1], x_zp]):
        raise ConvertError(f"{what}: its activation does not come from DynamicQuantizeLinear "
                           "(uint8, per tensor, quantized at run time)")
    w = g.array(w_name, what)
    if w.ndim != 2 or w.dtype not in (np.int8, np.uint8):
        raise ConvertError(f"{what}: weight {w_name} is {w.dtype} {list(w.shape)}, expected a "
                           "2-D int8 or uint8 matrix")
    cols = w.shape[1]

    cast = g.only_consumer(mm.output[0], "Cast", what)
    mul = g.only_consumer(cast.output[0], "Mul", what)
    scales = g.producer.get(g.other_input(mul, cast.output[0]))
    if scales is None or scales.op_type != "Mul" or dql.output[1] not in scales.input:
        raise ConvertError(f"{what}: the Mul after it should scale by x_scale * w_scale, a "
                           "Mul of DynamicQuantizeLinear's scale and the weight's")
    scale = g.array(g.other_input(scales, dql.output[1]), what + " weight scale")
    scale = scale.astype(np.float32)
    zero_point = (g.array(w_zp_name, what + " weight zero point") if w_zp_name
                  else np.zeros(scale.shape, np.int32))
    if w_zp_name and zero_point.dtype != w.dtype:
        raise ConvertError(f"{what}: zero point type {zero_point.dtype} differs from the "
                           f"weight's {w.dtype}")
    for array, label in ((scale, "scale"), (zero_point, "zero point")):
        if array.size not in (1, cols) or array.ndim > 1:
            raise ConvertError(f"{what}: weight {label} of shape {list(array.shape)}; expected "
                               f"per tensor or per output column ({cols})")
    if zero_point.shape != scale.shape:
        raise ConvertError(f"{what}: weight scale {list(scale.shape)} and zero point "
                           f"{list(zero_point.shape)} differ in shape")

    add = g.only_consumer(mul.output[0], "Add", what)
    bias_name = g.other_input(add, mul.output[0])
    match = _PRODUCT_BIAS.search(bias_name)
    if not match:
        raise ConvertError(f"{what}: its bias {bias_name!r} is not named like "
                           "encoder.layer.L.<module>.bias, so its role is unknown")
    bias = g.array(bias_name, what + " bias")
    if bias.dtype != np.float32 or bias.shape != (cols,):
        raise ConvertError(f"{what}: bias {bias_name} is {bias.dtype} {list(bias.shape)}, "
                           f"expected float32 [{cols}]")

    name = f"layer.{int(match.group(1))}.{_PRODUCTS[match.group(2)]}"
    tensors = {name: w, name + ".scale": scale.reshape(1, -1), name + ".bias": bias}
    if zero_point.any():
        tensors[name + ".zero_point"] = zero_point.astype(np.int32).reshape(1, -1)
    return int(match.group(1)), tensors


def _embedding(g, gather):
    """The tensors of one embedding table, or None when the Gather is not on one."""
    table = gather.input[0]
    match = _EMBEDDING.search(table)
    if not match:
        return None
    what = f"Gather {gather.name}"
    if table not in g.inits:
        raise ConvertError(f"{what}: embedding table {table} is computed, not an initializer "
                           "(a weight-only quantized graph?); convert quantize_dynamic's output")
    a = g.array(table, what)
    name = "embeddings." + match.group(1)
    if a.dtype == np.float32:
        return {name: a}
    if a.dtype not in (np.int8, np.uint8):
        raise ConvertError(f"{what}: embedding table {table} is {a.dtype}")
    dq = g.only_consumer(gather.output[0], "DequantizeLinear", what)
    scale = g.array(dq.input[1], what + " scale").astype(np.float32)
    zero_point = (g.array(dq.input[2], what + " zero point")
                  if len(dq.input) > 2 and dq.input[2] else None)
    if scale.size != 1 or zero_point is not None and zero_point.size != 1:
        raise ConvertError(f"{what}: embedding table {table} is not quantized per tensor")
    tensors = {name: a, name + ".scale": scale.reshape(1, 1)}
    if zero_point is not None and zero_point.any():
        tensors[name + ".zero_point"] = zero_point.astype(np.int32).reshape(1, 1)
    return tensors


def _layer_norm(g, ln, eps):
    """The tensors of one LayerNormalization's parameters."""
    what = f"LayerNormalization {ln.name}"
    weight, bias = (ln.input[1], ln.input[2]) if len(ln.input) == 3 else (ln.input[1], "")
    match = _NORM.search(weight)
    if not match or bias != weight[:-len("weight")] + "bias":
        raise ConvertError(f"{what}: parameters {weight!r}, {bias!r} are not named like "
                           "...LayerNorm.weight and ...LayerNorm.bias")
    graph_eps = g.attribute(ln, "epsilon", 1e-5)
    if np.float32(graph_eps) != np.float32(eps):
        raise ConvertError(f"{what}: epsilon {graph_eps} differs from config.json's "
                           f"layer_norm_eps {eps}")
    if g.attribute(ln, "axis", -1) != -1:
        raise ConvertError(f"{what}: normalizes over axis {g.attribute(ln, 'axis')}, "
                           "not the last")
    embeddings, layer, module = match.groups()
    name = "embeddings.norm" if embeddings else f"layer.{layer}." + {
        "attention.output": "attention_norm", "output": "output_norm"}[module]
    return {name + ".weight": g.array(weight, what), name + ".bias": g.array(bias, what)}


def graph_tensors(onnx_path, config):
    """FORMAT.md's tensors (all but vocab) from a quantize_dynamic int8 model."""
    g = _Graph(onnx_path)
    tensors = {}

    def add(found, what):
        again = sorted(tensors.keys() & found.keys())
        if again:
            raise ConvertError(f"{what}: a second {', '.join(again)}")
        tensors.update(found)

    for n in g.graph.node:
        if n.op_type in ("MatMul", "Gemm") and n.input[1] in g.constants:
            raise ConvertError(f"{n.op_type} {n.name} multiplies by constant float weights "
                               f"({n.input[1]}): an unquantized weight product. qmm-encode "
                               "runs int8 models only: quantize the model with "
                               "onnxruntime.quantization.quantize_dynamic first")
    for n in g.graph.node:
        if n.op_type == "MatMulInteger":
            layer, found = _weight_product(g, n)
            if layer >= config["layers"]:
                raise ConvertError(f"MatMulInteger {n.name}: layer {layer} is beyond "
                                   f"config.json's {config['layers']} layers")
            add(found, f"MatMulInteger {n.name}")
        elif n.op_type == "Gather":
            found = _embedding(g, n)
            if found:
                add(found, f"Gather {n.name}")
        elif n.op_type == "LayerNormalization":
            found = _layer_norm(g, n, config["layer_norm_eps"])
            add(found, f"LayerNormalization {n.name}")

    for name in g.inits:
        # The C encoder numbers positions 0, 1, ...: refuse an export that does not.
        if name.endswith("position_ids"):
            ids = g.array(name, "position ids").reshape(-1)
            if not np.array_equal(ids, np.arange(ids.size)):
                raise ConvertError(f"initializer {name} is not 0, 1, 2, ...")
    return tensors


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ConvertError(f"{what} {path}: {e}")


def _sibling(path, given, *parts):
    """The file given on the command line, else the one at its usual place
    beside config.json when it exists, else None."""
    if given:
        return given
    candidate = os.path.join(os.path.dirname(os.path.abspath(path)), *parts)
    return candidate if os.path.exists(candidate) else None


def model_config(config_path, pooling_path=None, modules_path=None, tokenizer_config_path=None,
                 max_tokens=None):
    """(qmmw's configuration but the special ids, tokenizer_config.json's
    contents) from a sentence-transformers model's JSON files."""
    hf = _read_json(config_path, "config")
    keys = {"layers": "num_hidden_layers", "hidden": "hidden_size",
            "heads": "num_attention_heads", "ffn": "intermediate_size", "vocab": "vocab_size",
            "max_positions": "max_position_embeddings", "type_vocab": "type_vocab_size",
            "layer_norm_eps": "layer_norm_eps"}
    missing = [v for v in keys.values() if v not in hf]
    if missing:
        raise ConvertError(f"config {config_path}: missing {', '.join(missing)}")
    config = {k: hf[v] for k, v in keys.items()}
    if hf.get("hidden_act") != "gelu":
        raise ConvertError(f"config {config_path}: hidden_act {hf.get('hidden_act')!r}; "
                           "qmm-encode runs 'gelu' (erf) only")
    if hf.get("position_embedding_type", "absolute") != "absolute":
        raise ConvertError(f"config {config_path}: position_embedding_type "
                           f"{hf['position_embedding_type']!r} is not 'absolute'")
    config["activation"] = "gelu"

    modules_path = _sibling(config_path, modules_path, "modules.json")
    modules = _read_json(modules_path, "modules") if modules_path else []
    types = {m.get("type"): m for m in modules}
    # Without modules.json sentence-transformers mean-pools and does not normalise.
    config["normalize"] = "sentence_transformers.models.Normalize" in types
    pooling_module = types.get("sentence_transformers.models.Pooling", {}).get("path", "1_Pooling")
    pooling_path = _sibling(config_path, pooling_path, pooling_module, "config.json")
    pooling = (_read_json(pooling_path, "pooling config") if pooling_path
               else {"pooling_mode_mean_tokens": True})
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode_") and v)
    if modes == ["pooling_mode_mean_tokens"]:
        config["pooling"] = "mean"
    elif modes == ["pooling_mode_cls_token"]:
        config["pooling"] = "cls"
    else:
        raise ConvertError(f"pooling config {pooling_path}: modes {modes}; qmm-encode supports "
                           "pooling_mode_mean_tokens or pooling_mode_cls_token alone")

    tokenizer_config_path = _sibling(config_path, tokenizer_config_path, "tokenizer_config.json")
    tokenizer = (_read_json(tokenizer_config_path, "tokenizer config") if tokenizer_config_path
                 else {})
    config["lowercase"] = bool(tokenizer.get("do_lower_case", True))
    if tokenizer.get("strip_accents") not in (None, config["lowercase"]):
        raise ConvertError(f"tokenizer config {tokenizer_config_path}: strip_accents differs "
                           "from do_lower_case; qmm-encode strips accents exactly when it "
                           "lower-cases")

    st_path = _sibling(config_path, None, "sentence_bert_config.json")
    st_config = _read_json(st_path, "sentence-transformers config") if st_path else {}
    if st_config.get("do_lower_case") and not config["lowercase"]:
        raise ConvertError(f"{st_path}: do_lower_case over a cased tokenizer (lower-casing "
                           "without stripping accents) is not supported")
    if max_tokens is None:
        max_tokens = min(st_config.get("max_seq_length") or 256, config["max_positions"])
    elif not 2 <= max_tokens <= config["max_positions"]:
        raise ConvertError(f"--max-tokens {max_tokens} is not 2 ([CLS] and [SEP]) to "
                           f"max_position_embeddings {config['max_positions']}")
    config["max_tokens"] = max_tokens
    return config, tokenizer


def vocab_tensor(vocab_path, config, tokenizer):
    """The vocab tensor, and the special ids into config."""
    try:
        with open(vocab_path, encoding="utf-8") as f:
            # Hugging Face's load_vocab: one token a line, only the newline stripped.
            tokens = [line.rstrip("\n") for line in f]
    except (OSError, ValueError) as e:
        raise ConvertError(f"vocab {vocab_path}: {e}")
    if len(tokens) != config["vocab"]:
        raise ConvertError(f"vocab {vocab_path}: {len(tokens)} tokens, config.json's "
                           f"vocab_size {config['vocab']}")
    ids = {}
    for i, token in enumerate(tokens):
        ids.setdefault(token, i)
    for key in ("cls", "sep", "pad", "unk"):
        token = tokenizer.get(key + "_token", f"[{key.upper()}]")
        token = token["content"] if isinstance(token, dict) else token  # an AddedToken's form
        if token not in ids:
            raise ConvertError(f"vocab {vocab_path}: no {token} token")
        config[key + "_id"] = ids[token]
    return np.frombuffer("\n".join(tokens).encode("utf-8"), np.uint8)


def convert(onnx_path, config_path, pooling_path=None, modules_path=None, vocab_path=None,
            tokenizer_config_path=None, max_tokens=None):
    """(config, tensors) for qmmw.write."""
    config, tokenizer = model_config(config_path, pooling_path, modules_path,
                                     tokenizer_config_path, max_tokens)
    vocab_path = _sibling(config_path, vocab_path, "vocab.txt")
    if not vocab_path:
        raise ConvertError("no vocab.txt beside config.json: give --vocab")
    vocab = vocab_tensor(vocab_path, config, tokenizer)
    tensors = graph_tensors(onnx_path, config)
    tensors["vocab"] = vocab
    return config, tensors


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("onnx", metavar="INT8_ONNX", help="the model quantize_dynamic wrote")
    p.add_argument("--config", required=True, help="Hugging Face config.json")
    p.add_argument("--pooling-config", help="sentence-transformers 1_Pooling/config.json")
    p.add_argument("--modules", help="sentence-transformers modules.json")
    p.add_argument("--vocab", help="WordPiece vocab.txt")
    p.add_argument("--tokenizer-config", help="tokenizer_config.json")
    p.add_argument("--max-tokens", type=int, help="truncation length, [CLS] and [SEP] included "
                   "(default: sentence_bert_config.json's max_seq_length, else 256)")
    p.add_argument("-o", "--output", required=True, help="the .qmmw file to write")
    args = p.parse_args(argv)
    try:
        config, tensors = convert(args.onnx, args.config, args.pooling_config, args.modules,
                                  args.vocab, args.tokenizer_config, args.max_tokens)
        qmmw.write(args.output, config, tensors)
    except (ConvertError, ValueError, OSError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 1
    print(f"{args.output}: {len(tensors)} tensors, {os.path.getsize(args.output)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
