/* One microkernel call checked on its own, the contract of kernels/kernel.h. */
#ifndef QMM_KERNEL_TILE_H
#define QMM_KERNEL_TILE_H

#include "kernels/kernel.h"
#include "testlib.h"

typedef enum test_fill {
    FILL_RANDOM,   /* full int8 range */
    FILL_MIN_MIN,  /* A = B = -128: the one product that needs 16 bits */
    FILL_MIN_MAX,  /* A = -128, B = 127 */
} test_fill;

/* Packs mv <= mr rows of A and nv <= nr columns of B at depth k, filled as
 * asked, runs kern once into a full mr x nr tile stored in layout lc, and
 * checks the valid part against the reference (A's bytes read as its
 * a_type), the padded part for zeros and
 * the memory around C for stray writes. A constant fill at k > 131072 makes
 * the exact sums leave int32: the tile must wrap modulo 2^32. Returns the
 * number of checks (1). */
long test_kernel_tile(const qmm_kernel *kern, size_t k, unsigned mv, unsigned nv,
                      test_layout lc, test_fill fill);

/* The same for the partial-rows microkernel run_rows(rows, ...) (the kernel
 * must have one, 1 <= rows < mr): C is a full mr x nr tile filled with a
 * sentinel first; rows [0, rows) must hold the product and rows [rows, mr)
 * the sentinel still. mv (<= mr) rows of A are packed: more than `rows`
 * checks that the rows past `rows` are not mixed in. Returns 1. */
long test_kernel_rows(const qmm_kernel *kern, size_t k, unsigned rows, unsigned mv,
                      unsigned nv, test_layout lc, test_fill fill);

#endif
