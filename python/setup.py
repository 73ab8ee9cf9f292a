"""Builds qmm's extension module through CMake (python/CMakeLists.txt).

The C library is compiled from this checkout (the directory above this one)
into the extension, statically: the module needs nothing of qmm at run time.
QMM_CMAKE_ARGS adds arguments to CMake's configure step (cmake_build.py).
"""
import sys
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # setuptools' build backend does not put it there
from cmake_build import cmake_build_ext  # noqa: E402

setup(ext_modules=[Extension("qmm._qmm", sources=[])],
      cmdclass={"build_ext": cmake_build_ext(HERE)})
