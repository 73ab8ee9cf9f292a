#include "kernel_suite.h"

#include "compute/gemm.h"
#include "exact_suite.h"
#include "kernel_tile.h"

/* The exactness suite's products take no context: the kernel they force. */
static const qmm_kernel *forced;

static qmm_status product_on_forced(size_t m, size_t n, size_t k, const int8_t *a,
                                    ptrdiff_t rsa, ptrdiff_t csa, const int8_t *b,
                                    ptrdiff_t rsb, ptrdiff_t csb, int32_t *c, ptrdiff_t rsc,
                                    ptrdiff_t csc)
{
    return qmm_product(forced, m, n, k, a, rsa, csa, b, rsb, csb, c, rsc, csc);
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

long kernel_suite_run(const qmm_kernel *kern)
{
    forced = kern;
    long checks = tiles(kern);
    checks += rows_tiles(kern);
    checks += exact_suite_run(kern->name, product_on_forced, NULL);
    if (kern->u8_a != NULL) {
        checks += tiles(kern->u8_a);
        checks += rows_tiles(kern->u8_a);
    }
    return checks;
}
