"""NumPy references of the BERT sentence encoder, for accuracy checks.

encode(config, tensors, ids, mask, per_sequence=True, per_token=False) -> float64 [batch, hidden]
hidden_states(config, tensors, ids, mask, per_sequence=True, per_token=False)
    -> float64 [batch, seq, hidden]
    The int8 graph as ONNX Runtime's quantize_dynamic makes it, from a .qmmw
    file's tensors (qmmw.read). For each of a layer's six weight products:
      - DynamicQuantizeLinear of the input (ONNX, opset 11, as ONNX Runtime
        computes it, in float32): min = min(0, min x), max = max(0, max x),
        scale = (max - min) / 255 (1 where max == min), zp = round-half-even(
        clamp(-min / scale, 0, 255)), q = clamp(round-half-even(x / scale) + zp,
        0, 255);
      - the product as exact integer sums of (qa - za) * (qw - zw[j]);
      - y = float32(acc) * float32(a_scale * w_scale[j]) + bias[j], each step
        in float32 (ONNX's Cast, Mul, Add; ONNX Runtime's fused
        MatMulIntegerToFloat may use a fused multiply-add there: 1 ulp).
    The embedding tables are dequantized as (q - zp) * scale in float32
    (DequantizeLinear). Everything else is float64: embedding sums,
    LayerNorm, attention (scores = q k^T / sqrt(head size), masked keys
    excluded, softmax, P V), GELU (erf form), pooling, L2 normalisation.

    per_sequence=True (the default) quantizes each sequence's activations
    on their own: every row of the batch runs as a batch of 1, cut after its
    last unmasked token (what one sequence at a time, unpadded, gives: qmm-encode's
    way). per_sequence=False quantizes the whole [batch, seq, features]
    activation at once, padding positions included, as ONNX Runtime does on a
    padded batch; the result then depends on what else is in the batch.
    hidden_states' rows past a sequence's last unmasked token are 0 when
    per_sequence is true. per_token=True quantizes each token's row of an
    activation on its own instead (qmm-encode's default: one scale and zero
    point per row of each product's input).

encode_float(weights, config, ids, mask) -> float64 [batch, hidden]
hidden_states_float(weights, config, ids, mask) -> float64 [batch, seq, hidden]
    The same pipeline without quantization, in float64, from the fp32
    weights under Hugging Face's BERT names (model.safetensors: see
    load_safetensors; a prefix before "embeddings." / "encoder." is ignored).

ids and mask: integer arrays [batch, seq] (mask 1 on tokens, 0 on padding);
token type 0 everywhere; positions 0 .. seq - 1.
"""
import json
import math
import struct

import numpy as np

__all__ = [
    "encode", "hidden_states", "encode_float", "hidden_states_float",
    "dynamic_quantize_linear", "load_safetensors", "erf", "pool",
]

PRODUCTS = ("query", "key", "value", "attention_output", "intermediate", "output")

# --------------------------------------------------------------------------
# erf, vectorised, float64 (Cephes' ndtr.c rational approximations, S. L.
# Moshier, public domain).
_ERF_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
          7.00332514112805075473e3, 5.55923013010394962768e4)
_ERF_U = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
          2.26290000613890934246e4, 4.92673942608635921086e4)
_ERFC_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
           4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
           9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2)
_ERFC_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
           9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
           1.65666309194161350182e3, 5.57535340817727675546e2)


def _poly(x, coefs):
    r = x + coefs[1] if coefs[0] == 1.0 else x * coefs[0] + coefs[1]
    for c in coefs[2:]:
        r *= x
        r += c
    return r


def erf(x):
    """erf of a float64 array (vectorised; within an ulp or two of math.erf)."""
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    out = np.empty_like(x)
    small = a <= 1.0
    xs = x[small]
    z = xs * xs
    out[small] = xs * _poly(z, _ERF_T) / _poly(z, _ERF_U)
    big = ~small
    # erfc(6) < 2^-54: erf rounds to +-1 from 6 on, so P/Q (1 <= x < 8) covers it
    ab = np.minimum(a[big], 6.0)
    erfc = np.exp(-ab * ab) * _poly(ab, _ERFC_P) / _poly(ab, _ERFC_Q)
    out[big] = np.copysign(1.0 - erfc, x[big])
    out[np.isnan(x)] = np.nan
    return out


def _gelu(x):
    return 0.5 * x * (1.0 + erf(x * (1.0 / math.sqrt(2.0))))


# --------------------------------------------------------------------------
# shared float pieces

def _layer_norm(x, weight, bias, eps):
    m = x.mean(-1, keepdims=True)
    d = x - m
    v = (d * d).mean(-1, keepdims=True)
    return d / np.sqrt(v + eps) * weight + bias


def _attention(q, k, v, mask, heads):
    b, s, h = q.shape
    hd = h // heads

    def split(t):
        return t.reshape(b, s, heads, hd).transpose(0, 2, 1, 3)

    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd)
    keep = (mask != 0)[:, None, None, :]
    scores = np.where(keep, scores, -np.inf)
    scores = scores - scores.max(-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(-1, keepdims=True)
    return (p @ v).transpose(0, 2, 1, 3).reshape(b, s, h)


def _encoder(config, x, mask, linear, norm):
    """x: the summed embeddings [b, s, h] (float64); linear(x, layer, name)
    and norm(name) -> (weight, bias) give the layers' parameters."""
    eps = float(config["layer_norm_eps"])
    x = _layer_norm(x, *norm("embeddings.norm"), eps)
    for layer in range(config["layers"]):
        q = linear(x, layer, "query")
        k = linear(x, layer, "key")
        v = linear(x, layer, "value")
        a = _attention(q, k, v, mask, config["heads"])
        x = _layer_norm(linear(a, layer, "attention_output") + x,
                        *norm(f"layer.{layer}.attention_norm"), eps)
        h = _gelu(linear(x, layer, "intermediate"))
        x = _layer_norm(linear(h, layer, "output") + x, *norm(f"layer.{layer}.output_norm"), eps)
    return x


def pool(config, h, mask):
    """Pooling (mean over the mask, or [CLS]) and, when the configuration
    says so, L2 normalisation: [b, s, hidden] -> [b, hidden] float64."""
    h = np.asarray(h, np.float64)
    if config["pooling"] == "cls":
        e = h[:, 0]
    else:
        m = np.asarray(mask, np.float64)[..., None]
        e = (h * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    if config["normalize"]:
        e = e / np.maximum(np.linalg.norm(e, axis=-1, keepdims=True), 1e-12)
    return e


def _check_inputs(ids, mask):
    ids = np.asarray(ids, np.int64)
    mask = np.asarray(mask, np.int64)
    if ids.ndim != 2 or ids.shape != mask.shape:
        raise ValueError(f"ids {ids.shape} and mask {mask.shape} must both be [batch, seq]")
    return ids, mask


# --------------------------------------------------------------------------
# the int8 graph

def dynamic_quantize_linear(x):
    """ONNX DynamicQuantizeLinear as ONNX Runtime computes it, over all of x
    (float32 arithmetic): (q int64 array in 0..255, scale float32, zp int)."""
    x = np.asarray(x, np.float32)
    zero = np.float32(0)
    lo = min(zero, x.min())
    hi = max(zero, x.max())
    scale = np.float32(1) if hi == lo else np.float32((hi - lo) / np.float32(255))
    zp = np.rint(np.clip(zero - lo / scale, np.float32(0), np.float32(255)))
    q = np.clip(np.rint(x / scale) + zp, np.float32(0), np.float32(255))
    return q.astype(np.int64), scale, int(zp)


def dynamic_quantize_linear_rows(x):
    """dynamic_quantize_linear of each row (last axis) of x on its own:
    (q int64, scales float32 [..., 1], zero points int64 [..., 1])."""
    x = np.asarray(x, np.float32)
    zero = np.float32(0)
    lo = np.minimum(zero, x.min(-1, keepdims=True))
    hi = np.maximum(zero, x.max(-1, keepdims=True))
    scale = np.where(hi == lo, np.float32(1), (hi - lo) / np.float32(255)).astype(np.float32)
    zp = np.rint(np.clip(zero - lo / scale, np.float32(0), np.float32(255)))
    q = np.clip(np.rint(x / scale) + zp, np.float32(0), np.float32(255))
    return q.astype(np.int64), scale, zp.astype(np.int64)


class _Int8Model:
    def __init__(self, config, tensors, per_token=False):
        self.per_token = per_token
        self.config = config
        self.t = tensors
        self.products = {}
        for layer in range(config["layers"]):
            for name in PRODUCTS:
                self.products[layer, name] = self._product_params(f"layer.{layer}.{name}")

    def _zp(self, name):
        zp = self.t.get(name + ".zero_point")
        return np.zeros((1, 1), np.int64) if zp is None else np.asarray(zp, np.int64)

    def _product_params(self, name):
        w = np.asarray(self.t[name], np.int64) - self._zp(name)  # [in, out], centred
        k = w.shape[0]
        # The integer product is computed with float64 BLAS: every partial sum
        # is an integer below 2^53 in magnitude, so it is exact in any order.
        exact = k * 255 * int(np.abs(w).max()) < 2**53
        scale = np.asarray(self.t[name + ".scale"], np.float32).reshape(-1)
        bias = np.asarray(self.t[name + ".bias"], np.float32).reshape(-1)
        return (w.astype(np.float64) if exact else w), exact, scale, bias

    def linear(self, x, layer, name):
        w, exact, w_scale, bias = self.products[layer, name]
        if self.per_token:
            q, a_scale, a_zp = dynamic_quantize_linear_rows(x)
            a_scale = a_scale.reshape(-1, 1)
        else:
            q, a_scale, a_zp = dynamic_quantize_linear(x)
            a_scale = np.float32(a_scale)
        shape = q.shape
        qa = (q - a_zp).reshape(-1, shape[-1])
        if exact:
            acc = qa.astype(np.float64) @ w  # exact integers
        else:
            acc = qa @ w  # int64
        if self.per_token:
            # qmm's stage: ((float)acc * row scale) * column scale + bias.
            y = (acc.astype(np.float32) * a_scale) * w_scale + bias
        else:
            multiplier = a_scale * w_scale  # float32 [out] or [1]
            y = acc.astype(np.float32) * multiplier + bias  # float32 Cast, Mul, Add
        return y.astype(np.float64).reshape(shape[:-1] + (w.shape[1],))

    def norm(self, name):
        return (np.asarray(self.t[name + ".weight"], np.float64).reshape(-1),
                np.asarray(self.t[name + ".bias"], np.float64).reshape(-1))

    def _table_rows(self, name, rows):
        """Rows of an embedding table, dequantized as DequantizeLinear does
        ((q - zp) * scale in float32), as float64."""
        table = self.t[name]
        if table.dtype == np.float32:
            return table[rows].astype(np.float64)
        q = table[rows].astype(np.int32)
        zp = self.t.get(name + ".zero_point")
        scale = np.asarray(self.t[name + ".scale"], np.float32)
        if scale.size > 1:  # per row: rows x 1
            scale = scale[rows]
            zp = None if zp is None else np.asarray(zp, np.int32)[rows]
        else:
            scale = scale.reshape(())
            zp = None if zp is None else np.int32(np.asarray(zp).reshape(()))
        if zp is not None:
            q = q - zp
        return (q.astype(np.float32) * scale).astype(np.float64)

    def embeddings(self, ids):
        s = ids.shape[1]
        return (self._table_rows("embeddings.word", ids)
                + self._table_rows("embeddings.position", np.arange(s))[None]
                + self._table_rows("embeddings.token_type", np.zeros(1, np.int64))[None])

    def run(self, ids, mask):
        return _encoder(self.config, self.embeddings(ids), mask, self.linear, self.norm)


def hidden_states(config, tensors, ids, mask, per_sequence=True, per_token=False):
    """The int8 graph's last hidden state, float64 [batch, seq, hidden]."""
    ids, mask = _check_inputs(ids, mask)
    model = _Int8Model(config, tensors, per_token)
    if not per_sequence:
        return model.run(ids, mask)
    out = np.zeros(ids.shape + (config["hidden"],), np.float64)
    for r in range(ids.shape[0]):
        on = np.flatnonzero(mask[r])
        if on.size == 0:
            continue
        n = on[-1] + 1
        out[r, :n] = model.run(ids[r:r + 1, :n], mask[r:r + 1, :n])[0]
    return out


def encode(config, tensors, ids, mask, per_sequence=True, per_token=False):
    """The int8 graph's sentence embeddings, float64 [batch, hidden]."""
    return pool(config, hidden_states(config, tensors, ids, mask, per_sequence, per_token), mask)


# --------------------------------------------------------------------------
# the float reference (Hugging Face names)

_HF_PRODUCTS = {
    "query": "attention.self.query",
    "key": "attention.self.key",
    "value": "attention.self.value",
    "attention_output": "attention.output.dense",
    "intermediate": "intermediate.dense",
    "output": "output.dense",
}


def _strip_prefix(weights):
    out = {}
    for k, v in weights.items():
        for root in ("embeddings.", "encoder."):
            i = k.find(root)
            if i == 0 or (i > 0 and k[i - 1] == "."):
                out[k[i:]] = v
                break
    return out


def hidden_states_float(weights, config, ids, mask):
    """The float64 pipeline's last hidden state, [batch, seq, hidden]."""
    ids, mask = _check_inputs(ids, mask)
    w = _strip_prefix(weights)

    def f64(name):
        return np.asarray(w[name], np.float64)

    lin = {}
    for layer in range(config["layers"]):
        for name, hf in _HF_PRODUCTS.items():
            p = f"encoder.layer.{layer}.{hf}"
            lin[layer, name] = (f64(p + ".weight").T.copy(), f64(p + ".bias"))

    def linear(x, layer, name):
        wt, b = lin[layer, name]
        return x @ wt + b

    norms = {"embeddings.norm": "embeddings.LayerNorm"}
    for layer in range(config["layers"]):
        norms[f"layer.{layer}.attention_norm"] = f"encoder.layer.{layer}.attention.output.LayerNorm"
        norms[f"layer.{layer}.output_norm"] = f"encoder.layer.{layer}.output.LayerNorm"

    def norm(name):
        p = norms[name]
        return f64(p + ".weight"), f64(p + ".bias")

    s = ids.shape[1]
    x = (f64("embeddings.word_embeddings.weight")[ids]
         + f64("embeddings.position_embeddings.weight")[:s][None]
         + f64("embeddings.token_type_embeddings.weight")[0][None, None])
    return _encoder(config, x, mask, linear, norm)


def encode_float(weights, config, ids, mask):
    """The float64 pipeline's sentence embeddings, [batch, hidden]."""
    return pool(config, hidden_states_float(weights, config, ids, mask), mask)


def load_safetensors(path):
    """name -> NumPy array from a .safetensors file (F32, F16, BF16, F64,
    I64, I32, I8, U8)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + n])
    base = 8 + n
    dtypes = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4",
              "I8": "i1", "U8": "u1", "BF16": "<u2"}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in dtypes:
            raise ValueError(f"{path}: tensor {name}: dtype {info['dtype']} not supported")
        start, end = info["data_offsets"]
        dt = np.dtype(dtypes[info["dtype"]])
        a = np.frombuffer(data, dt, (end - start) // dt.itemsize, base + start)
        a = a.reshape(info["shape"])
        if info["dtype"] == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        out[name] = a
    return out
