/*
 * AVX-512 VNNI matrix kernel, 12x32 tile, exact.
 * Packing: A in i8_k4_sums, B in i8_k4 (int8 as given, 4 depths interleaved
 * per line: for each quad of depths, the 4 bytes of line 0, then line 1, ...);
 * A's panel ends with its 12 row sums (pack/pack.h).
 *
 * The loop, per quad of depths: two 64-byte loads of B (columns 0-15 and
 * 16-31, each 32-bit lane one column's four depths), each xored with 0x80 so
 * that its bytes read as unsigned b + 128; then for each of the 24 (row, half)
 * pairs one `vpdpbusd` whose signed operand is row i's four depths of A,
 * broadcast from memory ({1to16}: a load, no shuffle). Registers: 24
 * accumulators zmm0-23, B in zmm24-25, the 0x80 constant in zmm28. Per 768
 * MACs: 24 vpdpbusd, 2 loads+xors (0.035 instructions per MAC); Zen5 issues
 * two vpdpbusd per cycle.
 *
 * Exactness: vpdpbusd adds the four products u8*s8 (|.| <= 255*128) of a lane
 * to the int32 accumulator without saturation (wrapping; vpdpbusds would
 * saturate and is not used), so the accumulator ends as
 *     sum_p (b + 128) * a = sum_p a*b + 128 * sum_p a      (mod 2^32)
 * and the tile stores it minus 128 times its row's sum of A (from the panel),
 * which is the exact product modulo 2^32. Padding is zero in A, so padded
 * depths add nothing to either term. Computing the row sums here instead, one
 * more vpdpbusd per quad, made the loop 8% slower on Zen5.
 */
#include "../kernel.h"

enum { MR = 12, NR = 32 };

/* Check the signature. */
qmm_ukernel_fn qmm_x86_64_mmm_i8i32_12x32_avx512vnni_run;

/* Row i of a quad at A byte offset disp: accumulators zmm(2i), zmm(2i+1). */
#define ROW(disp, lo, hi)                                                              \
    "vpdpbusd " #disp "(%[a])%{1to16%}, %%zmm24, %%zmm" #lo "\n\t"                    \
    "vpdpbusd " #disp "(%[a])%{1to16%}, %%zmm25, %%zmm" #hi "\n\t"

/* One quad of depths: B at byte offset bo of %[b], A at ao of %[a]. */
#define QUAD(bo, ao)                                                                   \
    "vpxord " #bo "(%[b]), %%zmm28, %%zmm24\n\t"                                      \
    "vpxord " #bo "+64(%[b]), %%zmm28, %%zmm25\n\t"                                   \
    ROW(ao, 0, 1) ROW(ao + 4, 2, 3) ROW(ao + 8, 4, 5) ROW(ao + 12, 6, 7)               \
    ROW(ao + 16, 8, 9) ROW(ao + 20, 10, 11) ROW(ao + 24, 12, 13) ROW(ao + 28, 14, 15)  \
    ROW(ao + 32, 16, 17) ROW(ao + 36, 18, 19) ROW(ao + 40, 20, 21)                    \
    ROW(ao + 44, 22, 23)

/* Row i of the tile: minus 128 times its sum of A (the panel's i-th int32
 * after the elements, where %[a] points once the loop is done), then stored
 * at %[dst], which moves on by %[stride] bytes. */
#define STORE(i, lo, hi)                                                               \
    "vpbroadcastd " #i "*4(%[a]), %%zmm26\n\t"                                       \
    "vpslld $7, %%zmm26, %%zmm26\n\t"                                                \
    "vpsubd %%zmm26, %%zmm" #lo ", %%zmm" #lo "\n\t"                                  \
    "vpsubd %%zmm26, %%zmm" #hi ", %%zmm" #hi "\n\t"                                  \
    "vmovdqu32 %%zmm" #lo ", (%[dst])\n\t"                                            \
    "vmovdqu32 %%zmm" #hi ", 64(%[dst])\n\t"                                          \
    "add %[stride], %[dst]\n\t"

#define ZERO(r) "vpxord %%zmm" #r ", %%zmm" #r ", %%zmm" #r "\n\t"

/* The whole tile, stored as 12 rows of 32 contiguous int32 at dst, dst +
 * stride bytes, ... The accumulators live in fixed registers (clobbered), so
 * that 24 vector values need no asm operands (gcc allows 30). Four quads per
 * iteration, then one at a time. */
static void tile(size_t kp, const int8_t *a, const int8_t *b, int32_t *dst, ptrdiff_t stride)
{
    size_t fours = kp / 16, ones = kp / 4 % 4;
    __asm__ volatile(ZERO(0) ZERO(1) ZERO(2) ZERO(3) ZERO(4) ZERO(5) ZERO(6) ZERO(7)
                     ZERO(8) ZERO(9) ZERO(10) ZERO(11) ZERO(12) ZERO(13) ZERO(14) ZERO(15)
                     ZERO(16) ZERO(17) ZERO(18) ZERO(19) ZERO(20) ZERO(21) ZERO(22) ZERO(23)
                     "mov $0x80808080, %%eax\n\t"
                     "vpbroadcastd %%eax, %%zmm28\n\t"
                     "test %[fours], %[fours]\n\t"
                     "jz 2f\n\t"
                     "1:\n\t"
                     QUAD(0, 0) QUAD(128, 48) QUAD(256, 96) QUAD(384, 144)
                     "add $192, %[a]\n\t"
                     "add $512, %[b]\n\t"
                     "dec %[fours]\n\t"
                     "jnz 1b\n\t"
                     "2:\n\t"
                     "test %[ones], %[ones]\n\t"
                     "jz 4f\n\t"
                     "3:\n\t"
                     QUAD(0, 0)
                     "add $48, %[a]\n\t"
                     "add $128, %[b]\n\t"
                     "dec %[ones]\n\t"
                     "jnz 3b\n\t"
                     "4:\n\t"
                     STORE(0, 0, 1) STORE(1, 2, 3) STORE(2, 4, 5) STORE(3, 6, 7)
                     STORE(4, 8, 9) STORE(5, 10, 11) STORE(6, 12, 13) STORE(7, 14, 15)
                     STORE(8, 16, 17) STORE(9, 18, 19) STORE(10, 20, 21) STORE(11, 22, 23)
                     "vzeroupper\n\t" /* the caller may run SSE code next */
                     : [a] "+r"(a), [b] "+r"(b), [fours] "+r"(fours), [ones] "+r"(ones),
                       [dst] "+r"(dst)
                     : [stride] "r"(stride)
                     : "rax", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                       "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                       "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22",
                       "xmm23", "xmm24", "xmm25", "xmm26", "xmm28", "cc",
                       "memory");
}

void qmm_x86_64_mmm_i8i32_12x32_avx512vnni_run(size_t kp, const void *pa, const void *pb,
                                                int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    if (csc == 1) {
        tile(kp, pa, pb, c, rsc * (ptrdiff_t)sizeof *c);
        return;
    }
    int32_t t[MR * NR];
    tile(kp, pa, pb, t, NR * sizeof *t);
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++)
            c[(ptrdiff_t)i * rsc + (ptrdiff_t)j * csc] = t[i * NR + j];
}
