/*
 * The arm64 microkernels called directly (each one supported here), on
 * what the shared suites reach only partly:
 *  - every store path of kernels/arm64/store_8x8.inc and of the GEMV: C
 *    row-major (csc == 1), column-major (rsc == 1), spaced (both strides > 1)
 *    and reversed (both negative), with the surroundings of C intact;
 *  - depths that end in each kernel's tail loop (the unrolled main loops
 *    take 8 depths (SMLAL, SDOT), 16 (SMMLA) or 64 (the dotprod GEMV, whose
 *    tail loop then runs 0-3 times 16 depths)), including 0;
 *  - wrap-around modulo 2^32 at a depth whose tail is not empty (the shared
 *    suite's k = 140000 is a multiple of every unroll);
 *  - partial rows (run_rows, where a kernel has them): every row count, each
 *    of its loops, every store path, A rows past `rows` not mixed in.
 */
#include <string.h>

#include "compute/loops.h"
#include "dispatch/registry.h"
#include "support/kernel_tile.h"
#include "support/testlib.h"

static long checks;

int main(void)
{
    static const size_t depths[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,   9,  11,
                                    12, 13, 15, 16, 17, 19, 23, 24, 25, 64, 65,
                                    90, 100, 128, 259};
    size_t ran = 0;
    test_seed(42);
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *kern = qmm_registry_at(i);
        if (strncmp(kern->name, "arm64_", 6) != 0)
            continue;
        if (!kern->is_supported_here()) {
            printf("%-28s not supported here: skipped\n", kern->name);
            continue;
        }
        if (!test_kernel_wanted(kern)) {
            printf("%-28s not tested on this CPU (QMM_TEST_KERNELS): skipped\n", kern->name);
            continue;
        }
        long before = checks;
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
            for (int lc = 0; lc < LAYOUT_COUNT; lc++)
                checks += test_kernel_tile(kern, depths[d], kern->mr, kern->nr,
                                           (test_layout)lc, FILL_RANDOM);
        /* 140007 * 16384 > 2^31, and 140007 ends in every kernel's tail loop
         * (the dotprod GEMV's running 3 times). */
        for (int lc = 0; lc < LAYOUT_COUNT; lc++) {
            checks += test_kernel_tile(kern, 140007, kern->mr, kern->nr, (test_layout)lc,
                                       FILL_MIN_MIN);
            checks += test_kernel_tile(kern, 140007, kern->mr, kern->nr, (test_layout)lc,
                                       FILL_MIN_MAX);
        }
        for (unsigned rows = 1; kern->run_rows != NULL && rows < kern->mr; rows++) {
            static const size_t row_depths[] = {0, 1, 8, 9, 100};
            for (size_t d = 0; d < sizeof row_depths / sizeof row_depths[0]; d++)
                for (int lc = 0; lc < LAYOUT_COUNT; lc++)
                    checks += test_kernel_rows(kern, row_depths[d], rows, kern->mr, kern->nr,
                                               (test_layout)lc, FILL_RANDOM);
            checks += test_kernel_rows(kern, 140007, rows, rows, kern->nr, LAYOUT_ROW,
                                       FILL_MIN_MIN);
        }
        printf("%-28s %ld checks\n", kern->name, checks - before);
        ran++;
    }
    if (test_all_kernels())
        CHECK(ran >= 2, "only %zu arm64 kernels ran; SMLAL and the GEMV always should", ran);
    return test_finish("test_arm64_kernels", checks);
}
