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
 *   x7 = pairs of blocks (16 depths), x8 = a last single block (0 or 1).
 *
 * Per block: 4 ld1rqb + 4 ld1b + 16 smmla, each smmla 32 MACs per segment:
 * 512 * S MACs.
 *
 * Instructions per MAC, main loop (2 blocks = 16 depths): 8 ld1rqb + 8 ld1b +
 * 32 smmla + add + addvl + subs + b.ne = 52 per 1024 * S MACs: 0.051 at 128
 * bits (the NEON SMMLA kernel: 0.043, which the selector keeps there), 0.025
 * at 256, 0.0127 at 512. Stores, row-major C: 16 uzp1/uzp2 + 16 st1w + 9 for
 * the row addresses per tile.
 *
 * Exactness: SMMLA adds eight exact int8 x int8 products into a 32-bit lane
 * modulo 2^32: the exact sum with wrap-around.
 */
        .arch   armv8.6-a+sve

#include "object_format.inc"

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
    st1w    {\z_lo\().s}, p0, [x9]
    st1w    {\z_hi\().s}, p0, [x9, #1, mul vl]
    add     x9, x9, x4
.endm

/* The same at any csc: each vector's 32-bit lanes widened to two halves of
 * 64-bit lanes and scattered with 64-bit element offsets j * csc (z6), the
 * halves vl/2 * csc elements apart (x11 bytes), the vectors vl * csc (x12). */
.macro STORE_VECTOR_STRIDED z_row, base
    uunpklo z4.d, \z_row\().s
    uunpkhi z5.d, \z_row\().s
    st1w    {z4.d}, p0, [\base, z6.d, lsl #2]
    add     x13, \base, x11
    st1w    {z5.d}, p0, [x13, z6.d, lsl #2]
.endm

.macro STORE_ROW_STRIDED z_lo, z_hi
    STORE_VECTOR_STRIDED \z_lo, x9
    add     x10, x9, x12
    STORE_VECTOR_STRIDED \z_hi, x10
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
    mov     z16.s, #0
    mov     z17.s, #0
    mov     z18.s, #0
    mov     z19.s, #0
    mov     z20.s, #0
    mov     z21.s, #0
    mov     z22.s, #0
    mov     z23.s, #0
    mov     z24.s, #0
    mov     z25.s, #0
    mov     z26.s, #0
    mov     z27.s, #0
    mov     z28.s, #0
    mov     z29.s, #0
    mov     z30.s, #0
    mov     z31.s, #0
    lsr     x7, x0, #4
    ubfx    x8, x0, #3, #1
    cbz     x7, 2f

1:  MMLA_BLOCK 0, 0
    MMLA_BLOCK 64, 4
    add     x1, x1, #128
    addvl   x2, x2, #8
    subs    x7, x7, #1
    b.ne    1b

2:  cbz     x8, 3f
    MMLA_BLOCK 0, 0

3:  lsl     x4, x4, #2              /* rsc in bytes */
    mov     x9, x3
    cmp     x5, #1
    b.ne    4f
    STORE_TILE CONTIGUOUS
    ret

4:  index   z6.d, #0, x5            /* j * csc, 64-bit */
    cntd    x11
    mul     x11, x11, x5
    lsl     x11, x11, #2            /* vl/2 columns, in bytes */
    lsl     x12, x11, #1            /* vl columns */
    STORE_TILE STRIDED
    ret
QMM_END_FUNCTION qmm_arm64_mmm_i8i32_8x2vl_sve_smmla_run
