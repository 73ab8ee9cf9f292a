/*
 * arm64 matrix kernel, 8x8 tile, NEON + FEAT_DotProd (SDOT by element):
 * each SDOT lane adds a 4-depth int8 dot product into int32.
 *
 *   void qmm_arm64_mmm_i8i32_8x8_sdot_run(size_t kp, const void *a,
 *           const void *b, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);
 *   x0 = kp (a multiple of 4), x1 = A panel, x2 = B panel, x3 = c,
 *   x4 = rsc, x5 = csc (elements)
 *
 * Packing consumed: A and B both i8_k4 (kp padded to a multiple of 4 with
 * zeros). Per block of 4 depths: 32 A bytes, rows 0..7 x 4 depths (row i's
 * 4 bytes at 4i), then likewise 32 B bytes, columns 0..7 x 4 depths.
 *
 * Register map:
 *   v16-v31  accumulators, v(16+2n) = C[0..3][n], v(17+2n) = C[4..7][n]
 *            (store_8x8.inc, shared with the SMLAL kernel)
 *   v0, v1   A block: rows 0-3, rows 4-7 (4 bytes per 32-bit lane)
 *   v4, v5   B block: columns 0-3, columns 4-7
 *   v2, v3, v6, v7   the same for the second block of an unrolled pair
 *   Only v0-v7 and v16-v31: no callee-saved register (d8-d15) is touched.
 *   x7 = pairs of blocks (8 depths), x8 = a last single block (0 or 1).
 *
 * Per block:  sdot v(16+2n).4s, vA0.16b, vB.4b[n%4]   rows 0-3
 *             sdot v(17+2n).4s, vA1.16b, vB.4b[n%4]   rows 4-7
 * with vB the B register holding column n.
 *
 * Instructions per MAC, main loop (2 blocks = 8 depths = 512 MACs): 2 ld1
 * (64 bytes each) + 32 sdot + subs + b.ne = 36, 0.070/MAC. The single last
 * block: 2 ld1 + 16 sdot = 18 per 256 MACs, 0.070/MAC.
 *
 * Exactness: SDOT adds four exact int8 x int8 products into a 32-bit lane
 * modulo 2^32: the exact sum with wrap-around.
 */
        .arch   armv8.2-a+dotprod

#include "object_format.inc"
#include "store_8x8.inc"

/* One block of 4 depths: A rows 0-3 in \a0, rows 4-7 in \a1; B columns 0-3
 * in \b0, columns 4-7 in \b1. */
.macro DOT_8x8 a0, a1, b0, b1
    sdot    v16.4s, \a0\().16b, \b0\().4b[0]
    sdot    v17.4s, \a1\().16b, \b0\().4b[0]
    sdot    v18.4s, \a0\().16b, \b0\().4b[1]
    sdot    v19.4s, \a1\().16b, \b0\().4b[1]
    sdot    v20.4s, \a0\().16b, \b0\().4b[2]
    sdot    v21.4s, \a1\().16b, \b0\().4b[2]
    sdot    v22.4s, \a0\().16b, \b0\().4b[3]
    sdot    v23.4s, \a1\().16b, \b0\().4b[3]
    sdot    v24.4s, \a0\().16b, \b1\().4b[0]
    sdot    v25.4s, \a1\().16b, \b1\().4b[0]
    sdot    v26.4s, \a0\().16b, \b1\().4b[1]
    sdot    v27.4s, \a1\().16b, \b1\().4b[1]
    sdot    v28.4s, \a0\().16b, \b1\().4b[2]
    sdot    v29.4s, \a1\().16b, \b1\().4b[2]
    sdot    v30.4s, \a0\().16b, \b1\().4b[3]
    sdot    v31.4s, \a1\().16b, \b1\().4b[3]
.endm

QMM_FUNCTION qmm_arm64_mmm_i8i32_8x8_sdot_run
    QMM_ZERO_8x8
    lsr     x7, x0, #3
    ubfx    x8, x0, #2, #1
    cbz     x7, 2f

1:  /* 2 blocks: A blocks in v0,v1 and v2,v3; B blocks in v4,v5 and v6,v7. */
    ld1     {v0.16b, v1.16b, v2.16b, v3.16b}, [x1], #64
    ld1     {v4.16b, v5.16b, v6.16b, v7.16b}, [x2], #64
    DOT_8x8 v0, v1, v4, v5
    DOT_8x8 v2, v3, v6, v7
    subs    x7, x7, #1
    b.ne    1b

2:  cbz     x8, 3f
    ld1     {v0.16b, v1.16b}, [x1]
    ld1     {v4.16b, v5.16b}, [x2]
    DOT_8x8 v0, v1, v4, v5

3:  QMM_STORE_8x8 x3, x4, x5
QMM_END_FUNCTION qmm_arm64_mmm_i8i32_8x8_sdot_run
