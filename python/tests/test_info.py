"""What qmm runs on: threads, kernels, CPU features, the kernel a product
uses; QMM_VERBOSE and QMM_DISABLE from Python as in C; nothing on stdout."""
import os
import subprocess
import sys

import numpy as np
import pytest

import qmm


def run_python(code, **env):
    """code in a fresh interpreter with env added: (returncode, stdout, stderr)."""
    full = dict(os.environ, **env)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_threads():
    before = qmm.get_num_threads()
    try:
        qmm.set_num_threads(3)
        assert qmm.get_num_threads() == 3
        a = np.ones((300, 300), np.int8)
        three = qmm.matmul(a, a)
        qmm.set_num_threads(1)
        np.testing.assert_array_equal(qmm.matmul(a, a), three)
        with pytest.raises(qmm.InvalidArgumentError):
            qmm.set_num_threads(qmm.MAX_THREADS + 1)
        with pytest.raises(ValueError):
            qmm.set_num_threads(-1)
    finally:
        qmm.set_num_threads(0)
    assert qmm.get_num_threads() == before


def test_kernels_and_features():
    ks = qmm.kernels()
    assert ks and all(k.mr >= 1 and k.nr >= 1 for k in ks)
    assert len({k.name for k in ks}) == len(ks)
    assert any(k.supported for k in ks)
    assert any(k.isa == "generic" for k in ks)
    # Every name QMM_DISABLE takes, in the order qmm lists them.
    known = ["neon", "dotprod", "i8mm", "sve", "svei8mm", "sme", "avx2", "fma", "avx512vnni",
             "amx"]
    features = qmm.cpu_features()
    assert set(features) <= set(known)
    assert features == [f for f in known if f in features]
    supported = {k.name for k in ks if k.supported}
    name = qmm.kernel_name(128, 384, 384)
    assert name in supported
    twin = qmm.kernel_name(128, 384, 384, a_dtype=np.uint8)
    assert twin == name or twin == name + "+u8a"
    assert qmm.kernel_name(0, 4, 4) is None


def test_disable_reaches_the_features_and_kernels():
    code = ("import qmm; print(','.join(qmm.cpu_features())); "
            "print(all(k.isa == 'generic' for k in qmm.kernels() if k.supported))")
    rc, out, _ = run_python(code, QMM_DISABLE="avx2,neon")
    assert rc == 0
    features, generic_only = out.split("\n")[:2]
    assert "avx2" not in features and "neon" not in features.split(",")
    assert generic_only == "True"


def test_verbose_explains_refusals_on_stderr_only():
    code = ("import numpy as np, qmm\n"
            "a = np.ones((2, 2), np.uint8)\n"
            "try:\n    qmm.gemm(a, a, a_zero_point=300)\n"
            "except qmm.InvalidArgumentError:\n"
            "    import sys; sys.stderr.write('caught\\n')\n")
    rc, out, err = run_python(code, QMM_VERBOSE="1")
    assert rc == 0 and out == ""
    assert "caught" in err and "zero point" in err.lower()
    rc, out, err = run_python(code, QMM_VERBOSE="0")
    assert rc == 0 and out == "" and err == "caught\n"


def test_unknown_kernel_is_a_lookup_error():
    code = ("import numpy as np, qmm\n"
            "try:\n    qmm.matmul(np.ones((4, 4), np.int8), np.ones((4, 4), np.int8))\n"
            "except LookupError as e:\n    print(type(e).__name__)\n")
    rc, out, _ = run_python(code, QMM_KERNEL="no_such_kernel")
    assert rc == 0 and out.strip() == "UnknownKernelError"
