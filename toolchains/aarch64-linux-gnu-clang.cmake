# Cross build for arm64 Linux with clang on an x86_64 Debian host, beside
# aarch64-linux-gnu.cmake (gcc): the same binutils, C library, cpu_features
# and emulator (aarch64-linux-gnu-common.cmake).
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_ASM_COMPILER clang)
set(CMAKE_ASM_COMPILER_TARGET aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-linux-gnu-common.cmake)
# The library folds platform/ with `ld -r` and objcopy. For clang CMake takes
# ld.lld or the host's ld, and llvm-objcopy or the host's objcopy: the host's
# cannot read arm64 objects, and the LLVM tools may not be installed.
find_program(CMAKE_LINKER aarch64-linux-gnu-ld REQUIRED)
find_program(CMAKE_OBJCOPY aarch64-linux-gnu-objcopy REQUIRED)
# clang's OpenMP run-time for arm64. Debian's libomp5-14:arm64 cannot be
# installed beside the amd64 one that clang's native builds use (both own
# /usr/lib/llvm-14/lib/libomp-14.so.5): its library, unpacked from the package
# by scripts/deps.sh (qmm_install_cross_libomp), is taken from
# QMM_AARCH64_LIBOMP instead. With no arm64
# libomp.so to link by name, FindOpenMP is told what to link rather than left
# to probe; omp.h is clang's own (libomp-14-dev), the same for every target.
# Linked by its path, outside the linker's own directories, the library gives
# the build tree's programs a RUNPATH to it, which QEMU's loader follows.
set(QMM_AARCH64_LIBOMP /usr/local/lib/aarch64-linux-gnu/libomp.so.5 CACHE FILEPATH
  "The arm64 libomp.so.5 that the clang cross build links")
if(EXISTS "${QMM_AARCH64_LIBOMP}")
  set(OpenMP_C_FLAGS -fopenmp=libomp CACHE STRING "C compiler flags for OpenMP parallelization")
  set(OpenMP_C_LIB_NAMES omp CACHE STRING "C compiler libraries for OpenMP parallelization")
  set(OpenMP_omp_LIBRARY "${QMM_AARCH64_LIBOMP}" CACHE FILEPATH
    "Path to the omp library for OpenMP")
  # FindOpenMP would read it from a program linked with -fopenmp, which asks
  # for that libomp.so: clang 14's _OPENMP, OpenMP 5.0.
  set(OpenMP_C_SPEC_DATE 201811 CACHE INTERNAL "C compiler's OpenMP specification date")
endif()
