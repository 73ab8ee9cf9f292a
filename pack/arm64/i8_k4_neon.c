/*
 * NEON bulk packer of i8_k4 (int8, 4 depths interleaved per line) for B of
 * the SDOT 8x8 kernel from a row-major source: a 4x8 byte transpose per block
 * of 4 depths and panel, by trn1/trn2 on bytes and halfwords, then zips of
 * the 4-byte groups into line order. Baseline Armv8.0 NEON.
 */
#include <arm_neon.h>

#include "../bulk.h"
#include "lines8.h"

/* One block of 4 depths of two adjacent panels (16 lines): x[i] is depth i,
 * lane c line c. After trn1/trn2 on bytes and halfwords u[r] holds the 4
 * depths of lines 4w + r in word w; zips put words in line order. */
static inline void block16(const int8_t *s, ptrdiff_t ds, int8_t *d0, int8_t *d1)
{
    int8x16_t x0 = vld1q_s8(s), x1 = vld1q_s8(s + ds);
    int8x16_t x2 = vld1q_s8(s + 2 * ds), x3 = vld1q_s8(s + 3 * ds);
    int16x8_t t0 = vreinterpretq_s16_s8(vtrn1q_s8(x0, x1));
    int16x8_t t1 = vreinterpretq_s16_s8(vtrn2q_s8(x0, x1));
    int16x8_t t2 = vreinterpretq_s16_s8(vtrn1q_s8(x2, x3));
    int16x8_t t3 = vreinterpretq_s16_s8(vtrn2q_s8(x2, x3));
    int32x4_t u0 = vreinterpretq_s32_s16(vtrn1q_s16(t0, t2));
    int32x4_t u1 = vreinterpretq_s32_s16(vtrn1q_s16(t1, t3));
    int32x4_t u2 = vreinterpretq_s32_s16(vtrn2q_s16(t0, t2));
    int32x4_t u3 = vreinterpretq_s32_s16(vtrn2q_s16(t1, t3));
    /* lines 0 1 4 5 | 2 3 6 7, then 8 9 12 13 | 10 11 14 15 */
    int64x2_t v0 = vreinterpretq_s64_s32(vzip1q_s32(u0, u1));
    int64x2_t w0 = vreinterpretq_s64_s32(vzip1q_s32(u2, u3));
    int64x2_t v1 = vreinterpretq_s64_s32(vzip2q_s32(u0, u1));
    int64x2_t w1 = vreinterpretq_s64_s32(vzip2q_s32(u2, u3));
    vst1q_s8(d0, vreinterpretq_s8_s64(vzip1q_s64(v0, w0)));
    vst1q_s8(d0 + 16, vreinterpretq_s8_s64(vzip2q_s64(v0, w0)));
    vst1q_s8(d1, vreinterpretq_s8_s64(vzip1q_s64(v1, w1)));
    vst1q_s8(d1 + 16, vreinterpretq_s8_s64(vzip2q_s64(v1, w1)));
}

/* One block of 4 depths of one panel: the same on 8-byte rows, where
 * u[r] holds lines r and 4 + r. */
static inline void block8(const int8_t *s, ptrdiff_t ds, int8_t *d)
{
    int8x8_t x0 = vld1_s8(s), x1 = vld1_s8(s + ds);
    int8x8_t x2 = vld1_s8(s + 2 * ds), x3 = vld1_s8(s + 3 * ds);
    int16x4_t t0 = vreinterpret_s16_s8(vtrn1_s8(x0, x1));
    int16x4_t t1 = vreinterpret_s16_s8(vtrn2_s8(x0, x1));
    int16x4_t t2 = vreinterpret_s16_s8(vtrn1_s8(x2, x3));
    int16x4_t t3 = vreinterpret_s16_s8(vtrn2_s8(x2, x3));
    int32x2_t u0 = vreinterpret_s32_s16(vtrn1_s16(t0, t2));
    int32x2_t u1 = vreinterpret_s32_s16(vtrn1_s16(t1, t3));
    int32x2_t u2 = vreinterpret_s32_s16(vtrn2_s16(t0, t2));
    int32x2_t u3 = vreinterpret_s32_s16(vtrn2_s16(t1, t3));
    int32x4_t lo = vcombine_s32(vzip1_s32(u0, u1), vzip1_s32(u2, u3)); /* lines 0-3 */
    int32x4_t hi = vcombine_s32(vzip2_s32(u0, u1), vzip2_s32(u2, u3)); /* lines 4-7 */
    vst1q_s8(d, vreinterpretq_s8_s32(lo));
    vst1q_s8(d + 16, vreinterpretq_s8_s32(hi));
}

/* B: lines (columns) adjacent, 8 per panel. */
void qmm_pack_i8_k4_lines8_neon(const int8_t *src, ptrdiff_t ds, unsigned r, size_t panels, size_t depths,
                                unsigned char *dst, size_t panel_bytes)
{
    lines8_panels(src, ds, r, panels, depths, dst, panel_bytes, 4, block16, block8);
}
