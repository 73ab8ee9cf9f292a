"""qmm: exact int8 GEMM with runtime kernel dispatch, for NumPy arrays.

The C library's guarantees hold here: int8 and uint8 products are exact
(int32 with wrap-around), the same bits on every kernel, CPU and thread
count, on the fastest kernel this CPU can run. Products release the GIL.

    >>> import numpy as np, qmm
    >>> a = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int8)
    >>> b = np.array([[-128, 1], [2, 3], [4, -5]], dtype=np.int8)
    >>> qmm.matmul(a, b)
    array([[-112,   -8],
           [-478,  -11]], dtype=int32)

Products: matmul, gemm (zero points and output stages), Linear (weights
packed once). Float through int8: quantize_symmetric, quantize_asymmetric,
quantize, dequantize, sgemm_i8, dgemm_i8, dgemm_crt, sgemm_crt. What runs:
set_num_threads, get_num_threads, kernels, cpu_features, kernel_name.
Errors: qmm.Error and its subclasses (InvalidArgumentError is a ValueError,
OutOfMemoryError a MemoryError, ...); TypeError for a wrong dtype.
QMM_VERBOSE=1 in the environment explains qmm's choices and refusals on
stderr, as in C.
"""
from collections import namedtuple

from ._qmm import (  # noqa: F401  (the package's names)
    CRT_FP32_MODULI,
    CRT_FP64_MODULI,
    FP64_SLICES,
    MAX_THREADS,
    Error,
    InvalidArgumentError,
    Linear,
    OutOfMemoryError,
    UnknownKernelError,
    UnsupportedError,
    dgemm_crt,
    dgemm_i8,
    gemm,
    get_num_threads,
    kernel_name,
    matmul,
    set_num_threads,
    sgemm_crt,
    sgemm_i8,
)
from . import _qmm
from ._quantize import dequantize, quantize, quantize_asymmetric, quantize_symmetric  # noqa: F401

__version__ = "0.2.0"

KernelInfo = namedtuple("KernelInfo", "name isa mr nr supported")
KernelInfo.__doc__ = "A kernel compiled into qmm: its tile is mr rows by nr columns."


def kernels():
    """Every kernel compiled into this build, supported here or not, in
    registry order."""
    return [KernelInfo(*row) for row in _qmm._kernels()]


def cpu_features():
    """The CPU features qmm uses here, by the names QMM_DISABLE takes
    (for instance ['avx2', 'fma', 'avx512vnni', 'amx']): detected, less those
    QMM_DISABLE takes, those whose tier below is not in effect and those the
    OS refuses."""
    names = _qmm._cpu_features()
    return names.split(",") if names else []
