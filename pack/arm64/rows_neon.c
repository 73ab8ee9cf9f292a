/*
 * NEON bulk packers of an A whose rows are row-major (depths adjacent, the
 * usual A) into i8_k4 and i8_k8: per row, 16 depths are one 16-byte load,
 * and the formats only interleave whole groups of 4 (k4) or 8 (k8) bytes
 * between rows, so a 32-bit transpose (k4) or a 64-bit zip (k8) of a few
 * rows writes whole blocks. Any number of rows that is a multiple of the
 * group (4 rows for k4, 2 for k8): the A of the SDOT, SMMLA, SVE and SME
 * kernels and of the SVE GEMV. Baseline Armv8.0 NEON.
 */
#include <arm_neon.h>

#include "../bulk.h"

/* i8_k4: for 4 rows at a time, 16 depths are 4 blocks of 4 depths; after
 * the transpose block q holds the rows' q-th 4-byte groups in row order. */
void qmm_pack_i8_k4_rows4_neon(const int8_t *src, ptrdiff_t ls, unsigned r, size_t panels,
                               size_t depths, unsigned char *dst, size_t panel_bytes)
{
    const size_t block = (size_t)r * 4;  /* bytes of a block of 4 depths */
    for (size_t j = 0; j < panels; j++)
        for (unsigned g = 0; g < r; g += 4) {
            const int8_t *s = src + (ptrdiff_t)(j * r + g) * ls;
            int8_t *d = (int8_t *)(dst + j * panel_bytes) + 4 * g;
            for (size_t p = 0; p < depths; p += 16, s += 16, d += 4 * block) {
                int32x4_t x0 = vreinterpretq_s32_s8(vld1q_s8(s));
                int32x4_t x1 = vreinterpretq_s32_s8(vld1q_s8(s + ls));
                int32x4_t x2 = vreinterpretq_s32_s8(vld1q_s8(s + 2 * ls));
                int32x4_t x3 = vreinterpretq_s32_s8(vld1q_s8(s + 3 * ls));
                /* t0 = r0g0 r1g0 r0g2 r1g2, t1 = r0g1 r1g1 r0g3 r1g3, t2, t3
                 * the same for rows 2, 3 */
                int64x2_t t0 = vreinterpretq_s64_s32(vtrn1q_s32(x0, x1));
                int64x2_t t1 = vreinterpretq_s64_s32(vtrn2q_s32(x0, x1));
                int64x2_t t2 = vreinterpretq_s64_s32(vtrn1q_s32(x2, x3));
                int64x2_t t3 = vreinterpretq_s64_s32(vtrn2q_s32(x2, x3));
                vst1q_s8(d, vreinterpretq_s8_s64(vzip1q_s64(t0, t2)));
                vst1q_s8(d + block, vreinterpretq_s8_s64(vzip1q_s64(t1, t3)));
                vst1q_s8(d + 2 * block, vreinterpretq_s8_s64(vzip2q_s64(t0, t2)));
                vst1q_s8(d + 3 * block, vreinterpretq_s8_s64(vzip2q_s64(t1, t3)));
            }
        }
}

/* i8_k8: for 2 rows at a time, 16 depths are 2 blocks of 8 depths, each the
 * two rows' 8-byte groups side by side (one row pair of the SMMLA layout). */
void qmm_pack_i8_k8_rows2_neon(const int8_t *src, ptrdiff_t ls, unsigned r, size_t panels,
                               size_t depths, unsigned char *dst, size_t panel_bytes)
{
    const size_t block = (size_t)r * 8;  /* bytes of a block of 8 depths */
    for (size_t j = 0; j < panels; j++)
        for (unsigned g = 0; g < r; g += 2) {
            const int8_t *s = src + (ptrdiff_t)(j * r + g) * ls;
            int8_t *d = (int8_t *)(dst + j * panel_bytes) + 8 * g;
            for (size_t p = 0; p < depths; p += 16, s += 16, d += 2 * block) {
                int64x2_t x0 = vreinterpretq_s64_s8(vld1q_s8(s));
                int64x2_t x1 = vreinterpretq_s64_s8(vld1q_s8(s + ls));
                vst1q_s8(d, vreinterpretq_s8_s64(vzip1q_s64(x0, x1)));
                vst1q_s8(d + block, vreinterpretq_s8_s64(vzip2q_s64(x0, x1)));
            }
        }
}
