"""Float and double GEMM through int8: the INT8 recipe in one call and the
FP64/FP32 emulations, against NumPy's float64 product."""
import numpy as np
import pytest

import qmm
import reference as ref

RNG = np.random.default_rng(3)


def rel_l2(got, want):
    return np.linalg.norm(got - want) / np.linalg.norm(want)


def test_sgemm_i8_is_the_recipe():
    """The one call equals the recipe's steps done one by one."""
    a = RNG.standard_normal((50, 70)).astype(np.float32)
    b = RNG.standard_normal((70, 40)).astype(np.float32)
    qa, sa = qmm.quantize_symmetric(a, axis=0)
    qb, sb = qmm.quantize_symmetric(b, axis=1)
    steps = qmm.gemm(qa, qb, out_dtype=np.float32, scale=(sa, sb))
    np.testing.assert_array_equal(qmm.sgemm_i8(a, b), steps)
    np.testing.assert_array_equal(steps, ref.dequant(ref.acc(qa, qb), (sa, sb)))
    assert rel_l2(steps, a.astype(np.float64) @ b) < 2e-2
    per_tensor = qmm.sgemm_i8(a, b, per_channel=False)
    assert per_tensor.dtype == np.float32 and rel_l2(per_tensor, a.astype(np.float64) @ b) < 3e-2


@pytest.mark.parametrize("shape", [(1, 1, 1), (33, 47, 65), (64, 1, 300), (1, 64, 300)])
def test_fp64_emulation_matches_float64(shape):
    m, n, k = shape
    a, b = RNG.standard_normal((m, k)), RNG.standard_normal((k, n))
    want = a @ b
    for got in [qmm.dgemm_crt(a, b), qmm.dgemm_i8(a, b)]:
        assert got.dtype == np.float64 and got.shape == (m, n)
        assert rel_l2(got, want) < 1e-14
    fewer = qmm.dgemm_i8(a, b, slices=2)
    assert 1e-14 < rel_l2(fewer, want) < 1e-2
    assert rel_l2(qmm.dgemm_crt(a, b, moduli=6), want) > rel_l2(qmm.dgemm_crt(a, b), want)


def test_sgemm_crt_has_float32_accuracy():
    a = RNG.standard_normal((40, 200)).astype(np.float32)
    b = RNG.standard_normal((200, 30)).astype(np.float32)
    got = qmm.sgemm_crt(a, b)
    want = a.astype(np.float64) @ b
    assert got.dtype == np.float32
    assert rel_l2(got, want) <= 2 * rel_l2((a @ b).astype(np.float64), want) + 1e-7


def test_views_and_empty():
    a = RNG.standard_normal((30, 20))
    b = RNG.standard_normal((30, 40))[:, ::2]
    np.testing.assert_array_equal(qmm.dgemm_crt(a.T, b), qmm.dgemm_crt(a.T.copy(), b.copy()))
    assert qmm.dgemm_crt(np.zeros((0, 3)), np.zeros((3, 4))).shape == (0, 4)
    assert (qmm.dgemm_i8(np.zeros((2, 0)), np.zeros((0, 4))) == 0).all()


def test_refusals():
    a = np.ones((3, 3))
    with pytest.raises(TypeError, match="float64"):
        qmm.dgemm_crt(a.astype(np.float32), a)
    with pytest.raises(TypeError, match="float32"):
        qmm.sgemm_i8(a, a)
    with pytest.raises(ValueError, match="columns"):
        qmm.dgemm_i8(a, np.ones((4, 3)))
    with pytest.raises(ValueError, match="dimensions"):
        qmm.dgemm_crt(np.ones(3), a)
    bad = a.copy()
    bad[0, 0] = np.inf
    with pytest.raises(qmm.InvalidArgumentError):
        qmm.dgemm_crt(bad, a)
    for kw in [{"slices": 0}, {"slices": 17}]:
        with pytest.raises(qmm.InvalidArgumentError):
            qmm.dgemm_i8(a, a, **kw)
    with pytest.raises(qmm.InvalidArgumentError):
        qmm.dgemm_crt(a, a, moduli=17)
