/*
 * arm64 matrix kernel, 8 x 2VL tile, SVE SDOT by element (vector-length
 * agnostic): each SDOT lane adds a 4-depth int8 dot product into int32.
 *
 *   void qmm_arm64_mmm_i8i32_8x2vl_sve_sdot_run(size_t kp, const void *a,
 *           const void *b, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);
 *   x0 = kp (a multiple of 4), x1 = A panel, x2 = B panel, x3 = c,
 *   x4 = rsc, x5 = csc (elements, any sign)
 *
 * Tile: with V the vector length in bytes (cntb) and L = V/4 int32 lanes,
 * mr = 8 rows by nr = 2L columns: 8x8 at V=16 (128-bit SVE: Neoverse N2, V2),
 * 8x16 at V=32 (Neoverse V1), 8x32 at V=64 (A64FX), 8x128 at V=256. The code
 * reads V at run time (addvl, the mul vl offsets, cntd) and assumes none.
 *
 * Packing consumed: A and B both i8_k4 (kp padded to a multiple of 4 with
 * zeros). Per block of 4 depths: 32 A bytes, rows 0..7 x 4 depths (row i's
 * 4 bytes at 4i); 2V B bytes, columns 0..2L-1 x 4 depths (column j's 4
 * bytes at 4j), i.e. two vectors: columns 0..L-1, then columns L..2L-1.
 *
 * Register map:
 *   z16-z31  accumulators, z(16+2r+v) = C[r][v*L .. v*L+L-1] (row r,
 *            vector v: lane j of z(16+2r) is column j, of z(17+2r) column L+j)
 *   z0, z1   A block, ld1rqb: rows 0-3, rows 4-7 (4 bytes per 32-bit lane),
 *            the 16 bytes replicated into every 128-bit segment
 *   z2, z3   B block: columns 0..L-1, columns L..2L-1
 *   z4-z7    the same for a second block in flight (A in z4, z5; B in z6, z7);
 *            in the general store, the four column-offset vectors
 *   p0       all true
 *   Only z0-z7 and z16-z31: no callee-saved register (d8-d15) is touched.
 *   x7 = groups of 4 blocks (16 depths), x8 = the last blocks (0-3).
 *
 * Per block:  sdot z(16+2r+v).s, zB_v.b, zA0.b[r]     rows r = 0-3
 *             sdot z(24+2r+v).s, zB_v.b, zA1.b[r]     rows 4+r
 * The indexed operand zA.b[r] is, in each 128-bit segment, the 32-bit lane r
 * of that segment: row r's 4 bytes (r < 4) broadcast, as ld1rqb replicated A.
 *
 * Instructions per MAC, main loop (4 blocks = 16 depths = 64V MACs):
 * 8 ld1rqb + 8 ld1b + 64 sdot + add + addvl + subs + b.ne = 84, that is
 * 0.082/MAC at V=16, 0.041 at V=32, 0.021 at V=64, 0.005 at V=256 (the NEON
 * SDOT 8x8: 0.070). Each of the last blocks: 2 ld1rqb + 2 ld1b + 16 sdot +
 * add + addvl + subs + b.ne = 24 per 16V MACs.
 *
 * Stores (overwriting c[i*rsc + j*csc]):
 *  - csc == 1: two contiguous st1w per row (L columns, V bytes each).
 *  - anything else (column-major, negative or huge strides): per row, the two
 *    accumulators unpacked to 64-bit lanes (uunpklo/uunpkhi) and stored by
 *    four st1w scatters of L/2 elements each, whose 64-bit byte offsets
 *    j*csc*4 are built once with index (wrapping like pointer arithmetic, so
 *    exact for any stride).
 *
 * Exactness: SDOT adds four exact int8 x int8 products into a 32-bit lane
 * modulo 2^32: the exact sum with wrap-around.
 */
        .arch   armv8.2-a+sve

#include "object_format.inc"
#include "sve_store.inc"

/* One A block into \a0 (rows 0-3), \a1 (rows 4-7) from x1 + \aoff bytes;
 * one B block into \b0, \b1 from x2 + \boff vectors. */
.macro LOAD_8x2VL a0, a1, b0, b1, aoff, aoff1, boff, boff1
    ld1rqb  {\a0\().b}, p0/z, [x1, #\aoff]
    ld1rqb  {\a1\().b}, p0/z, [x1, #\aoff1]
    ld1b    {\b0\().b}, p0/z, [x2, #\boff, mul vl]
    ld1b    {\b1\().b}, p0/z, [x2, #\boff1, mul vl]
.endm

/* One block of 4 depths: A rows 0-3 in \a0, rows 4-7 in \a1; B columns
 * 0..L-1 in \b0, L..2L-1 in \b1. */
.macro DOT_8x2VL a0, a1, b0, b1
    sdot    z16.s, \b0\().b, \a0\().b[0]
    sdot    z17.s, \b1\().b, \a0\().b[0]
    sdot    z18.s, \b0\().b, \a0\().b[1]
    sdot    z19.s, \b1\().b, \a0\().b[1]
    sdot    z20.s, \b0\().b, \a0\().b[2]
    sdot    z21.s, \b1\().b, \a0\().b[2]
    sdot    z22.s, \b0\().b, \a0\().b[3]
    sdot    z23.s, \b1\().b, \a0\().b[3]
    sdot    z24.s, \b0\().b, \a1\().b[0]
    sdot    z25.s, \b1\().b, \a1\().b[0]
    sdot    z26.s, \b0\().b, \a1\().b[1]
    sdot    z27.s, \b1\().b, \a1\().b[1]
    sdot    z28.s, \b0\().b, \a1\().b[2]
    sdot    z29.s, \b1\().b, \a1\().b[2]
    sdot    z30.s, \b0\().b, \a1\().b[3]
    sdot    z31.s, \b1\().b, \a1\().b[3]
.endm

/* Any strides: one row at x3 through the column offsets in z4-z7 (columns
 * 0..L/2-1, L/2..L-1, L..3L/2-1, 3L/2..2L-1), then x3 += rsc. */
.macro STORE_ROW_SCATTER v0, v1
    QMM_SVE_SCATTER_S32 \v0, x3, z4, z5, z0, z1
    QMM_SVE_SCATTER_S32 \v1, x3, z6, z7, z2, z3
    add     x3, x3, x4
.endm

QMM_FUNCTION qmm_arm64_mmm_i8i32_8x2vl_sve_sdot_run
    ptrue   p0.b
    QMM_SVE_ZERO_S z16, z17, z18, z19, z20, z21, z22, z23, z24, z25, z26, z27, z28, z29, z30, z31
    lsr     x7, x0, #4
    ubfx    x8, x0, #2, #2
    cbz     x7, 2f

1:  /* 4 blocks: z0-z3 and z4-z7 alternate, each reloaded once its block's
     * 16 sdot are issued. */
    LOAD_8x2VL z0, z1, z2, z3, 0, 16, 0, 1
    LOAD_8x2VL z4, z5, z6, z7, 32, 48, 2, 3
    DOT_8x2VL  z0, z1, z2, z3
    LOAD_8x2VL z0, z1, z2, z3, 64, 80, 4, 5
    DOT_8x2VL  z4, z5, z6, z7
    LOAD_8x2VL z4, z5, z6, z7, 96, 112, 6, 7
    DOT_8x2VL  z0, z1, z2, z3
    DOT_8x2VL  z4, z5, z6, z7
    add     x1, x1, #128
    addvl   x2, x2, #8
    subs    x7, x7, #1
    b.ne    1b

2:  cbz     x8, 4f
3:  /* The last blocks, one at a time. */
    LOAD_8x2VL z0, z1, z2, z3, 0, 16, 0, 1
    DOT_8x2VL  z0, z1, z2, z3
    add     x1, x1, #32
    addvl   x2, x2, #2
    subs    x8, x8, #1
    b.ne    3b

4:  lsl     x4, x4, #2
    cmp     x5, #1
    b.ne    5f
    /* Row-major: each row is two contiguous vectors. */
    QMM_SVE_STORE_ROW z16, z17, x3, x4
    QMM_SVE_STORE_ROW z18, z19, x3, x4
    QMM_SVE_STORE_ROW z20, z21, x3, x4
    QMM_SVE_STORE_ROW z22, z23, x3, x4
    QMM_SVE_STORE_ROW z24, z25, x3, x4
    QMM_SVE_STORE_ROW z26, z27, x3, x4
    QMM_SVE_STORE_ROW z28, z29, x3, x4
    st1w    {z30.s}, p0, [x3]
    st1w    {z31.s}, p0, [x3, #1, mul vl]
    ret

5:  /* Any other strides: byte offsets j*csc*4 of the four column quarters. */
    lsl     x5, x5, #2
    cntd    x9
    mul     x9, x9, x5                      /* (L/2) * csc * 4 */
    index   z4.d, #0, x5
    index   z5.d, x9, x5
    add     x10, x9, x9
    index   z6.d, x10, x5
    add     x10, x10, x9
    index   z7.d, x10, x5
    STORE_ROW_SCATTER z16, z17
    STORE_ROW_SCATTER z18, z19
    STORE_ROW_SCATTER z20, z21
    STORE_ROW_SCATTER z22, z23
    STORE_ROW_SCATTER z24, z25
    STORE_ROW_SCATTER z26, z27
    STORE_ROW_SCATTER z28, z29
    STORE_ROW_SCATTER z30, z31
    ret
QMM_END_FUNCTION qmm_arm64_mmm_i8i32_8x2vl_sve_sdot_run
