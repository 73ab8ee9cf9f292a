#include "reference.h"

#include <math.h>

#include "rng.h"

/* This file is built with -ffp-contract=off (CMakeLists.txt): each float
 * operation below is one of the header's, rounded once, as qmm's are. */

/* u as int32 modulo 2^32, without the implementation-defined conversion of
 * values above INT32_MAX. */
static int32_t wrap_to_int32(uint32_t u)
{
    if (u <= INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

/* acc(i,j) as qmm defines it: each product of A's value, less its zero
 * point, and B's is exact in int32, and the sum is taken in uint32_t, whose
 * wrap-around is defined and equals int32 two's-complement wrap-around. */
static int32_t exact_sum(const bench_product *p, size_t i, size_t j)
{
    const bench_shape s = p->s;
    const uint8_t *a_u8 = (const uint8_t *)p->a;
    uint32_t sum = 0;
    for (size_t q = 0; q < s.k; q++) {
        size_t at = i * s.k + q;
        int32_t x = p->a_type == QMM_TYPE_U8 ? (int32_t)a_u8[at] - BENCH_A_ZERO_POINT
                                             : (int32_t)p->a[at];
        sum += (uint32_t)(x * (int32_t)p->b[q * s.n + j]);
    }
    return wrap_to_int32(sum);
}

/* The float stage: per column, y = (float)acc * scale + float bias. */
static float dequantize(int32_t acc, const bench_params *q, size_t j)
{
    float y = (float)acc;
    y = y * q->scale[j];
    y = y + q->float_bias[j];
    return y;
}

/* floor(v / 2^e), without shifting a negative number (implementation-defined). */
static int64_t floor_divide_by_pot(int64_t v, int e)
{
    const int64_t d = (int64_t)1 << e;
    const int64_t q = v / d;  /* toward zero */
    return q * d > v ? q - 1 : q;
}

/* QMM_ROUND_TFLITE, from its definition rather than gemmlowp's code: the
 * doubling high multiply is x * m / 2^31 rounded half toward +infinity
 * (m >= 0, so its one saturating case, both INT32_MIN, cannot arise), the
 * division by 2^right rounds half away from zero, done on the magnitude. */
static int64_t rule_tflite(int32_t x, int32_t m, int32_t s)
{
    const int left = s > 0 ? s : 0, right = s > 0 ? 0 : -s;
    x = wrap_to_int32((uint32_t)x << left);
    const int64_t high = floor_divide_by_pot((int64_t)x * m + ((int64_t)1 << 30), 31);
    const int64_t size = high < 0 ? -high : high;
    const int64_t rounded = (size * 2 + ((int64_t)1 << right)) >> (right + 1);
    return high < 0 ? -rounded : rounded;
}

/* QMM_ROUND_FLOAT: (float)x * scale rounded to nearest, ties to even. The
 * product is first bounded to +-2^31, which changes no int8 result, so that
 * it converts to int64; its integer part and the rest are then exact. */
static int64_t rule_float(int32_t x, float scale)
{
    float f = (float)x * scale;
    f = f < -0x1p31f ? -0x1p31f : f > 0x1p31f ? 0x1p31f : f;
    const int64_t t = (int64_t)f;  /* toward zero */
    const float rest = f - (float)t;
    if (rest > 0.5f || (rest == 0.5f && t % 2 != 0))
        return t + 1;
    if (rest < -0.5f || (rest == -0.5f && t % 2 != 0))
        return t - 1;
    return t;
}

/* y plus the output's zero point, clamped to int8. */
static int32_t to_int8(int64_t y)
{
    y += BENCH_OUT_ZERO_POINT;
    return (int32_t)(y < INT8_MIN ? INT8_MIN : y > INT8_MAX ? INT8_MAX : y);
}

/* C(i,j) as include/qmm/qmm.h defines p's stage. */
static double expected_entry(const bench_product *p, size_t i, size_t j)
{
    const bench_params *q = p->params;
    const int32_t acc = exact_sum(p, i, j);
    /* The int8 stages' bias, added with int32 wrap-around. */
    const int32_t x = wrap_to_int32((uint32_t)acc + (uint32_t)q->bias[j]);
    switch (p->out) {
    case BENCH_OUT_F32:
        return dequantize(acc, q, j);
    case BENCH_OUT_S8:
        return to_int8(rule_tflite(x, q->multiplier[j], q->shift[j]));
    case BENCH_OUT_S8_FLOAT:
        return to_int8(rule_float(x, q->requant_scale[j]));
    default:  /* int32: no stage */
        return acc;
    }
}

static double stored_entry(const bench_product *p, size_t i, size_t j)
{
    const size_t at = i * p->s.n + j;
    switch (p->out) {
    case BENCH_OUT_F32:
        return ((const float *)p->c)[at];
    case BENCH_OUT_S8:
    case BENCH_OUT_S8_FLOAT:
        return ((const int8_t *)p->c)[at];
    default:
        return ((const int32_t *)p->c)[at];
    }
}

/* The same bits, for floats too: equal, and zeros of the same sign (a NaN
 * equals nothing). */
static int same(double got, double want)
{
    return got == want && !signbit(got) == !signbit(want);
}

static void check_entry(const bench_product *p, size_t i, size_t j, bench_check *r)
{
    double want = expected_entry(p, i, j);
    double got = stored_entry(p, i, j);
    r->checked++;
    if (!same(got, want) && r->wrong++ == 0) {
        r->i = i;
        r->j = j;
        r->got = got;
        r->want = want;
    }
}

bench_check bench_check_sample(const bench_product *p, uint64_t seed)
{
    const bench_shape s = p->s;
    bench_check r = {0};
    if (s.m * s.n <= BENCH_CHECK_SAMPLES) {
        for (size_t i = 0; i < s.m; i++)
            for (size_t j = 0; j < s.n; j++)
                check_entry(p, i, j, &r);
        return r;
    }
    const size_t corners[4][2] = {{0, 0}, {0, s.n - 1}, {s.m - 1, 0}, {s.m - 1, s.n - 1}};
    for (int q = 0; q < 4; q++)
        check_entry(p, corners[q][0], corners[q][1], &r);
    bench_rng rng = {seed};
    while (r.checked < BENCH_CHECK_SAMPLES) {
        size_t i = (size_t)(bench_rng_next(&rng) % s.m);
        size_t j = (size_t)(bench_rng_next(&rng) % s.n);
        check_entry(p, i, j, &r);
    }
    return r;
}
