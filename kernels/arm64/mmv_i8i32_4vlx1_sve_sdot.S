/*
 * arm64 GEMV kernel (n == 1), 4VL x 1 tile, SVE SDOT (vector-length
 * agnostic): each SDOT lane adds a 4-depth int8 dot product into int32.
 *
 *   void qmm_arm64_mmv_i8i32_4vlx1_sve_sdot_run(size_t kp, const void *a,
 *           const void *b, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);
 *   x0 = kp (a multiple of 4), x1 = A panel, x2 = B panel, x3 = c,
 *   x4 = rsc (elements, any sign), x5 = csc (unused: one column)
 *
 * Tile: with V the vector length in bytes (cntb) and L = V/4 int32 lanes,
 * mr = 4L = V rows by nr = 1: 16x1 at V=16, 32x1 at V=32, 64x1 at V=64,
 * 256x1 at V=256. The code reads V at run time (rdvl, the mul vl offsets,
 * cntd) and assumes none.
 *
 * Packing consumed: A and B both i8_k4 (kp padded to a multiple of 4 with
 * zeros). Per block of 4 depths: 4V A bytes, rows 0..V-1 x 4 depths (row i's
 * 4 bytes at 4i, one 32-bit word per row); 4 B bytes (its one column).
 *
 * Rows to lanes: an A block is read by one ld4w, which splits its V words
 * four ways: z(n+k) lane e = word 4e+k = row 4e+k (k = 0..3, e < L). So
 * accumulator k of a set holds rows k, 4+k, 8+k, ...: the four accumulators
 * cover the V rows once, and st4w, which interleaves the same way, stores
 * them back in row order (rsc == 1). One load instruction per 4V bytes of A,
 * where ld1b would need four (ld1b: 0.070/MAC at V=32 in the main loop).
 * Cores split ld4w into several micro-ops (the de-interleave), so it costs
 * more than a contiguous load of the same bytes: fewer instructions, not
 * necessarily fewer cycles where A is in L1 (measured under QEMU only).
 *
 * Register map:
 *   z24-z27  accumulators, set 0 (even blocks): z(24+k) lane e = a partial
 *            sum of row 4e+k
 *   z28-z31  accumulators, set 1 (odd blocks), the same rows; added to set 0
 *            at the end
 *   z16-z19  A block (even blocks), z20-z23 A block (odd blocks); each is
 *            reloaded as soon as its block's 4 sdot are issued
 *   z0-z3    B: 16 bytes (4 blocks) each, ld1rqb-replicated into every
 *            128-bit segment; sdot's index [b] picks block b's 4 bytes
 *   z0, z1, z4, z5   in the general store: unpacked sums, row offsets
 *   p0       all true
 *   Only z0-z5 and z16-z31: no callee-saved register (d8-d15) is touched.
 *   x7 = groups of 32 blocks (128 depths), x8 = the last blocks (0-31);
 *   main loop: x9 = byte offset into B running up to 0 (also the loop's
 *   count), x2, x10, x12-x17 = the 8 B bases (end of the groups + 0, 16,
 *   ..., 112), x1 = A + 32V (so each 16 blocks' ld4w offsets, -32..28 VL,
 *   fit the immediate), x11 = 64V (A bytes of 16 blocks).
 *
 * Per block:  ld4w {zA0-zA3} + 4 sdot zacc_k.s, zA_k.b, zB.b[b]
 *
 * Instructions per MAC, main loop (32 blocks = 128 depths = 128V MACs):
 * 8 ld1rqb + 32 ld4w + 128 sdot + 2 add + adds + b.ne = 172, that is
 * 0.084/MAC at V=16, 0.042 at V=32, 0.021 at V=64, 0.0052 at V=256 (the NEON
 * SDOT 8x1: 0.084). The last blocks: 16 at once (4 ld1rqb + 16 ld4w + 64
 * sdot + 2 add), 8 (2 ld1rqb + 8 ld4w + 32 sdot + 2 addvl + add), 4
 * (ld1rqb + 4 ld4w + 16 sdot + addvl + add), then one at a time (ld1rw +
 * ld4w + 4 sdot + addvl + add + subs + b.ne = 10 per 4V MACs).
 * Each A byte is read once: the kernel runs at the speed of reading A.
 *
 * Stores (overwriting c[i*rsc]):
 *  - rsc == 1: one st4w (rows back in order, 4 vectors).
 *  - anything else: each accumulator unpacked to 64-bit lanes
 *    (uunpklo/uunpkhi) and stored by two st1w scatters of L/2 elements, at
 *    64-bit byte offsets (4e+k)*rsc*4 built with index (wrapping like pointer
 *    arithmetic, so exact for any stride).
 *
 * Exactness: SDOT and ADD add into 32-bit lanes modulo 2^32: the exact sum
 * with wrap-around.
 */
        .arch   armv8.2-a+sve

#include "object_format.inc"
#include "sve_store.inc"

/* One A block from x1 + \off vectors: into z16-z19 (\set 0) or z20-z23 (1). */
.macro LOAD_A set, off
    .if \set == 0
    ld4w    {z16.s - z19.s}, p0/z, [x1, #\off, mul vl]
    .else
    ld4w    {z20.s - z23.s}, p0/z, [x1, #\off, mul vl]
    .endif
.endm

/* One block's 4 sdot: accumulator set \set (z24-z27 or z28-z31) += its A
 * block (z16-z19 or z20-z23) . B block \b of the 16 bytes in \zb. */
.macro DOT_4VL set, zb, b
    .if \set == 0
    sdot    z24.s, z16.b, \zb\().b[\b]
    sdot    z25.s, z17.b, \zb\().b[\b]
    sdot    z26.s, z18.b, \zb\().b[\b]
    sdot    z27.s, z19.b, \zb\().b[\b]
    .else
    sdot    z28.s, z20.b, \zb\().b[\b]
    sdot    z29.s, z21.b, \zb\().b[\b]
    sdot    z30.s, z22.b, \zb\().b[\b]
    sdot    z31.s, z23.b, \zb\().b[\b]
    .endif
.endm

/* Any rsc: accumulator \acc (rows 4e+k, e < L) at x3 + z4 (e < L/2) and
 * x3 + z5 (e >= L/2), then x3 += rsc (the next k). */
.macro STORE_SCATTER acc
    QMM_SVE_SCATTER_S32 \acc, x3, z4, z5, z0, z1
    add     x3, x3, x4
.endm

/* B's 64 bytes for 16 blocks into z0-z3, from the four bases at offset x9. */
.macro LOAD_B_16 b0, b1, b2, b3
    ld1rqb  {z0.b}, p0/z, [\b0, x9]
    ld1rqb  {z1.b}, p0/z, [\b1, x9]
    ld1rqb  {z2.b}, p0/z, [\b2, x9]
    ld1rqb  {z3.b}, p0/z, [\b3, x9]
.endm

/* 16 blocks from x1 + 32V (A offsets -32..28 VL), B's 64 bytes in z0-z3:
 * the two A sets alternate, each reloaded once its block's 4 sdot are
 * issued. */
.macro BLOCKS_16
    LOAD_A  0, -32
    LOAD_A  1, -28
    DOT_4VL 0, z0, 0
    LOAD_A  0, -24
    DOT_4VL 1, z0, 1
    LOAD_A  1, -20
    DOT_4VL 0, z0, 2
    LOAD_A  0, -16
    DOT_4VL 1, z0, 3
    LOAD_A  1, -12
    DOT_4VL 0, z1, 0
    LOAD_A  0, -8
    DOT_4VL 1, z1, 1
    LOAD_A  1, -4
    DOT_4VL 0, z1, 2
    LOAD_A  0, 0
    DOT_4VL 1, z1, 3
    LOAD_A  1, 4
    DOT_4VL 0, z2, 0
    LOAD_A  0, 8
    DOT_4VL 1, z2, 1
    LOAD_A  1, 12
    DOT_4VL 0, z2, 2
    LOAD_A  0, 16
    DOT_4VL 1, z2, 3
    LOAD_A  1, 20
    DOT_4VL 0, z3, 0
    LOAD_A  0, 24
    DOT_4VL 1, z3, 1
    LOAD_A  1, 28
    DOT_4VL 0, z3, 2
    DOT_4VL 1, z3, 3
.endm

QMM_FUNCTION qmm_arm64_mmv_i8i32_4vlx1_sve_sdot_run
    ptrue   p0.b
    QMM_SVE_ZERO_S z24, z25, z26, z27, z28, z29, z30, z31
    rdvl    x11, #16
    add     x1, x1, x11, lsl #1             /* A + 32V */
    lsl     x11, x11, #2                    /* 64V: A bytes of 16 blocks */
    lsr     x7, x0, #7
    ubfx    x8, x0, #2, #5
    cbz     x7, 2f
    /* B through one offset x9 that runs from -(128 * x7) up to 0 from the
     * end of the groups: its add is the loop's count. */
    add     x2, x2, x7, lsl #7
    neg     x9, x7, lsl #7
    add     x10, x2, #16
    add     x12, x2, #32
    add     x13, x2, #48
    add     x14, x2, #64
    add     x15, x2, #80
    add     x16, x2, #96
    add     x17, x2, #112

1:  /* 32 blocks. */
    LOAD_B_16 x2, x10, x12, x13
    BLOCKS_16
    add     x1, x1, x11
    LOAD_B_16 x14, x15, x16, x17
    BLOCKS_16
    add     x1, x1, x11
    adds    x9, x9, #128
    b.ne    1b

2:  tbz     x8, #4, 8f
    ld1rqb  {z0.b}, p0/z, [x2]
    ld1rqb  {z1.b}, p0/z, [x2, #16]
    ld1rqb  {z2.b}, p0/z, [x2, #32]
    ld1rqb  {z3.b}, p0/z, [x2, #48]
    BLOCKS_16
    add     x1, x1, x11
    add     x2, x2, #64

8:  sub     x1, x1, x11, lsr #1             /* back from A + 32V */
    tbz     x8, #3, 3f
    /* 8 blocks, from A + 16V (offsets -16..12 VL). */
    ld1rqb  {z0.b}, p0/z, [x2]
    ld1rqb  {z1.b}, p0/z, [x2, #16]
    addvl   x1, x1, #16
    LOAD_A  0, -16
    LOAD_A  1, -12
    DOT_4VL 0, z0, 0
    LOAD_A  0, -8
    DOT_4VL 1, z0, 1
    LOAD_A  1, -4
    DOT_4VL 0, z0, 2
    LOAD_A  0, 0
    DOT_4VL 1, z0, 3
    LOAD_A  1, 4
    DOT_4VL 0, z1, 0
    LOAD_A  0, 8
    DOT_4VL 1, z1, 1
    LOAD_A  1, 12
    DOT_4VL 0, z1, 2
    DOT_4VL 1, z1, 3
    addvl   x1, x1, #16
    add     x2, x2, #32

3:  tbz     x8, #2, 4f
    /* 4 blocks. */
    ld1rqb  {z0.b}, p0/z, [x2]
    LOAD_A  0, 0
    LOAD_A  1, 4
    DOT_4VL 0, z0, 0
    LOAD_A  0, 8
    DOT_4VL 1, z0, 1
    LOAD_A  1, 12
    DOT_4VL 0, z0, 2
    DOT_4VL 1, z0, 3
    addvl   x1, x1, #16
    add     x2, x2, #16

4:  ands    x8, x8, #3
    b.eq    6f
5:  /* The last blocks (0-3), one at a time: B's 4 bytes broadcast. */
    ld1rw   {z0.s}, p0/z, [x2]
    LOAD_A  0, 0
    DOT_4VL 0, z0, 0
    addvl   x1, x1, #4
    add     x2, x2, #4
    subs    x8, x8, #1
    b.ne    5b

6:  add     z24.s, z24.s, z28.s
    add     z25.s, z25.s, z29.s
    add     z26.s, z26.s, z30.s
    add     z27.s, z27.s, z31.s
    cmp     x4, #1
    b.ne    7f
    st4w    {z24.s - z27.s}, p0, [x3]
    ret

7:  /* Any other rsc: accumulator k's lane e is row 4e+k. */
    lsl     x4, x4, #2                      /* rsc * 4: the next k */
    lsl     x9, x4, #2                      /* rsc * 16: the next e */
    cntd    x10
    mul     x10, x10, x9                    /* (L/2) * rsc * 16 */
    index   z4.d, #0, x9                    /* lanes e < L/2 */
    index   z5.d, x10, x9                   /* lanes e >= L/2 */
    STORE_SCATTER z24
    STORE_SCATTER z25
    STORE_SCATTER z26
    QMM_SVE_SCATTER_S32 z27, x3, z4, z5, z0, z1
    ret
QMM_END_FUNCTION qmm_arm64_mmv_i8i32_4vlx1_sve_sdot_run
