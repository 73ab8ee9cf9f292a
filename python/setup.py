"""Builds qmm's extension module through CMake (python/CMakeLists.txt).

The C library is compiled from this checkout (the directory above this one)
into the extension, statically: the module needs nothing of qmm at run time.
QMM_CMAKE_ARGS adds arguments to CMake's configure step (for instance
"-DQMM_WERROR=ON" or "-DCMAKE_C_COMPILER=clang").
"""
import os
import shlex
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        build_dir = Path(self.build_temp).resolve() / "cmake"
        configure = [
            "cmake", "-S", str(HERE), "-B", str(build_dir),
            f"-DPython3_EXECUTABLE={sys.executable}",
            f"-DQMM_PYTHON_MODULE={target}",
            "-DCMAKE_BUILD_TYPE=Release",
            *shlex.split(os.environ.get("QMM_CMAKE_ARGS", "")),
        ]
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_qmm",
                               "-j", str(os.cpu_count() or 1)])


setup(ext_modules=[Extension("qmm._qmm", sources=[])], cmdclass={"build_ext": CMakeBuild})
