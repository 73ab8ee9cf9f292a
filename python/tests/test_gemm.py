"""qmm.gemm against the header's definitions (reference.py): every dtype
pair, zero-point kind, output stage and rounding rule; parameters by shape;
refusals that leave out untouched."""
import itertools

import numpy as np
import pytest

import qmm
import reference as ref

RNG = np.random.default_rng(7)
M, N, K = 37, 29, 61
DTYPES = [np.int8, np.uint8]


def rand(shape, dtype):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def zero_point(kind, dtype, lines):
    """A zero point in the operand's range: absent, one, or one per line."""
    info = np.iinfo(dtype)
    if kind == "none":
        return None
    if kind == "scalar":
        return int(RNG.integers(info.min, info.max, endpoint=True))
    return RNG.integers(info.min, info.max, size=lines, endpoint=True)


@pytest.mark.parametrize("da,db", list(itertools.product(DTYPES, DTYPES)))
@pytest.mark.parametrize("za", ["none", "scalar", "lines"])
@pytest.mark.parametrize("zb", ["none", "scalar", "lines"])
def test_zero_points_int32(da, db, za, zb):
    a, b = rand((M, K), da), rand((K, N), db)
    zpa, zpb = zero_point(za, da, M), zero_point(zb, db, N)
    got = qmm.gemm(a, b, a_zero_point=zpa, b_zero_point=zpb)
    want = ref.acc(a, b, 0 if zpa is None else zpa, 0 if zpb is None else zpb)
    np.testing.assert_array_equal(got, want.astype(np.int32))


def test_zero_point_shapes():
    a, b = rand((M, K), np.uint8), rand((K, N), np.int8)
    zpa = RNG.integers(0, 255, size=M)
    want = ref.acc(a, b, zpa, 0)
    np.testing.assert_array_equal(qmm.gemm(a, b, a_zero_point=zpa.reshape(M, 1)), want)
    np.testing.assert_array_equal(qmm.gemm(a, b, a_zero_point=zpa.astype(np.uint8)), want)
    zpb = RNG.integers(-128, 127, size=N)
    np.testing.assert_array_equal(qmm.gemm(a, b, b_zero_point=zpb.reshape(1, N)),
                                  ref.acc(a, b, 0, zpb))
    np.testing.assert_array_equal(qmm.gemm(a, b, a_zero_point=np.array([7])),
                                  ref.acc(a, b, 7, 0))


@pytest.mark.parametrize("bias_kind", ["scalar", "row", "col"])
def test_int32_bias(bias_kind):
    a, b = rand((M, K), np.int8), rand((K, N), np.int8)
    bias = {"scalar": np.int32(2**31 - 5), "row": RNG.integers(-2**31, 2**31 - 1, (M, 1)),
            "col": RNG.integers(-2**31, 2**31 - 1, N)}[bias_kind]
    got = qmm.gemm(a, b, bias=bias, a_zero_point=3)
    np.testing.assert_array_equal(got, ref.acc(a, b, 3, 0, bias))


@pytest.mark.parametrize("scale_kind", ["none", "scalar", "row", "col", "row_col"])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("with_clamp", [False, True])
def test_float_stage(scale_kind, with_bias, with_clamp):
    a, b = rand((M, K), np.uint8), rand((K, N), np.int8)
    rows, cols = RNG.uniform(1e-4, 1e-2, M), RNG.uniform(1e-3, 1e-1, N)
    scale = {"none": None, "scalar": 0.0123, "row": rows.reshape(M, 1), "col": cols,
             "row_col": (rows, cols)}[scale_kind]
    fbias = RNG.standard_normal(N) if with_bias else None
    clamp = (-20.5, 30.25) if with_clamp else None
    got = qmm.gemm(a, b, a_zero_point=128, b_zero_point=1, bias=5, out_dtype=np.float32,
                   scale=scale, float_bias=fbias, clamp=clamp)
    want = ref.dequant(ref.acc(a, b, 128, 1, 5), scale, fbias, clamp)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def multiplier_of(real):
    """TFLite's QuantizeMultiplier: real = M * 2^(s - 31), M in [2^30, 2^31)."""
    mant, exp = np.frexp(real)
    m = np.round(mant * 2**31).astype(np.int64)
    exp = np.where(m == 2**31, exp + 1, exp)
    m = np.where(m == 2**31, 2**30, m)
    return m, exp


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("rounding", ["float", "tflite", "single"])
@pytest.mark.parametrize("per", ["scalar", "row", "col"])
@pytest.mark.parametrize("with_clamp", [False, True])
def test_requantization(dtype, rounding, per, with_clamp):
    a, b = rand((M, K), np.uint8), rand((K, N), np.int8)
    real = {"scalar": np.float64(3e-4), "row": RNG.uniform(1e-4, 1e-3, M),
            "col": RNG.uniform(1e-4, 1e-3, N)}[per]
    shape = {"scalar": (), "row": (M, 1), "col": (N,)}[per]
    info = np.iinfo(dtype)
    zp = int(info.min + 100)
    clamp = (int(info.min) + 10, int(info.max) - 20) if with_clamp else None
    x = ref.acc(a, b, 131, -3, 1000)
    if rounding == "float":
        kwargs = {"scale": np.asarray(real, dtype=np.float32).reshape(shape)}
        want = ref.requant(x, dtype, "float", zp, clamp,
                           scale=np.asarray(real, dtype=np.float32).reshape(shape))
    else:
        mult, shift = multiplier_of(np.asarray(real))
        kwargs = {"rounding": rounding, "multiplier": mult.reshape(shape),
                  "shift": shift.reshape(shape)}
        want = ref.requant(x, dtype, rounding, zp, clamp, multiplier=mult.reshape(shape),
                           shift=shift.reshape(shape))
    got = qmm.gemm(a, b, a_zero_point=131, b_zero_point=-3, bias=1000, out_dtype=dtype,
                   out_zero_point=zp, clamp=clamp, **kwargs)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)


def test_rounding_rules_differ_where_the_header_says():
    """x = 1, M = 2^30, s = -1 is 0.25: TFLite's two roundings give 1, one
    rounding gives 0 (include/qmm/qmm.h)."""
    a = np.ones((1, 1), dtype=np.int8)
    kw = dict(out_dtype=np.int8, multiplier=2**30, shift=-1)
    tfl = qmm.gemm(a, a, rounding="tflite", **kw)[0, 0]
    single = qmm.gemm(a, a, rounding="single", **kw)[0, 0]
    assert tfl == ref.round_tflite(1, 2**30, -1) and single == ref.round_single(1, 2**30, -1)
    # 0.5 exactly: ties to even under 'float'.
    for x, want in [(1, 0), (3, 2), (5, 2)]:
        b = np.full((1, 1), x, dtype=np.int8)
        assert qmm.gemm(a, b, out_dtype=np.int8, scale=0.5)[0, 0] == want


def test_one_rounding_of_each_shift_extreme():
    a = rand((8, 40), np.int8)
    b = rand((40, 8), np.int8)
    x = ref.acc(a, b)
    for rounding in ["tflite", "single"]:
        for shift in [-31, -5, 0, 7, 30]:
            for mult in [0, 1, 2**30, 2**31 - 1]:
                got = qmm.gemm(a, b, out_dtype=np.int8, rounding=rounding, multiplier=mult,
                               shift=shift)
                np.testing.assert_array_equal(
                    got, ref.requant(x, np.int8, rounding, multiplier=mult, shift=shift),
                    err_msg=f"{rounding} M={mult} s={shift}")


def test_stacked_gemm_applies_parameters_to_each_matrix():
    a, b = rand((3, M, K), np.uint8), rand((K, N), np.int8)
    cols = RNG.uniform(1e-3, 1e-2, N).astype(np.float32)
    got = qmm.gemm(a, b, a_zero_point=9, out_dtype=np.float32, scale=cols)
    for i in range(3):
        np.testing.assert_array_equal(got[i], ref.dequant(ref.acc(a[i], b, 9), cols))


def test_k0_runs_the_stage_on_zero_sums():
    a, b = rand((4, 0), np.uint8), rand((0, 3), np.int8)
    np.testing.assert_array_equal(qmm.gemm(a, b, bias=np.arange(3)), np.tile(np.arange(3), (4, 1)))
    got = qmm.gemm(a, b, out_dtype=np.uint8, scale=0.5, out_zero_point=17)
    assert (got == 17).all() and got.dtype == np.uint8


def test_strided_operands_and_out():
    a = rand((80, 2 * K), np.uint8)[::2, ::2]
    b = np.ascontiguousarray(rand((N, K), np.int8)).T
    out = np.zeros((N, 40), dtype=np.float32).T
    qmm.gemm(a, b, a_zero_point=128, out_dtype=np.float32, scale=0.5, out=out)
    np.testing.assert_array_equal(out, ref.dequant(ref.acc(a, b, 128), 0.5))


@pytest.mark.parametrize("kwargs,error,match", [
    ({"a_zero_point": 300}, qmm.InvalidArgumentError, "invalid argument"),
    ({"a_zero_point": [1, 2]}, ValueError, "shape"),
    ({"b_zero_point": np.zeros(M, dtype=int)}, ValueError, "shape"),
    ({"a_zero_point": 1.5}, TypeError, "integers"),
    ({"a_zero_point": 2**40}, ValueError, "int32"),
    ({"bias": np.zeros((M, N), dtype=int)}, ValueError, "shape"),
    ({"out_dtype": np.int16}, TypeError, "out_dtype"),
    ({"out_dtype": np.float32, "scale": np.nan}, qmm.InvalidArgumentError, "invalid"),
    ({"out_dtype": np.float32, "float_bias": np.inf}, qmm.InvalidArgumentError, "invalid"),
    ({"out_dtype": np.float32, "clamp": (2.0, 1.0)}, qmm.InvalidArgumentError, "invalid"),
    ({"out_dtype": np.float32, "clamp": (np.nan, 1.0)}, qmm.InvalidArgumentError, "invalid"),
    ({"out_dtype": np.float32, "scale": (np.ones(M), np.ones(3))}, ValueError, "values"),
    ({"scale": 0.5}, ValueError, "does not apply"),
    ({"out_dtype": np.float32, "rounding": "float"}, ValueError, "does not apply"),
    ({"out_dtype": np.int8}, ValueError, "needs scale"),
    ({"out_dtype": np.int8, "scale": 0.0}, qmm.InvalidArgumentError, "invalid"),
    ({"out_dtype": np.int8, "scale": -1.0}, qmm.InvalidArgumentError, "invalid"),
    ({"out_dtype": np.int8, "rounding": "nearest", "scale": 1.0}, ValueError, "rounding"),
    ({"out_dtype": np.int8, "multiplier": 2**30}, ValueError, "rounding"),
    ({"out_dtype": np.int8, "rounding": "tflite", "scale": 1.0}, ValueError, "multiplier"),
    ({"out_dtype": np.int8, "rounding": "single", "multiplier": 2**30, "shift": 31},
     qmm.InvalidArgumentError, "invalid"),
    ({"out_dtype": np.int8, "rounding": "single", "multiplier": -1},
     qmm.InvalidArgumentError, "invalid"),
    ({"out_dtype": np.uint8, "scale": 1.0, "out_zero_point": 256},
     qmm.InvalidArgumentError, "invalid"),
    ({"out_dtype": np.int8, "scale": 1.0, "clamp": (-200, 0)},
     qmm.InvalidArgumentError, "invalid"),
])
def test_refusals_leave_out_untouched(kwargs, error, match):
    a, b = rand((M, K), np.uint8), rand((K, N), np.int8)
    dtype = kwargs.get("out_dtype", np.int32)
    dtype = dtype if dtype in (np.int32, np.float32, np.int8, np.uint8) else np.int32
    out = np.full((M, N), 3, dtype=dtype)
    with pytest.raises(error, match=match):
        qmm.gemm(a, b, out=out, **kwargs)
    assert (out == 3).all()


def test_errors_are_qmm_errors_and_builtins():
    assert issubclass(qmm.InvalidArgumentError, qmm.Error)
    assert issubclass(qmm.InvalidArgumentError, ValueError)
    assert issubclass(qmm.OutOfMemoryError, MemoryError)
    assert issubclass(qmm.UnsupportedError, RuntimeError)
    assert issubclass(qmm.UnknownKernelError, LookupError)
    assert qmm.InvalidArgumentError.status == 1
