/*
 * AVX2 matrix kernel, 6x16 tile, exact.
 * Packing: A and B both i16_k2 (int16, depth pairs interleaved: for each pair
 * of depths (p, p+1), the 2 values of line 0, then line 1, ...). The int8
 * operands are sign-extended once, at packing time, never in the loop.
 *
 * The loop, per pair of depths: two 32-byte loads of B (columns 0-7 and 8-15,
 * each 32-bit lane holding one column's two depths), six 32-bit broadcasts of
 * A (row i's two depths), and for each of the 12 (row, half) pairs one
 * `vpmaddwd` (16 int16 products summed pairwise into 8 int32 lanes) and one
 * `vpaddd` into the accumulator. Lane j of an accumulator is column j, so the
 * tile is stored as is. Registers: 12 accumulators + 2 B + 1 A broadcast +
 * 1 product = the 16 ymm registers. Broadcasts from memory are load-port
 * operations on Zen, so the vector pipes only see vpmaddwd and vpaddd: 8 loads
 * per 12 multiplies keeps them busy.
 *
 * Partial rows (run_rows, 1..5 rows, for the last A panel when m % 6 != 0):
 * the same loop with only the first rows' broadcasts, multiplies and
 * accumulators, generated from the same macros (ROWSn_ASM, ACCn) by one
 * inlined tile() per row count; the 6-row run is the same code as before.
 *
 * Exactness: every product fits int16*int16 (|.| <= 2^30) and vpmaddwd's
 * pairwise sum of two int8*int8 products (|.| <= 2^15) is exact; vpaddd wraps
 * modulo 2^32, which is the contract. Nothing saturates.
 */
#include <immintrin.h>

#include "../kernel.h"
#include "../row_cases.h"

enum { MR = 6, NR = 16 };

/* Check the signatures. */
qmm_ukernel_fn qmm_x86_64_mmm_i8i32_6x16_avx2_run;
qmm_ukernel_rows_fn qmm_x86_64_mmm_i8i32_6x16_avx2_run_rows;

/* One pair of depths: B in ymm12/ymm13, A broadcasts in ymm14, products in
 * ymm15; accumulators are operands %0-%11 (row i: %2i columns 0-7, %2i+1
 * columns 8-15). The loops are assembly because compilers, given the same code
 * as intrinsics, reassociate the sums across depths and spill accumulators. */
#define ROW_ASM(disp, lo, hi)                                                          \
    "vpbroadcastd " #disp "(%[a]), %%ymm14\n\t"                                          \
    "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"                                            \
    "vpaddd %%ymm15, %" #lo ", %" #lo "\n\t"                                            \
    "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"                                            \
    "vpaddd %%ymm15, %" #hi ", %" #hi "\n\t"

/* The first `rows` rows of a pair of depths (A of row i at byte offset ai),
 * and the accumulators they use, as asm operands: a loop over fewer rows
 * neither loads nor adds nor holds the others. */
#define ROWS1_ASM(a0, a1, a2, a3, a4, a5) ROW_ASM(a0, 0, 1)
#define ROWS2_ASM(a0, a1, a2, a3, a4, a5) ROWS1_ASM(a0, a1, a2, a3, a4, a5) ROW_ASM(a1, 2, 3)
#define ROWS3_ASM(a0, a1, a2, a3, a4, a5) ROWS2_ASM(a0, a1, a2, a3, a4, a5) ROW_ASM(a2, 4, 5)
#define ROWS4_ASM(a0, a1, a2, a3, a4, a5) ROWS3_ASM(a0, a1, a2, a3, a4, a5) ROW_ASM(a3, 6, 7)
#define ROWS5_ASM(a0, a1, a2, a3, a4, a5) ROWS4_ASM(a0, a1, a2, a3, a4, a5) ROW_ASM(a4, 8, 9)
#define ROWS6_ASM(a0, a1, a2, a3, a4, a5) ROWS5_ASM(a0, a1, a2, a3, a4, a5) ROW_ASM(a5, 10, 11)
#define ACC1 "+x"(c00), "+x"(c01)
#define ACC2 ACC1, "+x"(c10), "+x"(c11)
#define ACC3 ACC2, "+x"(c20), "+x"(c21)
#define ACC4 ACC3, "+x"(c30), "+x"(c31)
#define ACC5 ACC4, "+x"(c40), "+x"(c41)
#define ACC6 ACC5, "+x"(c50), "+x"(c51)

/* One pair of depths over `rows` rows, at byte offsets b0, b1 of B and a0..a5
 * of A (pair number q from %[a] and %[b]: A at q*24 + 4i, B at q*64 and
 * q*64 + 32; the A panel keeps its 6-row layout whatever `rows`). */
#define STEP_ASM(rows, b0, b1, a0, a1, a2, a3, a4, a5)                                 \
    "vmovdqa " #b0 "(%[b]), %%ymm12\n\t"                                                \
    "vmovdqa " #b1 "(%[b]), %%ymm13\n\t"                                                \
    ROWS##rows##_ASM(a0, a1, a2, a3, a4, a5)
#define STEP0_ASM(rows) STEP_ASM(rows, 0, 32, 0, 4, 8, 12, 16, 20)
#define STEP1_ASM(rows) STEP_ASM(rows, 64, 96, 24, 28, 32, 36, 40, 44)
#define STEP2_ASM(rows) STEP_ASM(rows, 128, 160, 48, 52, 56, 60, 64, 68)
#define STEP3_ASM(rows) STEP_ASM(rows, 192, 224, 72, 76, 80, 84, 88, 92)

/* A loop of `steps` (the asm text) over %[n] iterations, advancing A and B. */
#define LOOP_ASM(rows, steps, a_bytes, b_bytes)                                        \
    __asm__ volatile("1:\n\t" steps                                                    \
                     "add $" #a_bytes ", %[a]\n\t"                                      \
                     "add $" #b_bytes ", %[b]\n\t"                                      \
                     "dec %[n]\n\t"                                                     \
                     "jnz 1b\n\t"                                                       \
                     : ACC##rows, [a] "+r"(a), [b] "+r"(b), [n] "+r"(n)                 \
                     :                                                                 \
                     : "xmm12", "xmm13", "xmm14", "xmm15", "cc", "memory")

/* The whole depth over `rows` rows. Four pairs of depths per iteration
 * (measured on Zen3 for 6 rows: 158 GOPS with panels in L1, against 153 for
 * two pairs and 165.7 for the loop without loads), then one pair at a time. */
#define DEPTH_ASM(rows)                                                                \
    do {                                                                               \
        size_t n = kp / 8;                                                             \
        if (n != 0)                                                                    \
            LOOP_ASM(rows, STEP0_ASM(rows) STEP1_ASM(rows) STEP2_ASM(rows)             \
                               STEP3_ASM(rows),                                        \
                     96, 256);                                                         \
        n = kp / 2 % 4;                                                                \
        if (n != 0)                                                                    \
            LOOP_ASM(rows, STEP0_ASM(rows), 24, 64);                                   \
    } while (0)

static inline void store_row(int32_t *c, ptrdiff_t csc, __m256i lo, __m256i hi)
{
    if (csc == 1) {
        _mm256_storeu_si256((__m256i *)(void *)c, lo);
        _mm256_storeu_si256((__m256i *)(void *)(c + 8), hi);
        return;
    }
    int32_t t[NR];
    _mm256_storeu_si256((__m256i *)(void *)t, lo);
    _mm256_storeu_si256((__m256i *)(void *)(t + 8), hi);
    for (int j = 0; j < NR; j++)
        c[j * csc] = t[j];
}

/* The first `rows` rows of the tile; inlined with a constant `rows`, so that
 * each instantiation has only its own loop and stores. */
static inline __attribute__((always_inline)) void tile(const unsigned rows, size_t kp,
                                                       const void *pa, const void *pb,
                                                       int32_t *c, ptrdiff_t rsc,
                                                       ptrdiff_t csc)
{
    const int16_t *a = pa;
    const int16_t *b = pb;
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00,
            c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    switch (rows) {
    QMM_ROW_CASES_5(DEPTH_ASM)
    default: DEPTH_ASM(6); break;
    }
    store_row(c + 0 * rsc, csc, c00, c01);
    if (rows > 1)
        store_row(c + 1 * rsc, csc, c10, c11);
    if (rows > 2)
        store_row(c + 2 * rsc, csc, c20, c21);
    if (rows > 3)
        store_row(c + 3 * rsc, csc, c30, c31);
    if (rows > 4)
        store_row(c + 4 * rsc, csc, c40, c41);
    if (rows > 5)
        store_row(c + 5 * rsc, csc, c50, c51);
}

void qmm_x86_64_mmm_i8i32_6x16_avx2_run(size_t kp, const void *pa, const void *pb, int32_t *c,
                                         ptrdiff_t rsc, ptrdiff_t csc)
{
    tile(MR, kp, pa, pb, c, rsc, csc);
}

void qmm_x86_64_mmm_i8i32_6x16_avx2_run_rows(unsigned rows, size_t kp, const void *pa,
                                              const void *pb, int32_t *c, ptrdiff_t rsc,
                                              ptrdiff_t csc)
{
#define TILE(n) tile(n, kp, pa, pb, c, rsc, csc)
    switch (rows) {
    QMM_ROW_CASES_5(TILE)
    default: break; /* outside the contract (1 <= rows < MR): nothing written */
    }
#undef TILE
}
