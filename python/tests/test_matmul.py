"""qmm.matmul against NumPy's int64 product: dtype pairs, strided and
broadcast views, 1-D operands, empty and k = 0 products, out=, errors."""
import numpy as np
import pytest

import qmm
from reference import acc, wrap32

RNG = np.random.default_rng(20261126)
DTYPES = [np.int8, np.uint8]


def rand(shape, dtype):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def want(a, b):
    return wrap32(np.matmul(a.astype(np.int64), b.astype(np.int64))).astype(np.int32)


@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("db", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 5, 3), (64, 70, 33), (1, 200, 300),
                                   (150, 1, 260), (129, 257, 65)])
def test_dtype_pairs(da, db, shape):
    m, n, k = shape
    a, b = rand((m, k), da), rand((k, n), db)
    c = qmm.matmul(a, b)
    assert c.dtype == np.int32 and c.shape == (m, n)
    np.testing.assert_array_equal(c, want(a, b))


def test_extremes_wrap_around():
    """-128 * -128 summed deep enough leaves int32: the sum wraps, exactly."""
    k = 140000
    a = np.full((2, k), -128, dtype=np.int8)
    b = np.full((k, 3), -128, dtype=np.int8)
    np.testing.assert_array_equal(qmm.matmul(a, b), want(a, b))
    assert want(a, b)[0, 0] != 128 * 128 * k


@pytest.mark.parametrize("view", ["transposed", "sliced", "reversed", "column-major",
                                  "broadcast-row", "negative-both"])
def test_strided_views_read_in_place(view):
    base_a, base_b = rand((90, 120), np.int8), rand((120, 80), np.uint8)
    views = {
        "transposed": (np.ascontiguousarray(base_a.T).T, np.ascontiguousarray(base_b.T).T),
        "sliced": (base_a[::3, 1::2], base_b[1::2, ::5]),
        "reversed": (base_a[::-1], base_b[:, ::-1]),
        "column-major": (np.asfortranarray(base_a), np.asfortranarray(base_b)),
        "broadcast-row": (np.broadcast_to(base_a[:1], base_a.shape), base_b),
        "negative-both": (base_a[::-2, ::-1], base_b[::-1, ::-2]),
    }
    a, b = views[view]
    np.testing.assert_array_equal(qmm.matmul(a, b), want(a, b))


def test_stacks_broadcast_like_numpy():
    a = rand((3, 1, 20, 30), np.int8)
    b = rand((4, 30, 10), np.uint8)
    c = qmm.matmul(a, b)
    assert c.shape == (3, 4, 20, 10)
    np.testing.assert_array_equal(c, want(a, b))
    # A 2-D operand against a stack, and a stack with a broadcast (stride 0) axis.
    w = rand((30, 10), np.int8)
    np.testing.assert_array_equal(qmm.matmul(a, w), want(a, w))
    s = np.broadcast_to(rand((1, 30, 10), np.int8), (5, 30, 10))
    x = rand((5, 20, 30), np.int8)
    np.testing.assert_array_equal(qmm.matmul(x, s), want(x, s))


def test_vectors_like_numpy():
    a, b = rand((6, 9), np.int8), rand((9, 4), np.int8)
    v, w = rand(9, np.uint8), rand(9, np.int8)
    for x, y in [(v, b), (a, w), (v, w), (v, rand((3, 9, 4), np.int8)),
                 (rand((3, 6, 9), np.int8), w)]:
        got, ref = qmm.matmul(x, y), np.matmul(x.astype(np.int64), y.astype(np.int64))
        assert got.shape == ref.shape
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("shape", [(0, 5, 3), (4, 0, 3), (4, 5, 0), (0, 0, 0)])
def test_empty_and_k0(shape):
    m, n, k = shape
    c = qmm.matmul(rand((m, k), np.int8), rand((k, n), np.uint8))
    assert c.shape == (m, n) and c.dtype == np.int32
    assert (c == 0).all()
    stacked = qmm.matmul(rand((0, m, k), np.int8), rand((k, n), np.int8))
    assert stacked.shape == (0, m, n)


def test_out_is_written_and_returned():
    a, b = rand((20, 30), np.int8), rand((30, 10), np.int8)
    out = np.full((20, 10), 7, dtype=np.int32)
    assert qmm.matmul(a, b, out=out) is out
    np.testing.assert_array_equal(out, want(a, b))
    # A strided out (every other column of a wider array), and a transposed one.
    wide = np.zeros((20, 20), dtype=np.int32)
    qmm.matmul(a, b, out=wide[:, ::2])
    np.testing.assert_array_equal(wide[:, ::2], want(a, b))
    assert (wide[:, 1::2] == 0).all()
    t = np.zeros((10, 20), dtype=np.int32).T
    qmm.matmul(a, b, out=t)
    np.testing.assert_array_equal(t, want(a, b))


def test_unaligned_out_goes_through_a_copy():
    a, b = rand((8, 16), np.int8), rand((16, 4), np.int8)
    raw = np.zeros(8 * 4 * 4 + 1, dtype=np.uint8)
    out = raw[1:].view(np.int32).reshape(8, 4)
    assert not out.flags.aligned
    qmm.matmul(a, b, out=out)
    np.testing.assert_array_equal(out, want(a, b))


def test_wrong_dtypes_are_type_errors():
    a = rand((4, 5), np.int8)
    for bad in [a.astype(np.int16), a.astype(np.float32), a.astype(np.int32), a.tolist()]:
        with pytest.raises(TypeError, match="int8 or uint8"):
            qmm.matmul(bad, rand((5, 3), np.int8))
    with pytest.raises(TypeError, match="out must be"):
        qmm.matmul(a, rand((5, 3), np.int8), out=np.zeros((4, 3), dtype=np.int64))
    with pytest.raises(TypeError, match="out must be"):
        qmm.matmul(a, rand((5, 3), np.int8), out=np.zeros((4, 3), dtype=">i4"))


def test_shape_errors_are_value_errors():
    with pytest.raises(ValueError, match="columns"):
        qmm.matmul(rand((4, 5), np.int8), rand((6, 3), np.int8))
    with pytest.raises(ValueError, match="broadcast"):
        qmm.matmul(rand((2, 4, 5), np.int8), rand((3, 5, 3), np.int8))
    with pytest.raises(ValueError, match="scalar"):
        qmm.matmul(np.int8(3), rand((5, 3), np.int8))
    with pytest.raises(ValueError, match="shape"):
        qmm.matmul(rand((4, 5), np.int8), rand((5, 3), np.int8),
                   out=np.zeros((3, 4), dtype=np.int32))


def test_bad_outputs_are_refused_untouched():
    a, b = rand((4, 4), np.int8), rand((4, 4), np.int8)
    ro = np.zeros((4, 4), dtype=np.int32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        qmm.matmul(a, b, out=ro)
    shared = np.broadcast_to(np.zeros((1, 4), dtype=np.int32), (4, 4))
    with pytest.raises(ValueError):
        qmm.matmul(a, b, out=shared)
    # out overlapping an input: C's rule, C untouched.
    buf = np.zeros(64, dtype=np.int32)
    a_in = buf.view(np.int8)[:16].reshape(4, 4)
    a_in[:] = rand((4, 4), np.int8)
    before = buf.copy()
    with pytest.raises(ValueError):
        qmm.matmul(a_in, b, out=buf[:16].reshape(4, 4))
    np.testing.assert_array_equal(buf, before)
    # Across a stack: out's first matrix lies on a's second, which a call per
    # matrix would not see (each of out's matrices misses a's matrix of the
    # same index) and would overwrite before reading.
    buf = np.zeros(64, dtype=np.int32)
    raw = buf.view(np.int8)
    a2 = np.lib.stride_tricks.as_strided(raw[200:], shape=(2, 4, 4), strides=(-200, 4, 1))
    raw[:] = rand(raw.shape, np.int8)
    before = buf.copy()
    with pytest.raises(ValueError, match="overlaps"):
        qmm.matmul(a2, b, out=buf[:32].reshape(2, 4, 4))
    np.testing.assert_array_equal(buf, before)


def test_arguments():
    a, b = rand((2, 3), np.int8), rand((3, 2), np.int8)
    with pytest.raises(TypeError, match="missing"):
        qmm.matmul(a)
    with pytest.raises(TypeError, match="unexpected keyword"):
        qmm.matmul(a, b, c=1)
    with pytest.raises(TypeError, match="multiple values"):
        qmm.matmul(a, b, a=a)
    np.testing.assert_array_equal(qmm.matmul(b=b, a=a), want(a, b))
