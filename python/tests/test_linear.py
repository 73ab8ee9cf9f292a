"""qmm.Linear: weights packed once in either layout, called per batch."""
import threading

import numpy as np
import pytest

import qmm
import reference as ref

RNG = np.random.default_rng(11)
IN, OUT = 96, 40


def rand(shape, dtype):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


@pytest.mark.parametrize("layout", ["out_in", "in_out"])
@pytest.mark.parametrize("wdtype", [np.int8, np.uint8])
@pytest.mark.parametrize("xdtype", [np.int8, np.uint8])
@pytest.mark.parametrize("zp_kind", ["none", "scalar", "channel"])
def test_layouts_and_zero_points(layout, wdtype, xdtype, zp_kind):
    w = rand((OUT, IN) if layout == "out_in" else (IN, OUT), wdtype)
    b = w.T if layout == "out_in" else w
    info = np.iinfo(wdtype)
    zp = {"none": None, "scalar": int(info.min) + 77,
          "channel": RNG.integers(info.min, info.max, OUT, endpoint=True)}[zp_kind]
    layer = qmm.Linear(w, zp, layout=layout)
    assert (layer.in_features, layer.out_features, layer.layout) == (IN, OUT, layout)
    assert layer.dtype == wdtype
    for rows in [1, 5, 130]:
        x = rand((rows, IN), xdtype)
        got = layer(x, x_zero_point=3)
        np.testing.assert_array_equal(got, ref.acc(x, b, 3, 0 if zp is None else zp))


def test_weights_may_change_after_packing():
    w = rand((OUT, IN), np.int8)
    layer = qmm.Linear(w)
    x = rand((7, IN), np.uint8)
    want = ref.acc(x, w.T)
    w[:] = 0
    np.testing.assert_array_equal(layer(x), want)


def test_stages_and_leading_dimensions():
    w = rand((OUT, IN), np.int8)
    layer = qmm.Linear(w, np.int8(0))
    x = rand((2, 3, 4, IN), np.uint8)
    scale = RNG.uniform(1e-3, 1e-2, OUT).astype(np.float32)
    bias = RNG.integers(-1000, 1000, OUT)
    got = layer(x, x_zero_point=128, bias=bias, out_dtype=np.float32, scale=scale,
                float_bias=np.float32(0.25))
    assert got.shape == (2, 3, 4, OUT) and got.dtype == np.float32
    flat = x.reshape(-1, IN)
    want = ref.dequant(ref.acc(flat, w.T, 128, 0, bias), scale, np.float32(0.25))
    np.testing.assert_array_equal(got.reshape(-1, OUT), want)
    q = layer(x[0, 0], x_zero_point=128, out_dtype=np.uint8, scale=0.001, out_zero_point=9)
    np.testing.assert_array_equal(
        q, ref.requant(ref.acc(x[0, 0], w.T, 128), np.uint8, "float", 9, scale=0.001))
    v = layer(x[0, 0, 0])
    assert v.shape == (OUT,)
    np.testing.assert_array_equal(v, ref.acc(x[0, 0, 0][None], w.T)[0])


def test_strided_inputs_and_outputs():
    w = np.ascontiguousarray(rand((IN, OUT), np.int8).T)[:, ::-1]
    layer = qmm.Linear(w)
    x = rand((3, 20, 2 * IN), np.int8)[:, ::2, ::2]       # rows that do not merge: copied
    out = np.zeros((3, 10, 2 * OUT), dtype=np.int32)[:, :, ::2]
    assert layer(x, out=out) is out
    np.testing.assert_array_equal(out.reshape(-1, OUT), ref.acc(x.reshape(-1, IN), w.T))
    empty = layer(np.zeros((0, IN), dtype=np.uint8))
    assert empty.shape == (0, OUT)


def test_calls_from_threads_share_one_layer():
    w = rand((OUT, IN), np.int8)
    layer = qmm.Linear(w)
    xs = [rand((33, IN), np.uint8) for _ in range(8)]
    results = [None] * len(xs)

    def work(i):
        for _ in range(20):
            results[i] = layer(xs[i], x_zero_point=i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, x in enumerate(xs):
        np.testing.assert_array_equal(results[i], ref.acc(x, w.T, i))


def test_refusals():
    with pytest.raises(TypeError, match="int8 or uint8"):
        qmm.Linear(np.zeros((4, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="2-D"):
        qmm.Linear(np.zeros(4, dtype=np.int8))
    with pytest.raises(ValueError, match="layout"):
        qmm.Linear(np.zeros((4, 4), dtype=np.int8), layout="rows")
    with pytest.raises(qmm.InvalidArgumentError):
        qmm.Linear(np.zeros((4, 4), dtype=np.int8), 200)
    with pytest.raises(ValueError, match="shape"):
        qmm.Linear(np.zeros((4, 5), dtype=np.int8), np.zeros(5, dtype=int))
    layer = qmm.Linear(np.zeros((4, 5), dtype=np.int8))
    with pytest.raises(ValueError, match="in_features"):
        layer(np.zeros((3, 4), dtype=np.int8))
    with pytest.raises(TypeError, match="unexpected keyword"):
        layer(np.zeros((3, 5), dtype=np.int8), b_zero_point=1)
    out = np.full((3, 4), 5, dtype=np.int32)
    with pytest.raises(qmm.InvalidArgumentError):
        layer(np.zeros((3, 5), dtype=np.uint8), x_zero_point=256, out=out)
    assert (out == 5).all()
    assert layer.kernel_name(3) is not None and layer.kernel_name(0) is None
