"""ONNX's own node tests for the quantization operators, run on qmm.

The test data ships with ONNX (Debian: libonnx-testdata); each test feeds a
one-node model through this directory's onnx_backend.py (qmm's operators) and
compares the outputs the way ONNX does (same dtype,
np.testing.assert_allclose with the test's rtol/atol).
Only the quantization tests of the CPU device are collected; those whose
operators qmm does not implement are reported as skipped.
"""

import os
import re
import unittest

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the ONNX node tests need the onnx package")
from onnx import helper  # noqa: E402
from onnx.backend.test import BackendTest  # noqa: E402
from onnx.backend.test.loader import DATA_DIR  # noqa: E402

if not os.path.isfile(os.path.join(DATA_DIR, "node", "test_matmulinteger", "model.onnx")):
    pytest.skip(f"ONNX's node test data is not installed in {DATA_DIR} "
                "(Debian: libonnx-testdata)", allow_module_level=True)

from onnx_backend import QmmBackend  # noqa: E402

# The quantization node tests, CPU device only.
_SELECTED = re.compile(
    r"^test_(matmulinteger|qlinearmatmul_\w+|dynamicquantizelinear\w*|quantizelinear\w*"
    r"|dequantizelinear\w*|\w*convinteger\w*|qlinearconv)_cpu$")

# Tests that must pass: a backend that skips them has not been tested.
_MUST_PASS = {
    "test_matmulinteger_cpu",
    "test_qlinearmatmul_2D_cpu",
    "test_qlinearmatmul_3D_cpu",
    "test_dynamicquantizelinear_cpu",
    "test_dynamicquantizelinear_max_adjusted_cpu",
    "test_dynamicquantizelinear_min_adjusted_cpu",
    "test_quantizelinear_cpu",
    "test_quantizelinear_axis_cpu",
    "test_dequantizelinear_cpu",
    "test_dequantizelinear_axis_cpu",
}

# Tests of operators qmm does not implement (the _expanded variants use
# ReduceMin, Div, Clip...): they must be skipped, not failed.
_MUST_SKIP = {
    "test_qlinearconv_cpu",
    "test_convinteger_with_padding_cpu",
    "test_dynamicquantizelinear_expanded_cpu",
}


class _QmmBackendTest(BackendTest):
    """ONNX's BackendTest with an output comparison that runs on NumPy >= 1.24.

    onnx 1.12's assert_similar_outputs uses np.object, which NumPy 1.24
    removed, so every comparison would raise AttributeError.  This is the same
    check with the builtin `object`.
    """

    @classmethod
    def assert_similar_outputs(cls, ref_outputs, outputs, rtol, atol):
        np.testing.assert_equal(len(outputs), len(ref_outputs))
        for ref, out in zip(ref_outputs, outputs):
            if isinstance(out, (list, tuple)):
                cls.assert_similar_outputs(ref, out, rtol, atol)
            else:
                np.testing.assert_equal(out.dtype, ref.dtype)
                if ref.dtype == object:
                    np.testing.assert_array_equal(out, ref)
                else:
                    np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)


def _node_test_case():
    """A TestCase holding only the selected ONNX node tests.

    Built in a function so that BackendTest's own TestCase classes, which hold
    every ONNX test of both devices, never become module globals that pytest
    would collect.
    """
    all_node_tests = _QmmBackendTest(QmmBackend, __name__).test_cases["OnnxBackendNodeModelTest"]
    tests = {name: func for name, func in vars(all_node_tests).items() if _SELECTED.match(name)}
    return type("OnnxNodeTest", (unittest.TestCase,), tests)


OnnxNodeTest = _node_test_case()


def test_expected_node_tests_pass():
    """The quantization node tests really ran and passed; the others skipped."""
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(OnnxNodeTest).run(result)
    problems = [(test.id(), trace) for test, trace in result.failures + result.errors]
    assert not problems
    skipped = {test.id().rsplit(".", 1)[-1]: reason for test, reason in result.skipped}
    assert not _MUST_PASS & skipped.keys(), skipped
    assert _MUST_PASS <= {name for name in vars(OnnxNodeTest) if name.startswith("test_")}
    assert _MUST_SKIP <= skipped.keys()
    assert all("does not implement" in skipped[name] for name in _MUST_SKIP)


def _matmul_integer_node(with_zero_points=True):
    inputs = ["A", "B", "a_zero_point", "b_zero_point"] if with_zero_points else ["A", "B"]
    return helper.make_node("MatMulInteger", inputs, ["Y"])


def _random(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize("a_dtype, b_dtype", [(np.uint8, np.int8), (np.int8, np.uint8)])
@pytest.mark.parametrize("a_zp_shape, b_zp_shape", [
    ((), ()),                     # per tensor
    ((3,), (5,)),                 # per row of A, per column of B
    ((2, 3, 1), (2, 1, 5)),       # different for each matrix of the batch
    ((1, 3, 1), (2, 1, 1)),       # broadcast over the batch
])
def test_matmulinteger_zero_point_shapes(a_dtype, b_dtype, a_zp_shape, b_zp_shape):
    """MatMulInteger's zero point forms beyond the one ONNX's node test uses."""
    rng = np.random.default_rng(0)
    a, a_zp = _random(rng, a_dtype, (2, 3, 4)), _random(rng, a_dtype, a_zp_shape)
    b, b_zp = _random(rng, b_dtype, (4, 5)), _random(rng, b_dtype, b_zp_shape)
    (y,) = QmmBackend.run_node(_matmul_integer_node(), [a, b, a_zp, b_zp])
    # A 1-D zero point of A is per row: make it a column to broadcast.
    a_zp_nd = a_zp.reshape(-1, 1) if a_zp.ndim == 1 else a_zp
    expected = np.matmul(a.astype(np.int32) - a_zp_nd, b.astype(np.int32) - b_zp)
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, expected)


def test_unsupported_input_type_is_skipped():
    """An int32 input is not a qmm type: reported as skipped, not failed."""
    node = _matmul_integer_node(with_zero_points=False)
    a = np.ones((2, 2), np.int32)
    with pytest.raises(unittest.SkipTest, match="MatMulInteger with int32 input"):
        QmmBackend.run_node(node, [a, a])


def test_supports_cpu_only():
    """CPU only, so BackendTest skips the _cuda variants of the tests."""
    assert QmmBackend.supports_device("CPU")
    assert not QmmBackend.supports_device("CUDA")
