"""What `import qmm` loads: the binding and NumPy, no test machinery (the
ONNX backend of the node tests, which raises unittest.SkipTest, lives with
them here in tests/)."""
import subprocess
import sys


def test_import_loads_no_unittest():
    code = "import sys, qmm; print('unittest' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False"]
