"""qmm's quantize and dequantize helpers against NumPy in the same float
type: per tensor and along every axis, ONNX's rules."""
import numpy as np
import pytest

import qmm

RNG = np.random.default_rng(5)
FLOATS = [np.float32, np.float64]


def lines_view(x, axis):
    """x with `axis` first and the rest flattened: one row per line."""
    return np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)


def expand(values, x, axis):
    """Per-line values shaped to broadcast against x."""
    shape = [1] * x.ndim
    shape[axis] = -1
    return np.asarray(values).reshape(shape)


@pytest.mark.parametrize("ftype", FLOATS)
@pytest.mark.parametrize("shape,axis", [((30, 17), None), ((30, 17), 0), ((30, 17), 1),
                                        ((4, 5, 6), 1), ((4, 5, 6), -1), ((50,), None),
                                        ((50,), 0)])
def test_symmetric(ftype, shape, axis):
    x = (RNG.standard_normal(shape) * 10).astype(ftype)
    q, scale = qmm.quantize_symmetric(x, axis=axis)
    if axis is None:
        s = np.abs(x).max() / ftype(127)
        assert scale.shape == () and scale.dtype == ftype and scale == s
        want = np.clip(np.rint(x / s), -127, 127)
    else:
        s = np.abs(lines_view(x, axis)).max(axis=1) / ftype(127)
        np.testing.assert_array_equal(scale, s)
        want = np.clip(np.rint(x / expand(s, x, axis)), -127, 127)
    assert q.dtype == np.int8 and q.shape == x.shape
    np.testing.assert_array_equal(q, want.astype(np.int8))


@pytest.mark.parametrize("ftype", FLOATS)
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_asymmetric_is_dynamic_quantize_linear(ftype, dtype, axis):
    x = (RNG.standard_normal((23, 31)) * 3 + 1).astype(ftype)
    q, scale, zp = qmm.quantize_asymmetric(x, dtype=dtype, axis=axis)
    info = np.iinfo(dtype)
    lines = x.reshape(1, -1) if axis is None else lines_view(x, axis)
    lo = np.minimum(lines.min(axis=1), 0)
    hi = np.maximum(lines.max(axis=1), 0)
    s = (hi - lo) / ftype(int(info.max) - int(info.min))
    z = np.rint(np.clip(ftype(info.min) - lo / s, info.min, info.max)).astype(np.int64)
    if axis is None:
        s, z = s[0], z[0]
        want = np.clip(np.rint(x / s) + z, info.min, info.max)
        assert scale.shape == () and zp.shape == ()
    else:
        want = np.clip(np.rint(x / expand(s, x, axis)) + expand(z, x, axis), info.min, info.max)
    np.testing.assert_array_equal(scale, s)
    np.testing.assert_array_equal(zp, z)
    np.testing.assert_array_equal(q, want.astype(dtype))
    # The given-parameter quantization reproduces it, and 0.0 lands on the zero point.
    np.testing.assert_array_equal(qmm.quantize(x, scale, zp.astype(dtype), axis=axis), q)


@pytest.mark.parametrize("ftype", FLOATS)
@pytest.mark.parametrize("axis", [None, 0, 2, 1])
def test_quantize_given(ftype, axis):
    x = (RNG.standard_normal((3, 4, 5)) * 100).astype(ftype)
    x[0, 0, 0] = 1e30
    x[0, 0, 1] = -1e30
    lines = 1 if axis is None else x.shape[axis]
    scale = RNG.uniform(0.05, 2, lines).astype(ftype)
    zp = RNG.integers(-20, 20, lines).astype(np.int8)
    q = qmm.quantize(x, scale if axis is not None else scale[0],
                     zp if axis is not None else zp[0], axis=axis)
    assert q.dtype == np.int8
    if axis is None:
        want = np.clip(np.rint(x / scale[0]) + zp[0], -128, 127)
    else:
        want = np.clip(np.rint(x / expand(scale, x, axis)) + expand(zp, x, axis), -128, 127)
    np.testing.assert_array_equal(q, want.astype(np.int8))
    # No zero point: uint8 by default, as ONNX.
    assert qmm.quantize(x, 2.0).dtype == np.uint8
    assert qmm.quantize(np.array([0.5, 1.5, 2.5], ftype), 1.0, dtype=np.int8).tolist() == [0, 2, 2]


@pytest.mark.parametrize("qdtype", [np.uint8, np.int8])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_dequantize(qdtype, axis):
    info = np.iinfo(qdtype)
    q = RNG.integers(info.min, info.max, (9, 7), endpoint=True).astype(qdtype)
    lines = 1 if axis is None else q.shape[axis]
    scale = RNG.uniform(0.01, 1, lines).astype(np.float32)
    zp = RNG.integers(info.min, info.max, lines, endpoint=True)
    x = qmm.dequantize(q, scale if axis is not None else scale[0],
                       zp if axis is not None else zp[0], axis=axis)
    assert x.dtype == np.float32
    if axis is None:
        want = (q.astype(np.int32) - zp[0]).astype(np.float32) * scale[0]
    else:
        want = ((q.astype(np.int32) - expand(zp, q, axis)).astype(np.float32)
                * expand(scale, q, axis))
    np.testing.assert_array_equal(x, want)
    assert qmm.dequantize(q, np.float64(0.5)).dtype == np.float64


def test_round_trip_within_half_a_step():
    x = RNG.standard_normal((64, 48))
    q, scale = qmm.quantize_symmetric(x, axis=1)
    back = qmm.dequantize(q, scale, axis=1)
    assert back.dtype == np.float64
    assert (np.abs(back - x) <= scale / 2 * (1 + 1e-12)).all()


def test_strided_and_empty_inputs():
    x = RNG.standard_normal((20, 30)).astype(np.float32)
    q1, s1 = qmm.quantize_symmetric(x.T)
    q2, s2 = qmm.quantize_symmetric(np.ascontiguousarray(x.T))
    np.testing.assert_array_equal(q1, q2)
    assert s1 == s2
    q, s = qmm.quantize_symmetric(np.zeros((0, 4), np.float32), axis=1)
    assert q.shape == (0, 4) and s.shape == (4,)
    assert qmm.dequantize(np.zeros((3, 0), np.int8), 1.0).shape == (3, 0)


def test_refusals():
    x = np.ones((3, 3), np.float32)
    with pytest.raises(TypeError, match="float32 or float64"):
        qmm.quantize_symmetric(np.ones((3, 3), np.int32))
    with pytest.raises(TypeError, match="int8 or uint8"):
        qmm.quantize_asymmetric(x, dtype=np.int16)
    with pytest.raises(ValueError, match="axis"):
        qmm.quantize_symmetric(x, axis=2)
    bad = x.copy()
    bad[1, 1] = np.nan
    for call in [lambda: qmm.quantize_symmetric(bad), lambda: qmm.quantize_asymmetric(bad),
                 lambda: qmm.quantize(bad, 1.0)]:
        with pytest.raises(qmm.InvalidArgumentError):
            call()
    for scale in [0.0, -1.0, np.inf, np.nan]:
        with pytest.raises(qmm.InvalidArgumentError):
            qmm.quantize(x, scale)
    with pytest.raises(qmm.InvalidArgumentError):
        qmm.quantize(x, 1.0, 256)
    with pytest.raises(qmm.InvalidArgumentError):
        qmm.dequantize(np.ones((2, 2), np.int8), -1.0)
    with pytest.raises(ValueError, match="values"):
        qmm.quantize(x, np.ones(2, np.float32), axis=0)
    with pytest.raises(TypeError, match="integers"):
        qmm.quantize(x, 1.0, 1.5)
