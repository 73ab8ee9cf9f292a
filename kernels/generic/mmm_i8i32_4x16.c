/*
 * Portable matrix kernel, 4x16 tile, plain C for any CPU.
 * Packing: A and B both i8_k1 (K-outer). Per depth, a row of 16 B values is
 * multiplied by each of 4 broadcast A values; the 16-wide inner loop is what
 * gcc and clang vectorize at -O3 on any SIMD baseline (SSE2, NEON).
 * Accumulators are uint32_t: unsigned wrap-around is the exact int32 result
 * modulo 2^32 without the undefined behaviour of signed overflow.
 */
#include "../kernel.h"

enum { MR = 4, NR = 16 };

static void run(size_t kp, const void *pa, const void *pb, int32_t *c, ptrdiff_t rsc,
                ptrdiff_t csc)
{
    const int8_t *a = pa;
    const int8_t *b = pb;
    uint32_t acc[MR][NR] = {{0}};
    for (size_t p = 0; p < kp; p++, a += MR, b += NR)
        for (int i = 0; i < MR; i++)
            for (int j = 0; j < NR; j++)
                acc[i][j] += (uint32_t)(a[i] * b[j]);
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++)
            c[i * rsc + j * csc] = (int32_t)acc[i][j];
}

const qmm_kernel qmm_generic_mmm_i8i32_4x16 = {
    .name = "generic_mmm_i8i32_4x16",
    .isa = "generic",
    .mr = MR,
    .nr = NR,
    .rank = 10,
    .a_format = &qmm_pack_formats[QMM_PACK_I8_K1],
    .b_format = &qmm_pack_formats[QMM_PACK_I8_K1],
    .is_supported_here = qmm_kernel_always_supported,
    .run = run,
};
