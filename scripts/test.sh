#!/usr/bin/env bash
# Usage: scripts/test.sh [--quick]
#
# Everything CI checks: install what is missing, then build and run every test
# in each of these builds, warnings as errors in all of them (each build's
# time is printed at the end; docs/testing.md says what each covers that no
# other does):
#   native     gcc, Release: the whole suite, emulated x86 CPUs included
#   python     the Python package (python/) and the encoder example's
#              (examples/encoder/python/, qmm_encoder) installed into one
#              virtual environment, qmm first, as python/README.md says, and
#              both pytest suites, ONNX's node tests included; both extensions
#              built with clang too
#   sanitize   gcc, RelWithDebInfo, AddressSanitizer + UndefinedBehaviorSanitizer:
#              the native suite but the emulated CPUs (test/x86_64/CMakeLists.txt)
#   threads    gcc, Debug, ThreadSanitizer: the tests that run several threads
#              (ctest label `threads`)
#   clang      clang, RelWithDebInfo, without OpenMP (a supported configuration:
#              engines give qmm their parallel-for): the whole native suite
#   aarch64    the cross build, its suite under QEMU 10 (qemu-aarch64 with
#              plugins, built from Debian's source by scripts/deps.sh) on
#              several emulated CPUs, the tests labelled kernels on more
#              (QMM_TEST_CPUS and QMM_TEST_KERNEL_CPUS in
#              cmake/qmm_testing.cmake); instructions counted under the same
#   aarch64-clang  clang and LLVM's OpenMP run-time for arm64: the tests
#              labelled kernels on the emulated max alone
# The differential fuzzer (test/fuzz/) runs in every build but threads and
# aarch64-clang, for QMM_FUZZ_SECONDS (20) with a fixed seed.
#
# --quick: the native build alone and its tests labelled quick, what a
# contributor runs after each change (a few minutes on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
    --quick) quick=1 ;;
    "") ;;
    *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac
. scripts/deps.sh
jobs=$(nproc)
timings=()

# build NAME [ctest arguments...] -- [cmake arguments...]
build() {
    local name=$1 ctest_args=() start=$SECONDS
    shift
    while [ "$1" != -- ]; do ctest_args+=("$1"); shift; done
    shift
    echo "== $name"
    cmake -S . -B "build/$name" -DQMM_WERROR=ON "$@"
    cmake --build "build/$name" -j"$jobs"
    ctest --test-dir "build/$name" --output-on-failure -j"$jobs" "${ctest_args[@]}"
    timings+=("$(printf '%-13s %4d s' "$name" $((SECONDS - start)))")
}

if [ "$quick" = 1 ]; then
    qmm_install_packages $QMM_NATIVE_PACKAGES $QMM_TEST_PACKAGES
    build native -L quick -- -DCMAKE_BUILD_TYPE=Release
    printf '%s\n' "== the quick tier passed" "${timings[@]}"
    exit 0
fi

qmm_install_packages $QMM_NATIVE_PACKAGES $QMM_TEST_PACKAGES $QMM_CROSS_PACKAGES \
    $QMM_PYTHON_PACKAGES
qmm_install_cross_libomp
qmm_install_qemu10
build native -- -DCMAKE_BUILD_TYPE=Release

echo "== python"
start=$SECONDS
qmm_python_install build/python -DQMM_WERROR=ON
qmm_encoder_python_install build/python -DQMM_WERROR=ON
build/python/bin/python -m pytest -p no:cacheprovider -rs python/tests \
    examples/encoder/python/tests
# The extensions with clang too, warnings as errors (built, not run again).
cmake -S python -B build/python-clang -DCMAKE_C_COMPILER=clang -DQMM_WERROR=ON \
    -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/python-clang -j"$jobs" --target _qmm
cmake -S examples/encoder/python -B build/encoder-python-clang -DCMAKE_C_COMPILER=clang \
    -DQMM_WERROR=ON -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/encoder-python-clang -j"$jobs" --target _engine
timings+=("$(printf '%-13s %4d s' python $((SECONDS - start)))")
build sanitize -- -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQMM_SANITIZE=address,undefined
build threads -L threads -- -DCMAKE_BUILD_TYPE=Debug -DQMM_SANITIZE=thread
build clang -- -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DQMM_OPENMP=OFF
build aarch64 -- -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake \
    -DQMM_QEMU_AARCH64="$QMM_QEMU10"
# clang's code for arm64: the tests labelled kernels on max alone, the CPU
# with every extension, where every kernel clang assembled runs (each
# forced) and every arm64 path clang compiled (packers, the output stage,
# threads on LLVM's OpenMP); the portable C is clang's x86 build's too, and
# which kernel each CPU gets is the aarch64 build's to check.
build aarch64-clang -- -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu-clang.cmake -DQMM_OPENMP=REQUIRED \
    -DQMM_QEMU_AARCH64="$QMM_QEMU10" -DQMM_TEST_CPUS= -DQMM_TEST_KERNEL_CPUS=max

printf '%s\n' "== every build passed" "${timings[@]}"
