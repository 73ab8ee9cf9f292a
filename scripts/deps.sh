# Sourced by the other scripts: installs the Debian packages qmm needs that
# this machine lacks (needs root the first time; a no-op once they are there).

# Prints the packages among "$@" that are not installed.
qmm_missing_packages() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' \
            || echo "$p"
    done
}

# Installs the packages among "$@" that are missing.
qmm_install_packages() {
    local missing
    missing=$(qmm_missing_packages "$@")
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "qmm: missing packages:" $missing >&2
        echo "qmm: run this script as root to install them with apt-get" >&2
        exit 1
    fi
    if echo "$missing" | grep -q ':arm64$' \
        && ! dpkg --print-foreign-architectures | grep -qx arm64; then
        dpkg --add-architecture arm64
    fi
    echo "qmm: installing" $missing >&2
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
}

# qemu-user: the x86_64 tests also run on emulated CPUs with and without AVX2.
QMM_NATIVE_PACKAGES="cmake make gcc libc6-dev pkg-config libcpu-features-dev qemu-user"
# The test command's second compiler (the sanitizers' run-times come with gcc)
# and LLVM's tools (llvm-nm and llvm-readobj read the arm64 kernels' objects of
# every format: test_arm64_symbols), and what qmm-compare's smoke tests need
# (OpenBLAS, gnuplot for --plot).
QMM_TEST_PACKAGES="clang llvm libomp-dev libopenblas-dev gnuplot-nox"
# Libraries qmm-bench-peers compares qmm with (scripts/bench.sh --peers); qmm
# itself never needs them. g++ because gemmlowp is header-only C++.
QMM_PEER_PACKAGES="g++ libdnnl-dev libxnnpack-dev libpthreadpool-dev libgemmlowp-dev libopenblas-dev"
# What bench/peers/python_peers.py needs from Debian (scripts/bench.sh
# --python-peers): NumPy for its exact reference, onnx to build ONNX
# Runtime's model, venv for the environment that ONNX Runtime is installed
# into from PyPI (Debian has none).
QMM_PYTHON_PEER_PACKAGES="python3-numpy python3-onnx python3-venv"
# What qmm-compare needs (scripts/bench.sh --compare): OpenBLAS, its FP64
# reference and FP32 contender, and gnuplot for --plot (gnuplot-nox: the
# pngcairo terminal without X11).
QMM_COMPARE_PACKAGES="libopenblas-dev gnuplot-nox"
# The Python packages (python/ and the encoder example's
# examples/encoder/python/, scripts/test.sh's python step and
# scripts/bench.sh --python): headers for the extensions, venv (pip included)
# for an environment beside Debian's externally managed Python, setuptools and
# wheel to build offline, pytest, and onnx with ONNX's node tests.
QMM_PYTHON_PACKAGES="python3-dev python3-venv python3-numpy python3-setuptools python3-wheel python3-pytest python3-onnx libonnx-testdata"
QMM_CROSS_PACKAGES="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libcpu-features-dev:arm64"

# Debian's libomp5-14 is Multi-Arch: same yet keeps its library in
# /usr/lib/llvm-14/lib, a path its amd64 and arm64 builds share, so the arm64
# one cannot be installed beside the amd64 one that clang's native builds use:
# the clang cross build (toolchains/aarch64-linux-gnu-clang.cmake) links the
# arm64 package's library, unpacked here.
QMM_CROSS_LIBOMP=/usr/local/lib/aarch64-linux-gnu/libomp.so.5

# Unpacks libomp5-14:arm64's library into $QMM_CROSS_LIBOMP unless it is there.
qmm_install_cross_libomp() {
    local tmp
    [ -e "$QMM_CROSS_LIBOMP" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "qmm: missing $QMM_CROSS_LIBOMP (from libomp5-14:arm64)" >&2
        echo "qmm: run this script as root to unpack it" >&2
        exit 1
    fi
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        dpkg --add-architecture arm64
        apt-get update -q
    fi
    echo "qmm: unpacking libomp5-14:arm64 into $QMM_CROSS_LIBOMP" >&2
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download -q libomp5-14:arm64)
    dpkg-deb -x "$tmp"/libomp5-14_*_arm64.deb "$tmp/root"
    install -D -m 644 "$tmp/root/usr/lib/llvm-14/lib/libomp.so.5" "$QMM_CROSS_LIBOMP"
    rm -rf "$tmp"
}

# QEMU 10 for the aarch64 cross builds' tests and their instruction counter
# (scripts/test.sh passes it to CMake as QMM_QEMU_AARCH64): Debian 12's
# qemu-user is QEMU 7.2, which computes SME's outer products wrong and lacks
# the neoverse-v1 and neoverse-n2 CPU models. bookworm-backports has QEMU 10,
# but only as static binaries, which load no TCG plugin (tools/qemu-icount)
# and cannot be installed beside the 7.2 package that the x86_64 tests
# (qemu-x86_64) need. So qemu-aarch64 alone is built here, with plugins, from
# the same version's source in Debian's archive (the orig tarball, checked
# against the archive's SHA-256; about 2 minutes on 2 cores), with meson and
# pycotap from bookworm-backports (QEMU 10 needs meson 1.5; Debian 12 has
# 1.0). Debian 12 only: bookworm-backports (packages and sources) is added to
# apt's sources, signed with the archive keys Debian already has, unless
# another source names it.
QMM_QEMU10=/usr/local/lib/qmm-qemu10/qemu-aarch64
QMM_BACKPORTS_SOURCES=/etc/apt/sources.list.d/qmm-backports.sources
QMM_QEMU10_BUILD_PACKAGES="gcc make pkg-config ninja-build python3-venv libglib2.0-dev zlib1g-dev xz-utils"

# Whether $QMM_QEMU10 is there, QEMU 10 or later, and loads plugins.
qmm_qemu10_ok() {
    local version
    [ -x "$QMM_QEMU10" ] || return 1
    version=$("$QMM_QEMU10" --version | sed -n '1s/^qemu-aarch64 version \([0-9]*\)\..*/\1/p')
    [ "${version:-0}" -ge 10 ] && "$QMM_QEMU10" -h | grep -q '^-plugin '
}

# Builds qemu-aarch64 with plugins into $QMM_QEMU10 unless it is there.
qmm_install_qemu10() {
    local tmp line uri file hash
    qmm_qemu10_ok && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "qmm: missing $QMM_QEMU10 (QEMU 10 with plugins, from Debian's source)" >&2
        echo "qmm: run this script as root to build it" >&2
        exit 1
    fi
    qmm_install_packages $QMM_QEMU10_BUILD_PACKAGES
    if [ -e "$QMM_BACKPORTS_SOURCES" ] ||
        ! grep -rqs --include='*.list' --include='*.sources' '^[^#]*bookworm-backports' \
            /etc/apt/sources.list /etc/apt/sources.list.d; then
        echo "qmm: bookworm-backports in apt's sources ($QMM_BACKPORTS_SOURCES)" >&2
        cat >"$QMM_BACKPORTS_SOURCES" <<'SOURCES'
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    fi
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        -t bookworm-backports meson python3-pycotap
    # 'URI' NAME SIZE SHA256:HASH, for the upstream tarball alone (Debian's
    # patches concern its packaging).
    line=$(apt-get source -q --print-uris qemu/bookworm-backports | grep "\.orig\.tar\.xz' ")
    read -r uri file _ hash <<<"$line"
    uri=${uri//\'/}
    tmp=$(mktemp -d)
    echo "qmm: building qemu-aarch64 with plugins from $file into $QMM_QEMU10" >&2
    /usr/lib/apt/apt-helper download-file "$uri" "$tmp/$file" "$hash"
    tar -xJf "$tmp/$file" -C "$tmp"
    (
        mkdir "$tmp/build" && cd "$tmp/build" &&
            "$tmp"/qemu-*/configure --python=/usr/bin/python3 --target-list=aarch64-linux-user \
                --enable-plugins --disable-system --disable-tools --disable-docs \
                --disable-rust --disable-install-blobs --disable-werror >configure.log 2>&1 ||
            { tail -n 30 configure.log >&2; exit 1; }
        ninja -j"$(nproc)" qemu-aarch64 >ninja.log 2>&1 || { tail -n 30 ninja.log >&2; exit 1; }
    ) || { rm -rf "$tmp"; exit 1; }
    install -D -m 755 "$tmp/build/qemu-aarch64" "$QMM_QEMU10"
    rm -rf "$tmp"
    if ! qmm_qemu10_ok; then
        echo "qmm: the qemu-aarch64 built is not QEMU 10 or later with plugins:" >&2
        "$QMM_QEMU10" --version >&2
        exit 1
    fi
}

# Builds the Python project in directory $2 and installs it into the virtual
# environment $1 from what is installed alone: no index is asked for anything.
# Extra arguments go to CMake's configure step (python/cmake_build.py's
# QMM_CMAKE_ARGS).
qmm_pip_install_offline() {
    local venv=$1 project=$2
    shift 2
    QMM_CMAKE_ARGS="$*" "$venv/bin/python" -m pip install --no-index --no-build-isolation \
        --disable-pip-version-check --quiet "$project"
}

# Builds and installs the Python package into the virtual environment $1
# (made anew, with Debian's site packages visible: NumPy, onnx, pytest) from
# Debian's packages alone. Extra arguments go to CMake's configure step.
qmm_python_install() {
    local venv=$1
    shift
    rm -rf "$venv"
    /usr/bin/python3 -m venv --system-site-packages "$venv"
    qmm_pip_install_offline "$venv" ./python "$@"
}

# Builds and installs the encoder example's Python package (qmm_encoder,
# examples/encoder/python) into the virtual environment $1, which
# qmm_python_install made: it needs qmm there. Extra arguments go to CMake's
# configure step.
qmm_encoder_python_install() {
    local venv=$1
    shift
    qmm_pip_install_offline "$venv" ./examples/encoder/python "$@"
}

# The model bench (scripts/bench.sh --model minilm) and its model files
# (--make-model): what only PyPI and crates.io have, each skipped with a
# message where it cannot be installed.
# A virtual environment with ONNX Runtime and onnx (the peer, and
# quantize_dynamic, which makes the int8 model both engines run), pinned.
QMM_MODEL_PACKAGES="python3-venv"
QMM_MODEL_PIP="onnxruntime==1.32.0 onnx==1.23.2 numpy==2.4.6"
qmm_model_venv() {
    local venv=$1
    "$venv/bin/python" -c 'import onnxruntime, onnx' 2>/dev/null && return 0
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv" &&
        "$venv/bin/python" -m pip install --disable-pip-version-check --quiet $QMM_MODEL_PIP
}

# tract's command line (the crate tract-cli, with its multithreaded matrix
# products) into $1/bin, with cargo from PATH or ~/.cargo/bin; it needs Rust
# 1.91 or later (rustup's, or Debian 12's rustc-web, not its rustc).
QMM_TRACT_VERSION=0.23.9
qmm_install_tract() {
    local root=$1 cargo
    [ -x "$root/bin/tract" ] && return 0
    cargo=$(PATH="$PATH:$HOME/.cargo/bin" command -v cargo) || return 1
    echo "qmm: building tract-cli $QMM_TRACT_VERSION with $cargo (about 15 minutes on 2 cores)" >&2
    mkdir -p "$root"
    "$cargo" install tract-cli --locked --version "$QMM_TRACT_VERSION" --features multithread-mm \
        --root "$root" >"$root.log" 2>&1 || { tail -n 20 "$root.log" >&2; return 1; }
}
