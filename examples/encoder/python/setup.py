"""Builds the encoder example's extension module through CMake (CMakeLists.txt
here), as qmm's own is built (python/setup.py, python/cmake_build.py): the
engine and qmm compiled from this checkout, statically.
"""
import sys
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "python"))  # qmm's python/: cmake_build.py
from cmake_build import cmake_build_ext  # noqa: E402

setup(ext_modules=[Extension("qmm_encoder._engine", sources=[])],
      cmdclass={"build_ext": cmake_build_ext(HERE)})
