/*
 * Every kernel supported here, bit-exact against the reference: first a single
 * tile straight through the microkernel (the contract of kernels/kernel.h),
 * and through its partial-rows microkernel for every row count if it has one,
 * then the whole exactness suite through a one-shot plan with that kernel forced.
 */
#include <stdlib.h>
#include <string.h>

#include "compute/loops.h"
#include "compute/gemm.h"
#include "compute/plan.h"
#include "dispatch/registry.h"
#include "support/exact_suite.h"
#include "support/kernel_tile.h"
#include "support/testlib.h"

static const qmm_kernel *current;

static qmm_status product_on_current(size_t m, size_t n, size_t k, const int8_t *a,
                                     ptrdiff_t rsa, ptrdiff_t csa, const int8_t *b,
                                     ptrdiff_t rsb, ptrdiff_t csb, int32_t *c, ptrdiff_t rsc,
                                     ptrdiff_t csc)
{
    return qmm_product(current, m, n, k, a, rsa, csa, b, rsb, csb, c, rsc, csc);
}

static long tiles(const qmm_kernel *kern)
{
    static const size_t depths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 65, 300};
    long checks = 0;
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
        size_t k = depths[d];
        checks += test_kernel_tile(kern, k, kern->mr, kern->nr, LAYOUT_ROW, FILL_RANDOM);
        checks += test_kernel_tile(kern, k, kern->mr, kern->nr, LAYOUT_COL, FILL_RANDOM);
        checks += test_kernel_tile(kern, k, (kern->mr + 1) / 2, 1, LAYOUT_SPACED, FILL_RANDOM);
        checks += test_kernel_tile(kern, k, 1, (kern->nr + 1) / 2, LAYOUT_REVERSED, FILL_RANDOM);
    }
    return checks;
}

/* The partial-rows microkernel, every row count: all nr columns as the driver
 * runs it straight into C, with A's rows past `rows` holding data (row and
 * column C) or padding (spaced C), and a partial B (reversed C). */
static long rows_tiles(const qmm_kernel *kern)
{
    static const size_t depths[] = {0, 1, 2, 3, 7, 8, 9, 17, 65, 300};
    const unsigned mr = kern->mr, nr = kern->nr;
    long checks = 0;
    if (kern->run_rows == NULL)
        return 0;
    for (unsigned rows = 1; rows < mr; rows++)
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
            size_t k = depths[d];
            checks += test_kernel_rows(kern, k, rows, mr, nr, LAYOUT_ROW, FILL_RANDOM);
            checks += test_kernel_rows(kern, k, rows, mr, nr, LAYOUT_COL, FILL_RANDOM);
            checks += test_kernel_rows(kern, k, rows, rows, nr, LAYOUT_SPACED, FILL_RANDOM);
            checks += test_kernel_rows(kern, k, rows, rows, (nr + 1) / 2, LAYOUT_REVERSED,
                                       FILL_RANDOM);
        }
    /* Sums past int32 wrap (a constant fill at k > 131072). */
    for (unsigned rows = 1; rows < mr; rows++)
        checks += test_kernel_rows(kern, 140007, rows, rows, nr, LAYOUT_ROW, FILL_MIN_MIN);
    return checks;
}

int main(void)
{
    long checks = 0;
    size_t ran = 0;
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        current = qmm_registry_at(i);
        if (!current->is_supported_here()) {
            printf("%-28s not supported here: skipped\n", current->name);
            continue;
        }
        test_seed(i + 1);
        long before = checks;
        checks += tiles(current);
        checks += rows_tiles(current);
        checks += exact_suite_run(current->name, product_on_current, NULL);
        printf("%-28s %ld checks\n", current->name, checks - before);
        ran++;
    }
    CHECK(ran >= 2, "only %zu kernels ran; the portable ones always should", ran);
    return test_finish("test_kernels_exact", checks);
}
