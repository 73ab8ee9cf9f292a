/*
 * The stage on one block of C, as a template: output/epilogue.c instantiates
 * it for the baseline ISA, output/<isa>/epilogue_<isa>.c for wider vectors
 * (the same code: the compiler vectorizes it for the flags of the file).
 * Define QMM_EPILOGUE_TILE_FN, the function's name, before including it, and
 * QMM_EPILOGUE_TFLITE_ROW where an instance has its own code for a row of
 * TFLite's rule (out = clamp(rule(in, m, sh), lo, hi) + zp over nv values).
 * Every file that includes it is built with -ffp-contract=off: each float
 * operation below is the one the header of qmm.h defines, rounded once, so
 * every instance gives the same bits.
 *
 * A block is done a row at a time, each step one loop over the row that the
 * compiler turns into whole vectors: every parameter becomes an array of the
 * row's values (a column parameter read in place, a row parameter or a
 * single value repeated), an absent one an array of its identity (scale 1,
 * float bias -0, which leaves every value as it is, -0 included; no clamp:
 * the infinities).
 */
#include <math.h>

#include "epilogue.h"

#define TILE_FN_(prefix, name) prefix##_##name
#define TILE_FN(prefix, name) TILE_FN_(prefix, name)
#define LOCAL(name) TILE_FN(QMM_EPILOGUE_TILE_FN, name)

enum { LOCAL(ROW) = QMM_EPILOGUE_MAX_BLOCK };

/* A parameter's values over the columns of a block, row by row: in place
 * along the columns; else an array of the row's value (or the one value, or
 * `absent`), filled once per block, and again per row when the value runs
 * along the rows. */
typedef struct LOCAL(fparam) {
    const float *at;
    float buf[LOCAL(ROW)];
} LOCAL(fparam);

typedef struct LOCAL(iparam) {
    const int32_t *at;
    int32_t buf[LOCAL(ROW)];
} LOCAL(iparam);

static void LOCAL(fparam_row)(LOCAL(fparam) *p, const qmm_fvec *v, size_t i, size_t j, size_t nv,
                              float absent, int first)
{
    if (v->v != NULL && v->along == QMM_ALONG_COLS) {
        p->at = v->v + j;
        return;
    }
    if (!first && (v->v == NULL || v->along != QMM_ALONG_ROWS))
        return;
    const float x = v->v == NULL ? absent : v->v[v->along == QMM_ALONG_ROWS ? i : 0];
    for (size_t jj = 0; jj < nv; jj++)
        p->buf[jj] = x;
    p->at = p->buf;
}

static void LOCAL(iparam_row)(LOCAL(iparam) *p, const qmm_ivec *v, size_t i, size_t j, size_t nv,
                              int first)
{
    if (v->along == QMM_ALONG_COLS) {
        p->at = v->v + j;
        return;
    }
    if (!first && v->along != QMM_ALONG_ROWS)
        return;
    const int32_t x = v->v[v->along == QMM_ALONG_ROWS ? i : 0];
    for (size_t jj = 0; jj < nv; jj++)
        p->buf[jj] = x;
    p->at = p->buf;
}

/* gemmlowp's SaturatingRoundingDoublingHighMul for b >= 0 (the multiplier,
 * checked: its saturation, a == b == INT32_MIN, cannot happen): 2ab / 2^32
 * rounded half toward +infinity, which is floor((ab + 2^30) / 2^31) for
 * either sign of ab (gemmlowp's nudge of 1 - 2^30 for a negative ab, then
 * division toward zero, gives the same). Only the low 32 bits of the
 * quotient are kept, so a logical shift gives them. */
static inline int32_t LOCAL(doubling_high_mul)(int32_t a, int32_t b)
{
    const int64_t v = (int64_t)a * b + ((int64_t)1 << 30);
    return (int32_t)(uint32_t)((uint64_t)v >> 31);
}

/* gemmlowp's RoundingDivideByPOT: x / 2^e, rounded half away from zero. */
static inline int32_t LOCAL(divide_by_pot)(int32_t x, int32_t e)
{
    const int32_t mask = (int32_t)(((uint32_t)1 << e) - 1u);
    const int32_t threshold = (mask >> 1) + (x < 0);
    return (x >> e) + ((x & mask) > threshold);
}

static inline int32_t LOCAL(rule_tflite)(int32_t x, int32_t m, int32_t s)
{
    const int32_t left = s > 0 ? s : 0, right = s > 0 ? 0 : -s;
    return LOCAL(divide_by_pot)(LOCAL(doubling_high_mul)((int32_t)((uint32_t)x << left), m),
                                right);
}

/* (x*m + 2^(30-s)) >> (31-s), clamped to [lo, hi] (it may pass int32's range). */
static inline int32_t LOCAL(rule_single)(int32_t x, int32_t m, int32_t s, int32_t lo, int32_t hi)
{
    const int total = 31 - s;
    const int64_t v = ((int64_t)x * m + ((int64_t)1 << (total - 1))) >> total;
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

/* The block's sums with the int32 additions, into t (rows t_rs apart,
 * columns adjacent; t may be acc itself). */
static void LOCAL(finish_sums)(const qmm_epilogue *e, size_t i, size_t j, size_t mv, size_t nv,
                               const int32_t *acc, ptrdiff_t acc_rs, ptrdiff_t acc_cs,
                               int32_t *t, ptrdiff_t t_rs)
{
    const uint32_t *restrict cols = (const uint32_t *)e->col_add;
    for (size_t ii = 0; ii < mv; ii++) {
        const int32_t *in = acc + (ptrdiff_t)ii * acc_rs;
        uint32_t *row = (uint32_t *)(t + (ptrdiff_t)ii * t_rs);
        const uint32_t r = e->row_add != NULL ? (uint32_t)e->row_add[i + ii] : 0;
        if (cols != NULL)
            for (size_t jj = 0; jj < nv; jj++)
                row[jj] = (uint32_t)in[(ptrdiff_t)jj * acc_cs] + cols[j + jj] + r;
        else
            for (size_t jj = 0; jj < nv; jj++)
                row[jj] = (uint32_t)in[(ptrdiff_t)jj * acc_cs] + r;
    }
    LOCAL(iparam) x, y;
    for (unsigned k = 0; k < e->terms; k++)
        for (size_t ii = 0; ii < mv; ii++) {
            uint32_t *row = (uint32_t *)(t + (ptrdiff_t)ii * t_rs);
            LOCAL(iparam_row)(&x, &e->term[k][0], i + ii, j, nv, ii == 0);
            LOCAL(iparam_row)(&y, &e->term[k][1], i + ii, j, nv, ii == 0);
            const int32_t *restrict xa = x.at, *restrict ya = y.at;
            for (size_t jj = 0; jj < nv; jj++)
                row[jj] += (uint32_t)xa[jj] * (uint32_t)ya[jj];
        }
}

/* Whether a parameter's values change from row to row. */
static inline int LOCAL(by_row_f)(const qmm_fvec *v)
{
    return v->v != NULL && v->along == QMM_ALONG_ROWS;
}

static inline int LOCAL(by_row_i)(const qmm_ivec *v)
{
    return v->along == QMM_ALONG_ROWS;
}

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* One row of the float stage; `twice` (a second scale) and `clamp` are
 * constants in each instance, so that the common row does no more than it
 * needs: convert, multiply, add. */
static ALWAYS_INLINE void LOCAL(dequantize_row)(const int32_t *restrict in, float *restrict out,
                                                size_t nv, const float *restrict s0,
                                                const float *restrict s1,
                                                const float *restrict fb, float lo, float hi,
                                                const int twice, const int clamp)
{
    for (size_t jj = 0; jj < nv; jj++) {
        float v = (float)in[jj];
        v = v * s0[jj];
        if (twice)
            v = v * s1[jj];
        v = v + fb[jj];
        out[jj] = clamp ? (v < lo ? lo : v > hi ? hi : v) : v;
    }
}

/* y = clamp((((float)s * scale[0]) * scale[1]) + float bias), rows of nv. */
static void LOCAL(dequantize)(const qmm_epilogue *e, size_t i, size_t j, size_t mv, size_t nv,
                              const int32_t *restrict s, ptrdiff_t s_rs, float *restrict y,
                              ptrdiff_t y_rs)
{
    LOCAL(fparam) p0, p1, pb;
    LOCAL(fparam_row)(&p0, &e->scale[0], i, j, nv, 1.0f, 1);
    LOCAL(fparam_row)(&p1, &e->scale[1], i, j, nv, 1.0f, 1);
    LOCAL(fparam_row)(&pb, &e->fbias, i, j, nv, -0.0f, 1);
    const int rows = LOCAL(by_row_f)(&e->scale[0]) || LOCAL(by_row_f)(&e->scale[1]) ||
                     LOCAL(by_row_f)(&e->fbias);
    const int twice = e->scale[1].v != NULL, clamp = e->fclamp;
    const float lo = e->fmin, hi = e->fmax;
    for (size_t ii = 0; ii < mv; ii++) {
        if (rows && ii > 0) {
            LOCAL(fparam_row)(&p0, &e->scale[0], i + ii, j, nv, 1.0f, 0);
            LOCAL(fparam_row)(&p1, &e->scale[1], i + ii, j, nv, 1.0f, 0);
            LOCAL(fparam_row)(&pb, &e->fbias, i + ii, j, nv, -0.0f, 0);
        }
        const int32_t *in = s + (ptrdiff_t)ii * s_rs;
        float *out = y + (ptrdiff_t)ii * y_rs;
        if (twice && clamp)
            LOCAL(dequantize_row)(in, out, nv, p0.at, p1.at, pb.at, lo, hi, 1, 1);
        else if (twice)
            LOCAL(dequantize_row)(in, out, nv, p0.at, p1.at, pb.at, lo, hi, 1, 0);
        else if (clamp)
            LOCAL(dequantize_row)(in, out, nv, p0.at, p1.at, pb.at, lo, hi, 0, 1);
        else
            LOCAL(dequantize_row)(in, out, nv, p0.at, p1.at, pb.at, lo, hi, 0, 0);
    }
}

/* q = clamp(rule(s) + zero point) by the rule e names, rows of nv. */
static void LOCAL(requantize)(const qmm_epilogue *e, size_t i, size_t j, size_t mv, size_t nv,
                              const int32_t *restrict s, int32_t *restrict q)
{
    const int32_t zp = e->zero_point, lo = e->qmin - zp, hi = e->qmax - zp;
    if (e->rounding == QMM_ROUND_FLOAT) {
        /* Clamped in float to the bounds less the zero point (whole numbers,
         * so clamping commutes with rounding), then rounded to nearest even
         * by adding and taking away 1.5 * 2^23 (exact for |v| < 2^22). */
        LOCAL(fparam) p;
        LOCAL(fparam_row)(&p, &e->qscale, i, j, nv, 1.0f, 1);
        const int rows = LOCAL(by_row_f)(&e->qscale);
        const float flo = (float)lo, fhi = (float)hi, magic = 12582912.0f;
        for (size_t ii = 0; ii < mv; ii++) {
            if (rows && ii > 0)
                LOCAL(fparam_row)(&p, &e->qscale, i + ii, j, nv, 1.0f, 0);
            const float *restrict sc = p.at;
            for (size_t jj = 0; jj < nv; jj++) {
                float v = (float)s[ii * nv + jj] * sc[jj];
                v = v < flo ? flo : v > fhi ? fhi : v;
                v = (v + magic) - magic;
                q[ii * nv + jj] = (int32_t)v + zp;
            }
        }
        return;
    }
    LOCAL(iparam) pm, ps;
    LOCAL(iparam_row)(&pm, &e->multiplier, i, j, nv, 1);
    LOCAL(iparam_row)(&ps, &e->shift, i, j, nv, 1);
    const int rows = LOCAL(by_row_i)(&e->multiplier), single = e->rounding == QMM_ROUND_SINGLE;
    for (size_t ii = 0; ii < mv; ii++) {
        if (rows && ii > 0) {
            LOCAL(iparam_row)(&pm, &e->multiplier, i + ii, j, nv, 0);
            LOCAL(iparam_row)(&ps, &e->shift, i + ii, j, nv, 0);
        }
        const int32_t *restrict m = pm.at, *restrict sh = ps.at, *restrict in = s + ii * nv;
        int32_t *restrict out = q + ii * nv;
        if (single) {
            for (size_t jj = 0; jj < nv; jj++)
                out[jj] = LOCAL(rule_single)(in[jj], m[jj], sh[jj], lo, hi) + zp;
        } else {
#if defined(QMM_EPILOGUE_TFLITE_ROW)
            QMM_EPILOGUE_TFLITE_ROW(in, m, sh, out, nv, lo, hi, zp);
#else
            for (size_t jj = 0; jj < nv; jj++) {
                const int32_t v = LOCAL(rule_tflite)(in[jj], m[jj], sh[jj]);
                out[jj] = (v < lo ? lo : v > hi ? hi : v) + zp;
            }
#endif
        }
    }
}

/* mv * nv <= QMM_EPILOGUE_MAX_BLOCK: a tile, or a run of one row. */
void QMM_EPILOGUE_TILE_FN(const qmm_epilogue *e, size_t i, size_t j, size_t mv, size_t nv,
                          const int32_t *acc, ptrdiff_t acc_rs, ptrdiff_t acc_cs)
{
    int32_t t[QMM_EPILOGUE_MAX_BLOCK];
    const ptrdiff_t rs = e->rs, cs = e->cs, at = (ptrdiff_t)i * rs + (ptrdiff_t)j * cs;
    if (e->type == QMM_TYPE_I32 && cs == 1) {
        /* Straight into C's rows (which may be acc itself). */
        LOCAL(finish_sums)(e, i, j, mv, nv, acc, acc_rs, acc_cs, (int32_t *)e->c + at, rs);
        return;
    }
    const int32_t *s = acc;
    ptrdiff_t s_rs = acc_rs;
    const int plain = e->row_add == NULL && e->col_add == NULL && e->terms == 0;
    if (!plain || acc_cs != 1 || e->type != QMM_TYPE_F32) {
        LOCAL(finish_sums)(e, i, j, mv, nv, acc, acc_rs, acc_cs, t, (ptrdiff_t)nv);
        s = t;
        s_rs = (ptrdiff_t)nv;
    }
    union {
        float f[QMM_EPILOGUE_MAX_BLOCK];
        int32_t q[QMM_EPILOGUE_MAX_BLOCK];
    } out;
    switch (e->type) {
    case QMM_TYPE_I32:
        for (size_t ii = 0; ii < mv; ii++)
            for (size_t jj = 0; jj < nv; jj++)
                ((int32_t *)e->c)[at + (ptrdiff_t)ii * rs + (ptrdiff_t)jj * cs] =
                    s[(ptrdiff_t)ii * s_rs + (ptrdiff_t)jj];
        return;
    case QMM_TYPE_F32:
        if (cs == 1) {
            LOCAL(dequantize)(e, i, j, mv, nv, s, s_rs, (float *)e->c + at, rs);
            return;
        }
        LOCAL(dequantize)(e, i, j, mv, nv, s, s_rs, out.f, (ptrdiff_t)nv);
        for (size_t ii = 0; ii < mv; ii++)
            for (size_t jj = 0; jj < nv; jj++)
                ((float *)e->c)[at + (ptrdiff_t)ii * rs + (ptrdiff_t)jj * cs] = out.f[ii * nv + jj];
        return;
    default:
        break;
    }
    LOCAL(requantize)(e, i, j, mv, nv, s, out.q);
    /* The values are in the type's range: int8 and uint8 alike are their low byte. */
    for (size_t ii = 0; ii < mv; ii++) {
        uint8_t *restrict row = (uint8_t *)e->c + at + (ptrdiff_t)ii * rs;
        const int32_t *restrict q = out.q + ii * nv;
        if (cs == 1)
            for (size_t jj = 0; jj < nv; jj++)
                row[jj] = (uint8_t)q[jj];
        else
            for (size_t jj = 0; jj < nv; jj++)
                row[(ptrdiff_t)jj * cs] = (uint8_t)q[jj];
    }
}

#undef LOCAL
#undef ALWAYS_INLINE
#undef TILE_FN
#undef TILE_FN_
