/*
 * arm64 matrix kernel, SVE + FEAT_I8MM (SMMLA on SVE vectors), vector-length
 * agnostic: tile 8 x 2vl, 8 rows by nr = 2 * VL/32 columns (VL in bits, so
 * nr = VL bytes / 2: 8 at 128 bits, 16 at 256 (Graviton3), 32 at 512, 128 at
 * 2048). Each SMMLA multiplies, in every 128-bit segment, a 2x8 int8 block of
 * A by an 8x2 block of B into a 2x2 int32 block.
 *
 *   void qmm_arm64_mmm_i8i32_8x2vl_sve_smmla_run(size_t kp, const void *a,
 *           const void *b, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);
 *   x0 = kp (a multiple of 8), x1 = A panel, x2 = B panel, x3 = c,
 *   x4 = rsc, x5 = csc (elements)
 *
 * Packing consumed: A and B both i8_k8 (kp padded to a multiple of 8 with
 * zeros). Per block of 8 depths: 64 A bytes, rows 0..7 x 8 depths, each row
 * pair (2i, 2i+1) one 16-byte 2x8 block; then nr * 8 B bytes, four vectors,
 * each 128-bit segment of one a column pair's 2x8 block: segment s of B
 * vector v holds columns 2(vS+s) and 2(vS+s)+1, S = VL/128 segments.
 *
 * Register map:
 *   z0-z3    A row pairs (0,1) (2,3) (4,5) (6,7), each replicated into every
 *            segment (ld1rqb)
 *   z4-z7    B vectors 0-3
 *   z16-z31  accumulators: z(16+4i+v) = row pair i x B vector v; its segment
 *            s holds the 2x2 block (rows 2i, 2i+1) x (columns 2(vS+s), +1) as
 *            r0c0 r0c1 r1c0 r1c1, so 64-bit element 2s is row 2i's column
 *            pair and element 2s+1 row 2i+1's
 *   p0       all true
 *   No callee-saved register (d8-d15) is touched.
 *   x7 = groups of 4 blocks (32 depths), x8 = the blocks after them (0-3).
 *
 * Per block: 4 ld1rqb + 4 ld1b + 16 smmla, each smmla 32 MACs per segment:
 * 512 * S MACs.
 *
 * Instructions per MAC, main loop (4 blocks = 32 depths): 16 ld1rqb + 16 ld1b
 * + 64 smmla + add + addvl + subs + b.ne = 100 per 2048 * S MACs: 0.049 at
 * 128 bits (the NEON SMMLA kernel: 0.043, which the selector keeps there),
 * 0.024 at 256, 0.0122 at 512. Stores, row-major C: 16 uzp1/uzp2 + 16 st1w + 9 for
 * the row addresses per tile.
 *
 * Exactness: SMMLA adds eight exact int8 x int8 products into a 32-bit lane
 * modulo 2^32: the exact sum with wrap-around.
 */
        .arch   armv8.6-a+sve

#include "object_format.inc"
#include "sve_store.inc"

/* One block of 8 depths: A at x1 + aoff bytes, B at x2 + boff vectors. */
.macro MMLA_BLOCK aoff, boff
    ld1rqb  {z0.b}, p0/z, [x1, #\aoff]
    ld1rqb  {z1.b}, p0/z, [x1, #(\aoff + 16)]
    ld1rqb  {z2.b}, p0/z, [x1, #(\aoff + 32)]
    ld1rqb  {z3.b}, p0/z, [x1, #(\aoff + 48)]
    ld1b    {z4.b}, p0/z, [x2, #\boff, mul vl]
    ld1b    {z5.b}, p0/z, [x2, #(\boff + 1), mul vl]
    ld1b    {z6.b}, p0/z, [x2, #(\boff + 2), mul vl]
    ld1b    {z7.b}, p0/z, [x2, #(\boff + 3), mul vl]
    smmla   z16.s, z0.b, z4.b
    smmla   z17.s, z0.b, z5.b
    smmla   z18.s, z0.b, z6.b
    smmla   z19.s, z0.b, z7.b
    smmla   z20.s, z1.b, z4.b
    smmla   z21.s, z1.b, z5.b
    smmla   z22.s, z1.b, z6.b
    smmla   z23.s, z1.b, z7.b
    smmla   z24.s, z2.b, z4.b
    smmla   z25.s, z2.b, z5.b
    smmla   z26.s, z2.b, z6.b
    smmla   z27.s, z2.b, z7.b
    smmla   z28.s, z3.b, z4.b
    smmla   z29.s, z3.b, z5.b
    smmla   z30.s, z3.b, z6.b
    smmla   z31.s, z3.b, z7.b
.endm

/* Row pair i's accumulators acc0..acc3 (B vectors 0-3) into rows: z0, z1 =
 * row 2i's columns [0, 2vl) as two vectors, z2, z3 = row 2i+1's. */
.macro ROWS_OF acc0, acc1, acc2, acc3
    uzp1    z0.d, \acc0\().d, \acc1\().d
    uzp1    z1.d, \acc2\().d, \acc3\().d
    uzp2    z2.d, \acc0\().d, \acc1\().d
    uzp2    z3.d, \acc2\().d, \acc3\().d
.endm

/* A row held in z_lo (columns [0, vl)) and z_hi (columns [vl, 2vl)) at x9,
 * csc == 1. */
.macro STORE_ROW_CONTIGUOUS z_lo, z_hi
    QMM_SVE_STORE_ROW \z_lo, \z_hi, x9, x4
.endm

/* The same at any csc: a row's columns at byte offsets j * csc * 4 from x9,
 * its lanes in four quarters (z6, z7: the offsets of the first two; the
 * second vector's, vl * csc * 4 bytes on, from x10). */
.macro STORE_ROW_STRIDED z_lo, z_hi
    QMM_SVE_SCATTER_S32 \z_lo, x9, z6, z7, z4, z5
    add     x10, x9, x12
    QMM_SVE_SCATTER_S32 \z_hi, x10, z6, z7, z4, z5
    add     x9, x9, x4
.endm

/* Row pair i: its rows stored by the path chosen (contiguous or strided). */
.macro STORE_PAIR path, acc0, acc1, acc2, acc3
    ROWS_OF \acc0, \acc1, \acc2, \acc3
    STORE_ROW_\path z0, z1
    STORE_ROW_\path z2, z3
.endm

.macro STORE_TILE path
    STORE_PAIR \path, z16, z17, z18, z19
    STORE_PAIR \path, z20, z21, z22, z23
    STORE_PAIR \path, z24, z25, z26, z27
    STORE_PAIR \path, z28, z29, z30, z31
.endm

QMM_FUNCTION qmm_arm64_mmm_i8i32_8x2vl_sve_smmla_run
    ptrue   p0.b
    QMM_SVE_ZERO_S z16, z17, z18, z19, z20, z21, z22, z23, z24, z25, z26, z27, z28, z29, z30, z31
    lsr     x7, x0, #5
    ubfx    x8, x0, #3, #2
    cbz     x7, 2f

    /* The pointers move once per 4 blocks, halfway: the blocks after read
     * back from them (ld1rqb reaches -128..112 bytes, ld1b -8..7 vectors). */
1:  MMLA_BLOCK 0, 0
    MMLA_BLOCK 64, 4
    add     x1, x1, #256
    addvl   x2, x2, #16
    MMLA_BLOCK -128, -8
    MMLA_BLOCK -64, -4
    subs    x7, x7, #1
    b.ne    1b

2:  cbz     x8, 3f
5:  MMLA_BLOCK 0, 0
    add     x1, x1, #64
    addvl   x2, x2, #4
    subs    x8, x8, #1
    b.ne    5b

3:  lsl     x4, x4, #2              /* rsc in bytes */
    mov     x9, x3
    cmp     x5, #1
    b.ne    4f
    STORE_TILE CONTIGUOUS
    ret

4:  lsl     x5, x5, #2              /* csc in bytes */
    cntd    x11
    mul     x11, x11, x5            /* vl/2 columns, in bytes */
    index   z6.d, #0, x5            /* j * csc * 4, 64-bit */
    index   z7.d, x11, x5
    lsl     x12, x11, #1            /* vl columns */
    STORE_TILE STRIDED
    ret
QMM_END_FUNCTION qmm_arm64_mmm_i8i32_8x2vl_sve_smmla_run
