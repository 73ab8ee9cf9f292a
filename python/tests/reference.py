"""The products and output stages of include/qmm/qmm.h computed with NumPy's
int64 and float32, element by element as the header defines them: the
oracle the tests hold qmm's Python package to."""
import numpy as np

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def wrap32(v):
    """int64 values wrapped to int32 (two's complement), as int64."""
    v = np.asarray(v, dtype=np.int64)
    return ((v - INT32_MIN) & 0xFFFFFFFF) + INT32_MIN


def acc(a, b, a_zero_point=0, b_zero_point=0, bias=0):
    """(a - za) @ (b - zb) + bias, exact then wrapped to int32; a zero
    point of A is per row (m values: shape (m, 1) here), B's per column."""
    za = np.asarray(a_zero_point, dtype=np.int64)
    zb = np.asarray(b_zero_point, dtype=np.int64)
    if za.ndim == 1:
        za = za.reshape(-1, 1)
    prod = np.matmul(a.astype(np.int64) - za, b.astype(np.int64) - zb)
    return wrap32(wrap32(prod) + np.asarray(bias, dtype=np.int64))


def dequant(x, scale=None, float_bias=None, clamp=None):
    """The float stage: each step one float32 operation."""
    y = wrap32(x).astype(np.float32)
    if isinstance(scale, tuple):
        rows, cols = (np.asarray(s, dtype=np.float32) for s in scale)
        y = (y * rows.reshape(-1, 1)) * cols.reshape(1, -1)
    elif scale is not None:
        y = y * np.asarray(scale, dtype=np.float32)
    if float_bias is not None:
        y = y + np.asarray(float_bias, dtype=np.float32)
    if clamp is not None:
        lo, hi = np.float32(clamp[0]), np.float32(clamp[1])
        y = np.where(y < lo, lo, np.where(y > hi, hi, y))
    return y.astype(np.float32)


def _high_mul(a, b):
    """gemmlowp's SaturatingRoundingDoublingHighMul on int64 arrays."""
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    q = ab + nudge
    # Division truncating toward zero, as C's.
    r = np.where(q >= 0, q >> 31, -((-q) >> 31))
    return np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, r)


def _divide_by_pot(x, e):
    mask = (np.int64(1) << e) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> e) + (remainder > threshold)


def round_tflite(x, multiplier, shift):
    x = np.asarray(x, dtype=np.int64)
    m = np.asarray(multiplier, dtype=np.int64)
    s = np.asarray(shift, dtype=np.int64)
    left = wrap32(x << np.maximum(s, 0))
    return _divide_by_pot(_high_mul(left, m), np.maximum(-s, 0))


def round_single(x, multiplier, shift):
    x = np.asarray(x, dtype=np.int64)
    m = np.asarray(multiplier, dtype=np.int64)
    s = np.asarray(shift, dtype=np.int64)
    return (x * m + (np.int64(1) << (30 - s))) >> (31 - s)


def round_float(x, scale):
    y = wrap32(x).astype(np.float32) * np.asarray(scale, dtype=np.float32)
    return np.rint(y.astype(np.float32)).astype(np.int64)


def requant(x, dtype, rounding, out_zero_point=0, clamp=None, **params):
    """The int8/uint8 stage: the named rule, the zero point, the clamp."""
    rule = {"tflite": round_tflite, "single": round_single, "float": round_float}[rounding]
    y = rule(x, **params) + out_zero_point
    info = np.iinfo(dtype)
    lo, hi = clamp if clamp is not None else (info.min, info.max)
    return np.clip(y, lo, hi).astype(dtype)
