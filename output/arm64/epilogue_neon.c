/* The output stage on arm64 (NEON is the baseline there): the template as
 * the compiler vectorizes it, with the float stage (dequantization) and
 * ONNX's float rule eight columns at a time
 * (FCVTNS rounds to nearest even as the template's add and take away of
 * 1.5 * 2^23 does, on values clamped to int8's or uint8's range), and
 * TFLite's rule written in the
 * instructions gemmlowp's own NEON path uses, the same operations as the
 * template's, so the same bits: SQRDMULH is its doubling high multiply
 * ((2xm + 2^31) >> 32 = floor((xm + 2^30) / 2^31); it saturates only for
 * x = m = INT32_MIN, and multipliers are not negative), and RoundingDivideByPOT
 * is SRSHL (round half up) after taking 1 from the negative values, with
 * saturation (INT32_MIN stays INT32_MIN, whose quotient is exact). */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

#include "../epilogue.h"

static QMM_EPILOGUE_BLOCK_INLINE void tflite_block_neon(const qmm_epilogue_block_params *);
static QMM_EPILOGUE_BLOCK_INLINE void float_block_neon(const qmm_epilogue_block_params *);
static QMM_EPILOGUE_BLOCK_INLINE void dequantize_block_neon(const qmm_epilogue_block_params *);

#define QMM_EPILOGUE_TILE_FN qmm_epilogue_tile_neon
#define QMM_EPILOGUE_DEQUANTIZE_BLOCK dequantize_block_neon
#define QMM_EPILOGUE_FLOAT_BLOCK float_block_neon
#define QMM_EPILOGUE_TFLITE_BLOCK tflite_block_neon
#include "../epilogue_tile.h"

/* Four columns' parameters as the rule uses them: the multiplier, the left
 * shift, and the right shift negated (SRSHL shifts right by a negative
 * count). */
typedef struct tflite_cols {
    int32x4_t mul, left, neg_right;
} tflite_cols;

static inline tflite_cols tflite_cols_at(const int32_t *m, const int32_t *sh)
{
    const int32x4_t s = vld1q_s32(sh), zero = vdupq_n_s32(0);
    const int32x4_t left = vmaxq_s32(s, zero);
    return (tflite_cols){vld1q_s32(m), left, vsubq_s32(s, left)};
}

/* Four sums through the rule, clamped to [lo, hi], plus zp. */
static inline int32x4_t tflite_rule(int32x4_t x, const tflite_cols *c, int32x4_t vlo,
                                    int32x4_t vhi, int32x4_t vzp)
{
    const int32x4_t h = vqrdmulhq_s32(vshlq_s32(x, c->left), c->mul);
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(h, c->neg_right), 31);
    const int32x4_t q = vrshlq_s32(vqaddq_s32(h, fixup), c->neg_right);
    return vaddq_s32(vmaxq_s32(vminq_s32(q, vhi), vlo), vzp);
}

/* The low bytes of eight values (each in the type's range). */
static inline uint8x8_t low_bytes(int32x4_t a, int32x4_t b)
{
    return vmovn_u16(vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(a)),
                                  vmovn_u32(vreinterpretq_u32_s32(b))));
}

/* Eight int32 values: a row of an 8-column block. */
typedef struct sums8 {
    int32x4_t v[2];
} sums8;

/* The column additions of an 8-column block (zeros when cols is NULL). */
static inline sums8 sums8_cols(const uint32_t *cols)
{
    const int32x4_t zero = vdupq_n_s32(0);
    if (cols == NULL)
        return (sums8){{zero, zero}};
    return (sums8){{vreinterpretq_s32_u32(vld1q_u32(cols)),
                    vreinterpretq_s32_u32(vld1q_u32(cols + 4))}};
}

/* Row ii's eight sums at s with their additions, wrapping. */
static inline sums8 sums8_row(const int32_t *s, const sums8 *cols, const uint32_t *rows,
                              size_t ii)
{
    const int32x4_t r = vdupq_n_s32(rows != NULL ? (int32_t)rows[ii] : 0);
    return (sums8){{vaddq_s32(vaddq_s32(vld1q_s32(s), cols->v[0]), r),
                    vaddq_s32(vaddq_s32(vld1q_s32(s + 4), cols->v[1]), r)}};
}

/* Row ii of a block, eight values at a time, then the template's rule for
 * the last few. */
static inline void tflite_row(const qmm_epilogue_block_params *p, size_t ii)
{
    const int32_t *const in = p->sums + (ptrdiff_t)ii * p->sums_rs;
    const int32_t *const m = p->multiplier, *const sh = p->shift;
    const uint32_t *const cols = p->cols;
    const uint32_t r = p->rows != NULL ? p->rows[ii] : 0;
    uint8_t *const out = (uint8_t *)p->out + (ptrdiff_t)ii * p->out_rs;
    const size_t nv = p->nv;
    const int32_t lo = p->lo, hi = p->hi, zp = p->zero_point;
    const int32x4_t vr = vdupq_n_s32((int32_t)r), vlo = vdupq_n_s32(lo), vhi = vdupq_n_s32(hi),
                    vzp = vdupq_n_s32(zp);
    size_t jj = 0;
    for (; jj + 8 <= nv; jj += 8) {
        const tflite_cols c0 = tflite_cols_at(m + jj, sh + jj),
                          c1 = tflite_cols_at(m + jj + 4, sh + jj + 4);
        int32x4_t x0 = vaddq_s32(vld1q_s32(in + jj), vr),
                  x1 = vaddq_s32(vld1q_s32(in + jj + 4), vr);
        if (cols != NULL) {
            x0 = vaddq_s32(x0, vreinterpretq_s32_u32(vld1q_u32(cols + jj)));
            x1 = vaddq_s32(x1, vreinterpretq_s32_u32(vld1q_u32(cols + jj + 4)));
        }
        vst1_u8(out + jj, low_bytes(tflite_rule(x0, &c0, vlo, vhi, vzp),
                                    tflite_rule(x1, &c1, vlo, vhi, vzp)));
    }
    for (; jj < nv; jj++) {
        const uint32_t x = (uint32_t)in[jj] + r + (cols != NULL ? cols[jj] : 0u);
        const int32_t v = qmm_epilogue_tile_neon_rule_tflite((int32_t)x, m[jj], sh[jj]);
        out[jj] = (uint8_t)((v < lo ? lo : v > hi ? hi : v) + zp);
    }
}

/* Eight columns at a time, their parameters prepared once, down the rows;
 * other widths a row at a time. */
static QMM_EPILOGUE_BLOCK_INLINE void tflite_block_neon(const qmm_epilogue_block_params *params)
{
    const qmm_epilogue_block_params p = *params; /* a copy C's stores cannot change */
    if (p.nv != 8) {
        for (size_t ii = 0; ii < p.mv; ii++)
            tflite_row(&p, ii);
        return;
    }
    const int32x4_t vlo = vdupq_n_s32(p.lo), vhi = vdupq_n_s32(p.hi),
                    vzp = vdupq_n_s32(p.zero_point);
    const tflite_cols c0 = tflite_cols_at(p.multiplier, p.shift),
                      c1 = tflite_cols_at(p.multiplier + 4, p.shift + 4);
    const sums8 add = sums8_cols(p.cols);
    uint8_t *const out = p.out;
    for (size_t ii = 0; ii < p.mv; ii++) {
        const sums8 x = sums8_row(p.sums + (ptrdiff_t)ii * p.sums_rs, &add, p.rows, ii);
        vst1_u8(out + (ptrdiff_t)ii * p.out_rs, low_bytes(tflite_rule(x.v[0], &c0, vlo, vhi, vzp),
                                                          tflite_rule(x.v[1], &c1, vlo, vhi, vzp)));
    }
}

/* Four sums through ONNX's rule: (float)x * scale, clamped to [lo, hi] (whole
 * numbers, less the zero point), rounded to nearest even, plus zp. */
static inline int32x4_t float_rule(int32x4_t x, float32x4_t sc, float32x4_t flo, float32x4_t fhi,
                                   int32x4_t vzp)
{
    const float32x4_t v = vmaxq_f32(vminq_f32(vmulq_f32(vcvtq_f32_s32(x), sc), fhi), flo);
    return vaddq_s32(vcvtnq_s32_f32(v), vzp);
}

/* Eight columns at a time down the rows; other widths through the
 * template's loop, a row at a time. */
static QMM_EPILOGUE_BLOCK_INLINE void float_block_neon(const qmm_epilogue_block_params *params)
{
    const qmm_epilogue_block_params p = *params; /* a copy C's stores cannot change */
    uint8_t *const out = p.out;
    if (p.nv != 8) {
        for (size_t ii = 0; ii < p.mv; ii++)
            qmm_epilogue_tile_neon_requantize_row(
                p.sums + (ptrdiff_t)ii * p.sums_rs, p.cols, p.rows != NULL ? p.rows[ii] : 0,
                out + (ptrdiff_t)ii * p.out_rs, p.nv, NULL, NULL, p.qscale, p.lo, p.hi,
                p.zero_point, QMM_ROUND_FLOAT, p.cols != NULL);
        return;
    }
    const float32x4_t flo = vdupq_n_f32((float)p.lo), fhi = vdupq_n_f32((float)p.hi);
    const float32x4_t s0 = vld1q_f32(p.qscale), s1 = vld1q_f32(p.qscale + 4);
    const int32x4_t vzp = vdupq_n_s32(p.zero_point);
    const sums8 add = sums8_cols(p.cols);
    for (size_t ii = 0; ii < p.mv; ii++) {
        const sums8 x = sums8_row(p.sums + (ptrdiff_t)ii * p.sums_rs, &add, p.rows, ii);
        vst1_u8(out + (ptrdiff_t)ii * p.out_rs, low_bytes(float_rule(x.v[0], s0, flo, fhi, vzp),
                                                          float_rule(x.v[1], s1, flo, fhi, vzp)));
    }
}

/* Four columns of the float stage: ((float)x * s0) [* s1] + fb, clamped to
 * [lo, hi] by the template's comparisons (not FMIN/FMAX, which differ from
 * them on -0 and NaN); the scale's and bias's columns loaded once. */
typedef struct dequantize_cols {
    float32x4_t s0, s1, fb;
} dequantize_cols;

static inline dequantize_cols dequantize_cols_at(const qmm_epilogue_block_params *p, size_t jj)
{
    return (dequantize_cols){vld1q_f32(p->scale[0] + jj),
                             p->scale[1] != NULL ? vld1q_f32(p->scale[1] + jj) : vdupq_n_f32(1),
                             vld1q_f32(p->fbias + jj)};
}

static inline float32x4_t dequantize4(int32x4_t x, const dequantize_cols *c, int twice,
                                      int clamp, float32x4_t vlo, float32x4_t vhi)
{
    float32x4_t v = vmulq_f32(vcvtq_f32_s32(x), c->s0);
    if (twice)
        v = vmulq_f32(v, c->s1);
    v = vaddq_f32(v, c->fb);
    if (clamp)
        v = vbslq_f32(vcltq_f32(v, vlo), vlo, vbslq_f32(vcgtq_f32(v, vhi), vhi, v));
    return v;
}

/* The block eight columns at a time, each group's parameters loaded once
 * for all rows; the last nv % 8 columns through the template's row. `twice`
 * and `clamp` are constants in each copy, p the caller's copy. */
static inline __attribute__((always_inline)) void
dequantize_block(const qmm_epilogue_block_params *p, const int twice, const int clamp)
{
    const float32x4_t vlo = vdupq_n_f32(p->fmin), vhi = vdupq_n_f32(p->fmax);
    float *const out = p->out;
    size_t jj = 0;
    for (; jj + 8 <= p->nv; jj += 8) {
        const dequantize_cols c0 = dequantize_cols_at(p, jj), c1 = dequantize_cols_at(p, jj + 4);
        const sums8 add = sums8_cols(p->cols != NULL ? p->cols + jj : NULL);
        for (size_t ii = 0; ii < p->mv; ii++) {
            const sums8 x = sums8_row(p->sums + (ptrdiff_t)ii * p->sums_rs + jj, &add, p->rows, ii);
            float *o = out + (ptrdiff_t)ii * p->out_rs + jj;
            vst1q_f32(o, dequantize4(x.v[0], &c0, twice, clamp, vlo, vhi));
            vst1q_f32(o + 4, dequantize4(x.v[1], &c1, twice, clamp, vlo, vhi));
        }
    }
    if (jj == p->nv)
        return;
    for (size_t ii = 0; ii < p->mv; ii++)
        qmm_epilogue_tile_neon_dequantize_row(
            p->sums + (ptrdiff_t)ii * p->sums_rs + jj, p->cols != NULL ? p->cols + jj : NULL,
            p->rows != NULL ? p->rows[ii] : 0, out + (ptrdiff_t)ii * p->out_rs + jj, p->nv - jj,
            p->scale[0] + jj, p->scale[1] != NULL ? p->scale[1] + jj : NULL, p->fbias + jj,
            p->fmin, p->fmax, p->cols != NULL, p->scale[1] != NULL, clamp);
}

static QMM_EPILOGUE_BLOCK_INLINE void dequantize_block_neon(const qmm_epilogue_block_params *params)
{
    const qmm_epilogue_block_params p = *params; /* a copy C's stores cannot change */
    if (p.scale[1] != NULL && p.fclamp)
        dequantize_block(&p, 1, 1);
    else if (p.scale[1] != NULL)
        dequantize_block(&p, 1, 0);
    else if (p.fclamp)
        dequantize_block(&p, 0, 1);
    else
        dequantize_block(&p, 0, 0);
}
