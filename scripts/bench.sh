#!/usr/bin/env bash
# The main job: build qmm for this CPU and run the bench on its default shapes.
# Extra arguments go to qmm-bench (see qmm-bench --help).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
qmm_install_packages $QMM_NATIVE_PACKAGES
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target qmm-bench >/dev/null
exec build/native/bench/qmm-bench "$@"
