/*
 * Portable matrix-vector kernel, 32x1 tile, plain C for any CPU; only right
 * for n == 1, where a matrix kernel would waste all but one column of its tile.
 * Packing: A i8_k1 in 32-row panels, B i8_k1 with one column (the vector).
 * Per depth, 32 A values times one broadcast B value: a vertical
 * multiply-accumulate that vectorizes without reductions. Accumulators are
 * uint32_t for defined wrap-around (see mmm_i8i32_4x16.c).
 */
#include "../kernel.h"

enum { MR = 32 };

static void run(size_t kp, const void *pa, const void *pb, int32_t *c, ptrdiff_t rsc,
                ptrdiff_t csc)
{
    (void)csc;
    const int8_t *a = pa;
    const int8_t *b = pb;
    uint32_t acc[MR] = {0};
    for (size_t p = 0; p < kp; p++, a += MR)
        for (int i = 0; i < MR; i++)
            acc[i] += (uint32_t)(a[i] * b[p]);
    for (int i = 0; i < MR; i++)
        c[i * rsc] = (int32_t)acc[i];
}

const qmm_kernel qmm_generic_mmv_i8i32_32x1 = {
    .name = "generic_mmv_i8i32_32x1",
    .isa = "generic",
    .mr = MR,
    .nr = 1,
    .rank = 10,
    .a_format = &qmm_pack_formats[QMM_PACK_I8_K1],
    .b_format = &qmm_pack_formats[QMM_PACK_I8_K1],
    .is_supported_here = qmm_kernel_always_supported,
    .run = run,
};
