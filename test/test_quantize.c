/*
 * From float to int8 and back (qmm_quantize_symmetric_f32/_f64,
 * qmm_quantize_asymmetric_f32/_f64, qmm_dequantize_f32/_f64, and
 * qmm_quantize_f32/_f64 with given scales and zero points) against a scalar
 * reference written from qmm.h's definitions alone, bit for bit: both float
 * types, every line granularity, row-major matrices whose padding holds NaN
 * (never an element), hand-computed ties, zero, subnormal, underflowing and
 * extreme lines, given scales whose quotients saturate or overflow; the
 * properties the header promises (the round trip within half a step, the
 * maximum at +-127 and never -128, 0.0 exactly at the zero point, the
 * asymmetric parameters given back giving the same q); and every invalid
 * argument, nothing written. Every call runs on 1 thread and on 2 to 4 in
 * turn, split however small it is.
 */
#include "support/reference_test.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/partition.h"
#include "support/bad_call.h"

/* ---- float and double, seen by one reference ------------------------------ */

/* Values travel as double, which holds every float exactly; each operation
 * rounds once to the type, which is the header's "one operation of the float
 * type" (a float quotient computed in double and rounded to float is the
 * correctly rounded float quotient, but the float ones below say so plainly). */
typedef struct ftype {
    const char *name;
    size_t size;
    double epsilon; /* unit roundoff: 2^-24, 2^-53 */
    double min_normal, true_min, max_finite;
    double (*load)(const void *p, size_t at);
    void (*store)(void *p, size_t at, double v);
    double (*div)(double a, double b);
    double (*sub)(double a, double b);
    double (*mul)(double a, double b);
} ftype;

static double load_f32(const void *p, size_t at)
{
    return ((const float *)p)[at];
}
static void store_f32(void *p, size_t at, double v)
{
    ((float *)p)[at] = (float)v;
}
static double div_f32(double a, double b)
{
    return (float)a / (float)b;
}
static double sub_f32(double a, double b)
{
    return (float)a - (float)b;
}
static double mul_f32(double a, double b)
{
    return (float)a * (float)b;
}
static double load_f64(const void *p, size_t at)
{
    return ((const double *)p)[at];
}
static void store_f64(void *p, size_t at, double v)
{
    ((double *)p)[at] = v;
}
static double div_f64(double a, double b)
{
    return a / b;
}
static double sub_f64(double a, double b)
{
    return a - b;
}
static double mul_f64(double a, double b)
{
    return a * b;
}

static const ftype f32 = {"f32", 4, 0x1p-24, FLT_MIN, FLT_TRUE_MIN, FLT_MAX,
                          load_f32, store_f32, div_f32, sub_f32, mul_f32};
static const ftype f64 = {"f64", 8, 0x1p-53, DBL_MIN, DBL_TRUE_MIN, DBL_MAX,
                          load_f64, store_f64, div_f64, sub_f64, mul_f64};
static const ftype *const ftypes[] = {&f32, &f64};

/* Two values of t with the same bits (-0.0 is not +0.0). */
static int same_bits(const ftype *t, const void *got, size_t at, double want)
{
    unsigned char w[8];
    t->store(w, 0, want);
    return memcmp((const unsigned char *)got + at * t->size, w, t->size) == 0;
}

/* ---- one call, any of the four operations ------------------------------------ */

/* OP_QUANTIZE: qmm_quantize_f32 / _f64, the scales and zero points given. */
typedef enum op { OP_SYMMETRIC, OP_ASYMMETRIC, OP_DEQUANTIZE, OP_QUANTIZE } op;
static const char *const op_names[] = {"symmetric", "asymmetric", "dequantize", "quantize"};

typedef struct call {
    op op;
    size_t rows, cols;
    qmm_per per;
    qmm_type type; /* of q: all but symmetric */
    void *x;       /* quantization's input, dequantization's output */
    size_t ldx;
    void *q;
    size_t ldq;
    void *scales;         /* inputs for dequantize and quantize */
    int32_t *zero_points; /* the same; NULL: 0 for them */
} call;

static qmm_status run_call(const ftype *t, const call *c)
{
    const int is_f64 = t->size == 8;
    switch (c->op) {
    case OP_SYMMETRIC:
        return is_f64 ? qmm_quantize_symmetric_f64(c->rows, c->cols, c->x, c->ldx, c->per, c->q,
                                                   c->ldq, c->scales)
                      : qmm_quantize_symmetric_f32(c->rows, c->cols, c->x, c->ldx, c->per, c->q,
                                                   c->ldq, c->scales);
    case OP_ASYMMETRIC:
        return is_f64 ? qmm_quantize_asymmetric_f64(c->rows, c->cols, c->x, c->ldx, c->per,
                                                    c->type, c->q, c->ldq, c->scales,
                                                    c->zero_points)
                      : qmm_quantize_asymmetric_f32(c->rows, c->cols, c->x, c->ldx, c->per,
                                                    c->type, c->q, c->ldq, c->scales,
                                                    c->zero_points);
    case OP_DEQUANTIZE:
        return is_f64 ? qmm_dequantize_f64(c->rows, c->cols, c->type, c->q, c->ldq, c->per,
                                           c->scales, c->zero_points, c->x, c->ldx)
                      : qmm_dequantize_f32(c->rows, c->cols, c->type, c->q, c->ldq, c->per,
                                           c->scales, c->zero_points, c->x, c->ldx);
    case OP_QUANTIZE:
        return is_f64 ? qmm_quantize_f64(c->rows, c->cols, c->x, c->ldx, c->per, c->scales,
                                         c->zero_points, c->type, c->q, c->ldq)
                      : qmm_quantize_f32(c->rows, c->cols, c->x, c->ldx, c->per, c->scales,
                                         c->zero_points, c->type, c->q, c->ldq);
    }
    return QMM_ERR_INVALID_ARG;
}

/* ---- lines: the matrix, its rows or its columns ---------------------------- */

static size_t line_count(qmm_per per, size_t rows, size_t cols)
{
    return per == QMM_PER_ROW ? rows : per == QMM_PER_COL ? cols : 1;
}

static size_t line_of(qmm_per per, size_t i, size_t j)
{
    return per == QMM_PER_ROW ? i : per == QMM_PER_COL ? j : 0;
}

typedef struct qrange {
    int32_t qmin, qmax;
} qrange;

/* q's range; the symmetric int8 range leaves -128 out. */
static qrange range_of(const call *c)
{
    if (c->op == OP_SYMMETRIC)
        return (qrange){-127, 127};
    return c->type == QMM_TYPE_U8 ? (qrange){0, 255} : (qrange){-128, 127};
}

static int32_t q_at(const call *c, size_t i, size_t j)
{
    const unsigned char *p = (const unsigned char *)c->q + i * c->ldq + j;
    return c->op != OP_SYMMETRIC && c->type == QMM_TYPE_U8 ? (int32_t)*p : (int32_t)(int8_t)*p;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* ---- the reference ------------------------------------------------------------ */

/* What a quantization must give: q dense (rows x cols), one scale and zero
 * point per line, and each line's extrema for the property checks. */
typedef struct expected {
    qmm_status status;
    size_t lines;
    int32_t *q;
    double *scales;
    int32_t *zero_points;
    double *lo, *hi, *maxabs; /* lo = min(0, min x), hi = max(0, max x), max |x| */
} expected;

static void expected_free(expected *e)
{
    void *arrays[] = {e->q, e->scales, e->zero_points, e->lo, e->hi, e->maxabs};
    for (size_t a = 0; a < COUNT(arrays); a++)
        free(arrays[a]);
}

/* Line l's scale and zero point: given (c's, zero points NULL meaning 0), or
 * the header's formulas one operation at a time; status QMM_ERR_INVALID_ARG
 * where hi - lo overflows or a given one is out of bounds. */
static qmm_status ref_line_params(const ftype *t, const call *c, size_t l, double lo, double hi,
                                  double maxabs, double *scale, int32_t *zero_point)
{
    const qrange r = range_of(c);
    if (c->op == OP_QUANTIZE) {
        *scale = t->load(c->scales, l);
        *zero_point = c->zero_points ? c->zero_points[l] : 0;
        return isfinite(*scale) && *scale > 0 && *zero_point >= r.qmin && *zero_point <= r.qmax
                   ? QMM_OK
                   : QMM_ERR_INVALID_ARG;
    }
    if (c->op == OP_SYMMETRIC) {
        *scale = t->div(maxabs, 127);
        *zero_point = 0;
        return QMM_OK;
    }
    const double width = t->sub(hi, lo);
    if (isinf(width))
        return QMM_ERR_INVALID_ARG;
    *scale = t->div(width, r.qmax - r.qmin);
    *zero_point = *scale == 0 ? r.qmin
                              : (int32_t)nearbyint(clamp(t->sub(r.qmin, t->div(lo, *scale)),
                                                         r.qmin, r.qmax));
    return QMM_OK;
}

static expected ref_quantize(const ftype *t, const call *c)
{
    const qrange r = range_of(c);
    expected e = {.status = QMM_OK, .lines = line_count(c->per, c->rows, c->cols)};
    e.q = malloc(c->rows * c->cols * sizeof *e.q);
    e.scales = malloc(e.lines * sizeof *e.scales);
    e.zero_points = malloc(e.lines * sizeof *e.zero_points);
    e.lo = calloc(e.lines, sizeof *e.lo); /* zeros: 0.0 is inside every range */
    e.hi = calloc(e.lines, sizeof *e.hi);
    e.maxabs = calloc(e.lines, sizeof *e.maxabs);
    for (size_t i = 0; i < c->rows; i++)
        for (size_t j = 0; j < c->cols; j++) {
            const double v = t->load(c->x, i * c->ldx + j);
            const size_t l = line_of(c->per, i, j);
            if (!isfinite(v))
                e.status = QMM_ERR_INVALID_ARG;
            e.lo[l] = v < e.lo[l] ? v : e.lo[l]; /* -0.0 leaves +0.0 */
            e.hi[l] = v > e.hi[l] ? v : e.hi[l];
            e.maxabs[l] = fabs(v) > e.maxabs[l] ? fabs(v) : e.maxabs[l];
        }
    for (size_t l = 0; l < e.lines && e.status == QMM_OK; l++)
        e.status = ref_line_params(t, c, l, e.lo[l], e.hi[l], e.maxabs[l], &e.scales[l],
                                   &e.zero_points[l]);
    if (e.status != QMM_OK)
        return e;
    for (size_t i = 0; i < c->rows; i++)
        for (size_t j = 0; j < c->cols; j++) {
            const size_t l = line_of(c->per, i, j);
            const double v = t->load(c->x, i * c->ldx + j), s = e.scales[l];
            const int32_t zp = e.zero_points[l];
            /* An overflowing quotient is infinite here, and clamps. */
            e.q[i * c->cols + j] =
                s == 0 ? zp : (int32_t)clamp(nearbyint(t->div(v, s)) + zp, r.qmin, r.qmax);
        }
    return e;
}

/* x = (q - zero_point) * scale: the difference exact, the product one operation. */
static double ref_dequantize(const ftype *t, const call *c, size_t i, size_t j)
{
    const size_t l = line_of(c->per, i, j);
    const int32_t zp = c->zero_points ? c->zero_points[l] : 0;
    return t->mul((double)(q_at(c, i, j) - zp), t->load(c->scales, l));
}

/* ---- matrices -------------------------------------------------------------------- */

/* A rows x cols input of t, row-major with leading dimension ld, allocated to
 * its last element and no further, the padding NaN: a value outside the
 * elements is never one of them. */
static void *input_new(const ftype *t, size_t rows, size_t cols, size_t ld)
{
    const size_t span = (rows - 1) * ld + cols;
    void *x = malloc(span * t->size);
    for (size_t at = 0; at < span; at++)
        t->store(x, at, NAN);
    return x;
}

/* A value for element e of line l (per picks what a line is). */
typedef double value_fn(const ftype *t, size_t l, size_t e);

static void fill(const ftype *t, void *x, size_t rows, size_t cols, size_t ld, qmm_per per,
                 value_fn *value)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            const int by_col = per == QMM_PER_COL;
            t->store(x, i * ld + j, value(t, by_col ? j : i, by_col ? i : j));
        }
}

static double value_uniform(const ftype *t, size_t l, size_t e)
{
    (void)t, (void)l, (void)e;
    return test_rand_signed();
}

/* Rows and columns of magnitudes 2^-30 to 2^30 each, so that a line (any
 * granularity) holds values 2^60 apart, most of them rounding to 0. */
static double value_magnitudes(const ftype *t, size_t l, size_t e)
{
    (void)t;
    const int row_exp = (int)((l * 37) % 61) - 30, col_exp = (int)((e * 23) % 61) - 30;
    return ldexp(test_rand_signed(), row_exp + col_exp);
}

static double value_nonnegative(const ftype *t, size_t l, size_t e)
{
    return fabs(value_uniform(t, l, e));
}

static double value_nonpositive(const ftype *t, size_t l, size_t e)
{
    return -fabs(value_uniform(t, l, e));
}

/* A third of the values +0.0 or -0.0. */
static double value_sparse(const ftype *t, size_t l, size_t e)
{
    switch (test_rand_below(6)) {
    case 0:
        return 0.0;
    case 1:
        return -0.0;
    default:
        return value_uniform(t, l, e);
    }
}

/* An integer or a half-integer from lo to lo + count - 0.5. */
static double rand_half_step(int lo, size_t count)
{
    return lo + (double)test_rand_below(count) + 0.5 * (double)test_rand_below(2);
}

/* Multiples of 2^-4 whose every line has max |x| = 127 / 8 (symmetric) or
 * hi - lo = 255 / 8 (asymmetric), so that its scale is 2^-3, x / scale is
 * exact, and about half the values are ties (round half to even). */
static double value_ties_symmetric(const ftype *t, size_t l, size_t e)
{
    (void)t, (void)l;
    return ldexp(e == 0 ? 127 : rand_half_step(-127, 254), -3);
}

static double value_ties_asymmetric(const ftype *t, size_t l, size_t e)
{
    (void)t, (void)l;
    return ldexp(e == 0 ? -100.5 : e == 1 ? 154.5 : rand_half_step(-100, 254), -3);
}

/* Lines that are special in turn: zeros (signed), one nonzero value,
 * subnormal values (a subnormal scale), values whose scale underflows to 0
 * (max |x| / 127 and (hi - lo) / 255 below half the least subnormal), a
 * normal maximum with a subnormal scale, huge values (hi - lo still finite),
 * and plain ones. */
static double value_special(const ftype *t, size_t l, size_t e)
{
    switch (l % 8) {
    case 0:
        return 0.0;
    case 1:
        return e % 2 ? -0.0 : 0.0;
    case 2:
        return e == 1 ? -0.75 : 0.0;
    case 3:
        return test_rand_signed() * t->min_normal * 0x1p-6;
    case 4:
        return (double)((int)test_rand_below(121) - 60) * t->true_min;
    case 5:
        return test_rand_signed() * t->min_normal * 0x1p6;
    case 6:
        return test_rand_signed() * t->max_finite * 0.45;
    default:
        return test_rand_signed();
    }
}

/* ---- checking quantizations ------------------------------------------------------ */

typedef struct outputs {
    test_matrix q, scales, zero_points;
} outputs;

static outputs outputs_new(const ftype *t, const call *c)
{
    const size_t lines = line_count(c->per, c->rows, c->cols);
    return (outputs){test_matrix_new(c->rows, c->cols, 1, LAYOUT_ROW, c->ldq - c->cols),
                     test_matrix_new(1, lines, t->size, LAYOUT_ROW, 0),
                     test_matrix_new(1, lines, 4, LAYOUT_ROW, 0)};
}

static void outputs_free(outputs *o)
{
    test_matrix_free(&o->q);
    test_matrix_free(&o->scales);
    test_matrix_free(&o->zero_points);
}

static void describe(const ftype *t, const call *c, const char *data, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s%s%s per %s, %s %zux%zu (ldx %zu, ldq %zu)", t->name,
             op_names[c->op], c->op == OP_SYMMETRIC ? "" : " ",
             c->op == OP_SYMMETRIC ? "" : c->type == QMM_TYPE_U8 ? "u8" : "i8",
             c->per <= QMM_PER_ROW_COL ? test_per_names[c->per] : "?", data, c->rows, c->cols, c->ldx,
             c->ldq);
}

/* A scale as the header defines it. Symmetric: max |x| / 127, +0.0 for a
 * line of zeros of either sign. Asymmetric: the sign of a zero hi - lo is
 * open (max(0, -0.0) may be either zero), so a zero scale is either. */
static int same_scale(const ftype *t, op o, const void *got, size_t at, double want)
{
    if (o == OP_ASYMMETRIC && want == 0)
        return t->load(got, at) == 0;
    return same_bits(t, got, at, want);
}

/* The library's outputs in c equal e's, bit for bit, nothing else written. */
static void compare_quantized(const ftype *t, const call *c, const outputs *o, const expected *e,
                              const char *what)
{
    size_t bad = 0;
    for (size_t i = 0; i < c->rows; i++)
        for (size_t j = 0; j < c->cols; j++) {
            const int32_t got = q_at(c, i, j), want = e->q[i * c->cols + j];
            if (got != want && bad++ == 0)
                test_fail(__FILE__, __LINE__, "%s: q(%zu,%zu) = %d, want %d (x = %a, scale %a)",
                          what, i, j, (int)got, (int)want, t->load(c->x, i * c->ldx + j),
                          e->scales[line_of(c->per, i, j)]);
        }
    for (size_t l = 0; l < e->lines; l++) {
        if (!same_scale(t, c->op, c->scales, l, e->scales[l]) && bad++ == 0)
            test_fail(__FILE__, __LINE__, "%s: scale %zu = %a, want %a", what, l,
                      t->load(c->scales, l), e->scales[l]);
        if (c->zero_points && c->zero_points[l] != e->zero_points[l] && bad++ == 0)
            test_fail(__FILE__, __LINE__, "%s: zero point %zu = %d, want %d", what, l,
                      (int)c->zero_points[l], (int)e->zero_points[l]);
    }
    CHECK(test_matrix_surroundings_intact(&o->q), "%s: wrote outside q's elements", what);
    CHECK(test_matrix_surroundings_intact(&o->scales), "%s: wrote outside the scales", what);
    CHECK(test_matrix_surroundings_intact(&o->zero_points), "%s: wrote outside the zero points",
          what);
    test_checks++;
}

/* The header's promises, on the library's own outputs: symmetric q never
 * -128 and a line's largest |x| at +-127 (where the scale is normal: a
 * subnormal scale has too few bits for it); otherwise 0.0 exactly at the
 * zero point. */
static void check_properties(const ftype *t, const call *c, const expected *e, const char *what)
{
    for (size_t i = 0; i < c->rows; i++)
        for (size_t j = 0; j < c->cols; j++) {
            const size_t l = line_of(c->per, i, j);
            const double v = t->load(c->x, i * c->ldx + j);
            const int32_t q = q_at(c, i, j);
            if (c->op == OP_SYMMETRIC) {
                CHECK(q >= -127, "%s: q(%zu,%zu) = %d", what, i, j, (int)q);
                if (fabs(v) == e->maxabs[l] && t->load(c->scales, l) >= t->min_normal)
                    CHECK(q == (v > 0 ? 127 : -127), "%s: the line's largest |x| (%a) gave %d",
                          what, v, (int)q);
            } else if (v == 0) {
                const int32_t zp = c->zero_points ? c->zero_points[l] : 0;
                CHECK(q == zp, "%s: 0.0 at (%zu,%zu) gave %d, zero point %d", what, i, j, (int)q,
                      (int)zp);
            }
        }
    test_checks++;
}

/* dequantize(quantize(x)): the reference's bits, and within half a step of x
 * on lines with a normal scale and 128 steps finite (a line at the type's
 * largest value may dequantize to infinity). Half a step plus what the
 * rounded quotient x / scale (below 2^8 in magnitude) and the clamp against a
 * rounded scale can add, 2^8 units of roundoff of a step, plus the
 * dequantizing product's own rounding. Truncating instead of rounding misses
 * by up to a whole step. */
static void check_round_trip(const ftype *t, const call *c, const char *what)
{
    test_matrix back = test_matrix_new(c->rows, c->cols, t->size, LAYOUT_ROW, c->ldx - c->cols);
    call d = *c;
    d.op = OP_DEQUANTIZE;
    d.type = c->op == OP_SYMMETRIC ? QMM_TYPE_I8 : c->type;
    d.x = back.base;
    qmm_status st = run_call(t, &d);
    CHECK(st == QMM_OK, "%s: dequantizing: %s", what, qmm_status_str(st));
    for (size_t i = 0; i < c->rows && st == QMM_OK; i++)
        for (size_t j = 0; j < c->cols; j++) {
            const double x = t->load(c->x, i * c->ldx + j);
            const double got = t->load(back.base, i * c->ldx + j);
            const double scale = t->load(c->scales, line_of(c->per, i, j));
            const double tolerance = scale * (0.5 + 256 * t->epsilon) + fabs(x) * 2 * t->epsilon;
            CHECK(same_bits(t, back.base, i * c->ldx + j, ref_dequantize(t, &d, i, j)),
                  "%s: dequantized (%zu,%zu) = %a, want %a", what, i, j, got,
                  ref_dequantize(t, &d, i, j));
            if (scale >= t->min_normal && scale * 128 <= t->max_finite)
                CHECK(fabs(got - x) <= tolerance,
                      "%s: (%zu,%zu): %a came back as %a, more than half a step (%a) away", what,
                      i, j, x, got, scale);
        }
    CHECK(test_matrix_surroundings_intact(&back), "%s: dequantizing wrote outside x", what);
    test_matrix_free(&back);
    test_checks++;
}

/* An asymmetric call's scales and zero points given back to qmm_quantize_*:
 * the same divisors, zero points and range, so the same q bit for bit. A line
 * of scale 0 has no such parameters: the call is refused, q untouched. */
static void check_given_back(const ftype *t, const call *c, const char *what)
{
    test_matrix q = test_matrix_new(c->rows, c->cols, 1, LAYOUT_ROW, c->ldq - c->cols);
    test_matrix_fill_i8(&q, 0x5A);
    call g = *c;
    g.op = OP_QUANTIZE;
    g.q = q.base;
    int zero_scale = 0;
    for (size_t l = 0; l < line_count(c->per, c->rows, c->cols); l++)
        zero_scale |= t->load(c->scales, l) == 0;
    qmm_status st = run_call(t, &g);
    CHECK(st == (zero_scale ? QMM_ERR_INVALID_ARG : QMM_OK), "%s, given back: %s", what,
          qmm_status_str(st));
    size_t bad = 0;
    for (size_t i = 0; i < c->rows; i++)
        for (size_t j = 0; j < c->cols; j++) {
            const int32_t got = q_at(&g, i, j), want = zero_scale ? 0x5A : q_at(c, i, j);
            if (got != want && bad++ == 0)
                test_fail(__FILE__, __LINE__, "%s, given back: q(%zu,%zu) = %d, want %d", what,
                          i, j, (int)got, (int)want);
        }
    CHECK(test_matrix_surroundings_intact(&q), "%s, given back: wrote outside q", what);
    test_matrix_free(&q);
    test_checks++;
}

/* Each call runs on 1 thread and on one other count, 2 to TEST_MAX_THREADS
 * in turn: each against the reference, so the same bits on all of them. */
static size_t turn;

/* One quantization on 1 and some other thread count against the reference,
 * then its properties and its round trip (given parameters: the asymmetric
 * ones given back instead; given ones may saturate, beyond half a step). With
 * OP_QUANTIZE, c holds the given scales and zero points (or NULL); each run
 * copies them into guarded arrays, which must stay as they are. */
static void check_quantize(const ftype *t, call c, const char *data)
{
    char what[256], label[300];
    describe(t, &c, data, what, sizeof what);
    expected e = ref_quantize(t, &c);
    CHECK(e.status == QMM_OK, "%s: the test's data is invalid", what);
    const int given = c.op == OP_QUANTIZE, given_zp = given && c.zero_points != NULL;
    size_t counts[TEST_MAX_THREADS];
    const size_t runs = test_thread_counts(1, turn++, counts);
    for (size_t r = 0; r < runs && e.status == QMM_OK; r++) {
        const size_t threads = counts[r];
        outputs o = outputs_new(t, &c);
        c.q = o.q.base;
        c.scales = o.scales.base;
        c.zero_points = c.op == OP_SYMMETRIC || (given && !given_zp) ? NULL : o.zero_points.base;
        for (size_t l = 0; l < e.lines && given; l++) {
            t->store(c.scales, l, e.scales[l]);
            if (given_zp)
                c.zero_points[l] = e.zero_points[l];
        }
        snprintf(label, sizeof label, "%s on %zu threads", what, threads);
        qmm_set_num_threads(threads);
        qmm_status st = run_call(t, &c);
        CHECK(st == QMM_OK, "%s: %s", label, qmm_status_str(st));
        if (st == QMM_OK)
            compare_quantized(t, &c, &o, &e, label);
        if (st == QMM_OK && threads > 1) {
            check_properties(t, &c, &e, label);
            if (c.op == OP_ASYMMETRIC)
                check_given_back(t, &c, label);
            if (!given)
                check_round_trip(t, &c, label);
        }
        outputs_free(&o);
    }
    expected_free(&e);
}

static const qmm_per pers[] = {QMM_PER_MATRIX, QMM_PER_ROW, QMM_PER_COL};

/* Every kind of quantization: symmetric, asymmetric uint8 and int8. */
static const call kinds[] = {{.op = OP_SYMMETRIC, .type = QMM_TYPE_I8},
                             {.op = OP_ASYMMETRIC, .type = QMM_TYPE_U8},
                             {.op = OP_ASYMMETRIC, .type = QMM_TYPE_I8}};

static void random_data(void)
{
    static const struct {
        const char *name;
        value_fn *value;
    } sets[] = {{"uniform", value_uniform},
                {"magnitudes", value_magnitudes},
                {"nonnegative", value_nonnegative},
                {"nonpositive", value_nonpositive},
                {"sparse", value_sparse},
                {"special lines", value_special},
                {"symmetric ties", value_ties_symmetric},
                {"asymmetric ties", value_ties_asymmetric}};
    /* rows, cols, ldx, ldq */
    static const size_t shapes[][4] = {
        {7, 13, 16, 15}, {1, 9, 9, 9}, {9, 1, 3, 2}, {16, 16, 16, 17}, {3, 40, 45, 40}};
    for (size_t f = 0; f < COUNT(ftypes); f++)
        for (size_t k = 0; k < COUNT(kinds); k++)
            for (size_t p = 0; p < COUNT(pers); p++)
                for (size_t s = 0; s < COUNT(sets); s++)
                    for (size_t h = 0; h < COUNT(shapes); h++) {
                        const ftype *t = ftypes[f];
                        call c = kinds[k];
                        c.per = pers[p];
                        c.rows = shapes[h][0];
                        c.cols = shapes[h][1];
                        c.ldx = shapes[h][2];
                        c.ldq = shapes[h][3];
                        c.x = input_new(t, c.rows, c.cols, c.ldx);
                        fill(t, c.x, c.rows, c.cols, c.ldx, c.per, sets[s].value);
                        check_quantize(t, c, sets[s].name);
                        free(c.x);
                    }
}

/* A whole matrix of one kind, under each granularity: zeros, values whose
 * scale underflows, subnormal values, the extremes of the type. */
static void whole_matrices(void)
{
    for (size_t f = 0; f < COUNT(ftypes); f++) {
        const ftype *t = ftypes[f];
        const struct {
            const char *name;
            double values[4];
        } sets[] = {
            {"zeros", {0.0, -0.0, 0.0, 0.0}},
            {"negative zeros", {-0.0, -0.0, -0.0, -0.0}},
            {"scale underflowing", {60 * t->true_min, -60 * t->true_min, t->true_min, 0.0}},
            {"least subnormal scale", {64 * t->true_min, -t->true_min, 0.0, 2 * t->true_min}},
            {"subnormal", {t->min_normal * 0x1p-3, -t->min_normal * 0x1p-5, t->true_min, 0.0}},
            {"largest", {t->max_finite, -t->true_min, 0.0, t->max_finite * 0.5}},
            {"most negative", {-t->max_finite, t->true_min, -0.0, -t->max_finite * 0.5}},
        };
        for (size_t v = 0; v < COUNT(sets); v++)
            for (size_t k = 0; k < COUNT(kinds); k++)
                for (size_t p = 0; p < COUNT(pers); p++) {
                    call c = kinds[k];
                    c.per = pers[p];
                    c.rows = 3;
                    c.cols = 4;
                    c.ldx = 5;
                    c.ldq = 6;
                    c.x = input_new(t, c.rows, c.cols, c.ldx);
                    for (size_t i = 0; i < c.rows; i++)
                        for (size_t j = 0; j < c.cols; j++)
                            t->store(c.x, i * c.ldx + j, sets[v].values[(i + j) % 4]);
                    check_quantize(t, c, sets[v].name);
                    free(c.x);
                }
    }
}

/* ---- hand-computed values ------------------------------------------------------ */

/* x (count values, times 2^e) quantized as one row (per matrix and per row)
 * and as one column (per column) must give q, scale 2^e and zero_point. */
static void hand_case(op o, qmm_type type, const double *x, const int32_t *q, size_t count,
                      int32_t zero_point, const char *what)
{
    static const int exps[] = {0, -10, 20};
    for (size_t f = 0; f < COUNT(ftypes); f++)
        for (size_t e = 0; e < COUNT(exps); e++)
            for (size_t p = 0; p < COUNT(pers); p++) {
                const ftype *t = ftypes[f];
                const int by_col = pers[p] == QMM_PER_COL;
                call c = {.op = o, .type = type};
                c.per = pers[p];
                c.rows = by_col ? count : 1;
                c.cols = by_col ? 1 : count;
                c.ldx = c.ldq = c.cols;
                c.x = input_new(t, c.rows, c.cols, c.ldx);
                outputs out = outputs_new(t, &c);
                c.q = out.q.base;
                c.scales = out.scales.base;
                c.zero_points = o == OP_SYMMETRIC ? NULL : out.zero_points.base;
                for (size_t v = 0; v < count; v++)
                    t->store(c.x, v, ldexp(x[v], exps[e]));
                qmm_status st = run_call(t, &c);
                CHECK(st == QMM_OK, "%s (%s, 2^%d, per %s): %s", what, t->name, exps[e],
                      test_per_names[c.per], qmm_status_str(st));
                for (size_t v = 0; v < count && st == QMM_OK; v++) {
                    const int32_t got = by_col ? q_at(&c, v, 0) : q_at(&c, 0, v);
                    CHECK(got == q[v], "%s (%s, 2^%d, per %s): %g quantized to %d, want %d", what,
                          t->name, exps[e], test_per_names[c.per], x[v], (int)got, (int)q[v]);
                }
                CHECK(st != QMM_OK || t->load(c.scales, 0) == ldexp(1, exps[e]),
                      "%s (%s, 2^%d): scale %a", what, t->name, exps[e], t->load(c.scales, 0));
                CHECK(st != QMM_OK || o == OP_SYMMETRIC || c.zero_points[0] == zero_point,
                      "%s (%s, 2^%d): zero point %d, want %d", what, t->name, exps[e],
                      st == QMM_OK && c.zero_points ? (int)c.zero_points[0] : 0, (int)zero_point);
                test_checks++;
                outputs_free(&out);
                free(c.x);
            }
}

/* Scales that are powers of two, so that x / scale is exact and lands on
 * ties, which round to even: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, 0.5 -> 0. */
static void ties(void)
{
    const double sym_x[] = {127, 2.5, 3.5, -2.5, 0.5, 1.5, -0.5, -127, 126.5, -1.5};
    const int32_t sym_q[] = {127, 2, 4, -2, 0, 2, 0, -127, 126, -2};
    hand_case(OP_SYMMETRIC, QMM_TYPE_I8, sym_x, sym_q, COUNT(sym_x), 0, "symmetric ties");
    /* hi - lo = 255: scale 1; qmin - lo / scale = qmin + 100.5 is a tie too. */
    const double asym_x[] = {-100.5, 154.5, 2.5, 0, 3.5, -0.5, 1.5, -0.0};
    const int32_t u8_q[] = {0, 254, 102, 100, 104, 100, 102, 100};
    const int32_t i8_q[] = {-128, 126, -26, -28, -24, -28, -26, -28};
    hand_case(OP_ASYMMETRIC, QMM_TYPE_U8, asym_x, u8_q, COUNT(asym_x), 100, "uint8 ties");
    hand_case(OP_ASYMMETRIC, QMM_TYPE_I8, asym_x, i8_q, COUNT(asym_x), -28, "int8 ties");
    /* Non-negative: lo = 0, the zero point qmin; 127.5 and 128.5 both -> 128. */
    const double pos_x[] = {0, 255, 127.5, 128.5, 0.5};
    const int32_t pos_u8[] = {0, 255, 128, 128, 0}, pos_i8[] = {-128, 127, 0, 0, -128};
    hand_case(OP_ASYMMETRIC, QMM_TYPE_U8, pos_x, pos_u8, COUNT(pos_x), 0, "uint8 non-negative");
    hand_case(OP_ASYMMETRIC, QMM_TYPE_I8, pos_x, pos_i8, COUNT(pos_x), -128, "int8 non-negative");
    /* Non-positive: hi = 0, the zero point qmax. */
    const double neg_x[] = {-255, -0.5, -1.5, 0};
    const int32_t neg_u8[] = {0, 255, 253, 255}, neg_i8[] = {-128, 127, 125, 127};
    hand_case(OP_ASYMMETRIC, QMM_TYPE_U8, neg_x, neg_u8, COUNT(neg_x), 255, "uint8 non-positive");
    hand_case(OP_ASYMMETRIC, QMM_TYPE_I8, neg_x, neg_i8, COUNT(neg_x), 127, "int8 non-positive");
}

/* The largest |x| at -127 when it is negative; nothing at -128. */
static void bounds(void)
{
    for (size_t f = 0; f < COUNT(ftypes); f++) {
        const ftype *t = ftypes[f];
        const double x[] = {-3.7, 1.2, 0.5, -3.6999};
        call c = {.op = OP_SYMMETRIC, .type = QMM_TYPE_I8};
        c.per = QMM_PER_MATRIX;
        c.rows = 1;
        c.cols = c.ldx = c.ldq = COUNT(x);
        c.x = input_new(t, 1, c.cols, c.ldx);
        for (size_t v = 0; v < COUNT(x); v++)
            t->store(c.x, v, x[v]);
        outputs out = outputs_new(t, &c);
        c.q = out.q.base;
        c.scales = out.scales.base;
        qmm_status st = run_call(t, &c);
        CHECK(st == QMM_OK && q_at(&c, 0, 0) == -127 && q_at(&c, 0, 3) == -127,
              "%s: -3.7 and -3.6999 of max 3.7 quantized to %d and %d, want -127", t->name,
              st == QMM_OK ? (int)q_at(&c, 0, 0) : 0, st == QMM_OK ? (int)q_at(&c, 0, 3) : 0);
        test_checks++;
        outputs_free(&out);
        free(c.x);
    }
}

/* ---- given scales and zero points ----------------------------------------------- */

/* A valid given scale of each kind: powers of two; plain ones, whose
 * quotients reach a few hundred (saturation); tiny and subnormal ones, whose
 * quotients pass 2^22, int32 and the float type's range; huge ones, whose
 * quotients are all but 0. */
static double rand_given_scale(const ftype *t)
{
    switch (test_rand_below(6)) {
    case 0:
        return ldexp(1, (int)test_rand_below(40) - 20);
    case 1:
        return t->true_min * (double)(1 + test_rand_below(1000));
    case 2:
        return ldexp(1 + test_rand_unit(), -100);
    case 3:
        return t->max_finite / 256 * (0.5 + test_rand_unit());
    default:
        return (test_rand_unit() + 0x1p-10) / 256;
    }
}

/* 2^-3: with value_ties_asymmetric's multiples of 2^-4, every quotient a
 * half-integer, about half of them ties. */
static double eighth_scale(const ftype *t)
{
    (void)t;
    return 0.125;
}

/* c (shape, granularity and type set) on value's data with scale's scales
 * and zero points (the type's qmin on line 0, its qmax on line 1, any on the
 * others), or none. */
/* c's scales (one per line, from scale()) and, with_zp, its zero points:
 * the range's two ends on lines 0 and 1, random on the others. */
static void given_params(const ftype *t, size_t lines, const qrange *r, int with_zp,
                         double (*scale)(const ftype *t), call *c)
{
    c->scales = malloc(lines * t->size);
    c->zero_points = with_zp ? malloc(lines * sizeof *c->zero_points) : NULL;
    for (size_t l = 0; l < lines; l++) {
        t->store(c->scales, l, scale(t));
        if (with_zp)
            c->zero_points[l] = l == 0   ? r->qmin
                                : l == 1 ? r->qmax
                                         : r->qmin + (int32_t)test_rand_below(256);
    }
}

static void check_given(const ftype *t, call c, int with_zp, value_fn *value,
                        double (*scale)(const ftype *t), const char *name)
{
    const size_t lines = line_count(c.per, c.rows, c.cols);
    const qrange r = range_of(&c);
    c.x = input_new(t, c.rows, c.cols, c.ldx);
    fill(t, c.x, c.rows, c.cols, c.ldx, c.per, value);
    given_params(t, lines, &r, with_zp, scale, &c);
    char data[80];
    snprintf(data, sizeof data, "%s, zero points %s", name, with_zp ? "given" : "NULL");
    check_quantize(t, c, data);
    free(c.x);
    free(c.scales);
    free(c.zero_points);
}

/* The data sets of random_data with given scales, both types, with and
 * without zero points. */
static void given_data(void)
{
    static const struct {
        const char *name;
        value_fn *value;
        double (*scale)(const ftype *t);
    } sets[] = {{"uniform", value_uniform, rand_given_scale},
                {"magnitudes", value_magnitudes, rand_given_scale},
                {"sparse", value_sparse, rand_given_scale},
                {"special lines", value_special, rand_given_scale},
                {"ties", value_ties_asymmetric, eighth_scale}};
    static const qmm_type types[] = {QMM_TYPE_I8, QMM_TYPE_U8};
    /* rows, cols, ldx, ldq */
    static const size_t shapes[][4] = {
        {7, 13, 16, 15}, {1, 9, 9, 9}, {9, 1, 3, 2}, {3, 40, 45, 40}};
    for (size_t f = 0; f < COUNT(ftypes); f++)
        for (size_t y = 0; y < COUNT(types); y++)
            for (size_t p = 0; p < COUNT(pers); p++)
                for (size_t s = 0; s < COUNT(sets); s++)
                    for (size_t h = 0; h < COUNT(shapes); h++) {
                        const call c = {.op = OP_QUANTIZE, .type = types[y], .per = pers[p],
                                        .rows = shapes[h][0], .cols = shapes[h][1],
                                        .ldx = shapes[h][2], .ldq = shapes[h][3]};
                        for (int with_zp = 0; with_zp < 2; with_zp++)
                            check_given(ftypes[f], c, with_zp, sets[s].value, sets[s].scale,
                                        sets[s].name);
                    }
}

/* x (count values) with the given scale and zero point (NULL: none) on every
 * line, as one row (per matrix and per row) and as one column (per column),
 * must give q. */
static void given_case(const ftype *t, qmm_type type, const int32_t *zero_point, double scale,
                       const double *x, const int32_t *q, size_t count, const char *what)
{
    for (size_t p = 0; p < COUNT(pers); p++) {
        const int by_col = pers[p] == QMM_PER_COL;
        call c = {.op = OP_QUANTIZE, .type = type, .per = pers[p], .rows = by_col ? count : 1,
                  .cols = by_col ? 1 : count};
        c.ldx = c.ldq = c.cols;
        const size_t lines = line_count(c.per, c.rows, c.cols);
        c.x = input_new(t, c.rows, c.cols, c.ldx);
        for (size_t v = 0; v < count; v++)
            t->store(c.x, v, x[v]);
        c.scales = malloc(lines * t->size);
        c.zero_points = zero_point ? malloc(lines * sizeof *c.zero_points) : NULL;
        for (size_t l = 0; l < lines; l++) {
            t->store(c.scales, l, scale);
            if (zero_point)
                c.zero_points[l] = *zero_point;
        }
        test_matrix out = test_matrix_new(c.rows, c.cols, 1, LAYOUT_ROW, 0);
        c.q = out.base;
        qmm_status st = run_call(t, &c);
        CHECK(st == QMM_OK, "%s (%s, scale %a, per %s): %s", what, t->name, scale,
              test_per_names[c.per], qmm_status_str(st));
        for (size_t v = 0; v < count && st == QMM_OK; v++) {
            const int32_t got = by_col ? q_at(&c, v, 0) : q_at(&c, 0, v);
            CHECK(got == q[v], "%s (%s, scale %a, per %s): %a quantized to %d, want %d", what,
                  t->name, scale, test_per_names[c.per], t->load(c.x, v), (int)got, (int)q[v]);
        }
        CHECK(test_matrix_surroundings_intact(&out), "%s: wrote outside q", what);
        test_checks++;
        test_matrix_free(&out);
        free(c.x);
        free(c.scales);
        free(c.zero_points);
    }
}

/* Scales that are powers of two, so that x / scale is exact and lands on
 * ties: half to even, then the zero point, then the clamp. */
static void given_ties(void)
{
    static const int exps[] = {0, -10, 20};
    const double x[] = {2.5, 3.5, -2.5, -3.5, 0.5, -0.5, 1.5, -0.0, 154.5, 155.5, -100.5, -101.5};
    static const int32_t zp_u8 = 100, zp_i8 = -28;
    const struct {
        qmm_type type;
        const int32_t *zero_point;
        int32_t q[COUNT(x)];
    } cases[] = {
        {QMM_TYPE_U8, &zp_u8, {102, 104, 98, 96, 100, 100, 102, 100, 254, 255, 0, 0}},
        {QMM_TYPE_I8, &zp_i8, {-26, -24, -30, -32, -28, -28, -26, -28, 126, 127, -128, -128}},
        {QMM_TYPE_U8, NULL, {2, 4, 0, 0, 0, 0, 2, 0, 154, 156, 0, 0}},
        {QMM_TYPE_I8, NULL, {2, 4, -2, -4, 0, 0, 2, 0, 127, 127, -100, -102}},
    };
    for (size_t f = 0; f < COUNT(ftypes); f++)
        for (size_t e = 0; e < COUNT(exps); e++)
            for (size_t k = 0; k < COUNT(cases); k++) {
                double scaled[COUNT(x)];
                for (size_t v = 0; v < COUNT(x); v++)
                    scaled[v] = ldexp(x[v], exps[e]);
                given_case(ftypes[f], cases[k].type, cases[k].zero_point, ldexp(1, exps[e]),
                           scaled, cases[k].q, COUNT(x), "given ties");
            }
}

/* Quotients at 2^22 and past it, past int32, and past the float type's range
 * (x up to +-1e30 and +-the largest value over a scale of 2^-100 or the
 * least subnormal) saturate by their sign, whatever the zero point, beside
 * small ones in the same line that do not. */
static void huge_quotients(void)
{
    /* x / scale, exact: the first SMALL small, the others 2^22 or more */
    const double k[] = {3,          -3,          0,          0x1p22,        -0x1p22,
                        0x1p22 + 1, -0x1p22 - 1, 0x1p23 + 1, 0x1p31,        -0x1p31,
                        0x1p40,     -0x1p40,     0x1p32 + 512, -0x1p32 - 512};
    enum { SMALL = 3, N = COUNT(k) + 4 };
    static const int32_t zps[] = {0, 255, 37, -128, 127, -5};
    const struct {
        qmm_type type;
        const int32_t *zero_point;
    } cases[] = {{QMM_TYPE_U8, NULL},    {QMM_TYPE_U8, &zps[0]}, {QMM_TYPE_U8, &zps[1]},
                 {QMM_TYPE_U8, &zps[2]}, {QMM_TYPE_I8, NULL},    {QMM_TYPE_I8, &zps[3]},
                 {QMM_TYPE_I8, &zps[4]}, {QMM_TYPE_I8, &zps[5]}};
    for (size_t f = 0; f < COUNT(ftypes); f++) {
        const ftype *t = ftypes[f];
        const double scales[] = {0x1p-100, t->true_min};
        for (size_t s = 0; s < COUNT(scales); s++)
            for (size_t a = 0; a < COUNT(cases); a++) {
                const qmm_type type = cases[a].type;
                const qrange r = type == QMM_TYPE_U8 ? (qrange){0, 255} : (qrange){-128, 127};
                const int32_t zp = cases[a].zero_point ? *cases[a].zero_point : 0;
                double x[N];
                int32_t q[N];
                for (size_t v = 0; v < COUNT(k); v++) {
                    x[v] = k[v] * scales[s];
                    q[v] = v < SMALL ? (int32_t)clamp(k[v] + zp, r.qmin, r.qmax)
                                     : k[v] > 0 ? r.qmax : r.qmin;
                }
                const double extremes[] = {1e30, -1e30, t->max_finite, -t->max_finite};
                for (size_t v = 0; v < COUNT(extremes); v++) {
                    x[COUNT(k) + v] = extremes[v];
                    q[COUNT(k) + v] = extremes[v] > 0 ? r.qmax : r.qmin;
                }
                given_case(t, type, cases[a].zero_point, scales[s], x, q, N, "huge quotients");
            }
    }
}

/* ---- dequantization ------------------------------------------------------------ */

/* A scale of each kind, all valid: 0, powers of two, plain, subnormal, huge. */
static double rand_scale(const ftype *t)
{
    switch (test_rand_below(6)) {
    case 0:
        return 0.0;
    case 1:
        return ldexp(1, (int)test_rand_below(40) - 20);
    case 2:
        return t->true_min * (double)(1 + test_rand_below(1000));
    case 3:
        return t->max_finite * test_rand_unit() / 256;
    default:
        return test_rand_unit() / 64;
    }
}

static void check_dequantize(const ftype *t, call c, const char *what)
{
    char label[300];
    size_t counts[TEST_MAX_THREADS];
    const size_t runs = test_thread_counts(1, turn++, counts);
    for (size_t r = 0; r < runs; r++) {
        const size_t threads = counts[r];
        test_matrix x = test_matrix_new(c.rows, c.cols, t->size, LAYOUT_ROW, c.ldx - c.cols);
        c.x = x.base;
        snprintf(label, sizeof label, "%s on %zu threads", what, threads);
        qmm_set_num_threads(threads);
        qmm_status st = run_call(t, &c);
        CHECK(st == QMM_OK, "%s: %s", label, qmm_status_str(st));
        size_t bad = 0;
        for (size_t i = 0; i < c.rows && st == QMM_OK; i++)
            for (size_t j = 0; j < c.cols; j++)
                if (!same_bits(t, x.base, i * c.ldx + j, ref_dequantize(t, &c, i, j)) && bad++ == 0)
                    test_fail(__FILE__, __LINE__, "%s: x(%zu,%zu) = %a, want %a (q %d)", label, i,
                              j, t->load(x.base, i * c.ldx + j), ref_dequantize(t, &c, i, j),
                              (int)q_at(&c, i, j));
        CHECK(test_matrix_surroundings_intact(&x), "%s: wrote outside x's elements", label);
        test_checks++;
        test_matrix_free(&x);
    }
}

static void dequantize(void)
{
    static const qmm_type types[] = {QMM_TYPE_I8, QMM_TYPE_U8};
    for (size_t f = 0; f < COUNT(ftypes); f++)
        for (size_t y = 0; y < COUNT(types); y++)
            for (size_t p = 0; p < COUNT(pers); p++)
                for (int with_zp = 0; with_zp < 2; with_zp++) {
                    const ftype *t = ftypes[f];
                    call c = {.op = OP_DEQUANTIZE, .type = types[y], .per = pers[p], .rows = 6,
                              .cols = 11, .ldq = 13, .ldx = 12};
                    const size_t lines = line_count(c.per, c.rows, c.cols);
                    test_matrix q = test_matrix_new(c.rows, c.cols, 1, LAYOUT_ROW, c.ldq - c.cols);
                    test_matrix_fill_random_i8(&q); /* -128 and 255 included */
                    c.q = q.base;
                    const qrange r = range_of(&c);
                    given_params(t, lines, &r, with_zp, rand_scale, &c);
                    char what[160];
                    snprintf(what, sizeof what, "%s dequantize %s per %s, zero points %s", t->name,
                             types[y] == QMM_TYPE_U8 ? "u8" : "i8", test_per_names[c.per],
                             with_zp ? "given" : "NULL");
                    check_dequantize(t, c, what);
                    test_matrix_free(&q);
                    free(c.scales);
                    free(c.zero_points);
                }
}

/* ---- invalid arguments ------------------------------------------------------------ */

/* The bad-input calls' buffers, in a test_arena. */
enum { ROWS = 3, COLS = 5, LDX = 7, LDQ = 6 };
enum { AT_X = 0, AT_Q = 512, AT_SCALES = 1024, AT_ZP = 1536 };

typedef struct fixture {
    const ftype *t;
    test_arena arena;
    call c; /* valid as it is */
} fixture;

static fixture fixture_new(const ftype *t, op o, qmm_type type, qmm_per per)
{
    fixture f = {.t = t, .arena = test_arena_new()};
    unsigned char *mem = f.arena.mem;
    f.c = (call){.op = o, .rows = ROWS, .cols = COLS, .per = per, .type = type,
                 .x = mem + AT_X, .ldx = LDX, .q = mem + AT_Q, .ldq = LDQ,
                 .scales = mem + AT_SCALES, .zero_points = (int32_t *)(mem + AT_ZP)};
    if (o == OP_SYMMETRIC)
        f.c.zero_points = NULL;
    for (size_t i = 0; i < ROWS; i++)
        for (size_t j = 0; j < COLS; j++) {
            if (o != OP_DEQUANTIZE)
                t->store(f.c.x, i * LDX + j, test_rand_signed());
            ((unsigned char *)f.c.q)[i * LDQ + j] = (unsigned char)test_rand();
        }
    if (o == OP_DEQUANTIZE || o == OP_QUANTIZE)
        for (size_t l = 0; l < COLS; l++) {
            /* quantize's scales > 0 */
            t->store(f.c.scales, l, o == OP_QUANTIZE ? 0.25 + test_rand_unit() : test_rand_unit());
            f.c.zero_points[l] = type == QMM_TYPE_U8 ? 255 - (int32_t)l : -128 + (int32_t)l;
        }
    test_arena_keep(&f.arena);
    qmm_status st = run_call(t, &f.c);
    CHECK(st == QMM_OK, "%s %s: the bad-input base fails: %s", t->name, op_names[o],
          qmm_status_str(st));
    test_arena_restore(&f.arena);
    return f;
}

/* c (f's call changed) gives want, with nothing written when it is refused
 * or the matrix is empty. */
static void expect_status(fixture *f, const call *c, qmm_status want, const char *what)
{
    char label[300];
    snprintf(label, sizeof label, "%s %s per %s: %s", f->t->name, op_names[c->op],
             c->per <= QMM_PER_ROW_COL ? test_per_names[c->per] : "?", what);
    test_arena_before_call(&f->arena);
    test_arena_after_call(&f->arena, run_call(f->t, c), want, c->rows == 0 || c->cols == 0, label);
    test_checks++;
}

/* f's call with a change (statements on c) must be refused, or accepted. */
#define REFUSED(f, what, ...)                                                                      \
    TEST_CHANGED(call c, (f)->c, expect_status((f), &c, QMM_ERR_INVALID_ARG, what), __VA_ARGS__)
#define ACCEPTED(f, what, ...)                                                                     \
    TEST_CHANGED(call c, (f)->c, expect_status((f), &c, QMM_OK, what), __VA_ARGS__)

/* Empty matrices read and write nothing, whatever the rest. */
static void empty(fixture *f)
{
    ACCEPTED(f, "rows 0", c.rows = 0);
    ACCEPTED(f, "cols 0", c.cols = 0);
    ACCEPTED(f, "rows 0, every pointer NULL", c.rows = 0; c.x = c.q = c.scales = NULL;
             c.zero_points = NULL);
    ACCEPTED(f, "cols 0, every pointer NULL, ld 0", c.cols = 0; c.x = c.q = c.scales = NULL;
             c.zero_points = NULL; c.ldx = c.ldq = 0);
    ACCEPTED(f, "rows 0, per 99, type 99", c.rows = 0; c.per = (qmm_per)99;
             c.type = (qmm_type)99);
}

/* What every operation refuses: NULL buffers, short leading dimensions,
 * granularities and types outside the ones named. */
static void refused_common(fixture *f)
{
    const op o = f->c.op;
    REFUSED(f, "x NULL", c.x = NULL);
    REFUSED(f, "q NULL", c.q = NULL);
    REFUSED(f, "scales NULL", c.scales = NULL);
    if (o == OP_ASYMMETRIC)
        REFUSED(f, "zero points NULL", c.zero_points = NULL);
    REFUSED(f, "ldx < cols", c.ldx = COLS - 1);
    REFUSED(f, "ldq < cols", c.ldq = COLS - 1);
    REFUSED(f, "ldx 0", c.ldx = 0);
    REFUSED(f, "per none", c.per = QMM_PER_NONE);
    REFUSED(f, "per row and column", c.per = QMM_PER_ROW_COL);
    REFUSED(f, "per 99", c.per = (qmm_per)99);
    if (o != OP_SYMMETRIC) {
        REFUSED(f, "type I32", c.type = QMM_TYPE_I32);
        REFUSED(f, "type F32", c.type = QMM_TYPE_F32);
        REFUSED(f, "type 99", c.type = (qmm_type)99);
    }
}

/* Outputs overlapping an input or each other. */
static void refused_overlaps(fixture *f)
{
    unsigned char *x = f->c.x, *q = f->c.q, *scales = f->c.scales;
    const size_t es = f->t->size;
    if (f->c.op == OP_QUANTIZE) {
        /* Q the only output: the inputs may share memory, Q may not. */
        unsigned char *zp = (unsigned char *)f->c.zero_points;
        REFUSED(f, "q on x", c.q = x);
        REFUSED(f, "q inside x's last row", c.q = x + (2 * LDX + 1) * es);
        REFUSED(f, "q ending on the first scale", c.q = scales - (2 * LDQ + COLS - 1));
        REFUSED(f, "q starting on the last scale",
                c.q = scales + (line_count(f->c.per, ROWS, COLS) - 1) * es);
        REFUSED(f, "q on the zero points", c.q = zp);
        REFUSED(f, "q ending on the first zero point", c.q = zp - (2 * LDQ + COLS - 1));
        ACCEPTED(f, "q where the zero points would be, zero points NULL", c.zero_points = NULL;
                 c.q = zp);
        const size_t lines = line_count(f->c.per, ROWS, COLS);
        ACCEPTED(f, "the scales inside x", c.scales = x + es;
                 for (size_t l = 0; l < lines; l++) f->t->store(x, 1 + l, 0.5));
    } else if (f->c.op != OP_DEQUANTIZE) {
        REFUSED(f, "q on x", c.q = x);
        REFUSED(f, "q inside x's last row", c.q = x + (2 * LDX + 1) * es);
        REFUSED(f, "scales inside x", c.scales = x + es);
        REFUSED(f, "scales on q", c.scales = q);
        REFUSED(f, "q ending on the first scale", c.q = scales - (2 * LDQ + COLS - 1));
        if (f->c.op == OP_ASYMMETRIC) {
            REFUSED(f, "zero points on the scales", c.zero_points = (int32_t *)scales);
            REFUSED(f, "zero points inside x", c.zero_points = (int32_t *)(x + 8));
            REFUSED(f, "zero points on q", c.zero_points = (int32_t *)q);
        }
    } else {
        REFUSED(f, "x on q", c.x = q);
        REFUSED(f, "x ending inside q", c.x = q - (2 * LDX + COLS - 2) * es);
        REFUSED(f, "x ending on the first scale", c.x = scales - (2 * LDX + COLS - 1) * es);
        REFUSED(f, "x on the zero points", c.x = f->c.zero_points);
    }
}

/* NaN and infinities among X's elements, at a line's start, middle or end;
 * outside the elements (the padding) they are no concern. */
static void refused_non_finite(fixture *f)
{
    const double specials[] = {NAN, INFINITY, -INFINITY};
    const size_t at[][2] = {{0, 0}, {1, 2}, {ROWS - 1, COLS - 1}};
    for (size_t s = 0; s < COUNT(specials); s++) {
        for (size_t a = 0; a < COUNT(at); a++) {
            char what[64];
            snprintf(what, sizeof what, "%g at (%zu,%zu)", specials[s], at[a][0], at[a][1]);
            f->t->store(f->c.x, at[a][0] * LDX + at[a][1], specials[s]);
            REFUSED(f, what, (void)0); /* restores the arena afterwards */
        }
        f->t->store(f->c.x, 0 * LDX + COLS, specials[s]);
        f->t->store(f->c.x, 1 * LDX + COLS + 1, specials[s]);
        ACCEPTED(f, "NaN and infinities in the padding", (void)0);
    }
}

/* hi - lo beyond the largest finite value, in one line (asymmetric only);
 * the same values quantize symmetrically. */
static void overflowing_range(const ftype *t)
{
    for (size_t p = 0; p < COUNT(pers); p++) {
        const size_t a[2] = {1, 0}, b[2] = {1, 3}; /* one row */
        const size_t c0[2] = {0, 2}, c1[2] = {2, 2}; /* one column */
        const int by_col = pers[p] == QMM_PER_COL;
        const double pairs[][2] = {{t->max_finite, -t->max_finite},
                                   {t->max_finite * 0.75, -t->max_finite * 0.5}};
        for (size_t v = 0; v < COUNT(pairs); v++) {
            fixture asym = fixture_new(t, OP_ASYMMETRIC, QMM_TYPE_U8, pers[p]);
            fixture sym = fixture_new(t, OP_SYMMETRIC, QMM_TYPE_I8, pers[p]);
            fixture *fs[] = {&asym, &sym};
            for (size_t e = 0; e < 2; e++) {
                const size_t *first = by_col ? c0 : a, *second = by_col ? c1 : b;
                t->store(fs[e]->arena.mem + AT_X, first[0] * LDX + first[1], pairs[v][0]);
                t->store(fs[e]->arena.mem + AT_X, second[0] * LDX + second[1], pairs[v][1]);
                test_arena_keep(&fs[e]->arena);
            }
            REFUSED(&asym, "hi - lo overflows", (void)0);
            asym.c.type = QMM_TYPE_I8;
            REFUSED(&asym, "hi - lo overflows (int8)", (void)0);
            ACCEPTED(&sym, "hi - lo overflows, symmetric", (void)0);
            test_arena_free(&asym.arena);
            test_arena_free(&sym.arena);
        }
    }
}

/* Scales and zero points out of bounds, in the last line: dequantize takes a
 * scale of 0, quantize (given parameters) does not. */
static void refused_params(fixture *f)
{
    const ftype *t = f->t;
    const double bad_scales[] = {NAN, INFINITY, -INFINITY, -1.0, -t->true_min, 0.0, -0.0};
    const size_t bad_count = COUNT(bad_scales) - (f->c.op == OP_DEQUANTIZE ? 2 : 0);
    const size_t last = line_count(f->c.per, ROWS, COLS) - 1;
    for (size_t s = 0; s < bad_count; s++) {
        char what[64];
        snprintf(what, sizeof what, "scale %g", bad_scales[s]);
        t->store(f->c.scales, last, bad_scales[s]);
        REFUSED(f, what, (void)0);
    }
    if (f->c.op == OP_DEQUANTIZE) {
        t->store(f->c.scales, last, 0.0);
        ACCEPTED(f, "scale 0", (void)0);
    }
    const double good_scales[] = {t->true_min, t->max_finite};
    for (size_t s = 0; s < COUNT(good_scales); s++) {
        t->store(f->c.scales, last, good_scales[s]);
        ACCEPTED(f, "the least and the largest scale", (void)0);
    }
    const int32_t bad_zp[2][2] = {{-129, 128}, {-1, 256}}; /* int8, uint8 */
    for (size_t z = 0; z < 2; z++) {
        char what[64];
        snprintf(what, sizeof what, "zero point %d", (int)bad_zp[f->c.type == QMM_TYPE_U8][z]);
        f->c.zero_points[last] = bad_zp[f->c.type == QMM_TYPE_U8][z];
        REFUSED(f, what, (void)0);
    }
    ACCEPTED(f, "zero points NULL", c.zero_points = NULL);
}

static void bad_input(void)
{
    qmm_set_num_threads(2);
    for (size_t ft = 0; ft < COUNT(ftypes); ft++)
        for (size_t p = 0; p < COUNT(pers); p++) {
            const ftype *t = ftypes[ft];
            const struct {
                op op;
                qmm_type type;
            } ops[] = {{OP_SYMMETRIC, QMM_TYPE_I8},  {OP_ASYMMETRIC, QMM_TYPE_U8},
                       {OP_ASYMMETRIC, QMM_TYPE_I8}, {OP_DEQUANTIZE, QMM_TYPE_I8},
                       {OP_DEQUANTIZE, QMM_TYPE_U8}, {OP_QUANTIZE, QMM_TYPE_I8},
                       {OP_QUANTIZE, QMM_TYPE_U8}};
            for (size_t o = 0; o < COUNT(ops); o++) {
                fixture f = fixture_new(t, ops[o].op, ops[o].type, pers[p]);
                empty(&f);
                refused_common(&f);
                refused_overlaps(&f);
                if (ops[o].op == OP_DEQUANTIZE || ops[o].op == OP_QUANTIZE)
                    refused_params(&f);
                if (ops[o].op != OP_DEQUANTIZE)
                    refused_non_finite(&f);
                test_arena_free(&f.arena);
            }
        }
    for (size_t ft = 0; ft < COUNT(ftypes); ft++)
        overflowing_range(ftypes[ft]);
}

int main(void)
{
    /* Every call split over the threads, however small. */
    qmm_partition_set_small_product(1);
    test_seed(0x9A47);
    random_data();
    whole_matrices();
    ties();
    bounds();
    given_data();
    given_ties();
    huge_quotients();
    dequantize();
    bad_input();
    return test_finish("test_quantize", test_checks);
}
