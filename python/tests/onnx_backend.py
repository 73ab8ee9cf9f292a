"""A tiny ONNX backend on qmm, for running ONNX's own node tests
(test_onnx_nodes.py).

This is a reference backend, not an inference engine: it runs the nodes of a
graph one after another with NumPy arrays in between, and implements only the
integer-quantization operators that qmm provides (MatMulInteger,
QLinearMatMul, DynamicQuantizeLinear, QuantizeLinear, DequantizeLinear).  Its
purpose is to check qmm against ONNX's definition of these operators, using
the test data that ships with ONNX (``onnx.backend.test.BackendTest``).

A model that uses any other operator, or a supported operator with an input
type qmm does not handle, is rejected by :func:`prepare` with
``unittest.SkipTest`` so that test runners report it as skipped, not failed.

Example (from this directory)::

    import onnx
    import onnx_backend

    outputs = onnx_backend.run_model(onnx.load("model.onnx"), [a, b])
"""

from __future__ import annotations

import unittest
from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, Mapping, Optional, Sequence, Tuple

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference
from onnx.backend.base import Backend, BackendRep

import qmm

__all__ = ["QmmBackend", "QmmBackendRep", "backend", "prepare", "run_model",
           "run_node", "supports_device"]

_INT8_TYPES = frozenset({TensorProto.UINT8, TensorProto.INT8})
_FLOAT = frozenset({TensorProto.FLOAT})


def _unsupported(what: str) -> unittest.SkipTest:
    """The exception for what this backend does not implement.

    SkipTest, because ONNX's test runner (and pytest) report it as a skipped
    test: an operator missing here is a gap of this backend, not a wrong result.
    """
    return unittest.SkipTest(f"qmm's ONNX backend does not implement {what}")


# --------------------------------------------------------------------------
# Operators.  Each takes the node's inputs positionally (None for an omitted
# optional input) and its attributes as keywords, and returns a tuple of
# outputs.
# --------------------------------------------------------------------------

def _scalar(x: np.ndarray) -> int:
    """The integer value of a one-element zero point tensor."""
    if x.size != 1:
        raise ValueError(f"expected a scalar zero point, got shape {x.shape}")
    return int(x.reshape(()))


def _zero_point_matrix(zero_point: Optional[np.ndarray], vector_shape: Tuple[int, int]):
    """A MatMulInteger zero point as an int (per tensor) or a matrix.

    The spec allows a scalar, an M (or N) element vector, or an N-D tensor of
    shape [..., M, 1] for A (or [..., 1, N] for B).  A vector is reshaped to
    `vector_shape` ((-1, 1) for A, (1, -1) for B) so that every non-scalar
    zero point has the N-D form, and leading dimensions that are all 1 are
    dropped so that only truly per-matrix zero points keep batch dimensions.
    """
    if zero_point is None:
        return 0
    if zero_point.size == 1:
        return _scalar(zero_point)
    if zero_point.ndim == 1:
        zero_point = zero_point.reshape(vector_shape)
    if zero_point.ndim > 2 and int(np.prod(zero_point.shape[:-2])) == 1:
        zero_point = zero_point.reshape(zero_point.shape[-2:])
    return zero_point


def _has_batch(zero_point) -> bool:
    return isinstance(zero_point, np.ndarray) and zero_point.ndim > 2


def _as_vector(zero_point):
    """A scalar or 2-D zero point as qmm.gemm takes it: int or 1-D array."""
    return zero_point if isinstance(zero_point, int) else zero_point.reshape(-1)


def _matmul_integer(a, b, a_zero_point=None, b_zero_point=None):
    """MatMulInteger: int32 (A - a_zero_point) @ (B - b_zero_point), N-D."""
    a_zp = _zero_point_matrix(a_zero_point, (-1, 1))
    b_zp = _zero_point_matrix(b_zero_point, (1, -1))
    if _has_batch(a_zp) or _has_batch(b_zp):
        return (_batched_matmul_integer(a, b, a_zp, b_zp),)
    return (qmm.gemm(a, b, a_zero_point=_as_vector(a_zp), b_zero_point=_as_vector(b_zp)),)


def _batched_matmul_integer(a, b, a_zp, b_zp):
    """MatMulInteger whose zero points differ from one matrix to the next.

    qmm's zero points are per row/column of a single product, so broadcast
    everything to a common batch shape and multiply matrix by matrix.
    """
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError("N-D zero points need N-D inputs A and B")
    m, n = a.shape[-2], b.shape[-1]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2],
                                *(zp.shape[:-2] for zp in (a_zp, b_zp) if _has_batch(zp)))
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    if isinstance(a_zp, np.ndarray):
        a_zp = np.broadcast_to(a_zp, batch + (m, 1))
    if isinstance(b_zp, np.ndarray):
        b_zp = np.broadcast_to(b_zp, batch + (1, n))
    y = np.empty(batch + (m, n), dtype=np.int32)
    for i in np.ndindex(*batch):
        a_i = a_zp if isinstance(a_zp, int) else a_zp[i].reshape(-1)
        b_i = b_zp if isinstance(b_zp, int) else b_zp[i].reshape(-1)
        y[i] = qmm.gemm(a[i], b[i], a_zero_point=a_i, b_zero_point=b_i)
    return y


def _qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
    """QLinearMatMul with per-tensor scales, N-D.

    y = saturate(round_half_even(float32(acc) * S) + y_zero_point), where acc
    is the exact int32 product of the zero-point-corrected inputs and
    S = a_scale * b_scale / y_scale is evaluated in float32 arithmetic.
    """
    if any(s.size != 1 for s in (a_scale, b_scale, y_scale)):
        raise _unsupported("QLinearMatMul with per-row or per-column scales")
    scale = np.float32(a_scale.reshape(())) * np.float32(b_scale.reshape(())) \
        / np.float32(y_scale.reshape(()))
    y = qmm.gemm(a, b, a_zero_point=_scalar(a_zero_point), b_zero_point=_scalar(b_zero_point),
                 out_dtype=y_zero_point.dtype.type, scale=float(scale), rounding="float",
                 out_zero_point=_scalar(y_zero_point))
    return (y,)


def _dynamic_quantize_linear(x):
    """DynamicQuantizeLinear: uint8 y, float32 scalar scale, uint8 scalar zero point."""
    y, scale, zero_point = qmm.quantize_asymmetric(x, dtype=np.uint8)
    # qmm returns the scale in x's float type and the zero point as int32;
    # ONNX types them float32 and uint8.
    return (y, np.asarray(scale, dtype=np.float32).reshape(()),
            np.asarray(zero_point).astype(np.uint8).reshape(()))


def _per_axis(scale: np.ndarray, zero_point: Optional[np.ndarray], axis: int):
    """(scale, zero_point, axis) as qmm.quantize/dequantize take them.

    A one-element scale means per-tensor quantization (axis=None), as in
    onnxruntime; otherwise the 1-D scale and zero point apply along `axis`.
    """
    if scale.size == 1:
        zero_point = None if zero_point is None else zero_point.reshape(())
        return scale.reshape(()), zero_point, None
    return scale, zero_point, axis


def _quantize_linear(x, y_scale, y_zero_point=None, *, axis=1):
    """QuantizeLinear: saturate(round_half_even(x / y_scale) + y_zero_point).

    The output type is the zero point's (uint8 when it is omitted).
    """
    dtype = np.uint8 if y_zero_point is None else y_zero_point.dtype.type
    scale, zero_point, axis = _per_axis(y_scale, y_zero_point, axis)
    return (qmm.quantize(x, scale, zero_point, axis=axis, dtype=dtype),)


def _dequantize_linear(x, x_scale, x_zero_point=None, *, axis=1):
    """DequantizeLinear: float32 (x - x_zero_point) * x_scale."""
    scale, zero_point, axis = _per_axis(x_scale, x_zero_point, axis)
    return (qmm.dequantize(x, scale, zero_point, axis=axis),)


@dataclass(frozen=True)
class _Op:
    """An operator of the default ONNX domain and what of it qmm supports."""

    run: Callable[..., Tuple[np.ndarray, ...]]
    input_types: Mapping[int, FrozenSet[int]]  # input index -> allowed TensorProto types
    attributes: FrozenSet[str] = frozenset()


_OPS: Dict[str, _Op] = {
    "MatMulInteger": _Op(_matmul_integer, {i: _INT8_TYPES for i in range(4)}),
    "QLinearMatMul": _Op(_qlinear_matmul, {0: _INT8_TYPES, 1: _FLOAT, 2: _INT8_TYPES,
                                           3: _INT8_TYPES, 4: _FLOAT, 5: _INT8_TYPES,
                                           6: _FLOAT, 7: _INT8_TYPES}),
    "DynamicQuantizeLinear": _Op(_dynamic_quantize_linear, {0: _FLOAT}),
    # int32 x (QuantizeLinear/DequantizeLinear) and the float8/float16 types
    # of later opsets are not qmm types.
    "QuantizeLinear": _Op(_quantize_linear, {0: _FLOAT, 1: _FLOAT, 2: _INT8_TYPES},
                          frozenset({"axis"})),
    "DequantizeLinear": _Op(_dequantize_linear, {0: _INT8_TYPES, 1: _FLOAT, 2: _INT8_TYPES},
                            frozenset({"axis"})),
}


# --------------------------------------------------------------------------
# Graph checking and execution.
# --------------------------------------------------------------------------

def _op_of(node: onnx.NodeProto, types: Mapping[str, int]) -> _Op:
    """The implementation of `node`; SkipTest if qmm cannot run it.

    `types` maps tensor names to their TensorProto element type where known;
    inputs of unknown type are left to the operator to reject at run time.
    """
    op = _OPS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
    if op is None:
        name = f"{node.domain}.{node.op_type}" if node.domain else node.op_type
        raise _unsupported(name)
    for attribute in node.attribute:
        if attribute.name not in op.attributes:
            raise _unsupported(f"{node.op_type} attribute {attribute.name}")
    for index, name in enumerate(node.input):
        elem_type = types.get(name)
        if name and elem_type is not None and elem_type not in op.input_types.get(index, ()):
            type_name = TensorProto.DataType.Name(elem_type).lower()
            raise _unsupported(f"{node.op_type} with {type_name} input {index}")
    return op


def _run_op(op: _Op, node: onnx.NodeProto, inputs: Sequence[Optional[np.ndarray]]):
    """Run one node on its input arrays; returns its outputs as a tuple."""
    attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    return op.run(*inputs, **attributes)


def _element_types(model: onnx.ModelProto) -> Dict[str, int]:
    """TensorProto element types of the graph's tensors, where known.

    Shape inference fills in the types of intermediate tensors, so that an
    unsupported type anywhere in the graph is found at prepare time.
    """
    graph = shape_inference.infer_shapes(model).graph
    types = {init.name: init.data_type for init in graph.initializer}
    for value in (*graph.input, *graph.value_info, *graph.output):
        if value.type.HasField("tensor_type") and value.type.tensor_type.elem_type:
            types[value.name] = value.type.tensor_type.elem_type
    return types


class QmmBackendRep(BackendRep):
    """A prepared model: its graph, constants and the operator of each node."""

    def __init__(self, model: onnx.ModelProto) -> None:
        graph = model.graph
        types = _element_types(model)
        self._steps = [(node, _op_of(node, types)) for node in graph.node]
        self._constants = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
        # Graph inputs that are initializers too are constants with a default
        # (IR >= 4); only the others are fed.
        self._input_names = [i.name for i in graph.input if i.name not in self._constants]
        self._output_names = [o.name for o in graph.output]

    def run(self, inputs: Any, **kwargs: Any) -> Tuple[np.ndarray, ...]:
        """Run the graph on `inputs` (a sequence in graph input order, or a
        mapping by name); returns the graph outputs in order."""
        if not isinstance(inputs, Mapping):
            if len(inputs) != len(self._input_names):
                raise ValueError(f"expected {len(self._input_names)} inputs, got {len(inputs)}")
            inputs = dict(zip(self._input_names, inputs))
        values = {**self._constants, **{k: np.asarray(v) for k, v in inputs.items()}}
        for node, op in self._steps:
            # An empty name stands for an omitted optional input or output.
            args = [values[name] if name else None for name in node.input]
            for name, value in zip(node.output, _run_op(op, node, args)):
                if name:
                    values[name] = value
        return tuple(values[name] for name in self._output_names)


class QmmBackend(Backend):
    """ONNX backend running the quantization operators on qmm, CPU only."""

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> QmmBackendRep:
        """Check `model` and return it ready to run.

        Raises unittest.SkipTest if the graph uses an operator, attribute or
        input type this backend does not implement.
        """
        cls._check_device(device)
        super().prepare(model, device, **kwargs)  # onnx.checker
        return QmmBackendRep(model)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU",
                 outputs_info=None, **kwargs: Any) -> Tuple[np.ndarray, ...]:
        """Run a single node on `inputs` (a sequence in node input order)."""
        cls._check_device(device)
        super().run_node(node, inputs, device, outputs_info, **kwargs)  # onnx.checker
        arrays = [None if x is None else np.asarray(x) for x in inputs]
        # The same TensorProto type check as prepare's, from the arrays' dtypes.
        types = {name: numpy_helper.from_array(np.empty(0, x.dtype)).data_type
                 for name, x in zip(node.input, arrays) if x is not None}
        return _run_op(_op_of(node, types), node, arrays)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """True for 'CPU' (or 'CPU:<id>'): qmm runs on the CPU only."""
        return device.split(":")[0] == "CPU"

    @classmethod
    def _check_device(cls, device: str) -> None:
        if not cls.supports_device(device):
            raise ValueError(f"qmm's ONNX backend runs on CPU only, not {device!r}")


backend = QmmBackend
prepare = QmmBackend.prepare
run_model = QmmBackend.run_model
run_node = QmmBackend.run_node
supports_device = QmmBackend.supports_device
