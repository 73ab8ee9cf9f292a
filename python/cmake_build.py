"""setuptools' build_ext for an extension module that a CMake project builds.

qmm's checkout builds its Python extension modules this way: qmm._qmm
(python/setup.py) and the encoder example's qmm_encoder._engine
(examples/encoder/python/setup.py). The project builds one target, named as
the module's last component, and puts it where setuptools wants the module:
the path it is given as QMM_PYTHON_MODULE (python/python_module.cmake).
QMM_CMAKE_ARGS in the environment adds arguments to CMake's configure step
(for instance "-DQMM_WERROR=ON" or "-DCMAKE_C_COMPILER=clang").
"""
import os
import shlex
import subprocess
import sys
from pathlib import Path

from setuptools.command.build_ext import build_ext


def cmake_build_ext(project):
    """A build_ext class that builds each extension with the CMake project in
    the directory `project`."""

    class CMakeBuild(build_ext):
        def build_extension(self, ext):
            target = Path(self.get_ext_fullpath(ext.name)).resolve()
            build_dir = Path(self.build_temp).resolve() / "cmake"
            configure = [
                "cmake", "-S", str(project), "-B", str(build_dir),
                f"-DPython3_EXECUTABLE={sys.executable}",
                f"-DQMM_PYTHON_MODULE={target}",
                "-DCMAKE_BUILD_TYPE=Release",
                *shlex.split(os.environ.get("QMM_CMAKE_ARGS", "")),
            ]
            subprocess.check_call(configure)
            subprocess.check_call(["cmake", "--build", str(build_dir),
                                   "--target", ext.name.rpartition(".")[2],
                                   "-j", str(os.cpu_count() or 1)])

    return CMakeBuild
