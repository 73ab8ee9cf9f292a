/*
 * Portable matrix kernel, 3x4 tile, plain C for any CPU.
 * Packing: A and B both i16_kin16 (K-inner: each row of A and each column of
 * B is kp contiguous int16 values, kp a multiple of 16).
 *
 * Why this shape: the loop over depth is, for each of the 12 (row, column)
 * pairs, a reduction acc += a[p] * b[p] of int16 values into 32 bits, which
 * gcc recognizes as a dot product and vectorizes with pmaddwd on plain SSE2
 * (8 products per instruction, the best the x86-64 baseline offers) and with
 * smull/smlal on NEON. An outer-product kernel (broadcast A, K-outer packing,
 * even with i16_k2 pairs) does not get pmaddwd from gcc: it widens with
 * pmullw/pmulhw/punpck instead, about 10x slower. 3x4 keeps 12 vector
 * accumulators plus the 3 A vectors in SSE2's 16 registers; measured on Zen3
 * it is as fast as 3x3 and 2x6 and ahead of 4x4 (spills) and 1x8.
 *
 * Exactness: each product fits in int32 (|int16 * int16| <= 2^30), and the
 * accumulators are uint32_t, so the wrap-around is defined and gives the exact
 * int32 result modulo 2^32; pmaddwd's pairwise int32 sums are the same value
 * modulo 2^32.
 */
#include "../kernel.h"

enum { MR = 3, NR = 4 };

qmm_ukernel_fn qmm_generic_mmm_i8i32_3x4_run;  /* checks the signature */

void qmm_generic_mmm_i8i32_3x4_run(size_t kp, const void *pa, const void *pb, int32_t *c,
                                   ptrdiff_t rsc, ptrdiff_t csc)
{
    const int16_t *a = pa;
    const int16_t *b = pb;
    uint32_t acc[MR][NR] = {{0}};
    for (size_t p = 0; p < kp; p++)
        for (int i = 0; i < MR; i++)
            for (int j = 0; j < NR; j++)
                acc[i][j] += (uint32_t)(a[(size_t)i * kp + p] * b[(size_t)j * kp + p]);
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++)
            c[i * rsc + j * csc] = (int32_t)acc[i][j];
}
