/*
 * arm64 GEMV kernel (n == 1), 8x1 tile, NEON + FEAT_DotProd (SDOT by vector):
 * each SDOT lane adds a 4-depth int8 dot product into int32.
 *
 *   void qmm_arm64_mmv_i8i32_8x1_sdot_run(size_t kp, const void *a,
 *           const void *b, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);
 *   x0 = kp (a multiple of 16), x1 = A panel, x2 = B panel, x3 = c,
 *   x4 = rsc (elements), x5 = csc (unused: one column)
 *
 * Packing consumed: A and B both i8_kin16 (K-inner, kp padded to a multiple
 * of 16 with zeros): row i of the A panel is the kp bytes at x1 + i*kp, B's
 * one column the kp bytes at x2. A row-major A with lda == k and k a multiple
 * of 16 is such a panel as it is, so A is read in place, at any alignment
 * (compute/loops.h): a one-shot call packs nothing of A but a last partial
 * panel.
 *
 * Register map:
 *   v16-v23  accumulators, v(16+i) = four partial sums of row i (one per
 *            lane, each over every fourth group of 4 depths)
 *   v24-v27  64 depths of B
 *   v0-v3, v4-v7   64 depths of a row, two rows in flight
 *   x1, x9-x15     the 8 row pointers
 *   x7 = chunks of 64 depths, x8 = chunks of 16 after them (0-3)
 *   Only v0-v7 and v16-v27: no callee-saved register (d8-d15) is touched.
 *
 * Per 64 depths and row:  ld1 {4 x 16 bytes} + 4 sdot vAcc.4s, vA.16b, vB.16b
 * Instructions per MAC, main loop (64 depths x 8 rows = 512 MACs): 9 ld1 +
 * 32 sdot + subs + b.ne = 43, 0.084/MAC (the SMLAL 64x1 needs about 0.42).
 * Each A byte is read once: the kernel runs at the speed of reading A.
 * At the end two rounds of addp fold each row's 4 lanes into one sum.
 *
 * Exactness: SDOT and ADDP add into 32-bit lanes modulo 2^32: the exact sum
 * with wrap-around.
 */
        .arch   armv8.2-a+dotprod

#include "object_format.inc"

/* 64 depths of one row: \acc += A row (from \ptr, 4 registers from \v0) . B. */
.macro ROW_64 acc, ptr, v0, v1, v2, v3
    ld1     {\v0\().16b, \v1\().16b, \v2\().16b, \v3\().16b}, [\ptr], #64
    sdot    \acc\().4s, \v0\().16b, v24.16b
    sdot    \acc\().4s, \v1\().16b, v25.16b
    sdot    \acc\().4s, \v2\().16b, v26.16b
    sdot    \acc\().4s, \v3\().16b, v27.16b
.endm

/* 16 depths of one row: \acc += A row (from \ptr) . B (v24). */
.macro ROW_16 acc, ptr, v
    ldr     q\v, [\ptr], #16
    sdot    \acc\().4s, v\v\().16b, v24.16b
.endm

QMM_FUNCTION qmm_arm64_mmv_i8i32_8x1_sdot_run
    movi    v16.4s, #0
    movi    v17.4s, #0
    movi    v18.4s, #0
    movi    v19.4s, #0
    movi    v20.4s, #0
    movi    v21.4s, #0
    movi    v22.4s, #0
    movi    v23.4s, #0
    add     x9, x1, x0
    add     x10, x9, x0
    add     x11, x10, x0
    add     x12, x11, x0
    add     x13, x12, x0
    add     x14, x13, x0
    add     x15, x14, x0
    lsr     x7, x0, #6
    ubfx    x8, x0, #4, #2
    cbz     x7, 2f

1:  ld1     {v24.16b, v25.16b, v26.16b, v27.16b}, [x2], #64
    ROW_64  v16, x1, v0, v1, v2, v3
    ROW_64  v17, x9, v4, v5, v6, v7
    ROW_64  v18, x10, v0, v1, v2, v3
    ROW_64  v19, x11, v4, v5, v6, v7
    ROW_64  v20, x12, v0, v1, v2, v3
    ROW_64  v21, x13, v4, v5, v6, v7
    ROW_64  v22, x14, v0, v1, v2, v3
    ROW_64  v23, x15, v4, v5, v6, v7
    subs    x7, x7, #1
    b.ne    1b

2:  cbz     x8, 3f
    ldr     q24, [x2], #16
    ROW_16  v16, x1, 0
    ROW_16  v17, x9, 1
    ROW_16  v18, x10, 2
    ROW_16  v19, x11, 3
    ROW_16  v20, x12, 4
    ROW_16  v21, x13, 5
    ROW_16  v22, x14, 6
    ROW_16  v23, x15, 7
    subs    x8, x8, #1
    b.ne    2b

3:  addp    v16.4s, v16.4s, v17.4s
    addp    v18.4s, v18.4s, v19.4s
    addp    v20.4s, v20.4s, v21.4s
    addp    v22.4s, v22.4s, v23.4s
    addp    v16.4s, v16.4s, v18.4s          /* rows 0-3 */
    addp    v20.4s, v20.4s, v22.4s          /* rows 4-7 */
    cmp     x4, #1
    b.ne    4f
    stp     q16, q20, [x3]
    ret

4:  lsl     x4, x4, #2
    st1     {v16.s}[0], [x3], x4
    st1     {v16.s}[1], [x3], x4
    st1     {v16.s}[2], [x3], x4
    st1     {v16.s}[3], [x3], x4
    st1     {v20.s}[0], [x3], x4
    st1     {v20.s}[1], [x3], x4
    st1     {v20.s}[2], [x3], x4
    st1     {v20.s}[3], [x3]
    ret
QMM_END_FUNCTION qmm_arm64_mmv_i8i32_8x1_sdot_run
