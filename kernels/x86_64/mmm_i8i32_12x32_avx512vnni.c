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
 * Partial rows (run_rows, 1..11 rows, for the last A panel when m % 12 != 0):
 * the same loop with only the first rows' multiplies, accumulators and stores,
 * generated from the same macros (ROWSn, STORESn, ZEROSn).
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

/* Check the signatures. */
qmm_ukernel_fn qmm_x86_64_mmm_i8i32_12x32_avx512vnni_run;
qmm_ukernel_rows_fn qmm_x86_64_mmm_i8i32_12x32_avx512vnni_run_rows;

/* Row i of a quad at A byte offset disp: accumulators zmm(2i), zmm(2i+1). */
#define ROW(disp, lo, hi)                                                              \
    "vpdpbusd " #disp "(%[a])%{1to16%}, %%zmm24, %%zmm" #lo "\n\t"                    \
    "vpdpbusd " #disp "(%[a])%{1to16%}, %%zmm25, %%zmm" #hi "\n\t"

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

#define ZERO(lo, hi)                                                                   \
    "vpxord %%zmm" #lo ", %%zmm" #lo ", %%zmm" #lo "\n\t"                             \
    "vpxord %%zmm" #hi ", %%zmm" #hi ", %%zmm" #hi "\n\t"

/* The first n rows, as the quad's multiplies at A offset ao (ROWSn), the
 * stores (STORESn) and the zeroing (ZEROSn): a tile of fewer rows neither
 * loads, multiplies, holds nor stores the others. */
#define ROWS1(ao) ROW(ao, 0, 1)
#define ROWS2(ao) ROWS1(ao) ROW(ao + 4, 2, 3)
#define ROWS3(ao) ROWS2(ao) ROW(ao + 8, 4, 5)
#define ROWS4(ao) ROWS3(ao) ROW(ao + 12, 6, 7)
#define ROWS5(ao) ROWS4(ao) ROW(ao + 16, 8, 9)
#define ROWS6(ao) ROWS5(ao) ROW(ao + 20, 10, 11)
#define ROWS7(ao) ROWS6(ao) ROW(ao + 24, 12, 13)
#define ROWS8(ao) ROWS7(ao) ROW(ao + 28, 14, 15)
#define ROWS9(ao) ROWS8(ao) ROW(ao + 32, 16, 17)
#define ROWS10(ao) ROWS9(ao) ROW(ao + 36, 18, 19)
#define ROWS11(ao) ROWS10(ao) ROW(ao + 40, 20, 21)
#define ROWS12(ao) ROWS11(ao) ROW(ao + 44, 22, 23)
#define STORES1 STORE(0, 0, 1)
#define STORES2 STORES1 STORE(1, 2, 3)
#define STORES3 STORES2 STORE(2, 4, 5)
#define STORES4 STORES3 STORE(3, 6, 7)
#define STORES5 STORES4 STORE(4, 8, 9)
#define STORES6 STORES5 STORE(5, 10, 11)
#define STORES7 STORES6 STORE(6, 12, 13)
#define STORES8 STORES7 STORE(7, 14, 15)
#define STORES9 STORES8 STORE(8, 16, 17)
#define STORES10 STORES9 STORE(9, 18, 19)
#define STORES11 STORES10 STORE(10, 20, 21)
#define STORES12 STORES11 STORE(11, 22, 23)
#define ZEROS1 ZERO(0, 1)
#define ZEROS2 ZEROS1 ZERO(2, 3)
#define ZEROS3 ZEROS2 ZERO(4, 5)
#define ZEROS4 ZEROS3 ZERO(6, 7)
#define ZEROS5 ZEROS4 ZERO(8, 9)
#define ZEROS6 ZEROS5 ZERO(10, 11)
#define ZEROS7 ZEROS6 ZERO(12, 13)
#define ZEROS8 ZEROS7 ZERO(14, 15)
#define ZEROS9 ZEROS8 ZERO(16, 17)
#define ZEROS10 ZEROS9 ZERO(18, 19)
#define ZEROS11 ZEROS10 ZERO(20, 21)
#define ZEROS12 ZEROS11 ZERO(22, 23)

/* One quad of depths over n rows: B at byte offset bo of %[b], A at ao of
 * %[a] (the A panel keeps its 12-row layout whatever n). */
#define QUAD(n, bo, ao)                                                                \
    "vpxord " #bo "(%[b]), %%zmm28, %%zmm24\n\t"                                      \
    "vpxord " #bo "+64(%[b]), %%zmm28, %%zmm25\n\t"                                   \
    ROWS##n(ao)

/* The first n rows of the tile, stored as rows of 32 contiguous int32 at dst,
 * dst + stride bytes, ... The accumulators live in fixed registers
 * (clobbered), so that 24 vector values need no asm operands (gcc allows 30).
 * Four quads per iteration, then one at a time. */
#define TILE_ASM(n)                                                                    \
    __asm__ volatile(ZEROS##n                                                          \
                     "mov $0x80808080, %%eax\n\t"                                      \
                     "vpbroadcastd %%eax, %%zmm28\n\t"                                 \
                     "test %[fours], %[fours]\n\t"                                     \
                     "jz 2f\n\t"                                                       \
                     "1:\n\t"                                                          \
                     QUAD(n, 0, 0) QUAD(n, 128, 48) QUAD(n, 256, 96) QUAD(n, 384, 144) \
                     "add $192, %[a]\n\t"                                              \
                     "add $512, %[b]\n\t"                                              \
                     "dec %[fours]\n\t"                                                \
                     "jnz 1b\n\t"                                                      \
                     "2:\n\t"                                                          \
                     "test %[ones], %[ones]\n\t"                                       \
                     "jz 4f\n\t"                                                       \
                     "3:\n\t"                                                          \
                     QUAD(n, 0, 0)                                                     \
                     "add $48, %[a]\n\t"                                               \
                     "add $128, %[b]\n\t"                                              \
                     "dec %[ones]\n\t"                                                 \
                     "jnz 3b\n\t"                                                      \
                     "4:\n\t"                                                          \
                     STORES##n                                                         \
                     "vzeroupper\n\t" /* the caller may run SSE code next */           \
                     : [a] "+r"(a), [b] "+r"(b), [fours] "+r"(fours), [ones] "+r"(ones), \
                       [dst] "+r"(dst)                                                 \
                     : [stride] "r"(stride)                                            \
                     : "rax", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",  \
                       "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",     \
                       "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",  \
                       "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm28",  \
                       "cc", "memory")

/* Rows [0, rows) of the tile into C; inlined with a constant `rows`, so that
 * each instantiation has only its own loop. A C with column stride other than
 * 1 goes through a local tile. */
static inline __attribute__((always_inline)) void
tile(const unsigned rows, size_t kp, const int8_t *a, const int8_t *b, int32_t *c,
     ptrdiff_t rsc, ptrdiff_t csc)
{
    int32_t t[MR * NR];
    int32_t *dst = csc == 1 ? c : t;
    ptrdiff_t stride = (csc == 1 ? rsc : NR) * (ptrdiff_t)sizeof *c;
    size_t fours = kp / 16, ones = kp / 4 % 4;
    switch (rows) {
    case 1: TILE_ASM(1); break;
    case 2: TILE_ASM(2); break;
    case 3: TILE_ASM(3); break;
    case 4: TILE_ASM(4); break;
    case 5: TILE_ASM(5); break;
    case 6: TILE_ASM(6); break;
    case 7: TILE_ASM(7); break;
    case 8: TILE_ASM(8); break;
    case 9: TILE_ASM(9); break;
    case 10: TILE_ASM(10); break;
    case 11: TILE_ASM(11); break;
    default: TILE_ASM(12); break;
    }
    if (csc != 1)
        for (unsigned i = 0; i < rows; i++)
            for (int j = 0; j < NR; j++)
                c[(ptrdiff_t)i * rsc + (ptrdiff_t)j * csc] = t[i * NR + j];
}

void qmm_x86_64_mmm_i8i32_12x32_avx512vnni_run(size_t kp, const void *pa, const void *pb,
                                                int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    tile(MR, kp, pa, pb, c, rsc, csc);
}

void qmm_x86_64_mmm_i8i32_12x32_avx512vnni_run_rows(unsigned rows, size_t kp, const void *pa,
                                                     const void *pb, int32_t *c, ptrdiff_t rsc,
                                                     ptrdiff_t csc)
{
    switch (rows) {
    case 1: tile(1, kp, pa, pb, c, rsc, csc); break;
    case 2: tile(2, kp, pa, pb, c, rsc, csc); break;
    case 3: tile(3, kp, pa, pb, c, rsc, csc); break;
    case 4: tile(4, kp, pa, pb, c, rsc, csc); break;
    case 5: tile(5, kp, pa, pb, c, rsc, csc); break;
    case 6: tile(6, kp, pa, pb, c, rsc, csc); break;
    case 7: tile(7, kp, pa, pb, c, rsc, csc); break;
    case 8: tile(8, kp, pa, pb, c, rsc, csc); break;
    case 9: tile(9, kp, pa, pb, c, rsc, csc); break;
    case 10: tile(10, kp, pa, pb, c, rsc, csc); break;
    case 11: tile(11, kp, pa, pb, c, rsc, csc); break;
    default: break; /* outside the contract (1 <= rows < MR): nothing written */
    }
}
