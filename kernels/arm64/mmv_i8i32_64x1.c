/*
 * arm64 matrix-vector kernel, 64x1 tile, baseline NEON intrinsics; only right
 * for n == 1 (its single column is the vector).
 *
 * Packing consumed: A i8_k1 in 64-row panels (for each depth p, the 64 row
 * values are 64 contiguous bytes), B i8_k1 with one column (the vector: one
 * byte per depth).
 *
 * Register map (the compiler allocates it; in the source's names):
 *   c0..c15     16 int32x4 accumulators, c(i) = rows 4i..4i+3
 *   r0..r3      the 64 A bytes of one depth, 16 rows each
 *   lo, hi      16 of them widened to int16 (sxtl/sxtl2)
 *   bv          8 vector values widened to int16, one lane per depth
 * 16 + 4 + 2 + 1 = 23 vector registers, no spills. Named accumulators, not an
 * array: gcc 12 keeps an array of vectors in memory (111 loads, 96 stores).
 *
 * Per depth: 64 A bytes (2 ldp q) + 8 sxtl/sxtl2 + 16 smlal/smlal2 by element
 * (the vector value is lane p%8 of bv) = 26 instructions per 64 MACs. Main
 * loop, 8 depths = 512 MACs, as gcc 12 -O3 emits it: 128 smlal/smlal2 + 65
 * sxtl/sxtl2 + 17 loads + 5 others = 215, 0.42/MAC (with gcc's scheduling
 * before register allocation it was 233 with 11 moves: cmake/kernels_arm64.cmake
 * turns that off for this file). Tail (kp % 8 depths, one at a time; the
 * vector value is loaded and broadcast per depth, ldrsb + dup): 31 per 64
 * MACs, 0.48/MAC. Every A byte is used once, so its widening cannot be
 * amortized: a GEMV costs more per MAC than the 8x8 matrix kernel.
 *
 * Exactness: int8 -> int16 is exact, int16 x int16 fits int32, and
 * vmlal adds into 32-bit lanes modulo 2^32: the exact sum with wrap-around.
 */
#include <arm_neon.h>

#include "../kernel.h"

enum { MR = 64 };

qmm_ukernel_fn qmm_arm64_mmv_i8i32_64x1_run;  /* checks the signature */

/* 16 rows of one depth: the int8 values in v times lane `lane` of bv, into
 * the accumulators of rows 0-3, 4-7, 8-11, 12-15 of the group. Macros, since
 * the lane must be a constant even without optimization, and named
 * accumulators (not an array, which gcc 12 keeps in memory). */
#define QMM_MMV_16ROWS(v, acc0, acc1, acc2, acc3, bv, lane)                \
    do {                                                                   \
        const int16x8_t lo = vmovl_s8(vget_low_s8(v));                     \
        const int16x8_t hi = vmovl_high_s8(v);                             \
        acc0 = vmlal_laneq_s16(acc0, vget_low_s16(lo), bv, lane);          \
        acc1 = vmlal_high_laneq_s16(acc1, lo, bv, lane);                   \
        acc2 = vmlal_laneq_s16(acc2, vget_low_s16(hi), bv, lane);          \
        acc3 = vmlal_high_laneq_s16(acc3, hi, bv, lane);                   \
    } while (0)

/* One depth: the 64 A bytes at a; a moves on. */
#define QMM_MMV_DEPTH(bv, lane)                                            \
    do {                                                                   \
        const int8x16_t r0 = vld1q_s8(a), r1 = vld1q_s8(a + 16);           \
        const int8x16_t r2 = vld1q_s8(a + 32), r3 = vld1q_s8(a + 48);      \
        a += MR;                                                           \
        QMM_MMV_16ROWS(r0, c0, c1, c2, c3, bv, lane);                      \
        QMM_MMV_16ROWS(r1, c4, c5, c6, c7, bv, lane);                      \
        QMM_MMV_16ROWS(r2, c8, c9, c10, c11, bv, lane);                    \
        QMM_MMV_16ROWS(r3, c12, c13, c14, c15, bv, lane);                  \
    } while (0)

void qmm_arm64_mmv_i8i32_64x1_run(size_t kp, const void *pa, const void *pb, int32_t *c,
                                  ptrdiff_t rsc, ptrdiff_t csc)
{
    (void)csc;  /* one column */
    const int8_t *a = pa;
    const int8_t *b = pb;
    int32x4_t c0 = vdupq_n_s32(0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0,
              c7 = c0, c8 = c0, c9 = c0, c10 = c0, c11 = c0, c12 = c0, c13 = c0, c14 = c0,
              c15 = c0;

    size_t p = 0;
    for (; p + 8 <= kp; p += 8) {
        const int16x8_t bv = vmovl_s8(vld1_s8(b + p));
        QMM_MMV_DEPTH(bv, 0);
        QMM_MMV_DEPTH(bv, 1);
        QMM_MMV_DEPTH(bv, 2);
        QMM_MMV_DEPTH(bv, 3);
        QMM_MMV_DEPTH(bv, 4);
        QMM_MMV_DEPTH(bv, 5);
        QMM_MMV_DEPTH(bv, 6);
        QMM_MMV_DEPTH(bv, 7);
    }
    for (; p < kp; p++) {
        const int16x8_t bv = vdupq_n_s16(b[p]);
        QMM_MMV_DEPTH(bv, 0);
    }

    /* Rows 4i..4i+3 from ci: contiguous (rsc == 1) or one lane at a time. */
#define QMM_MMV_STORE(i, ci)                                               \
    do {                                                                   \
        int32_t *row = c + 4 * (i) * rsc;                                  \
        if (rsc == 1) {                                                    \
            vst1q_s32(row, ci);                                            \
        } else {                                                           \
            vst1q_lane_s32(row, ci, 0);                                    \
            vst1q_lane_s32(row + rsc, ci, 1);                              \
            vst1q_lane_s32(row + 2 * rsc, ci, 2);                          \
            vst1q_lane_s32(row + 3 * rsc, ci, 3);                          \
        }                                                                  \
    } while (0)
    QMM_MMV_STORE(0, c0);
    QMM_MMV_STORE(1, c1);
    QMM_MMV_STORE(2, c2);
    QMM_MMV_STORE(3, c3);
    QMM_MMV_STORE(4, c4);
    QMM_MMV_STORE(5, c5);
    QMM_MMV_STORE(6, c6);
    QMM_MMV_STORE(7, c7);
    QMM_MMV_STORE(8, c8);
    QMM_MMV_STORE(9, c9);
    QMM_MMV_STORE(10, c10);
    QMM_MMV_STORE(11, c11);
    QMM_MMV_STORE(12, c12);
    QMM_MMV_STORE(13, c13);
    QMM_MMV_STORE(14, c14);
    QMM_MMV_STORE(15, c15);
}
