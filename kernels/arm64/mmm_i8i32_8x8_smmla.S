/*
 * arm64 matrix kernel, 8x8 tile, NEON + FEAT_I8MM (SMMLA): each SMMLA
 * multiplies a 2x8 int8 block by an 8x2 one into a 2x2 int32 block.
 *
 *   void qmm_arm64_mmm_i8i32_8x8_smmla_run(size_t kp, const void *a,
 *           const void *b, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);
 *   x0 = kp (a multiple of 8), x1 = A panel, x2 = B panel, x3 = c,
 *   x4 = rsc, x5 = csc (elements)
 *
 *   void qmm_arm64_mmm_i8i32_8x8_smmla_run_rows(unsigned rows, size_t kp,
 *           const void *a, const void *b, int32_t *c, ptrdiff_t rsc,
 *           ptrdiff_t csc);
 *   partial rows (kernels/kernel.h), 1 <= rows < 8: computes only the
 *   ceil(rows/2) row pairs that hold them (4 SMMLA per pair and block), into
 *   a tile on the stack, then copies rows [0, rows) to C.
 *
 * Packing consumed: A and B both i8_k8 (kp padded to a multiple of 8 with
 * zeros). Per block of 8 depths: 64 A bytes, rows 0..7 x 8 depths (row i's
 * 8 bytes at 8i, so bytes 16p..16p+15 are the row pair 2p, 2p+1: one SMMLA
 * operand), then likewise 64 B bytes, columns 0..7.
 *
 * Register map:
 *   v0-v3    A block: row pairs 01, 23, 45, 67
 *   v4-v7    B block: column pairs 01, 23, 45, 67
 *   v16-v31  accumulators: v(16 + 4q + p) = the 2x2 block of rows 2p, 2p+1
 *            and columns 2q, 2q+1, lanes [r0c0, r0c1, r1c0, r1c1]
 *   Only v0-v7 and v16-v31: no callee-saved register (d8-d15) is touched.
 *   x7 = pairs of blocks (16 depths), x8 = a last single block (0 or 1).
 *
 * Per block:  smmla v(16 + 4q + p).4s, v(p).16b, v(4 + q).16b, p, q = 0..3
 *
 * Instructions per MAC, main loop (2 blocks = 16 depths = 1024 MACs): 4 ld1
 * (64 bytes each) + 32 smmla + subs + b.ne = 38, 0.037/MAC; the single last
 * block: 2 ld1 + 16 smmla = 18 per 512 MACs. The SDOT kernel needs 0.070.
 *
 * Partial rows pay where the last A panel is mostly padding: a one-shot
 * single-row product (m == 1) runs 4 SMMLA per block instead of 16, which
 * the selector then prefers to a GEMV kernel on the transpose (whose B, n
 * lines of k depths, is packed K-inner at every call).
 *
 * Store: a 2x2 block's low 64 bits are part of row 2p, its high 64 bits part
 * of row 2p+1, so for a row-major C (csc == 1) trn1/trn2 on 64-bit lanes
 * put two blocks side by side into half a row: 16 trn and 8 stp for the tile.
 * Any other C is first un-interleaved (uzp1/uzp2 on 32-bit lanes) into the
 * column layout of store_8x8.inc and stored by its strided paths.
 *
 * Exactness: SMMLA adds eight exact int8 x int8 products into each 32-bit
 * lane modulo 2^32: the exact sum with wrap-around.
 */
        .arch   armv8.2-a+i8mm

#include "object_format.inc"
#include "store_8x8.inc"

/* One row pair of a block: \a (A rows 2p, 2p+1) by the B column pairs in
 * v4-v7 into the pair's accumulators \c0-\c3. */
.macro MMLA_PAIR a, c0, c1, c2, c3
    smmla   \c0\().4s, \a\().16b, v4.16b
    smmla   \c1\().4s, \a\().16b, v5.16b
    smmla   \c2\().4s, \a\().16b, v6.16b
    smmla   \c3\().4s, \a\().16b, v7.16b
.endm

/* The first \pairs row pairs of a block of 8 depths (A row pairs in v0-v3). */
.macro MMLA_PAIRS pairs
    MMLA_PAIR v0, v16, v20, v24, v28
.if \pairs >= 2
    MMLA_PAIR v1, v17, v21, v25, v29
.endif
.if \pairs >= 3
    MMLA_PAIR v2, v18, v22, v26, v30
.endif
.if \pairs >= 4
    MMLA_PAIR v3, v19, v23, v27, v31
.endif
.endm

/* Row pair p (accumulators \b0..\b3 = columns 01, 23, 45, 67) as two rows of
 * C at \c and \c + \rsc bytes; \c then points two rows further. */
.macro STORE_ROW_PAIR c, rsc, b0, b1, b2, b3
    trn1    v0.2d, \b0\().2d, \b1\().2d     /* row 2p, columns 0-3 */
    trn1    v1.2d, \b2\().2d, \b3\().2d     /* row 2p, columns 4-7 */
    trn2    v2.2d, \b0\().2d, \b1\().2d     /* row 2p+1, columns 0-3 */
    trn2    v3.2d, \b2\().2d, \b3\().2d     /* row 2p+1, columns 4-7 */
    stp     q0, q1, [\c]
    add     \c, \c, \rsc
    stp     q2, q3, [\c]
    add     \c, \c, \rsc
.endm

/* Column pair q (accumulators \r0..\r3 = row pairs 01, 23, 45, 67) into
 * the column layout of store_8x8.inc, in the same four registers:
 * \r0 = C[0..3][2q], \r1 = C[4..7][2q], \r2 = C[0..3][2q+1],
 * \r3 = C[4..7][2q+1]. Uses v0-v2. */
.macro COLUMNS_OF_PAIR r0, r1, r2, r3
    uzp1    v0.4s, \r0\().4s, \r1\().4s
    uzp2    v1.4s, \r0\().4s, \r1\().4s
    uzp1    v2.4s, \r2\().4s, \r3\().4s
    uzp2    \r3\().4s, \r2\().4s, \r3\().4s
    mov     \r0\().16b, v0.16b
    mov     \r1\().16b, v2.16b
    mov     \r2\().16b, v1.16b
.endm

QMM_FUNCTION qmm_arm64_mmm_i8i32_8x8_smmla_run
    QMM_ZERO_8x8
    lsr     x7, x0, #4
    ubfx    x8, x0, #3, #1
    cbz     x7, 2f

1:  /* 2 blocks; the second's loads reuse v0-v7 once the first's SMMLAs read them. */
    ld1     {v0.16b, v1.16b, v2.16b, v3.16b}, [x1], #64
    ld1     {v4.16b, v5.16b, v6.16b, v7.16b}, [x2], #64
    MMLA_PAIRS 4
    ld1     {v0.16b, v1.16b, v2.16b, v3.16b}, [x1], #64
    ld1     {v4.16b, v5.16b, v6.16b, v7.16b}, [x2], #64
    MMLA_PAIRS 4
    subs    x7, x7, #1
    b.ne    1b

2:  cbz     x8, 3f
    ld1     {v0.16b, v1.16b, v2.16b, v3.16b}, [x1]
    ld1     {v4.16b, v5.16b, v6.16b, v7.16b}, [x2]
    MMLA_PAIRS 4

3:  cmp     x5, #1
    b.ne    4f
    lsl     x4, x4, #2
    STORE_ROW_PAIR x3, x4, v16, v20, v24, v28
    STORE_ROW_PAIR x3, x4, v17, v21, v25, v29
    STORE_ROW_PAIR x3, x4, v18, v22, v26, v30
    STORE_ROW_PAIR x3, x4, v19, v23, v27, v31
    ret

4:  COLUMNS_OF_PAIR v16, v17, v18, v19
    COLUMNS_OF_PAIR v20, v21, v22, v23
    COLUMNS_OF_PAIR v24, v25, v26, v27
    COLUMNS_OF_PAIR v28, v29, v30, v31
    QMM_STORE_8x8_STRIDED x3, x4, x5
QMM_END_FUNCTION qmm_arm64_mmm_i8i32_8x8_smmla_run

/* Partial rows: one block per iteration over \pairs row pairs (1-4), x8
 * blocks; A's pointer steps over the whole block (x9 = 64 bytes). */
.macro ROWS_LOOP pairs
1:
.if \pairs == 1
    ld1     {v0.16b}, [x2], x9
.elseif \pairs == 2
    ld1     {v0.16b, v1.16b}, [x2], x9
.elseif \pairs == 3
    ld1     {v0.16b, v1.16b, v2.16b}, [x2], x9
.else
    ld1     {v0.16b, v1.16b, v2.16b, v3.16b}, [x2], x9
.endif
    ld1     {v4.16b, v5.16b, v6.16b, v7.16b}, [x3], #64
    MMLA_PAIRS \pairs
    subs    x8, x8, #1
    b.ne    1b
    b       QMM_LOCAL(smmla_rows_store)
.endm

QMM_FUNCTION qmm_arm64_mmm_i8i32_8x8_smmla_run_rows
    sub     sp, sp, #256
    QMM_ZERO_8x8
    add     w7, w0, #1
    lsr     w7, w7, #1                      /* row pairs: 1-4 */
    lsr     x8, x1, #3                      /* blocks */
    mov     x9, #64
    cbz     x8, QMM_LOCAL(smmla_rows_store)
    cmp     w7, #2
    b.lo    QMM_LOCAL(smmla_rows_1)
    b.eq    QMM_LOCAL(smmla_rows_2)
    cmp     w7, #3
    b.eq    QMM_LOCAL(smmla_rows_3)
    ROWS_LOOP 4                             /* 7 rows: all four pairs */
QMM_LOCAL(smmla_rows_1):
    ROWS_LOOP 1
QMM_LOCAL(smmla_rows_2):
    ROWS_LOOP 2
QMM_LOCAL(smmla_rows_3):
    ROWS_LOOP 3

QMM_LOCAL(smmla_rows_store):
    /* The tile, row-major (32 bytes a row), at sp; then rows [0, rows) to C. */
    mov     x10, sp
    mov     x11, #32
    STORE_ROW_PAIR x10, x11, v16, v20, v24, v28
    STORE_ROW_PAIR x10, x11, v17, v21, v25, v29
    STORE_ROW_PAIR x10, x11, v18, v22, v26, v30
    STORE_ROW_PAIR x10, x11, v19, v23, v27, v31
    mov     x10, sp
    lsl     x5, x5, #2
    cmp     x6, #1
    b.ne    3f
2:  ldp     q0, q1, [x10], #32               /* C row-major: a row per ldp/stp */
    stp     q0, q1, [x4]
    add     x4, x4, x5
    subs    w0, w0, #1
    b.ne    2b
    add     sp, sp, #256
    ret

3:  lsl     x6, x6, #2                      /* any other C: element by element */
4:  mov     x11, x4
    mov     w12, #8
5:  ldr     w13, [x10], #4
    str     w13, [x11]
    add     x11, x11, x6
    subs    w12, w12, #1
    b.ne    5b
    add     x4, x4, x5
    subs    w0, w0, #1
    b.ne    4b
    add     sp, sp, #256
    ret
QMM_END_FUNCTION qmm_arm64_mmm_i8i32_8x8_smmla_run_rows
