/*
 * Portable matrix-vector kernel, 4x1 tile, plain C for any CPU; only right
 * for n == 1, where a matrix kernel would waste all but one column of its tile.
 * Packing: A i8_kin16 (K-inner: each row kp contiguous int8 values, kp a
 * multiple of 16), B i16_kin16 with one column (the vector, as int16).
 *
 * Why this shape: per row, the loop over depth is a dot product of int8 A
 * against the int16 vector, which gcc vectorizes on SSE2 by sign-extending A
 * (pcmpgtb + punpck) and multiplying with pmaddwd, and on NEON with
 * sxtl/smlal. A stays int8 because with n == 1 every packed A byte is read
 * once: packing it to int16 would double the memory traffic of both the
 * packing and the kernel, which dominate GEMV. The vector is packed once and
 * reused, so it is widened in advance. Four rows share each vector load; on
 * Zen3, 2, 4, 6 and 16 rows measured alike and 8 slightly slower, and a small
 * tile wastes less on the last rows.
 *
 * Exactness: accumulators are uint32_t for defined wrap-around (see
 * mmm_i8i32_3x4.c).
 */
#include "../kernel.h"

enum { MR = 4 };

qmm_ukernel_fn qmm_generic_mmv_i8i32_4x1_run;  /* checks the signature */

void qmm_generic_mmv_i8i32_4x1_run(size_t kp, const void *pa, const void *pb, int32_t *c,
                                   ptrdiff_t rsc, ptrdiff_t csc)
{
    (void)csc;
    const int8_t *a = pa;
    const int16_t *b = pb;
    uint32_t acc[MR] = {0};
    for (size_t p = 0; p < kp; p++)
        for (int i = 0; i < MR; i++)
            acc[i] += (uint32_t)(a[(size_t)i * kp + p] * b[p]);
    for (int i = 0; i < MR; i++)
        c[i * rsc] = (int32_t)acc[i];
}
