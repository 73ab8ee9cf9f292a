/*
 * arm64 matrix kernel, SME (FEAT_SME; its int8 -> int32 SMOPA is
 * FEAT_SME_I8I32, HWCAP2_SME_I8I32): a 2VL x 2VL int32 tile in the four
 * 32-bit ZA tiles, one 4-way int8 outer product (SMOPA) per ZA tile per block
 * of 4 depths.
 *
 *   void qmm_arm64_mmm_i8i32_2vlx2vl_sme_smopa_run(size_t kp, const void *a,
 *           const void *b, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);
 *   x0 = kp (a multiple of 4, may be 0: the tile is then zeros, still
 *   stored), x1 = A panel, x2 = B panel, x3 = c, x4 = rsc, x5 = csc
 *   (elements, any sign)
 *
 * Tile: with S the streaming vector length in bytes (rdsvl #1) and h = S/4
 * (int32 lanes), mr = nr = 2h: 8x8 at S = 16, 16x16 at S = 32, 32x32 at
 * S = 64 (Apple M4), 128x128 at the architecture's largest S = 256. The code
 * reads S at run time, in streaming mode, where rdvl, addvl and cntw count
 * the streaming vector length (clang 14 knows no rdsvl or addsvl).
 *   za0 = C[0..h-1][0..h-1]    za1 = C[0..h-1][h..2h-1]
 *   za2 = C[h..2h-1][0..h-1]   za3 = C[h..2h-1][h..2h-1]
 *
 * Packing consumed: A and B both i8_k4 (kp padded to a multiple of 4 with
 * zeros). Per block of 4 depths: 2S bytes of A, row i's 4 bytes at 4i (the
 * first S bytes rows 0..h-1, the next S rows h..2h-1), and likewise 2S bytes
 * of B for its 2h columns. Any alignment (byte loads): A may be read in place.
 *
 * Register map:
 *   za0-za3  the accumulators (above)
 *   z0, z1   A block: rows 0..h-1, rows h..2h-1 (4 bytes per 32-bit lane)
 *   z2, z3   B block: columns 0..h-1, columns h..2h-1
 *   z4-z7    the same for the second block of an unrolled pair
 *   p0       all true
 *   Depth loop: x7 = byte offset, from -(bytes of the pairs) up to 0 in
 *   steps of x10 = 4S; A bases x11-x14 = the end of A's pairs + 0, S, 2S,
 *   3S; B bases x15, x16, x17, x6 likewise (ld1b [base, x7]: no pointer
 *   updates); a last single block at x11, x15.
 *   Stores: w12 = slice index, x15 = h, x7 = slice offset in elements, bases
 *   x3, x8, x10, x11 for za0, za1, za2, za3; the general path's scalar
 *   copy uses w1, w2, w6, w7, x9, x16, x17.
 *   Only caller-saved x registers (never x18); d8-d15 saved on the stack.
 *
 * Per block:  smopa za0.s, p0/m, p0/m, z0.b, z2.b    rows 0..h-1 x cols 0..h-1
 *             smopa za1.s, p0/m, p0/m, z0.b, z3.b    rows 0..h-1 x cols h..2h-1
 *             smopa za2.s, p0/m, p0/m, z1.b, z2.b    rows h..2h-1 x cols 0..h-1
 *             smopa za3.s, p0/m, p0/m, z1.b, z3.b    rows h..2h-1 x cols h..2h-1
 * (za0[i][j] += sum_{k<4} z0.b[4i+k] * z2.b[4j+k]: 4h^2 MACs each.)
 *
 * Instructions per MAC: the depth loop runs a pair of blocks (8 depths,
 * 32h^2 MACs) in 8 ld1b + 8 smopa + adds + b.ne = 18 instructions, 9 per
 * block: 0.0022/MAC at S = 64 (4,096 MACs per block), 0.0088 at S = 32,
 * 0.035 at S = 16. A last single block (kp/4 odd): tbz + 4 ld1b + 4 smopa.
 * One whole call, row-major C (csc == 1):
 *   33 + 23*h/4 (stores) + [kp >= 8] (6 + 18*floor(kp/8)) + [kp/4 odd] 8
 * column-major (rsc == 1): 2 more; both store one ZA slice (h elements of a
 * C row or column) per st1w, 16 st1w + 7 per 16 slices. Other strides: each
 * C row through a 2S-byte stack buffer (2 st1w), then scalar ldp/str, about
 * 2.7 instructions per element (2,837 for the 32x32 tile).
 * Counted under QEMU (tools/qemu-icount, whole call, stores included):
 *   S = 64 (32x32): kp = 384: 995, 0.0025/MAC; kp = 1024: 2,435, 0.0023/MAC
 *   S = 32 (16x16): kp = 384: 949, 0.0097/MAC; kp = 1024: 2,389, 0.0091/MAC
 *
 * Exactness: SMOPA adds four exact int8 x int8 products into each 32-bit ZA
 * element modulo 2^32: the exact sum with wrap-around.
 *
 * Streaming mode and the AAPCS64 SME rules: to its callers the kernel is an
 * ordinary function (non-streaming interface, private ZA, no ZT0 use). It
 * requires PSTATE.SM = 0 on entry (a non-streaming caller, as qmm's C
 * callers are). It enters streaming mode and enables ZA itself (smstart),
 * zeroes ZA, and leaves with smstop (PSTATE.SM = PSTATE.ZA = 0) on its one
 * return path. smstart and smstop zero the Z and P registers, whose low 64
 * bits v8-v15 (d8-d15) are callee-saved: d8-d15 are stored on the stack
 * before smstart and reloaded after smstop. In streaming mode it uses only
 * SME, SVE contiguous loads and stores and scalar code: no NEON, no
 * gather/scatter (FEAT_SME_FA64 is not assumed).
 * Lazy save (TPIDR2_EL0): a caller may call a private-ZA function with its
 * own ZA dormant (PSTATE.ZA = 1, TPIDR2_EL0 = the address of its TPIDR2
 * block); a callee that uses ZA must first commit that save, which compiled
 * code does by calling __arm_tpidr2_save (libgcc from gcc 14 on,
 * compiler-rt; gcc 12's libgcc has none). The kernel commits it inline and
 * needs no runtime helper: every call reads TPIDR2_EL0 (mrs + cbnz; zero
 * unless the caller has ZA state, which qmm's callers never have); when it
 * is non-zero the kernel stores the block's num_za_save_slices ZA vectors
 * to its za_save_buffer, as __arm_tpidr2_save does, and sets TPIDR2_EL0 = 0,
 * so that the caller restores its ZA from the buffer after the call. A
 * block with non-zero reserved bytes, on which the ABI says to abort, stops
 * at `brk #1` (SIGTRAP). ZT0 (SME2) is outside the lazy save: the caller
 * saves it around any private-ZA call, as the ABI requires.
 */
        .arch   armv9-a+sme

#include "object_format.inc"

/* Store the 2h x 2h tile by ZA slices: \hv = h (horizontal slices: C rows,
 * csc == 1) or v (vertical slices: C columns, rsc == 1). Slice n of za0,
 * za1, za2, za3 goes to x3, x8, x10, x11 + 4 * x7, x7 = n * \step (in
 * elements); w12 = 0, x7 = 0 and x15 = h on entry. Four slices per tile and
 * per iteration (h is a multiple of 4). */
.macro SME_STORE_SLICES hv, step
2:  SME_STORE_SLICE_4 \hv, 0, \step
    SME_STORE_SLICE_4 \hv, 1, \step
    SME_STORE_SLICE_4 \hv, 2, \step
    SME_STORE_SLICE_4 \hv, 3, \step
    add     w12, w12, #4
    cmp     w12, w15
    b.lo    2b
.endm

.macro SME_STORE_SLICE_4 hv, off, step
    st1w    {za0\hv\().s[w12, \off]}, p0, [x3, x7, lsl #2]
    st1w    {za1\hv\().s[w12, \off]}, p0, [x8, x7, lsl #2]
    st1w    {za2\hv\().s[w12, \off]}, p0, [x10, x7, lsl #2]
    st1w    {za3\hv\().s[w12, \off]}, p0, [x11, x7, lsl #2]
    add     x7, x7, \step
.endm

/* One block of 4 depths: A rows in \a0 (0..h-1) and \a1 (h..2h-1), B
 * columns in \b0 (0..h-1) and \b1 (h..2h-1). */
.macro SME_MOPA_BLOCK a0, a1, b0, b1
    smopa   za0.s, p0/m, p0/m, \a0\().b, \b0\().b
    smopa   za1.s, p0/m, p0/m, \a0\().b, \b1\().b
    smopa   za2.s, p0/m, p0/m, \a1\().b, \b0\().b
    smopa   za3.s, p0/m, p0/m, \a1\().b, \b1\().b
.endm

/* General strides: the 2h int32 at sp (one C row, from its two ZA slices)
 * to \row, \row + csc, ... (x5 = csc in bytes), four per iteration (2h is a
 * multiple of 8): 10 instructions per 4 elements. Clobbers x9, x16, x17,
 * w1, w2, w6, w7. */
.macro SME_SCATTER_ROW row
    mov     x16, sp
    mov     x9, \row
    lsl     x17, x15, #1            /* 2h elements */
3:  ldp     w1, w2, [x16], #8
    ldp     w6, w7, [x16], #8
    str     w1, [x9]
    str     w2, [x9, x5]
    add     x9, x9, x5, lsl #1
    str     w6, [x9]
    str     w7, [x9, x5]
    add     x9, x9, x5, lsl #1
    subs    x17, x17, #4
    b.ne    3b
.endm

.macro SME_RETURN
    smstop
    ldp     d10, d11, [sp, #16]
    ldp     d12, d13, [sp, #32]
    ldp     d14, d15, [sp, #48]
    ldp     d8, d9, [sp], #64
    ret
.endm

QMM_FUNCTION qmm_arm64_mmm_i8i32_2vlx2vl_sme_smopa_run
    stp     d8, d9, [sp, #-64]!
    stp     d10, d11, [sp, #16]
    stp     d12, d13, [sp, #32]
    stp     d14, d15, [sp, #48]
    mrs     x9, TPIDR2_EL0
    cbnz    x9, QMM_LOCAL(sme_smopa_commit_za)
    smstart
QMM_LOCAL(sme_smopa_za_on):
    zero    {za}
    ptrue   p0.b

    /* Pairs of blocks: 4S bytes of A and of B each. */
    rdvl    x10, #4
    lsr     x7, x0, #3
    mul     x7, x7, x10
    add     x11, x1, x7             /* A and B past their pairs: where the */
    add     x15, x2, x7             /* last single block is */
    neg     x7, x7
    cbz     x7, QMM_LOCAL(sme_smopa_last_block)
    addvl   x12, x11, #1
    addvl   x13, x11, #2
    addvl   x14, x11, #3
    addvl   x16, x15, #1
    addvl   x17, x15, #2
    addvl   x6, x15, #3
1:  ld1b    {z0.b}, p0/z, [x11, x7]
    ld1b    {z1.b}, p0/z, [x12, x7]
    ld1b    {z2.b}, p0/z, [x15, x7]
    ld1b    {z3.b}, p0/z, [x16, x7]
    ld1b    {z4.b}, p0/z, [x13, x7]
    ld1b    {z5.b}, p0/z, [x14, x7]
    ld1b    {z6.b}, p0/z, [x17, x7]
    ld1b    {z7.b}, p0/z, [x6, x7]
    SME_MOPA_BLOCK z0, z1, z2, z3
    SME_MOPA_BLOCK z4, z5, z6, z7
    adds    x7, x7, x10
    b.ne    1b

QMM_LOCAL(sme_smopa_last_block):
    tbz     x0, #2, QMM_LOCAL(sme_smopa_store)
    ld1b    {z0.b}, p0/z, [x11]
    ld1b    {z1.b}, p0/z, [x11, #1, mul vl]
    ld1b    {z2.b}, p0/z, [x15]
    ld1b    {z3.b}, p0/z, [x15, #1, mul vl]
    SME_MOPA_BLOCK z0, z1, z2, z3

QMM_LOCAL(sme_smopa_store):
    cntw    x15                     /* h */
    mov     w12, #0
    mov     x7, #0
    cmp     x5, #1
    b.ne    QMM_LOCAL(sme_smopa_not_rowmajor)
    /* Row-major: horizontal slices, row n of za0/za1 at c + n*rsc (columns
     * 0..h-1, h..2h-1), of za2/za3 h rows further down. */
    rdvl    x9, #1
    mul     x9, x9, x4              /* h rows down, in bytes */
    addvl   x8, x3, #1
    add     x10, x3, x9
    addvl   x11, x10, #1
    SME_STORE_SLICES h, x4
    SME_RETURN

QMM_LOCAL(sme_smopa_not_rowmajor):
    cmp     x4, #1
    b.ne    QMM_LOCAL(sme_smopa_general)
    /* Column-major: vertical slices, column n of za0/za2 at c + n*csc (rows
     * 0..h-1, h..2h-1), of za1/za3 h columns further right. */
    rdvl    x9, #1
    mul     x9, x9, x5              /* h columns right, in bytes */
    add     x8, x3, x9
    addvl   x10, x3, #1
    addvl   x11, x8, #1
    SME_STORE_SLICES v, x5
    SME_RETURN

QMM_LOCAL(sme_smopa_general):
    /* Any other strides: C row n (za0/za1 slice n) and row h+n (za2/za3
     * slice n) through a 2S-byte buffer on the stack, then scalar stores. */
    addvl   sp, sp, #-2
    lsl     x4, x4, #2
    lsl     x5, x5, #2
    mul     x9, x15, x4             /* h rows down, in bytes */
    add     x8, x3, x9              /* row h */
    addvl   x10, sp, #1
4:  st1w    {za0h.s[w12, 0]}, p0, [sp]
    st1w    {za1h.s[w12, 0]}, p0, [x10]
    SME_SCATTER_ROW x3
    st1w    {za2h.s[w12, 0]}, p0, [sp]
    st1w    {za3h.s[w12, 0]}, p0, [x10]
    SME_SCATTER_ROW x8
    add     x3, x3, x4
    add     x8, x8, x4
    add     w12, w12, #1
    cmp     w12, w15
    b.lo    4b
    addvl   sp, sp, #2
    SME_RETURN

QMM_LOCAL(sme_smopa_commit_za):
    /* A caller's lazy ZA save is pending (x9 = its TPIDR2 block): commit
     * it as __arm_tpidr2_save does, then mark it done. ZA is on (dormant);
     * smstart keeps its contents (PSTATE.ZA stays 1) and makes addvl step
     * by the streaming vector length. */
    smstart
    ldrh    w10, [x9, #10]
    ldr     w11, [x9, #12]
    orr     w10, w10, w11
    cbnz    w10, QMM_LOCAL(sme_smopa_bad_tpidr2)
    ldr     x10, [x9]               /* za_save_buffer */
    ldrh    w11, [x9, #8]           /* num_za_save_slices */
    cbz     x10, 6f
    cbz     w11, 6f
    mov     w12, #0
5:  str     za[w12, 0], [x10]
    addvl   x10, x10, #1
    add     w12, w12, #1
    cmp     w12, w11
    b.ne    5b
6:  msr     TPIDR2_EL0, xzr
    b       QMM_LOCAL(sme_smopa_za_on)
QMM_LOCAL(sme_smopa_bad_tpidr2):
    brk     #0x1
QMM_END_FUNCTION qmm_arm64_mmm_i8i32_2vlx2vl_sme_smopa_run
