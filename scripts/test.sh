#!/usr/bin/env bash
# Everything CI checks: install what is missing, build natively and for
# aarch64, and run every test (the aarch64 suite runs under QEMU on several
# emulated CPUs; see QMM_TEST_CPUS in cmake/qmm_testing.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
qmm_install_packages $QMM_NATIVE_PACKAGES $QMM_CROSS_PACKAGES
jobs=$(nproc)

cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release
cmake --build build/native -j"$jobs"
ctest --test-dir build/native --output-on-failure -j"$jobs"

cmake -S . -B build/aarch64 -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake
cmake --build build/aarch64 -j"$jobs"
ctest --test-dir build/aarch64 --output-on-failure -j"$jobs"
