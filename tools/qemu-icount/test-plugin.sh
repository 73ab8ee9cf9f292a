#!/usr/bin/env bash
# Tests of libicount.so that cannot pass by accident (run by ctest).
#
#   test-plugin.sh --qemu "qemu-aarch64 -L /usr/aarch64-linux-gnu" --plugin libicount.so \
#       --loop icount-loop
#     icount-loop N runs a 2-instruction loop N times: the counts for N = 100000
#     and N = 300000 must differ by exactly 400000, and the exact per-instruction
#     mode must agree with the per-block mode; the per-symbol mode must count
#     what the per-block mode does, the 400000 all in one named function.
#
#   test-plugin.sh --qemu "..." --plugin libicount.so --bench qmm-bench \
#       --fakeclock libfakeclock.so [--cpu CPU]
#     qmm-bench on a small shape, with the deterministic clock: two identical
#     runs count the same, one more call adds a positive count, and the same
#     count again for the call after it (within 256 + 0.1%: the bench sorts its
#     times, malloc's state moves); both counting modes agree. The bench
#     checks its results too.
#
# --cpu CPU is QEMU's -cpu, a model and its properties after commas
# (default: max).
set -euo pipefail

qemu="qemu-aarch64 -L /usr/aarch64-linux-gnu"
plugin='' loop='' bench='' fakeclock='' cpu=max
while [ $# -gt 0 ]; do
    case $1 in
    --qemu) qemu=$2; shift 2 ;;
    --plugin) plugin=$2; shift 2 ;;
    --loop) loop=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --fakeclock) fakeclock=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    *) echo "test-plugin.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$plugin" ] || { echo "test-plugin.sh: --plugin is required" >&2; exit 2; }

# An empty guest environment (env -i), the same on every run; QEMU's path is
# resolved first, as env -i clears PATH.
read -r qemu_bin qemu_args <<<"$qemu"
qemu_path=$(command -v "$qemu_bin") || { echo "test-plugin.sh: $qemu_bin not found" >&2; exit 2; }
# setarch -R, as tools/icount-report runs it: without the host's address
# randomization the guest's layout, and so the counts, are the same each run.
qemu="env -i setarch -R $qemu_path ${qemu_args:-}"
# A static QEMU (bookworm-backports') loads no plugin: say so rather than
# count nothing.
qemu_help=$("$qemu_path" -h 2>/dev/null || true)
[[ $qemu_help == *$'\n-plugin '* ]] ||
    { echo "test-plugin.sh: $qemu_path cannot load TCG plugins (scripts/deps.sh builds one that can)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# plugin_log MODE PROGRAM ARGS...: the plugin's log of one run.
# (Called as $(plugin_log ...), in a subshell: each run gets its own files.)
plugin_log() {
    local mode=$1; shift
    local log out
    log=$(mktemp "$tmp/log.XXXXXX") out=$(mktemp "$tmp/out.XXXXXX")
    # $qemu is a word list on purpose.
    # shellcheck disable=SC2086
    if ! $qemu -cpu "$cpu" -plugin "$plugin,mode=$mode" -d plugin -D "$log" "$@" \
        >"$out" 2>&1; then
        echo "command failed: $qemu -cpu $cpu -plugin $plugin,mode=$mode $*" >&2
        cat "$out" >&2
        return 1
    fi
    cat "$log"
}

# count MODE PROGRAM ARGS...: executed guest instructions of one run.
count() {
    local log n
    log=$(plugin_log "$@") || return 1
    n=$(sed -n 's/^icount insns=\([0-9][0-9]*\) .*/\1/p' <<<"$log")
    if [ -z "$n" ]; then
        echo "no 'icount insns=' line in the plugin log of: ${*:2}" >&2
        echo "$log" >&2
        return 1
    fi
    echo "$n"
}

if [ -n "$loop" ]; then
    a=$(count tb "$loop" 100000)
    b=$(count tb "$loop" 300000)
    a_insn=$(count insn "$loop" 100000)
    echo "icount-loop 100000: $a (per instruction: $a_insn); icount-loop 300000: $b"
    [ "$a" -gt 200000 ] || fail "icount-loop 100000 counted $a, fewer than its loop alone (200000)"
    [ $((b - a)) -eq 400000 ] || fail "200000 more iterations of a 2-instruction loop counted $((b - a)), not 400000"
    [ "$a" -eq "$a_insn" ] || fail "per-block count $a != per-instruction count $a_insn"
    sym_a=$(plugin_log sym "$loop" 100000)
    sym_b=$(plugin_log sym "$loop" 300000)
    sum_a=$(awk '$1 == "icount-sym" { n += $2 } END { print n + 0 }' <<<"$sym_a")
    # What one symbol counts in the second run and not the first: the loop's
    # function (main, or spin where not inlined), by the name QEMU gives it.
    moved=$(awk '$1 == "icount-sym" { n[$3] += NR == FNR ? -$2 : $2 }
                 END { for (s in n) if (n[s]) print n[s], s }' <(echo "$sym_a") <(echo "$sym_b"))
    echo "per symbol: icount-loop 100000: $sum_a; 300000 minus 100000: $moved"
    [ "$sum_a" -eq "$a" ] || fail "per-symbol counts sum to $sum_a, not the per-block $a"
    [[ $moved =~ ^400000\ [^[[:space:]][^[:space:]]*$ ]] ||
        fail "the 400000 more instructions did not all go to one named symbol: $moved"
fi

if [ -n "$bench" ]; then
    [ -n "$fakeclock" ] || { echo "test-plugin.sh: --bench needs --fakeclock" >&2; exit 2; }
    # The guest loader resolves LD_PRELOAD itself: give it an absolute path.
    fakeclock=$(cd "$(dirname "$fakeclock")" && pwd)/$(basename "$fakeclock")
    b() { count "$1" -E "LD_PRELOAD=$fakeclock" "$bench" --shape 24x40x20 --reps "$2" --csv; }
    r1=$(b tb 1)
    r1_again=$(b tb 1)
    r2=$(b tb 2)
    r3=$(b tb 3)
    r1_insn=$(b insn 1)
    d21=$((r2 - r1)) d32=$((r3 - r2))
    echo "qmm-bench 24x40x20: reps 1: $r1 and $r1_again; reps 2: $r2; reps 3: $r3;" \
        "one call: $d21 then $d32; reps 1 per instruction: $r1_insn"
    [ "$r1" -eq "$r1_again" ] || fail "two identical runs counted $r1 and $r1_again"
    [ "$d21" -gt 0 ] || fail "one more call of a 24x40x20 product added $d21 instructions"
    # The bench's own per-call work grows a little with --reps (it sorts the
    # times), and malloc's state differs from call to call: a few hundred
    # instructions at most.
    dev=$((d32 - d21))
    [ "${dev#-}" -le $((256 + d21 / 1000)) ] ||
        fail "the 2nd and 3rd calls added $d21 and $d32 instructions"
    [ "$r1" -eq "$r1_insn" ] || fail "per-block count $r1 != per-instruction count $r1_insn"
fi

[ "$failures" -eq 0 ] && echo "PASS" || exit 1
