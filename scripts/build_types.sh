#!/usr/bin/env bash
# Kernel speed whatever the build type (scripts/bench.sh --build-types calls
# this once the packages are there): qmm-bench built as Release (build/native)
# and as RelWithDebInfo (build/relwithdebinfo), both run in turn, ROUNDS
# times (default 11), on the portable kernels and on those qmm picks on this
# CPU; prints each build's median GOPS and their ratio.
#
#   scripts/build_types.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11}
declare -A dirs=([Release]=build/native [RelWithDebInfo]=build/relwithdebinfo)
types=(Release RelWithDebInfo)
# kernel (auto: qmm's choice) and shape, m x k x n
runs=("generic_mmm_i8i32_3x4 1024x1024x1024" "generic_mmv_i8i32_4x1 1024x1024x1"
      "auto 1024x1024x1024" "auto 128x384x1536" "auto 1024x1024x1")

for type in "${types[@]}"; do
    cmake -S . -B "${dirs[$type]}" -DCMAKE_BUILD_TYPE="$type" >/dev/null
    cmake --build "${dirs[$type]}" -j"$(nproc)" --target qmm-bench >/dev/null
done

samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
for ((round = 0; round < rounds; round++)); do
    for type in "${types[@]}"; do
        for i in "${!runs[@]}"; do
            read -r kernel shape <<<"${runs[$i]}"
            args=(--csv --shape "$shape")
            [ "$kernel" = auto ] || args+=(--kernel "$kernel")
            # CSV: a header line, then the shape's; GOPS found by its header name
            "${dirs[$type]}/bench/qmm-bench" "${args[@]}" | awk -F, -v t="$type" -v i="$i" \
                -v s="$shape" 'NR == 1 { for (c = 1; c <= NF; c++) if ($c == "gops") g = c }
                               NR == 2 { print i, t, $4, s, $g }' >>"$samples"
        done
    done
done

echo "median GOPS of $rounds runs each, one thread; ratio = RelWithDebInfo / Release"
awk '
    function median(key,   n, a, x, j, v) {
        n = split(values[key], a, " ")
        for (x = 2; x <= n; x++)        # insertion sort: mawk has no asort
            for (j = x; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { v = a[j]; a[j] = a[j - 1]; a[j - 1] = v }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { values[$1 " " $2] = values[$1 " " $2] " " $5; kernel[$1] = $3; shape[$1] = $4
      if ($1 + 1 > runs) runs = $1 + 1 }
    END {
        printf "%-36s %-16s %9s %15s %7s\n", "kernel", "shape (MxKxN)", "Release", "RelWithDebInfo", "ratio"
        for (i = 0; i < runs; i++) {
            r = median(i " Release"); d = median(i " RelWithDebInfo")
            flag = (d / r < 0.9 || d / r > 1.1) ? "  more than 10% apart" : ""
            printf "%-36s %-16s %9.1f %15.1f %7.2f%s\n", kernel[i], shape[i], r, d, d / r, flag
        }
    }' "$samples"
