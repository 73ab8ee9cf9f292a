/*
 * arm64 matrix kernel, 8x8 tile, baseline NEON (Armv8.0 Advanced SIMD):
 * int8 widened to int16, multiply-accumulate long by element into int32.
 *
 *   void qmm_arm64_mmm_i8i32_8x8_smlal_run(size_t kp, const void *a,
 *           const void *b, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);
 *   x0 = kp, x1 = A panel, x2 = B panel, x3 = c, x4 = rsc, x5 = csc (elements)
 *
 * Packing consumed: A and B both i8_k1 (K-outer): for each depth p, the 8
 * values of the panel (rows of A, columns of B) are 8 contiguous bytes.
 *
 * Register map:
 *   v16-v31  accumulators, v(16+2n) = C[0..3][n], v(17+2n) = C[4..7][n]
 *            (store_8x8.inc, shared with the SDOT kernel)
 *   v0, v1   A bytes of 4 depths (32 bytes), widened in place / into v4, v5
 *   v2, v3   B bytes of 4 depths, widened in place / into v6, v7
 *   Only v0-v7 and v16-v31: no callee-saved register (d8-d15) is touched.
 *   x7 = blocks of 4 depths, x8 = remaining depths (0-3).
 *
 * Per depth: A column (8 x int16) times each of the 8 B values, by element:
 *   smlal  v(16+2n).4s, vA.4h, vB.h[n]     rows 0-3
 *   smlal2 v(17+2n).4s, vA.8h, vB.h[n]     rows 4-7
 *
 * Instructions per MAC, main loop (4 depths = 256 MACs): 2 ld1 (32 bytes
 * each) + 8 sshll/sshll2 + 64 smlal/smlal2 + subs + b.ne = 76, 0.297/MAC.
 * Tail loop (1 depth = 64 MACs): 2 ld1 + 2 sshll + 16 smlal + 2 = 22,
 * 0.344/MAC. At most 3 depths take the tail.
 *
 * Exactness: int8 -> int16 is exact, int16 x int16 fits int32, and smlal
 * adds into 32-bit lanes modulo 2^32: the exact sum with wrap-around.
 */
#include "object_format.inc"
#include "store_8x8.inc"

/* One depth: A column in \a (.8h), B row in \b (.8h). */
.macro MAC_8x8 a, b
    smlal   v16.4s, \a\().4h, \b\().h[0]
    smlal2  v17.4s, \a\().8h, \b\().h[0]
    smlal   v18.4s, \a\().4h, \b\().h[1]
    smlal2  v19.4s, \a\().8h, \b\().h[1]
    smlal   v20.4s, \a\().4h, \b\().h[2]
    smlal2  v21.4s, \a\().8h, \b\().h[2]
    smlal   v22.4s, \a\().4h, \b\().h[3]
    smlal2  v23.4s, \a\().8h, \b\().h[3]
    smlal   v24.4s, \a\().4h, \b\().h[4]
    smlal2  v25.4s, \a\().8h, \b\().h[4]
    smlal   v26.4s, \a\().4h, \b\().h[5]
    smlal2  v27.4s, \a\().8h, \b\().h[5]
    smlal   v28.4s, \a\().4h, \b\().h[6]
    smlal2  v29.4s, \a\().8h, \b\().h[6]
    smlal   v30.4s, \a\().4h, \b\().h[7]
    smlal2  v31.4s, \a\().8h, \b\().h[7]
.endm

QMM_FUNCTION qmm_arm64_mmm_i8i32_8x8_smlal_run
    QMM_ZERO_8x8
    lsr     x7, x0, #2
    and     x8, x0, #3
    cbz     x7, 2f

1:  /* 4 depths: A and B bytes of depths p..p+3. */
    ld1     {v0.16b, v1.16b}, [x1], #32
    ld1     {v2.16b, v3.16b}, [x2], #32
    sshll2  v4.8h, v0.16b, #0               /* A, depth p+1 */
    sshll   v0.8h, v0.8b, #0                /* A, depth p */
    sshll2  v6.8h, v2.16b, #0               /* B, depth p+1 */
    sshll   v2.8h, v2.8b, #0                /* B, depth p */
    MAC_8x8 v0, v2
    sshll2  v5.8h, v1.16b, #0               /* A, depth p+3 */
    sshll   v1.8h, v1.8b, #0                /* A, depth p+2 */
    MAC_8x8 v4, v6
    sshll2  v7.8h, v3.16b, #0               /* B, depth p+3 */
    sshll   v3.8h, v3.8b, #0                /* B, depth p+2 */
    MAC_8x8 v1, v3
    MAC_8x8 v5, v7
    subs    x7, x7, #1
    b.ne    1b

2:  cbz     x8, 4f
3:  /* One depth. */
    ld1     {v0.8b}, [x1], #8
    ld1     {v2.8b}, [x2], #8
    sshll   v0.8h, v0.8b, #0
    sshll   v2.8h, v2.8b, #0
    MAC_8x8 v0, v2
    subs    x8, x8, #1
    b.ne    3b

4:  QMM_STORE_8x8 x3, x4, x5
QMM_END_FUNCTION qmm_arm64_mmm_i8i32_8x8_smlal_run
