/*
 * NEON bulk packer of i8_k8 (int8, 8 depths interleaved per line) for B of
 * the SMMLA 8x8 kernel from a row-major source: an 8x8 byte transpose per
 * block of 8 depths and panel, by trn1/trn2 on bytes, halfwords and words.
 * Baseline Armv8.0 NEON: it runs wherever the kernel does.
 */
#include <arm_neon.h>

#include "../bulk.h"
#include "lines8.h"

/* Transposes the 8 source rows x[0..7] (depths p..p+7; lane c = line c) in
 * place: afterwards x[i] holds line i's 8 depths in its low 64 bits and line
 * i+8's in its high 64 bits (for 16-byte rows; 8-byte rows have only the low
 * half). T is the vector type, q the intrinsics' width suffix (q or empty).
 * After the bytes step t[] holds depth pairs of even lines, then odd lines;
 * after the halfwords x[r] (r < 4) depths 0-3 of lines 4w + r and x[r+4]
 * depths 4-7 of the same lines; the words step joins each line's halves. */
#define TRANSPOSE_8(T, q)                                                             \
    do {                                                                              \
        T t[8];                                                                       \
        for (int i = 0; i < 8; i += 2) { /* bytes: lines 2c, 2c+1 of two depths */    \
            t[i] = vtrn1##q##_s8(x[i], x[i + 1]);                                     \
            t[i + 1] = vtrn2##q##_s8(x[i], x[i + 1]);                                 \
        }                                                                             \
        for (int i = 0; i < 8; i += 4) /* halfwords: four depths */                   \
            for (int j = 0; j < 2; j++) {                                             \
                x[i + j] = vreinterpret##q##_s8_s16(vtrn1##q##_s16(                   \
                    vreinterpret##q##_s16_s8(t[i + j]), vreinterpret##q##_s16_s8(t[i + j + 2]))); \
                x[i + j + 2] = vreinterpret##q##_s8_s16(vtrn2##q##_s16(               \
                    vreinterpret##q##_s16_s8(t[i + j]), vreinterpret##q##_s16_s8(t[i + j + 2]))); \
            }                                                                         \
        for (int j = 0; j < 4; j++) { /* words: eight depths */                       \
            t[j] = vreinterpret##q##_s8_s32(vtrn1##q##_s32(                           \
                vreinterpret##q##_s32_s8(x[j]), vreinterpret##q##_s32_s8(x[j + 4])));   \
            t[j + 4] = vreinterpret##q##_s8_s32(vtrn2##q##_s32(                       \
                vreinterpret##q##_s32_s8(x[j]), vreinterpret##q##_s32_s8(x[j + 4])));   \
        }                                                                             \
        for (int j = 0; j < 8; j++)                                                   \
            x[j] = t[j];                                                              \
    } while (0)

/* One block of 8 depths of two adjacent panels (16 lines). */
static inline void block16(const int8_t *s, ptrdiff_t ds, int8_t *d0, int8_t *d1)
{
    int8x16_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = vld1q_s8(s + (ptrdiff_t)i * ds);
    TRANSPOSE_8(int8x16_t, q);
    for (int i = 0; i < 8; i += 2) {
        int64x2_t a = vreinterpretq_s64_s8(x[i]), b = vreinterpretq_s64_s8(x[i + 1]);
        vst1q_s8(d0 + 8 * i, vreinterpretq_s8_s64(vzip1q_s64(a, b)));
        vst1q_s8(d1 + 8 * i, vreinterpretq_s8_s64(vzip2q_s64(a, b)));
    }
}

/* One block of 8 depths of one panel. */
static inline void block8(const int8_t *s, ptrdiff_t ds, int8_t *d)
{
    int8x8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = vld1_s8(s + (ptrdiff_t)i * ds);
    TRANSPOSE_8(int8x8_t, );
    for (int i = 0; i < 8; i++)
        vst1_s8(d + 8 * i, x[i]);
}

/* B: lines (columns) adjacent, 8 per panel. */
void qmm_pack_i8_k8_lines8_neon(const int8_t *src, ptrdiff_t ds, unsigned r, size_t panels, size_t depths,
                                unsigned char *dst, size_t panel_bytes)
{
    lines8_panels(src, ds, r, panels, depths, dst, panel_bytes, 8, block16, block8);
}
