# What the arm64 Linux cross toolchains share (aarch64-linux-gnu.cmake, gcc;
# aarch64-linux-gnu-clang.cmake, clang), included by each after it names its
# compilers: Debian's arm64 C library and cpu_features, and the emulator that
# runs the tests, which ctest calls through CMAKE_CROSSCOMPILING_EMULATOR.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Debian's arm64 cpu_features package installs its CMake config here.
list(APPEND CMAKE_PREFIX_PATH /usr/lib/aarch64-linux-gnu/cmake)
# The emulator: QEMU 10's qemu-aarch64, which scripts/deps.sh
# (qmm_install_qemu10) builds with plugins from Debian's source into
# /usr/local/lib/qmm-qemu10, when it is there; else the qemu-aarch64 on PATH
# (Debian 12's qemu-user is QEMU 7.2, whose SME outer products are wrong and
# which lacks the CPU models neoverse-v1 and neoverse-n2:
# cmake/qmm_testing.cmake warns). The test command sets it explicitly.
if(EXISTS /usr/local/lib/qmm-qemu10/qemu-aarch64)
  set(_qmm_qemu_default /usr/local/lib/qmm-qemu10/qemu-aarch64)
else()
  set(_qmm_qemu_default qemu-aarch64)
endif()
set(QMM_QEMU_AARCH64 ${_qmm_qemu_default} CACHE STRING
  "qemu-aarch64 that runs the cross-built tests (a path, or a name on PATH)")
set(CMAKE_CROSSCOMPILING_EMULATOR ${QMM_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
