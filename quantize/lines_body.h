/*
 * The passes of quantize/lines.h for one float type, included once per type
 * by each instance (quantize/lines.c, quantize/<isa>/). Before including,
 * define:
 *   QMM_LINES_FLT        float or double
 *   QMM_LINES_KEY        int32_t or int64_t: the signed integer of its width
 *   QMM_LINES_TABLE      the name of the qmm_lines table it defines
 * Every float operation is one of the type's own, rounded to nearest even
 * (no contraction: compiled with -ffp-contract=off), so every instance gives
 * the same bits; the loops are written for the compiler to vectorize.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lines.h"

#define FLT QMM_LINES_FLT
#define KEY QMM_LINES_KEY
#define NAME(x) QMM_LINES_CAT(QMM_LINES_TABLE, x)
#define QMM_LINES_CAT(a, b) QMM_LINES_CAT2(a, b)
#define QMM_LINES_CAT2(a, b) a##_##b
#define KEY_BITS (8 * (int)sizeof(KEY))
#define MAG_BITS ((KEY)((((uint64_t)1) << (KEY_BITS - 1)) - 1))
#define KEY_MAX MAG_BITS
#define KEY_MIN (-MAG_BITS - 1)
/* Adding and subtracting 1.5 * 2^(mantissa bits) rounds a value of
 * magnitude below 2^(mantissa bits - 1) to an integer, half to even, in the
 * default rounding mode: nearbyint() that vectorizes on any x86-64. */
#define RN_MAGIC ((FLT)(sizeof(FLT) == 4 ? 12582912.0 : 6755399441055744.0))
/* 2^22: the magic rounding's reach for float, and far beyond [qmin, qmax]
 * less any zero point. */
#define QUOTIENT_MAX ((FLT)4194304.0)

_Static_assert(sizeof(KEY) == sizeof(FLT), "a key is its value's bits");

/* Arithmetic right shift of negative values: gcc and clang define it. */
static inline KEY NAME(key)(FLT v)
{
    KEY b;
    memcpy(&b, &v, sizeof b);
    return b ^ ((b >> (KEY_BITS - 1)) & MAG_BITS);
}

static inline FLT NAME(value)(KEY k)
{
    KEY b = k ^ ((k >> (KEY_BITS - 1)) & MAG_BITS);
    FLT v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static void NAME(extrema_rows)(const void *xv, size_t ldx, size_t rows, size_t cols,
                               void *kminv, void *kmaxv)
{
    const FLT *x = xv;
    KEY *kmin = kminv, *kmax = kmaxv;
    for (size_t i = 0; i < rows; i++) {
        const FLT *row = x + i * ldx;
        KEY lo = KEY_MAX, hi = KEY_MIN;
        for (size_t j = 0; j < cols; j++) {
            const KEY k = NAME(key)(row[j]);
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
        }
        kmin[i] = lo;
        kmax[i] = hi;
    }
}

static void NAME(extrema_cols)(const void *xv, size_t ldx, size_t rows, size_t cols,
                               void *kminv, void *kmaxv)
{
    const FLT *x = xv;
    KEY *restrict kmin = kminv, *restrict kmax = kmaxv;
    for (size_t i = 0; i < rows; i++) {
        const FLT *row = x + i * ldx;
        for (size_t j = 0; j < cols; j++) {
            const KEY k = NAME(key)(row[j]);
            kmin[j] = k < kmin[j] ? k : kmin[j];
            kmax[j] = k > kmax[j] ? k : kmax[j];
        }
    }
}

static void NAME(extrema_reset)(size_t count, void *kminv, void *kmaxv)
{
    KEY *kmin = kminv, *kmax = kmaxv;
    for (size_t j = 0; j < count; j++) {
        kmin[j] = KEY_MAX;
        kmax[j] = KEY_MIN;
    }
}

static void NAME(extrema_merge)(size_t count, void *dminv, void *dmaxv, const void *sminv,
                                const void *smaxv)
{
    KEY *dmin = dminv, *dmax = dmaxv;
    const KEY *smin = sminv, *smax = smaxv;
    for (size_t j = 0; j < count; j++) {
        dmin[j] = smin[j] < dmin[j] ? smin[j] : dmin[j];
        dmax[j] = smax[j] > dmax[j] ? smax[j] : dmax[j];
    }
}

static FLT NAME(round_even)(FLT y)
{
    return (y + RN_MAGIC) - RN_MAGIC;
}

/* NaN keys lie beyond the infinities', so one test covers both. */
static int NAME(finite)(KEY kmin, KEY kmax)
{
    return kmin > NAME(key)(-(FLT)INFINITY) && kmax < NAME(key)((FLT)INFINITY);
}

static int NAME(max_abs)(const void *kminv, const void *kmaxv, size_t i, void *out)
{
    const KEY kmin = ((const KEY *)kminv)[i], kmax = ((const KEY *)kmaxv)[i];
    if (!NAME(finite)(kmin, kmax))
        return 0;
    const FLT lo = NAME(value)(kmin), hi = NAME(value)(kmax);
    ((FLT *)out)[i] = (-lo > hi ? -lo : hi) + (FLT)0;  /* + 0: |-0.0| is +0.0 */
    return 1;
}

static int NAME(params)(const void *kminv, const void *kmaxv, size_t i, const qmm_qrange *r,
                        void *scalesv, void *divv, int32_t *zp)
{
    const KEY kmin = ((const KEY *)kminv)[i], kmax = ((const KEY *)kmaxv)[i];
    if (!NAME(finite)(kmin, kmax))
        return 0;
    const FLT lo = NAME(value)(kmin), hi = NAME(value)(kmax);
    FLT scale;
    int32_t z = 0;
    if (r->asymmetric) {
        const FLT low = lo < 0 ? lo : 0, high = hi > 0 ? hi : 0;
        const FLT range = high - low;
        if (isinf(range))
            return 0;
        scale = range / (FLT)(r->qmax - r->qmin);
        if (scale == 0) {
            z = r->qmin;
        } else {
            FLT zf = (FLT)r->qmin - low / scale;
            zf = zf < (FLT)r->qmin ? (FLT)r->qmin : zf > (FLT)r->qmax ? (FLT)r->qmax : zf;
            z = (int32_t)NAME(round_even)(zf);
        }
    } else {
        const FLT amax = (-lo > hi ? -lo : hi) + (FLT)0;  /* + 0: |-0.0| is +0.0 */
        scale = amax / (FLT)r->qmax;
    }
    ((FLT *)scalesv)[i] = scale;
    ((FLT *)divv)[i] = scale == 0 ? 1 : scale;
    zp[i] = z;
    return 1;
}

/* A divisor of the line's own (at least its range over qmax - qmin, or 1)
 * keeps |x / d| below 2^22, where the magic rounding holds; a given scale
 * (qmm_quantize_f32) lets it reach infinity. The rounded quotient clamped to
 * +-2^22 is the clamped quotient rounded (the rounding is monotone and keeps
 * +-2^22), within int32 and saturating as the exact one would (|z| <= 255);
 * clamped before the rounding, gcc no longer vectorizes the loops. */
static inline int32_t NAME(quantize_one)(FLT x, FLT d, int32_t z, int32_t qmin, int32_t qmax)
{
    FLT r = NAME(round_even)(x / d);
    r = r < -QUOTIENT_MAX ? -QUOTIENT_MAX : r > QUOTIENT_MAX ? QUOTIENT_MAX : r;
    int32_t v = (int32_t)r + z;
    return v < qmin ? qmin : v > qmax ? qmax : v;
}

static void NAME(quantize_rows)(const void *xv, size_t ldx, size_t rows, size_t cols,
                                const void *divv, const int32_t *zp, size_t row_step,
                                const qmm_qrange *r, unsigned char *q, size_t ldq)
{
    const FLT *x = xv, *div = divv;
    const int32_t qmin = r->qmin, qmax = r->qmax;
    for (size_t i = 0; i < rows; i++) {
        const FLT *row = x + i * ldx, d = div[i * row_step];
        const int32_t z = zp[i * row_step];
        unsigned char *out = q + i * ldq;
        for (size_t j = 0; j < cols; j++)
            out[j] = (unsigned char)NAME(quantize_one)(row[j], d, z, qmin, qmax);
    }
}

static void NAME(quantize_cols)(const void *xv, size_t ldx, size_t rows, size_t cols,
                                const void *divv, const int32_t *zp, const qmm_qrange *r,
                                unsigned char *q, size_t ldq)
{
    const FLT *x = xv, *restrict div = divv;
    const int32_t qmin = r->qmin, qmax = r->qmax;
    for (size_t i = 0; i < rows; i++) {
        const FLT *row = x + i * ldx;
        unsigned char *restrict out = q + i * ldq;
        for (size_t j = 0; j < cols; j++)
            out[j] = (unsigned char)NAME(quantize_one)(row[j], div[j], zp[j], qmin, qmax);
    }
}

/* q - zp is exact in int32 and in FLT (|q - zp| <= 255). */
#define QMM_LINES_DEQUANTIZE(T, S, Z)                                                           \
    for (size_t i = 0; i < rows; i++) {                                                         \
        const T *in = (const T *)(q + i * ldq);                                                 \
        FLT *out = x + i * ldx;                                                                 \
        for (size_t j = 0; j < cols; j++)                                                       \
            out[j] = (FLT)((int32_t)in[j] - (Z)) * (S);                                         \
    }

static void NAME(dequantize_rows)(const unsigned char *q, size_t ldq, int is_signed, size_t rows,
                                  size_t cols, const void *scalesv, const int32_t *zp,
                                  size_t row_step, void *xv, size_t ldx)
{
    const FLT *scales = scalesv;
    FLT *x = xv;
    if (is_signed) {
        QMM_LINES_DEQUANTIZE(int8_t, scales[i * row_step], zp ? zp[i * row_step] : 0)
    } else {
        QMM_LINES_DEQUANTIZE(uint8_t, scales[i * row_step], zp ? zp[i * row_step] : 0)
    }
}

static void NAME(dequantize_cols)(const unsigned char *q, size_t ldq, int is_signed, size_t rows,
                                  size_t cols, const void *scalesv, const int32_t *zp, void *xv,
                                  size_t ldx)
{
    const FLT *restrict scales = scalesv;
    FLT *x = xv;
    if (zp == NULL) {
        if (is_signed) {
            QMM_LINES_DEQUANTIZE(int8_t, scales[j], 0)
        } else {
            QMM_LINES_DEQUANTIZE(uint8_t, scales[j], 0)
        }
    } else if (is_signed) {
        QMM_LINES_DEQUANTIZE(int8_t, scales[j], zp[j])
    } else {
        QMM_LINES_DEQUANTIZE(uint8_t, scales[j], zp[j])
    }
}

const qmm_lines QMM_LINES_TABLE = {
    .elem = sizeof(FLT),
    .extrema_rows = NAME(extrema_rows),
    .extrema_cols = NAME(extrema_cols),
    .extrema_reset = NAME(extrema_reset),
    .extrema_merge = NAME(extrema_merge),
    .max_abs = NAME(max_abs),
    .params = NAME(params),
    .quantize_rows = NAME(quantize_rows),
    .quantize_cols = NAME(quantize_cols),
    .dequantize_rows = NAME(dequantize_rows),
    .dequantize_cols = NAME(dequantize_cols),
};

#undef QMM_LINES_DEQUANTIZE
#undef QUOTIENT_MAX
#undef RN_MAGIC
#undef KEY_MIN
#undef KEY_MAX
#undef MAG_BITS
#undef KEY_BITS
#undef QMM_LINES_CAT2
#undef QMM_LINES_CAT
#undef NAME
#undef KEY
#undef FLT
#undef QMM_LINES_TABLE
#undef QMM_LINES_KEY
#undef QMM_LINES_FLT
