"""From float to int8 and back, in NumPy's shapes and ONNX's axis.

qmm's C calls take row-major matrices with one parameter per matrix, row or
column; these functions take arrays of any shape and ONNX's `axis` (the
dimension the scales run along: axis=0 of a matrix is one scale per row,
axis=1 one per column) and call them on 2-D views.
"""
import numpy as np

from . import _qmm

_PER_MATRIX, _PER_ROW, _PER_COL = 1, 2, 3
_TYPES = {np.dtype(np.int8): 0, np.dtype(np.uint8): 1}


def _float_array(x, fn):
    x = np.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"{fn}: x must be a float32 or float64 array, not {x.dtype}")
    return x


def _int_type(dtype, fn):
    dtype = np.dtype(dtype)
    if dtype not in _TYPES:
        raise TypeError(f"{fn}: dtype must be int8 or uint8, not {dtype}")
    return _TYPES[dtype]


def _axis(axis, ndim, fn):
    if axis is None:
        return None
    if not -ndim <= axis < ndim:
        raise ValueError(f"{fn}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def _shaped(x, rows, cols):
    """x as a rows x cols matrix; a size-0 array as any such shape."""
    return x.reshape(rows, cols) if x.size else np.empty((rows, cols), x.dtype)


def _matrix(x, axis):
    """x as the matrix qmm's calls take and how the parameters run along it:
    per tensor, rows of the last dimension (several rows, so that the passes
    split them over threads); along an axis, that axis as the columns when
    it is the last, else as the rows (moved first when it is in the middle,
    a copy). Returns (matrix, per, back) with back(q) giving q x's shape."""
    if axis is None:
        cols = x.shape[-1] if x.ndim >= 2 and x.shape[-1] else max(x.size, 1)
        return (_shaped(x, x.size // cols, cols), _PER_MATRIX,
                lambda q: q.reshape(x.shape))
    lines = x.shape[axis]
    others = x.size // lines if lines else 0
    if axis == x.ndim - 1:
        return _shaped(x, others, lines), _PER_COL, lambda q: q.reshape(x.shape)
    moved = np.moveaxis(x, axis, 0)
    return (_shaped(moved, lines, others), _PER_ROW,
            lambda q: np.ascontiguousarray(np.moveaxis(q.reshape(moved.shape), 0, axis)))


def _params(values, axis):
    """A call's parameters: 0-d per tensor, one per index of the axis."""
    return values.reshape(()) if axis is None else values


def quantize_symmetric(x, axis=None):
    """Symmetric int8: per tensor (axis=None) or per slice along `axis`,
    scale = max|x| / 127 and q = round(x / scale) clamped to [-127, 127]
    (round half to even; a line of zeros gets scale 0 and q = 0).

    Returns (q, scale): q int8 of x's shape, scale of x's float type, a 0-d
    array per tensor or one value per index of `axis`."""
    fn = "qmm.quantize_symmetric"
    x = _float_array(x, fn)
    axis = _axis(axis, x.ndim, fn)
    m, per, back = _matrix(x, axis)
    q, scales = _qmm._quantize_symmetric(m, per)
    return back(q), _params(scales, axis)


def quantize_asymmetric(x, dtype=np.uint8, axis=None):
    """Asymmetric, as ONNX's DynamicQuantizeLinear (uint8) or its int8 form:
    the range [min(0, min x), max(0, max x)] over qmax - qmin steps, the zero
    point where 0.0 lands, q = clamp(round(x / scale) + zero_point).

    Returns (q, scale, zero_point): zero points as int32, scales of x's
    float type; 0-d arrays per tensor, one per index of `axis` otherwise."""
    fn = "qmm.quantize_asymmetric"
    x = _float_array(x, fn)
    axis = _axis(axis, x.ndim, fn)
    qtype = _int_type(dtype, fn)
    m, per, back = _matrix(x, axis)
    q, scales, zero_points = _qmm._quantize_asymmetric(m, per, None, None, qtype)
    return back(q), _params(scales, axis), _params(zero_points, axis)


def _line_values(values, lines, fn, what, dtype):
    values = np.asarray(values)
    if values.size != lines and values.size != 1:
        raise ValueError(f"{fn}: {what} has {values.size} values, {lines} wanted")
    if np.issubdtype(dtype, np.integer) and not (np.issubdtype(values.dtype, np.integer)
                                                 or values.dtype == np.bool_):
        raise TypeError(f"{fn}: {what} must be integers, not {values.dtype}")
    return np.broadcast_to(values.reshape(-1), (lines,)).astype(dtype)


def quantize(x, scale, zero_point=None, axis=None, dtype=None):
    """ONNX's QuantizeLinear with given parameters (static quantization):
    q = clamp(round(x / scale) + zero_point) to int8 or uint8, the quotient
    one operation of x's float type and round half to even.

    scale and zero_point are one value (axis=None) or one per index of
    `axis`. The result's dtype is zero_point's when it is an int8 or uint8
    array, else `dtype` (uint8 by default, as in ONNX)."""
    fn = "qmm.quantize"
    x = _float_array(x, fn)
    axis = _axis(axis, x.ndim, fn)
    if dtype is None:
        zd = getattr(zero_point, "dtype", None)
        dtype = zd if zd in _TYPES else np.uint8
    qtype = _int_type(dtype, fn)
    lines = 1 if axis is None else x.shape[axis]
    scales = _line_values(scale, lines, fn, "scale", x.dtype)
    zps = None if zero_point is None else _line_values(zero_point, lines, fn, "zero_point",
                                                       np.int32)
    m, per, back = _matrix(x, axis)
    return back(_qmm._quantize(m, per, scales, zps, qtype))


def dequantize(q, scale, zero_point=None, axis=None):
    """ONNX's DequantizeLinear: x = (q - zero_point) * scale, the difference
    exact and the product one operation of scale's float type (float32
    unless scale is a float64 array). q is int8 or uint8 of any shape;
    scale and zero_point one value (axis=None) or one per index of `axis`."""
    fn = "qmm.dequantize"
    q = np.asarray(q)
    _int_type(q.dtype, fn)
    axis = _axis(axis, q.ndim, fn)
    ftype = np.float64 if getattr(scale, "dtype", None) == np.float64 else np.float32
    lines = 1 if axis is None else q.shape[axis]
    scales = _line_values(scale, lines, fn, "scale", ftype)
    zps = None if zero_point is None else _line_values(zero_point, lines, fn, "zero_point",
                                                       np.int32)
    m, per, back = _matrix(q, axis)
    return back(_qmm._dequantize(m, per, scales, zps, np.dtype(ftype).num))
