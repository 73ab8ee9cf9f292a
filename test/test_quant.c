/*
 * Quantized products (qmm_gemm, qmm_plan_create_gemm, qmm_plan_run_gemm) against
 * a scalar reference written from qmm.h's definitions alone: int8 and uint8
 * operands with every kind of zero point, every output stage (int32, float,
 * int8 and uint8 under each rounding rule), hand-computed ties, saturations
 * and float orderings, every layout, sums that wrap around int32, plans with
 * either operand as the weights, and every invalid argument, C untouched.
 *
 * The suite runs with the selector's kernels, then with each kernel this CPU
 * supports forced through QMM_KERNEL in a child process of its own (the
 * library reads its environment once, so the children are forked before
 * this process makes its first product); each product on 1 to 4 threads,
 * split however small it is.
 *
 *   test_quant           everything
 *   test_quant KERNEL    the suite alone, with QMM_KERNEL=KERNEL
 */
#include "support/reference_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/job.h"
#include "dispatch/choose.h"
#include "dispatch/registry.h"
#include "compute/work.h"
#include "output/epilogue.h"
#include "platform/cpu.h"
#include "support/bad_call.h"

static const char *const type_names[] = {"i8", "u8", "i32", "f32"};
static const char *const rounding_names[] = {"unset", "tflite", "single", "float"};

static size_t elem_size(qmm_type t)
{
    return t == QMM_TYPE_I32 || t == QMM_TYPE_F32 ? 4 : 1;
}

static int32_t rand_in(int64_t lo, int64_t hi)
{
    return (int32_t)(lo + (int64_t)(test_rand() % (uint64_t)(hi - lo + 1)));
}

/* ---- the reference: qmm.h's definitions, step by step --------------------- */

static int32_t wrap_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

static int32_t operand_at(const qmm_operand *o, size_t i, size_t j)
{
    ptrdiff_t at = (ptrdiff_t)i * o->rs + (ptrdiff_t)j * o->cs;
    return o->type == QMM_TYPE_U8 ? ((const uint8_t *)o->data)[at] : ((const int8_t *)o->data)[at];
}

static int32_t i32_at(const qmm_i32_param *p, size_t i, size_t j)
{
    return p->per == QMM_PER_MATRIX ? p->value
           : p->per == QMM_PER_ROW  ? p->values[i]
           : p->per == QMM_PER_COL  ? p->values[j]
                                    : 0;
}

static float f32_at(const qmm_f32_param *p, size_t i, size_t j)
{
    return p->per == QMM_PER_MATRIX ? p->value : p->per == QMM_PER_ROW ? p->values[i] : p->values[j];
}

/* sum_p (A(i,p) - za(i)) * (B(p,j) - zb(j)) modulo 2^32. */
static int32_t ref_acc(const qmm_gemm_desc *d, size_t i, size_t j)
{
    int32_t za = i32_at(&d->a.zero_point, i, j), zb = i32_at(&d->b.zero_point, i, j);
    uint32_t sum = 0;
    for (size_t p = 0; p < d->k; p++)
        sum += (uint32_t)(operand_at(&d->a, i, p) - za) * (uint32_t)(operand_at(&d->b, p, j) - zb);
    return (int32_t)sum;
}

/* floor(v / 2^e), without relying on >> of a negative number. */
static int64_t floor_pow2(int64_t v, int e)
{
    return v >= 0 ? v >> e : -((-v - 1) >> e) - 1;
}

/* gemmlowp's SaturatingRoundingDoublingHighMul: the int64 product, nudged by
 * 2^30 or 1 - 2^30, divided by 2^31 truncating toward zero. */
static int32_t srdhm(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    int64_t ab = (int64_t)a * b;
    int64_t nudge = ab >= 0 ? (1 << 30) : 1 - (1 << 30);
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* gemmlowp's RoundingDivideByPOT. */
static int32_t rdbpot(int32_t x, int e)
{
    int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
    int32_t remainder = (int32_t)((uint32_t)x & (uint32_t)mask);
    int32_t threshold = (mask >> 1) + (x < 0);
    return (int32_t)floor_pow2(x, e) + (remainder > threshold);
}

static int64_t tflite_rule(int32_t x, int32_t mult, int32_t shift)
{
    int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    int32_t shifted = (int32_t)((uint32_t)x * ((uint32_t)1 << left)); /* wraps in int32 */
    return rdbpot(srdhm(shifted, mult), right);
}

static int64_t single_rule(int32_t x, int32_t mult, int32_t shift)
{
    return floor_pow2((int64_t)x * mult + ((int64_t)1 << (30 - shift)), 31 - shift);
}

/* round((float)x * s), ties to even; beyond +-2^40 (past every clamp) saturated. */
static int64_t float_rule(int32_t x, float s)
{
    volatile float xf = (float)x;
    volatile float p = xf * s;
    if (!(p > -0x1p40f && p < 0x1p40f))
        return p > 0 ? (int64_t)1 << 40 : -((int64_t)1 << 40);
    double v = p;
    int64_t t = (int64_t)v; /* toward zero */
    double frac = v - (double)t; /* exact */
    if (frac > 0.5 || (frac == 0.5 && (t & 1)))
        t++;
    else if (frac < -0.5 || (frac == -0.5 && (t & 1)))
        t--;
    return t;
}

/* C(i,j) of d, in C's type, into out. */
static void ref_element(const qmm_gemm_desc *d, size_t i, size_t j, unsigned char *out)
{
    const qmm_output *c = &d->c;
    int32_t x = wrap_add(ref_acc(d, i, j), i32_at(&c->bias, i, j));
    if (c->type == QMM_TYPE_I32) {
        memcpy(out, &x, 4);
    } else if (c->type == QMM_TYPE_F32) {
        const qmm_dequant *q = &c->dequant;
        volatile float y = (float)x;
        if (q->scale.per == QMM_PER_ROW_COL) {
            y = y * q->scale.values[i];
            y = y * q->scale.col_values[j];
        } else if (q->scale.per != QMM_PER_NONE) {
            y = y * f32_at(&q->scale, i, j);
        }
        if (q->bias.per != QMM_PER_NONE)
            y = y + f32_at(&q->bias, i, j);
        if (q->clamp) {
            if (y < q->min)
                y = q->min;
            if (y > q->max)
                y = q->max;
        }
        float v = y;
        memcpy(out, &v, 4);
    } else {
        const qmm_requant *r = &c->requant;
        const int per = r->per != QMM_PER_MATRIX;
        const size_t e = r->per == QMM_PER_ROW ? i : j;
        int64_t y;
        if (r->rounding == QMM_ROUND_FLOAT)
            y = float_rule(x, per ? r->scales[e] : r->scale);
        else if (r->rounding == QMM_ROUND_TFLITE)
            y = tflite_rule(x, per ? r->multipliers[e] : r->multiplier, per ? r->shifts[e] : r->shift);
        else
            y = single_rule(x, per ? r->multipliers[e] : r->multiplier, per ? r->shifts[e] : r->shift);
        int64_t lo = c->type == QMM_TYPE_I8 ? -128 : 0, hi = lo + 255;
        if (r->clamp) {
            lo = r->min;
            hi = r->max;
        }
        y += r->zero_point;
        y = y < lo ? lo : y > hi ? hi : y;
        *out = (unsigned char)y; /* modulo 256: the int8 or uint8 bits */
    }
}

/* ---- cases: a product, its reference, its checks ---------------------------- */

/* What a case is made of; the values are random, in range. */
typedef struct spec {
    size_t m, n, k;
    qmm_type ta, tb, tc;
    qmm_per za, zb, bias;
    unsigned stage; /* picks the output stage's kinds: set_stage */
    test_layout la, lb, lc;
} spec;

typedef struct qcase {
    qmm_gemm_desc d;
    test_matrix a, b, c;
    unsigned char *c_init; /* C's memory before any call */
    unsigned char *ref;    /* dense row-major, C's element size */
    int32_t *zpa, *zpb, *bias, *mult, *shift;
    float *scale, *col_scale, *fbias, *rscale;
} qcase;

static int32_t *i32s(size_t len, int64_t lo, int64_t hi)
{
    int32_t *v = malloc(len * sizeof *v);
    for (size_t e = 0; e < len; e++)
        v[e] = rand_in(lo, hi);
    return v;
}

static float *f32s(size_t len)
{
    return malloc(len * sizeof(float));
}

/* Bias: mostly small, sometimes anywhere in int32 (acc + bias then wraps). */
static int32_t *biases(size_t len)
{
    int32_t *v = i32s(len, -(1 << 14), 1 << 14);
    for (size_t e = 0; e < len; e++)
        if (test_rand_below(4) == 0)
            v[e] = (int32_t)(uint32_t)test_rand();
    return v;
}

/* r = M * 2^(s - 31) with M in [2^30, 2^31), TFLite's QuantizeMultiplier. */
static void quantize_multiplier(double r, int32_t *mult, int32_t *shift)
{
    int s = 0;
    for (; r >= 1.0; s++)
        r /= 2;
    for (; r < 0.5; s--)
        r *= 2;
    int64_t q = (int64_t)(r * 2147483648.0 + 0.5);
    if (q == (int64_t)1 << 31) {
        q /= 2;
        s++;
    }
    *mult = (int32_t)q;
    *shift = s;
}

static float rand_scale(int negative_ok)
{
    float s = (float)(1 + test_rand_below(1000)) / 4096.0f;
    return negative_ok && test_rand_below(2) ? -s : s;
}

/* C's stage, its kinds cycling with stage: F32 through scale (5 kinds) x
 * float bias (4) x clamp, I8 and U8 through rounding (3) x per (3) x clamp.
 * The requantization's scale suits sums of k products, so that outputs spread
 * rather than saturate, with a few left shifts (s > 0) among per-line values. */
static void set_stage(qcase *q, unsigned stage, size_t len)
{
    qmm_output *c = &q->d.c;
    if (c->type == QMM_TYPE_F32) {
        qmm_dequant *dq = &c->dequant;
        int clamp = stage / 20 % 2;
        qmm_per fb = (qmm_per)(stage / 5 % 4);
        /* Negative scales only where no -0.0 can meet an absent bias or a
         * clamp bound (rounding_vectors pins the absent bias alone). */
        for (size_t e = 0; e < len; e++) {
            q->scale[e] = rand_scale(!clamp && fb != QMM_PER_NONE);
            q->col_scale[e] = rand_scale(!clamp && fb != QMM_PER_NONE);
            q->fbias[e] = (float)rand_in(-1600, 1600) / 8.0f + 1.0f / 16;
        }
        dq->scale = (qmm_f32_param){(qmm_per)(stage % 5), q->scale[0], q->scale, q->col_scale};
        dq->bias = (qmm_f32_param){fb, q->fbias[0], q->fbias, NULL};
        if (clamp) {
            dq->clamp = 1;
            dq->min = test_rand_below(2) ? 0.0f : -(float)(1 + test_rand_below(64));
            dq->max = dq->min + (float)(1 + test_rand_below(128));
        }
    } else if (c->type != QMM_TYPE_I32) {
        size_t root = 0;
        while ((root + 1) * (root + 1) <= q->d.k)
            root++;
        const double r = 64.0 / (16384.0 + 5000.0 * (double)root);
        for (size_t e = 0; e < len; e++) {
            double re = r * (0.25 + 3.75 * test_rand_unit()) * (test_rand_below(8) ? 1 : 4096);
            quantize_multiplier(re, &q->mult[e], &q->shift[e]);
            q->rscale[e] = (float)re;
        }
        const int32_t lo = c->type == QMM_TYPE_I8 ? -128 : 0, hi = lo + 255;
        c->requant = (qmm_requant){.rounding = (qmm_rounding)(1 + stage % 3),
                                   .per = (qmm_per)(QMM_PER_MATRIX + stage / 3 % 3),
                                   .multiplier = q->mult[0], .shift = q->shift[0],
                                   .multipliers = q->mult, .shifts = q->shift,
                                   .scale = q->rscale[0], .scales = q->rscale,
                                   .zero_point = rand_in(lo, hi)};
        if (stage / 9 % 2) {
            c->requant.clamp = 1;
            c->requant.min = rand_in(lo, hi);
            c->requant.max = rand_in(c->requant.min, hi);
        }
    }
}

static qcase qcase_new(const spec *s)
{
    qcase q = {0};
    const size_t len = (s->m > s->n ? s->m : s->n) + 1;
    q.a = test_matrix_new(s->m, s->k, 1, s->la, test_rand_below(3));
    q.b = test_matrix_new(s->k, s->n, 1, s->lb, test_rand_below(3));
    q.c = test_matrix_new(s->m, s->n, elem_size(s->tc), s->lc, test_rand_below(3));
    test_matrix_fill_random_i8(&q.a);
    test_matrix_fill_random_i8(&q.b);
    q.c_init = malloc(q.c.bytes);
    memcpy(q.c_init, q.c.mem, q.c.bytes);
    q.zpa = s->ta == QMM_TYPE_U8 ? i32s(len, 0, 255) : i32s(len, -128, 127);
    q.zpb = s->tb == QMM_TYPE_U8 ? i32s(len, 0, 255) : i32s(len, -128, 127);
    q.bias = biases(len);
    q.mult = i32s(len, 0, 0);
    q.shift = i32s(len, 0, 0);
    q.scale = f32s(len);
    q.col_scale = f32s(len);
    q.fbias = f32s(len);
    q.rscale = f32s(len);
    /* NONE's value and values are set too: absent means not read. */
    q.d = (qmm_gemm_desc){
        .m = s->m, .n = s->n, .k = s->k,
        .a = {s->ta, q.a.base, q.a.rs, q.a.cs, {s->za, q.zpa[0], q.zpa}},
        .b = {s->tb, q.b.base, q.b.rs, q.b.cs, {s->zb, q.zpb[0], q.zpb}},
        .c = {.type = s->tc, .data = q.c.base, .rs = q.c.rs, .cs = q.c.cs,
              .bias = {s->bias, q.bias[0], q.bias}},
    };
    set_stage(&q, s->stage, len);
    return q;
}

static void qcase_free(qcase *q)
{
    test_matrix_free(&q->a);
    test_matrix_free(&q->b);
    test_matrix_free(&q->c);
    void *arrays[] = {q->c_init, q->ref, q->zpa, q->zpb, q->bias, q->mult, q->shift,
                      q->scale, q->col_scale, q->fbias, q->rscale};
    for (size_t e = 0; e < COUNT(arrays); e++)
        free(arrays[e]);
}

static unsigned char *element(const test_matrix *m, size_t i, size_t j)
{
    return (unsigned char *)m->base + ((ptrdiff_t)i * m->rs + (ptrdiff_t)j * m->cs) * (ptrdiff_t)m->elem;
}

static void copy_elements(test_matrix *dst, const test_matrix *src)
{
    for (size_t i = 0; i < src->rows; i++)
        for (size_t j = 0; j < src->cols; j++)
            *element(dst, i, j) = *element(src, i, j);
}

static void reference(qcase *q)
{
    const size_t es = q->c.elem;
    q->ref = malloc(q->d.m * q->d.n * es + 1);
    for (size_t i = 0; i < q->d.m; i++)
        for (size_t j = 0; j < q->d.n; j++)
            ref_element(&q->d, i, j, q->ref + (i * q->d.n + j) * es);
}

/* An element of type t, for messages. */
static double value_of(qmm_type t, const unsigned char *p)
{
    int32_t i;
    float f;
    if (t == QMM_TYPE_I8 || t == QMM_TYPE_U8)
        return t == QMM_TYPE_I8 ? (int8_t)*p : *p;
    memcpy(&i, p, 4);
    memcpy(&f, p, 4);
    return t == QMM_TYPE_F32 ? f : i;
}

static void describe(const qmm_gemm_desc *d, char *buf, size_t len)
{
    const qmm_output *c = &d->c;
    int at = snprintf(buf, len, "%zux%zux%zu A %s zp %s (%td,%td), B %s zp %s (%td,%td), C %s bias %s (%td,%td)",
                      d->m, d->n, d->k, type_names[d->a.type], test_per_names[d->a.zero_point.per],
                      d->a.rs, d->a.cs, type_names[d->b.type], test_per_names[d->b.zero_point.per],
                      d->b.rs, d->b.cs, type_names[c->type], test_per_names[c->bias.per], c->rs,
                      c->cs);
    if (c->type == QMM_TYPE_F32)
        snprintf(buf + at, len - (size_t)at, ", scale %s, float bias %s%s",
                 test_per_names[c->dequant.scale.per], test_per_names[c->dequant.bias.per],
                 c->dequant.clamp ? ", clamp" : "");
    else if (c->type != QMM_TYPE_I32)
        snprintf(buf + at, len - (size_t)at, ", %s per %s, zp %d%s", rounding_names[c->requant.rounding],
                 test_per_names[c->requant.per], (int)c->requant.zero_point,
                 c->requant.clamp ? ", clamp" : "");
}

/* C's elements equal to the reference, bit for bit, and nothing around them written. */
static void compare(const qcase *q, const char *what)
{
    size_t bad = 0, es = q->c.elem;
    for (size_t i = 0; i < q->d.m; i++)
        for (size_t j = 0; j < q->d.n; j++) {
            const unsigned char *got = element(&q->c, i, j), *want = q->ref + (i * q->d.n + j) * es;
            if (memcmp(got, want, es) != 0 && bad++ == 0)
                test_fail(__FILE__, __LINE__, "%s: C(%zu,%zu) = %.9g, want %.9g", what, i, j,
                          value_of(q->d.c.type, got), value_of(q->d.c.type, want));
        }
    CHECK(test_matrix_surroundings_intact(&q->c), "%s: wrote outside C's elements", what);
    test_checks++;
}

/* qmm_gemm on 1 to TEST_MAX_THREADS threads (on 1 and one other count,
 * cycling with m, when some), C as it was before each. */
static void run_threads(qcase *q, const char *what, int some)
{
    char label[512], desc[384];
    describe(&q->d, desc, sizeof desc);
    if (q->ref == NULL)
        reference(q);
    size_t counts[TEST_MAX_THREADS];
    const size_t runs = test_thread_counts(some, q->d.m, counts);
    for (size_t r = 0; r < runs; r++) {
        const size_t t = counts[r];
        memcpy(q->c.mem, q->c_init, q->c.bytes);
        qmm_set_num_threads(t);
        qmm_status st = qmm_gemm(&q->d);
        snprintf(label, sizeof label, "%s: %s on %zu threads", what, desc, t);
        CHECK(st == QMM_OK, "%s: %s", label, qmm_status_str(st));
        if (st == QMM_OK)
            compare(q, label);
    }
}

static void run_case(qcase *q, const char *what)
{
    run_threads(q, what, 0);
}

static void check_spec(const spec *s, const char *what, int some_threads)
{
    qcase q = qcase_new(s);
    run_threads(&q, what, some_threads);
    qcase_free(&q);
}

static const qmm_type output_types[] = {QMM_TYPE_I32, QMM_TYPE_F32, QMM_TYPE_I8, QMM_TYPE_U8};
static const qmm_per za_kinds[] = {QMM_PER_NONE, QMM_PER_MATRIX, QMM_PER_ROW};
static const qmm_per zb_kinds[] = {QMM_PER_NONE, QMM_PER_MATRIX, QMM_PER_COL};
static const qmm_per bias_kinds[] = {QMM_PER_NONE, QMM_PER_MATRIX, QMM_PER_ROW, QMM_PER_COL};
static unsigned stage_counter; /* every case takes the next stage */

/* Sizes and C's type given, the rest random (one draw after another, so that
 * every process draws the same cases). */
static spec random_spec(size_t m, size_t n, size_t k, qmm_type tc)
{
    spec s = {m, n, k, .tc = tc, .stage = stage_counter++};
    s.ta = (qmm_type)test_rand_below(2);
    s.tb = (qmm_type)test_rand_below(2);
    s.za = za_kinds[test_rand_below(COUNT(za_kinds))];
    s.zb = zb_kinds[test_rand_below(COUNT(zb_kinds))];
    s.bias = bias_kinds[test_rand_below(COUNT(bias_kinds))];
    s.la = (test_layout)test_rand_below(LAYOUT_COUNT);
    s.lb = (test_layout)test_rand_below(LAYOUT_COUNT);
    s.lc = (test_layout)test_rand_below(LAYOUT_COUNT);
    return s;
}

/* Every element of A and of B one value, zero points (if any) one value. */
static void constant_operands(qcase *q, int a, int za, int b, int zb)
{
    test_matrix_fill_i8(&q->a, (int8_t)(uint8_t)a);
    test_matrix_fill_i8(&q->b, (int8_t)(uint8_t)b);
    for (size_t e = 0; e <= (q->d.m > q->d.n ? q->d.m : q->d.n); e++) {
        q->zpa[e] = za;
        q->zpb[e] = zb;
    }
    q->d.a.zero_point.value = za;
    q->d.b.zero_point.value = zb;
}

/* ---- the suite ---------------------------------------------------------------- */

/* Every output type x operand types x zero-point kinds x bias kind, the
 * stages and the layouts of A, B and C cycling through all their kinds. */
static void cross(void)
{
    for (size_t o = 0; o < COUNT(output_types); o++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (size_t za = 0; za < COUNT(za_kinds); za++)
                    for (size_t zb = 0; zb < COUNT(zb_kinds); zb++)
                        for (size_t bi = 0; bi < COUNT(bias_kinds); bi++) {
                            size_t m = 1 + test_rand_below(30), n = 1 + test_rand_below(70);
                            spec s = random_spec(m, n, 1 + test_rand_below(80), output_types[o]);
                            s.ta = (qmm_type)ta;
                            s.tb = (qmm_type)tb;
                            s.za = za_kinds[za];
                            s.zb = zb_kinds[zb];
                            s.bias = bias_kinds[bi];
                            s.la = (test_layout)(s.stage % 4);
                            s.lb = (test_layout)(s.stage / 4 % 4);
                            s.lc = (test_layout)(s.stage / 16 % 4);
                            check_spec(&s, "cross", 1);
                        }
}

/* Operands all at one end of their type's range (0 too), zero points absent
 * or at the other end. */
static void extremes(void)
{
    static const int ends[2][3] = {{-128, 127, 0}, {0, 255, 128}};
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int va = 0; va < 3; va++)
                for (int vb = 0; vb < 3; vb++)
                    for (int zp = 0; zp < 2; zp++) {
                        spec s = random_spec(5, 6, 33, output_types[stage_counter % 4]);
                        s.ta = (qmm_type)ta;
                        s.tb = (qmm_type)tb;
                        s.za = s.zb = zp ? QMM_PER_MATRIX : QMM_PER_NONE;
                        qcase q = qcase_new(&s);
                        int a = ends[ta][va], b = ends[tb][vb];
                        constant_operands(&q, a, a == ends[ta][0] ? ends[ta][1] : ends[ta][0], b,
                                          b == ends[tb][0] ? ends[tb][1] : ends[tb][0]);
                        run_case(&q, "extremes");
                        qcase_free(&q);
                    }
}

/* Sums past 2^31: the largest differences, (0 - 255) * (0 - 255) for uint8
 * and (-128 - 127) * (127 + 128) for int8, over 70000 depths. */
static void wraparound(void)
{
    const size_t k = 70000;
    static const struct {
        qmm_type t;
        int a, za, b, zb;
    } cases[] = {{QMM_TYPE_U8, 0, 255, 0, 255}, {QMM_TYPE_I8, -128, 127, 127, -128}};
    for (size_t e = 0; e < COUNT(cases); e++)
        for (size_t o = 0; o < COUNT(output_types); o++) {
            spec s = random_spec(3, 4, k, output_types[o]);
            s.ta = s.tb = cases[e].t;
            s.za = o % 2 ? QMM_PER_ROW : QMM_PER_MATRIX;
            s.zb = o % 2 ? QMM_PER_COL : QMM_PER_MATRIX;
            qcase q = qcase_new(&s);
            constant_operands(&q, cases[e].a, cases[e].za, cases[e].b, cases[e].zb);
            int64_t exact = (int64_t)k * (cases[e].a - cases[e].za) * (cases[e].b - cases[e].zb);
            CHECK((exact > INT32_MAX || exact < INT32_MIN) &&
                      ref_acc(&q.d, 2, 3) == (int32_t)(uint32_t)(uint64_t)exact,
                  "wraparound: the reference does not wrap %lld", (long long)exact);
            run_case(&q, "wraparound");
            qcase_free(&q);
        }
}

/* Depths cut into several k blocks (k = 2500 and 9000 on every kernel), and
 * a thin, very deep product whose depth is split over the threads. */
static void deep(void)
{
    static const size_t shapes[][3] = {{7, 33, 2500}, {5, 20, 9000}, {2, 3, 300000}};
    for (size_t e = 0; e < COUNT(shapes); e++)
        for (size_t o = 0; o < COUNT(output_types); o++) {
            spec s = random_spec(shapes[e][0], shapes[e][1], shapes[e][2], output_types[o]);
            check_spec(&s, "deep", 0);
        }
}

/* Sweeps of a panel or so (compute/job.h), as a product too large for one
 * sweep has them: C's sums made over several sweeps in depth, each one's
 * depth split over the threads, the stage applied after the last. */
static void swept(void)
{
    static const size_t shapes[][3] = {{7, 33, 2500}, {40, 70, 300}};
    qmm_job_set_sweep_bytes(1);
    for (size_t e = 0; e < COUNT(shapes); e++)
        for (size_t o = 0; o < COUNT(output_types); o++) {
            spec s = random_spec(shapes[e][0], shapes[e][1], shapes[e][2], output_types[o]);
            check_spec(&s, "swept", 0);
        }
    qmm_job_set_sweep_bytes(0);
}

/* m == 1, n == 1, both, and k == 0 (A and B NULL: the stage still applies to
 * acc = 0); m == 0 and n == 0 do nothing, whatever the pointers. */
static void edges(void)
{
    static const size_t shapes[][3] = {{1, 50, 40}, {50, 1, 40}, {1, 1, 1}, {1, 1, 77}, {6, 9, 0}, {1, 1, 0}};
    for (size_t e = 0; e < COUNT(shapes); e++)
        for (size_t o = 0; o < COUNT(output_types); o++)
            for (int rep = 0; rep < 3; rep++) {
                spec s = random_spec(shapes[e][0], shapes[e][1], shapes[e][2], output_types[o]);
                qcase q = qcase_new(&s);
                if (s.k == 0)
                    q.d.a.data = q.d.b.data = NULL;
                run_case(&q, "edges");
                qcase_free(&q);
            }
    qmm_gemm_desc d = {.m = 0, .n = 5, .k = 3, .c = {.type = QMM_TYPE_I32}};
    CHECK(qmm_gemm(&d) == QMM_OK, "m == 0 with NULL operands");
    d.m = 4;
    d.n = 0;
    CHECK(qmm_gemm(&d) == QMM_OK, "n == 0 with NULL operands");
    test_checks++;
}

/* The output stage alone: x[j] as acc + bias of a 1 x cnt product (k = 1,
 * A = 1, B(0,j) random, bias(j) = x[j] - B(0,j) wrapping), then with k = 0
 * and bias(j) = x[j]. C, and the reference, must be want (cnt elements of
 * out's type, worked out by hand from qmm.h). */
static void probe(const char *what, qmm_output out, const int32_t *x, size_t cnt, const void *want)
{
    const size_t es = elem_size(out.type);
    const unsigned char *w = want;
    int8_t one = 1, *b = malloc(cnt);
    int32_t *bias = malloc(cnt * sizeof *bias);
    unsigned char *ref = malloc(cnt * es);
    for (size_t k = 0; k <= 1; k++) {
        for (size_t j = 0; j < cnt; j++) {
            b[j] = k ? (int8_t)rand_in(-100, 100) : 0;
            bias[j] = wrap_add(x[j], -b[j]);
        }
        test_matrix c = test_matrix_new(1, cnt, es, LAYOUT_ROW, 0);
        out.data = c.base;
        out.rs = c.rs;
        out.cs = c.cs;
        out.bias = (qmm_i32_param){QMM_PER_COL, 0, bias};
        qmm_gemm_desc d = {.m = 1, .n = cnt, .k = k,
                           .a = {.type = QMM_TYPE_I8, .data = k ? &one : NULL, .rs = 1, .cs = 1},
                           .b = {.type = QMM_TYPE_I8, .data = k ? b : NULL, .rs = (ptrdiff_t)cnt, .cs = 1},
                           .c = out};
        for (size_t j = 0; j < cnt; j++) {
            ref_element(&d, 0, j, ref + j * es);
            CHECK(memcmp(ref + j * es, w + j * es, es) == 0, "%s: the reference gives %.9g for x = %ld, want %.9g",
                  what, value_of(out.type, ref + j * es), (long)x[j], value_of(out.type, w + j * es));
        }
        qmm_status st = qmm_gemm(&d);
        CHECK(st == QMM_OK, "%s (k = %zu): %s", what, k, qmm_status_str(st));
        for (size_t j = 0; st == QMM_OK && j < cnt; j++)
            CHECK(memcmp(element(&c, 0, j), w + j * es, es) == 0, "%s (k = %zu): x = %ld gave %.9g, want %.9g",
                  what, k, (long)x[j], value_of(out.type, element(&c, 0, j)), value_of(out.type, w + j * es));
        CHECK(test_matrix_surroundings_intact(&c), "%s: wrote outside C", what);
        test_matrix_free(&c);
        test_checks++;
    }
    free(b);
    free(bias);
    free(ref);
}

static qmm_output fixed_point(qmm_type t, qmm_rounding r, int32_t mult, int32_t shift, int32_t zp)
{
    return (qmm_output){.type = t, .requant = {.rounding = r, .per = QMM_PER_MATRIX, .multiplier = mult,
                                               .shift = shift, .scale = 1.0f, .zero_point = zp}};
}

static qmm_output float_scaled(qmm_type t, float scale, int32_t zp)
{
    return (qmm_output){.type = t, .requant = {.rounding = QMM_ROUND_FLOAT, .per = QMM_PER_MATRIX,
                                               .multiplier = 1 << 30, .scale = scale, .zero_point = zp}};
}

static void rounding_vectors(void)
{
    const qmm_type I8 = QMM_TYPE_I8, U8 = QMM_TYPE_U8;
    const qmm_rounding TFLITE = QMM_ROUND_TFLITE, SINGLE = QMM_ROUND_SINGLE;
    const int32_t half = 1 << 30; /* M = 2^30: M * 2^(s-31) = 2^(s-1) */

    /* x / 2 (s = 0): ties at both signs. gemmlowp's doubling high multiply
     * rounds a tie toward +infinity (its nudge 1 - 2^30 for negative products,
     * then division toward zero), as SINGLE does; FLOAT rounds to even. */
    static const int32_t odd[] = {1, -1, 3, -3, 5, -5, 0};
    static const int8_t up_odd[] = {1, 0, 2, -1, 3, -2, 0}, even_odd[] = {0, 0, 2, -2, 2, -2, 0};
    probe("tflite ties, s = 0", fixed_point(I8, TFLITE, half, 0, 0), odd, COUNT(odd), up_odd);
    probe("single ties, s = 0", fixed_point(I8, SINGLE, half, 0, 0), odd, COUNT(odd), up_odd);
    probe("float ties, S = 0.5", float_scaled(I8, 0.5f, 0), odd, COUNT(odd), even_odd);

    /* x / 4 (s = -1): RoundingDivideByPOT rounds ties away from zero, after the
     * multiply rounded once already (1/4 -> 1/2 -> 1); SINGLE rounds once, half up. */
    static const int32_t quarter[] = {2, -2, 6, -6, 1, -1};
    static const int8_t tflite_quarter[] = {1, -1, 2, -2, 1, 0}, single_quarter[] = {1, 0, 2, -1, 0, 0};
    probe("tflite ties, s = -1", fixed_point(I8, TFLITE, half, -1, 0), quarter, COUNT(quarter), tflite_quarter);
    probe("single ties, s = -1", fixed_point(I8, SINGLE, half, -1, 0), quarter, COUNT(quarter), single_quarter);

    /* s = -31: INT32_MIN * 2^30 * 2^-62 = -0.5 exactly, INT32_MAX's just under 0.5. */
    static const int32_t ends[] = {INT32_MIN, INT32_MAX};
    static const int8_t tflite_ends[] = {-1, 1}, single_ends[] = {0, 0};
    probe("tflite, s = -31", fixed_point(I8, TFLITE, half, -31, 0), ends, COUNT(ends), tflite_ends);
    probe("single, s = -31", fixed_point(I8, SINGLE, half, -31, 0), ends, COUNT(ends), single_ends);

    /* s = 1: TFLITE's x * 2 wraps in int32 (2^30 -> INT32_MIN), SINGLE's int64 does not. */
    static const int32_t wide[] = {100, -100, 1 << 30, -(1 << 30) - 1};
    static const int8_t tflite_wide[] = {100, -100, -128, 127}, single_wide[] = {100, -100, 127, -128};
    probe("tflite, s = 1", fixed_point(I8, TFLITE, half, 1, 0), wide, COUNT(wide), tflite_wide);
    probe("single, s = 1", fixed_point(I8, SINGLE, half, 1, 0), wide, COUNT(wide), single_wide);

    /* Results at the ends of int32 plus a zero point: clamped exactly, no wrap-around. */
    static const int32_t big[] = {INT32_MAX, INT32_MIN, 0, -127, -300};
    static const int8_t zp_up[] = {127, -128, 127, 0, -128}, zp_down[] = {127, -128, -128, -128, -128};
    probe("tflite saturation, zp 127", fixed_point(I8, TFLITE, INT32_MAX, 0, 127), big, COUNT(big), zp_up);
    probe("tflite saturation, zp -128", fixed_point(I8, TFLITE, INT32_MAX, 0, -128), big, COUNT(big), zp_down);
    static const int32_t huge[] = {INT32_MAX, INT32_MIN, 1, -1, 0};
    static const int8_t saturated[] = {127, -128, 127, -128, 0};
    probe("single saturation, s = 30", fixed_point(I8, SINGLE, INT32_MAX, 30, 0), huge, COUNT(huge), saturated);
    probe("float saturation, S = FLT_MAX", float_scaled(I8, 0x1.fffffep127f, 0), huge, COUNT(huge), saturated);

    /* FLOAT is one float32 multiply of (float)x: 3 * 0x1.555556p-3f rounds to
     * 0.5 exactly (even: 0) though the exact product is over; 3 * 0x1.2aaaaap+0f
     * to 3.5 (4) though the exact is under; 34078721 converts to 34078720,
     * times 2^-20 is 32.5 (32) where the exact 32.500001 gives 33. */
    static const int32_t three[] = {3, -3}, unrepresentable[] = {34078721, -34078721};
    static const int8_t zeros[] = {0, 0}, fours[] = {4, -4}, thirty_two[] = {32, -32};
    probe("float product rounded to a tie", float_scaled(I8, 0x1.555556p-3f, 0), three, 2, zeros);
    probe("float product rounded past a tie", float_scaled(I8, 0x1.2aaaaap+0f, 0), three, 2, fours);
    probe("float conversion of x", float_scaled(I8, 0x1p-20f, 0), unrepresentable, 2, thirty_two);

    /* uint8 with a zero point; custom clamps. */
    static const int32_t spread[] = {1, -1, 3, -3, 1000, -1000};
    static const uint8_t u8_up[] = {129, 128, 130, 127, 255, 0}, u8_even[] = {128, 128, 130, 126, 200, 10};
    probe("tflite u8, zp 128", fixed_point(U8, TFLITE, half, 0, 128), spread, COUNT(spread), u8_up);
    probe("single u8, zp 128", fixed_point(U8, SINGLE, half, 0, 128), spread, COUNT(spread), u8_up);
    qmm_output clamped = float_scaled(U8, 0.5f, 128);
    clamped.requant.clamp = 1;
    clamped.requant.min = 10;
    clamped.requant.max = 200;
    probe("float u8, zp 128, clamp [10, 200]", clamped, spread, COUNT(spread), u8_even);
    static const int32_t some[] = {40, -40, 4, -4};
    static const int8_t some_clamped[] = {10, -5, 2, -2};
    clamped = fixed_point(I8, TFLITE, half, 0, 0);
    clamped.requant.clamp = 1;
    clamped.requant.min = -5;
    clamped.requant.max = 10;
    probe("tflite, clamp [-5, 10]", clamped, some, COUNT(some), some_clamped);

    /* int32: acc + bias wrapping. */
    static const int32_t x32[] = {INT32_MAX, INT32_MIN, 0, -1};
    probe("int32", (qmm_output){.type = QMM_TYPE_I32}, x32, COUNT(x32), x32);
}

static void float_vectors(void)
{
    const qmm_type F32 = QMM_TYPE_F32;
    /* (float)(acc + bias), round to nearest even. */
    static const int32_t plain[] = {0, 1, -1, 16777217, INT32_MAX, INT32_MIN};
    static const float plain_f[] = {0, 1, -1, 0x1p24f, 0x1p31f, -0x1p31f};
    probe("f32 conversion", (qmm_output){.type = F32}, plain, COUNT(plain), plain_f);

    /* (y * values[i]) * col_values[j], not y * (values[i] * col_values[j]). */
    static const float row[] = {0x1.99999ap-4f}, col[] = {0x1.a66666p+1f, 0x1.a66666p+1f};
    static const int32_t x_rc[] = {5, 7};
    static const float rc_f[] = {0x1.a66666p+0f, 0x1.27ae14p+1f};
    qmm_output out = {.type = F32, .dequant = {.scale = {QMM_PER_ROW_COL, 0, row, col}}};
    probe("f32 row x col scale order", out, x_rc, 2, rc_f);

    /* y * scale rounded, then + bias rounded: no fused multiply-add. */
    static const float fb[] = {-0x1.59999ap+1f, -0x1.f33334p+1f};
    static const int32_t x_fma[] = {9, 13};
    static const float fma_f[] = {-0x1.ccccccp+0f, -0x1.4cccccp+1f};
    out = (qmm_output){.type = F32, .dequant = {.scale = {QMM_PER_MATRIX, 0x1.99999ap-4f, NULL, NULL},
                                                .bias = {QMM_PER_COL, 0, fb, NULL}}};
    probe("f32 no contraction", out, x_fma, 2, fma_f);

    static const int32_t x_clamp[] = {1, 2, 10, -10, -3};
    static const float clamp_f[] = {0.75f, 1.25f, 2.0f, -1.0f, -1.0f};
    out = (qmm_output){.type = F32, .dequant = {.scale = {QMM_PER_MATRIX, 0.5f, NULL, NULL},
                                                .bias = {QMM_PER_MATRIX, 0.25f, NULL, NULL},
                                                .clamp = 1, .min = -1.0f, .max = 2.0f}};
    probe("f32 scale, bias, clamp", out, x_clamp, COUNT(x_clamp), clamp_f);

    /* An absent float bias is no addition: 0 * -1 stays -0.0 (y + 0.0f would be +0.0). */
    static const int32_t x_neg[] = {0, 2};
    static const float neg_f[] = {-0.0f, -2.0f};
    out = (qmm_output){.type = F32, .dequant = {.scale = {QMM_PER_MATRIX, -1.0f, NULL, NULL}}};
    probe("f32 negative scale, no bias", out, x_neg, 2, neg_f);
}

static const char *or_none(const char *name)
{
    return name != NULL ? name : "no kernel";
}

static int is_gemv(const char *name)
{
    for (size_t i = 0; name != NULL && i < qmm_kernel_count(); i++)
        if (strcmp(qmm_kernel_at(i)->name, name) == 0)
            return qmm_kernel_at(i)->nr == 1;
    return 0;
}

typedef struct plan_spec {
    qmm_weights which;
    size_t fixed, k, free; /* free: the plan's free dimension, QMM_SYMBOLIC or one size */
    size_t runs[4], nruns;
    qmm_type tw;
    qmm_per zw;
    int old; /* made by qmm_plan_create and qmm_plan_pack_a */
} plan_spec;

/* A plan made on some thread count, run with each free size on 1 to 4
 * threads for every output type: C equal to the reference and to qmm_gemm's.
 * The weights and zero points it is made from are scribbled over once it is
 * made (read during the call only), and the runs' weights operand is empty
 * (not read). */
static void plan_case(const plan_spec *p)
{
    const int wa = p->which == QMM_WEIGHTS_A;
    const size_t wr = wa ? p->fixed : p->k, wc = wa ? p->k : p->fixed;
    test_matrix w = test_matrix_new(wr, wc, 1, LAYOUT_SPACED, 0);
    /* A row-major; B as a weight stored [n x k] row-major: rs = 1, cs = k. */
    test_matrix src = test_matrix_new(wr, wc, 1, wa ? LAYOUT_ROW : LAYOUT_COL, 0);
    test_matrix_fill_random_i8(&w);
    copy_elements(&src, &w);
    const int32_t lo = p->tw == QMM_TYPE_U8 ? 0 : -128;
    int32_t *wz = i32s(p->fixed, lo, lo + 255), *wz_plan = malloc(p->fixed * sizeof *wz);
    memcpy(wz_plan, wz, p->fixed * sizeof *wz);
    qmm_gemm_desc pd = {.m = wa ? p->fixed : p->free, .n = wa ? p->free : p->fixed, .k = p->k};
    *(wa ? &pd.a : &pd.b) = (qmm_operand){p->tw, src.base, src.rs, src.cs, {p->zw, wz[0], wz_plan}};

    char what[128], label[640], desc[384];
    int at = snprintf(what, sizeof what, "%s plan, weights %s %zux%zu, free ", p->old ? "old" : "gemm",
                      wa ? "A" : "B", wr, wc);
    if (p->free == QMM_SYMBOLIC)
        snprintf(what + at, sizeof what - (size_t)at, "symbolic");
    else
        snprintf(what + at, sizeof what - (size_t)at, "%zu", p->free);
    qmm_set_num_threads(1 + test_rand_below(TEST_MAX_THREADS));
    qmm_plan *plan = NULL;
    qmm_status st;
    if (p->old) {
        st = qmm_plan_create(&plan, p->fixed, p->free, p->k);
        if (st == QMM_OK)
            st = qmm_plan_pack_a(plan, src.base, (size_t)src.rs);
    } else {
        st = qmm_plan_create_gemm(&plan, &pd, p->which);
    }
    CHECK(st == QMM_OK && plan != NULL, "%s: %s", what, qmm_status_str(st));
    test_matrix_fill_random_i8(&src);
    for (size_t e = 0; e < p->fixed; e++)
        wz_plan[e] = ~wz_plan[e];
    if (st == QMM_OK && p->free == QMM_SYMBOLIC && test_forced_kernel == NULL)
        CHECK(is_gemv(qmm_plan_kernel_name(plan, 1)) && qmm_plan_kernel_name(plan, 2) != NULL,
              "%s: a run of one row of activations goes to %s, not a GEMV kernel", what,
              or_none(qmm_plan_kernel_name(plan, 1)));

    for (size_t r = 0; st == QMM_OK && r < p->nruns; r++)
        for (size_t o = 0; o < COUNT(output_types); o++) {
            spec s = random_spec(wa ? p->fixed : p->runs[r], wa ? p->runs[r] : p->fixed, p->k,
                                 output_types[o]);
            *(wa ? &s.ta : &s.tb) = p->tw;
            *(wa ? &s.za : &s.zb) = p->zw;
            qcase q = qcase_new(&s);
            copy_elements(wa ? &q.a : &q.b, &w);
            memcpy(wa ? q.zpa : q.zpb, wz, p->fixed * sizeof *wz);
            (wa ? &q.d.a : &q.d.b)->zero_point.value = wz[0];
            reference(&q);
            describe(&q.d, desc, sizeof desc);
            qmm_gemm_desc rd = q.d;
            *(wa ? &rd.a : &rd.b) = (qmm_operand){.data = NULL};
            for (size_t t = 1; t <= TEST_MAX_THREADS; t++) {
                memcpy(q.c.mem, q.c_init, q.c.bytes);
                qmm_set_num_threads(t);
                qmm_status rs = qmm_plan_run_gemm(plan, &rd);
                snprintf(label, sizeof label, "%s (%s): %s on %zu threads", what,
                         or_none(qmm_plan_kernel_name(plan, p->runs[r])), desc, t);
                CHECK(rs == QMM_OK, "%s: %s", label, qmm_status_str(rs));
                if (rs == QMM_OK)
                    compare(&q, label);
                /* The plan packed the weights once: a run packs the other
                 * side alone, whichever side of the job the weights are. */
                const qmm_work done = qmm_work_last();
                const uint64_t weights_packed =
                    wa || p->runs[r] == 1 ? done.packed_a : done.packed_b;
                CHECK(rs != QMM_OK || p->k == 0 || weights_packed == 0,
                      "%s: the run packed %llu bytes of the weights", label,
                      (unsigned long long)weights_packed);
            }
            unsigned char *planned = malloc(q.c.bytes);
            memcpy(planned, q.c.mem, q.c.bytes);
            memcpy(q.c.mem, q.c_init, q.c.bytes);
            CHECK(qmm_gemm(&q.d) == QMM_OK && memcmp(planned, q.c.mem, q.c.bytes) == 0,
                  "%s: qmm_gemm's C differs from the plan's", label);
            test_checks++;
            free(planned);
            qcase_free(&q);
        }
    qmm_plan_destroy(plan);
    test_matrix_free(&w);
    test_matrix_free(&src);
    free(wz);
    free(wz_plan);
}

static void plans(void)
{
    const qmm_weights A = QMM_WEIGHTS_A, B = QMM_WEIGHTS_B;
    const plan_spec specs[] = {
        {A, 37, 300, QMM_SYMBOLIC, {1, 2, 17, 64}, 4, QMM_TYPE_U8, QMM_PER_ROW, 0},
        {A, 12, 2500, QMM_SYMBOLIC, {1, 9}, 2, QMM_TYPE_I8, QMM_PER_MATRIX, 0},
        {A, 20, 70, 9, {9}, 1, QMM_TYPE_I8, QMM_PER_NONE, 0},
        {B, 45, 200, QMM_SYMBOLIC, {1, 3, 40}, 3, QMM_TYPE_I8, QMM_PER_COL, 0},
        {B, 19, 2500, QMM_SYMBOLIC, {1, 7}, 2, QMM_TYPE_U8, QMM_PER_MATRIX, 0},
        {B, 30, 64, 6, {6}, 1, QMM_TYPE_U8, QMM_PER_NONE, 0},
        {A, 20, 100, QMM_SYMBOLIC, {1, 6}, 2, QMM_TYPE_I8, QMM_PER_NONE, 1},
        {A, 8, 50, 5, {5}, 1, QMM_TYPE_I8, QMM_PER_NONE, 1},
    };
    for (size_t e = 0; e < COUNT(specs); e++)
        plan_case(&specs[e]);
}

/* The same random sequence in every process, so every kernel gets the same cases. */
/* The kernel a one-shot m x n product runs (before a uint8-A twin). */
static const qmm_kernel *call_kernel(size_t m, size_t n)
{
    const qmm_kernel *kern = NULL;
    int transposed;
    if (test_forced_kernel != NULL)
        return qmm_registry_find(test_forced_kernel);
    CHECK(qmm_choose_for_call(m, n, &kern, &transposed) == QMM_OK, "no kernel for %zux%zu", m, n);
    return kern;
}

/* A uint8 A (the activations) reaches a kernel with a uint8-A twin as it is:
 * no bytes copied (compute/work.h), one-shot and through a weights-B plan;
 * a kernel without one gets it flipped, m * k bytes. Same bits either way. */
static void u8_a_as_is(void)
{
    spec s = random_spec(70, 45, 128, QMM_TYPE_I8);
    s.ta = QMM_TYPE_U8;
    s.tb = QMM_TYPE_I8;
    s.za = QMM_PER_MATRIX;
    s.zb = QMM_PER_COL;
    s.la = LAYOUT_ROW;
    qcase q = qcase_new(&s);
    reference(&q);
    char label[256];
    for (int planned = 0; planned < 2; planned++) {
        qmm_plan *plan = NULL;
        const qmm_kernel *kern = call_kernel(s.m, s.n);
        if (planned) {
            CHECK(qmm_plan_create_gemm(&plan, &q.d, QMM_WEIGHTS_B) == QMM_OK,
                  "uint8 A: no weights-B plan");
            kern = plan == NULL ? NULL : qmm_registry_find(qmm_plan_kernel_name(plan, s.m));
        }
        if (kern == NULL)
            continue;
        memcpy(q.c.mem, q.c_init, q.c.bytes);
        qmm_set_num_threads(1 + (size_t)planned);
        const qmm_status st = planned ? qmm_plan_run_gemm(plan, &q.d) : qmm_gemm(&q.d);
        snprintf(label, sizeof label, "uint8 A %s on %s", planned ? "weights-B plan" : "one-shot",
                 kern->name);
        CHECK(st == QMM_OK, "%s: %s", label, qmm_status_str(st));
        if (st == QMM_OK)
            compare(&q, label);
        const uint64_t copied = qmm_work_last().copied,
                       want = kern->u8_a != NULL ? 0 : (uint64_t)s.m * s.k;
        CHECK(st != QMM_OK || copied == want, "%s: %llu bytes copied, want %llu", label,
              (unsigned long long)copied, (unsigned long long)want);
        /* The public name of the kernel a one-shot call runs: the twin's
         * exactly when nothing was copied. */
        const char *said = qmm_gemm_kernel_name(&q.d);
        CHECK(planned || (said != NULL && (strstr(said, "+u8a") != NULL) == (copied == 0) &&
                          strncmp(said, kern->name, strlen(kern->name)) == 0),
              "%s: qmm_gemm_kernel_name says %s with %llu bytes copied", label,
              said ? said : "NULL", (unsigned long long)copied);
        qmm_plan_destroy(plan);
    }
    qmm_set_num_threads(0);
    q.d.a.type = QMM_TYPE_I8;
    const char *plain = qmm_gemm_kernel_name(&q.d);
    CHECK(plain != NULL && strstr(plain, "+u8a") == NULL, "int8 A: qmm_gemm_kernel_name says %s",
          plain ? plain : "NULL");
    q.d.m = 0;
    CHECK(qmm_gemm_kernel_name(&q.d) == NULL && qmm_gemm_kernel_name(NULL) == NULL,
          "qmm_gemm_kernel_name names a kernel for an empty or NULL product");
    qcase_free(&q);
}

static void suite(void)
{
    test_seed(0x51A7E);
    cross();
    extremes();
    wraparound();
    deep();
    edges();
    rounding_vectors();
    float_vectors();
    plans();
    u8_a_as_is();
    swept();
}

/* ---- invalid arguments -------------------------------------------------------- */

/* A refused call: QMM_ERR_INVALID_ARG, and C's memory as it was. */
static void refused_by(qmm_status st, const qcase *q, const char *what)
{
    CHECK(st == QMM_ERR_INVALID_ARG, "%s: %s, want invalid argument", what, qmm_status_str(st));
    CHECK(memcmp(q->c.mem, q->c_init, q->c.bytes) == 0, "%s: a refused call wrote C", what);
    test_checks++;
}

/* q's descriptor with a change (statements on d) must be refused. */
#define REFUSED(q, what, ...)                                                                      \
    TEST_CHANGED(qmm_gemm_desc d, (q)->d, refused_by(qmm_gemm(&d), (q), what), __VA_ARGS__)

static void bad_input(void)
{
    const float nan = NAN, inf = INFINITY;
    /* Bases that are valid as they are: A uint8 zero points per row, B int8 per
     * column, bias per column; F32 scale per row and column, float bias per
     * column, clamp; I8 TFLITE per row; U8 FLOAT per column. */
    spec s = {3, 4, 5, QMM_TYPE_U8, QMM_TYPE_I8, QMM_TYPE_I32, QMM_PER_ROW, QMM_PER_COL, QMM_PER_COL,
              0, LAYOUT_ROW, LAYOUT_ROW, LAYOUT_ROW};
    qcase i32 = qcase_new(&s);
    s.tc = QMM_TYPE_F32;
    s.stage = 4 + 5 * 3 + 20;
    qcase f32 = qcase_new(&s);
    s.tc = QMM_TYPE_I8;
    s.stage = 0 + 3 * 1;
    qcase i8 = qcase_new(&s);
    s.tc = QMM_TYPE_U8;
    s.stage = 2 + 3 * 2;
    qcase u8 = qcase_new(&s);
    qcase *bases[] = {&i32, &f32, &i8, &u8};
    for (size_t e = 0; e < COUNT(bases); e++) {
        run_case(bases[e], "bad-input base");
        memcpy(bases[e]->c.mem, bases[e]->c_init, bases[e]->c.bytes);
    }
    const int32_t bad_zpa[] = {0, 0, 256}, bad_zpb[] = {0, 0, 0, 128}, bad_mult[] = {1 << 30, -5, 1 << 30};
    const int32_t bad_shift[] = {0, 0, 31}, bad_shift_low[] = {-32, 0, 0};
    const float bad_scale[] = {0.5f, 0.5f, 0.0f, 0.5f}, nan_values[] = {1, 1, 1, nan}, inf_values[] = {inf, 1, 1, 1};

    refused_by(qmm_gemm(NULL), &i32, "NULL descriptor");
    /* NULL values of per-row and per-column parameters. */
    REFUSED(&i32, "A's zero points NULL", d.a.zero_point.values = NULL);
    REFUSED(&i32, "B's zero points NULL", d.b.zero_point.values = NULL);
    REFUSED(&i32, "bias values NULL", d.c.bias.values = NULL);
    REFUSED(&f32, "scale values NULL", d.c.dequant.scale.values = NULL);
    REFUSED(&f32, "scale col_values NULL", d.c.dequant.scale.col_values = NULL);
    REFUSED(&f32, "float bias values NULL", d.c.dequant.bias.values = NULL);
    REFUSED(&i8, "multipliers NULL", d.c.requant.multipliers = NULL);
    REFUSED(&i8, "shifts NULL", d.c.requant.shifts = NULL);
    REFUSED(&u8, "scales NULL", d.c.requant.scales = NULL);
    /* Zero points outside their types' ranges. */
    REFUSED(&i32, "U8 zero point -1", d.a.zero_point = (qmm_i32_param){QMM_PER_MATRIX, -1, NULL});
    REFUSED(&i32, "U8 zero point 256", d.a.zero_point = (qmm_i32_param){QMM_PER_MATRIX, 256, NULL});
    REFUSED(&i32, "I8 zero point 200", d.b.zero_point = (qmm_i32_param){QMM_PER_MATRIX, 200, NULL});
    REFUSED(&i32, "I8 zero point -129", d.b.zero_point = (qmm_i32_param){QMM_PER_MATRIX, -129, NULL});
    REFUSED(&i32, "U8 zero point 256 in a row", d.a.zero_point.values = bad_zpa);
    REFUSED(&i32, "I8 zero point 128 in a column", d.b.zero_point.values = bad_zpb);
    REFUSED(&i8, "I8 output zero point 128", d.c.requant.zero_point = 128);
    REFUSED(&i8, "I8 output zero point -129", d.c.requant.zero_point = -129);
    REFUSED(&u8, "U8 output zero point -1", d.c.requant.zero_point = -1);
    REFUSED(&u8, "U8 output zero point 256", d.c.requant.zero_point = 256);
    /* Multipliers, shifts and scales outside their ranges. */
    REFUSED(&i8, "multiplier -1", d.c.requant.per = QMM_PER_MATRIX; d.c.requant.multiplier = -1);
    REFUSED(&i8, "single, multiplier -1", d.c.requant.rounding = QMM_ROUND_SINGLE;
            d.c.requant.per = QMM_PER_MATRIX; d.c.requant.multiplier = -1);
    REFUSED(&i8, "shift 31", d.c.requant.per = QMM_PER_MATRIX; d.c.requant.shift = 31);
    REFUSED(&i8, "shift -32", d.c.requant.per = QMM_PER_MATRIX; d.c.requant.shift = -32);
    REFUSED(&i8, "a row's multiplier -5", d.c.requant.multipliers = bad_mult);
    REFUSED(&i8, "a row's shift 31", d.c.requant.shifts = bad_shift);
    REFUSED(&i8, "a row's shift -32", d.c.requant.shifts = bad_shift_low);
    const float bad_s[] = {0.0f, -1.0f, nan, inf, -inf};
    for (size_t e = 0; e < COUNT(bad_s); e++) {
        char what[64];
        snprintf(what, sizeof what, "float requant scale %g", (double)bad_s[e]);
        REFUSED(&u8, what, d.c.requant.per = QMM_PER_MATRIX; d.c.requant.scale = bad_s[e]);
    }
    REFUSED(&u8, "a column's scale 0", d.c.requant.scales = bad_scale);
    REFUSED(&u8, "a column's scale NaN", d.c.requant.scales = nan_values);
    /* NaN and infinite dequantization scales and biases. */
    REFUSED(&f32, "dequant scale NaN", d.c.dequant.scale = (qmm_f32_param){QMM_PER_MATRIX, nan, NULL, NULL});
    REFUSED(&f32, "dequant scale inf", d.c.dequant.scale = (qmm_f32_param){QMM_PER_MATRIX, inf, NULL, NULL});
    REFUSED(&f32, "dequant row scale inf", d.c.dequant.scale.values = inf_values);
    REFUSED(&f32, "dequant column scale NaN", d.c.dequant.scale.col_values = nan_values);
    REFUSED(&f32, "float bias NaN", d.c.dequant.bias = (qmm_f32_param){QMM_PER_MATRIX, nan, NULL, NULL});
    REFUSED(&f32, "float bias -inf", d.c.dequant.bias = (qmm_f32_param){QMM_PER_MATRIX, -inf, NULL, NULL});
    REFUSED(&f32, "a column's float bias NaN", d.c.dequant.bias.values = nan_values);
    /* Clamps. */
    REFUSED(&f32, "float clamp min > max", d.c.dequant.min = 1; d.c.dequant.max = 0);
    REFUSED(&f32, "float clamp min NaN", d.c.dequant.min = nan);
    REFUSED(&f32, "float clamp max NaN", d.c.dequant.max = nan);
    REFUSED(&i8, "int clamp min > max", d.c.requant.clamp = 1; d.c.requant.min = 5; d.c.requant.max = 4);
    REFUSED(&i8, "I8 clamp min -129", d.c.requant.clamp = 1; d.c.requant.min = -129; d.c.requant.max = 0);
    REFUSED(&i8, "I8 clamp max 128", d.c.requant.clamp = 1; d.c.requant.min = 0; d.c.requant.max = 128);
    REFUSED(&u8, "U8 clamp min -1", d.c.requant.clamp = 1; d.c.requant.min = -1; d.c.requant.max = 9);
    REFUSED(&u8, "U8 clamp max 256", d.c.requant.clamp = 1; d.c.requant.min = 9; d.c.requant.max = 256);
    /* Types, kinds and rounding rules. */
    REFUSED(&i32, "A's type 7", d.a.type = (qmm_type)7);
    REFUSED(&i32, "B's type 7", d.b.type = (qmm_type)7);
    REFUSED(&i32, "C's type 7", d.c.type = (qmm_type)7);
    REFUSED(&i32, "A of I32", d.a.type = QMM_TYPE_I32);
    REFUSED(&i32, "A of F32", d.a.type = QMM_TYPE_F32);
    REFUSED(&i32, "B of I32", d.b.type = QMM_TYPE_I32);
    REFUSED(&i32, "B of F32", d.b.type = QMM_TYPE_F32);
    REFUSED(&i32, "A's zero point per 9", d.a.zero_point.per = (qmm_per)9);
    REFUSED(&i32, "B's zero point per 9", d.b.zero_point.per = (qmm_per)9);
    REFUSED(&i32, "bias per 9", d.c.bias.per = (qmm_per)9);
    REFUSED(&f32, "scale per 9", d.c.dequant.scale.per = (qmm_per)9);
    REFUSED(&f32, "float bias per 9", d.c.dequant.bias.per = (qmm_per)9);
    REFUSED(&i8, "requant per 9", d.c.requant.per = (qmm_per)9);
    REFUSED(&i32, "per-row zero point on B", d.b.zero_point.per = QMM_PER_ROW);
    REFUSED(&i32, "per-column zero point on A", d.a.zero_point.per = QMM_PER_COL);
    REFUSED(&i32, "A's zero point per row and column", d.a.zero_point.per = QMM_PER_ROW_COL);
    REFUSED(&i32, "B's zero point per row and column", d.b.zero_point.per = QMM_PER_ROW_COL);
    REFUSED(&i32, "bias per row and column", d.c.bias.per = QMM_PER_ROW_COL);
    REFUSED(&f32, "float bias per row and column", d.c.dequant.bias.per = QMM_PER_ROW_COL;
            d.c.dequant.bias.col_values = d.c.dequant.bias.values);
    REFUSED(&i8, "requant per row and column", d.c.requant.per = QMM_PER_ROW_COL);
    REFUSED(&i8, "I8 output, rounding unset", d.c.requant.rounding = QMM_ROUND_UNSET);
    REFUSED(&u8, "U8 output, rounding unset", d.c.requant.rounding = QMM_ROUND_UNSET);
    REFUSED(&i8, "rounding 9", d.c.requant.rounding = (qmm_rounding)9);
    /* The rules at the top of qmm.h. */
    REFUSED(&i32, "NULL A", d.a.data = NULL);
    REFUSED(&i8, "NULL B", d.b.data = NULL);
    REFUSED(&u8, "NULL C", d.c.data = NULL);
    REFUSED(&f32, "C's strides zero", d.c.rs = 0; d.c.cs = 0);
    REFUSED(&i8, "C's elements not distinct", d.c.rs = 1; d.c.cs = 1);
    REFUSED(&i8, "C over A", d.a.data = d.c.data);
    REFUSED(&u8, "C over B", d.b.data = d.c.data);
    /* C's span counted in its own element size: A starts in C's last int32. */
    REFUSED(&i32, "A in C's last element", d.a.data = element(&i32.c, 2, 3) + 3; d.a.rs = 1; d.a.cs = 1);

    /* The stages of other output types are not read. */
    i32.d.c.dequant = f32.d.c.dequant;
    i32.d.c.dequant.scale.value = nan;
    i32.d.c.dequant.scale.per = QMM_PER_MATRIX;
    i32.d.c.requant = (qmm_requant){.rounding = (qmm_rounding)9, .per = (qmm_per)9, .zero_point = 1000};
    f32.d.c.requant = i32.d.c.requant;
    i8.d.c.dequant = (qmm_dequant){.scale = {(qmm_per)9, nan, NULL, NULL}, .clamp = 1, .min = 1, .max = 0};
    for (size_t e = 0; e < 3; e++)
        run_case(bases[e], "another type's stage, invalid and unread");
    for (size_t e = 0; e < COUNT(bases); e++)
        qcase_free(bases[e]);
}

/* Plans: bad descriptors when made, and runs whose sizes are not the plan's. */
static void plan_misuse(void)
{
    spec s = {4, 3, 5, QMM_TYPE_I8, QMM_TYPE_U8, QMM_TYPE_I8, QMM_PER_ROW, QMM_PER_COL, QMM_PER_NONE, 0,
              LAYOUT_ROW, LAYOUT_COL, LAYOUT_ROW};
    qcase q = qcase_new(&s);
    qmm_plan *plan = (qmm_plan *)&test_checks, *unset = plan; /* must stay as it is on failure */
    qmm_gemm_desc d = q.d;
    CHECK(qmm_plan_create_gemm(NULL, &d, QMM_WEIGHTS_A) == QMM_ERR_INVALID_ARG, "NULL plan pointer");
    CHECK(qmm_plan_create_gemm(&plan, NULL, QMM_WEIGHTS_A) == QMM_ERR_INVALID_ARG, "NULL descriptor");
    d.m = QMM_SYMBOLIC;
    CHECK(qmm_plan_create_gemm(&plan, &d, QMM_WEIGHTS_A) == QMM_ERR_INVALID_ARG,
          "weights A with m symbolic");
    d = q.d;
    d.a.zero_point = (qmm_i32_param){QMM_PER_MATRIX, 200, NULL};
    CHECK(qmm_plan_create_gemm(&plan, &d, QMM_WEIGHTS_A) == QMM_ERR_INVALID_ARG,
          "weights with an int8 zero point of 200");
    d = q.d;
    d.b.data = NULL;
    CHECK(qmm_plan_create_gemm(&plan, &d, QMM_WEIGHTS_B) == QMM_ERR_INVALID_ARG, "NULL weights B");
    CHECK(plan == unset, "a failed create wrote *plan");
    test_checks++;

    struct {
        qmm_weights which;
        int symbolic;
    } kinds[] = {{QMM_WEIGHTS_A, 1}, {QMM_WEIGHTS_A, 0}, {QMM_WEIGHTS_B, 1}, {QMM_WEIGHTS_B, 0}};
    for (size_t e = 0; e < COUNT(kinds); e++) {
        const int wa = kinds[e].which == QMM_WEIGHTS_A;
        d = q.d;
        if (kinds[e].symbolic)
            *(wa ? &d.n : &d.m) = QMM_SYMBOLIC;
        CHECK(qmm_plan_create_gemm(&plan, &d, kinds[e].which) == QMM_OK, "plan %zu", e);
        char what[96];
#define PLAN_REFUSED(text, ...)                                                                    \
    do {                                                                                           \
        qmm_gemm_desc r = q.d;                                                                     \
        __VA_ARGS__;                                                                               \
        snprintf(what, sizeof what, "weights %s%s: %s", wa ? "A" : "B",                            \
                 kinds[e].symbolic ? ", symbolic" : "", text);                                     \
        refused_by(qmm_plan_run_gemm(plan, &r), &q, what);                                             \
    } while (0)
        PLAN_REFUSED("another k", r.k = 6);
        PLAN_REFUSED("another fixed size", *(wa ? &r.m : &r.n) += 1);
        if (!kinds[e].symbolic)
            PLAN_REFUSED("another free size", *(wa ? &r.n : &r.m) -= 1);
        PLAN_REFUSED("NULL activations", (wa ? &r.b : &r.a)->data = NULL);
        PLAN_REFUSED("rounding unset", r.c.requant.rounding = QMM_ROUND_UNSET);
        PLAN_REFUSED("C over the activations", (wa ? &r.b : &r.a)->data = r.c.data);
#undef PLAN_REFUSED
        refused_by(qmm_plan_run_gemm(plan, NULL), &q, "NULL descriptor to a plan");
        if (kinds[e].symbolic) {
            d = q.d;
            *(wa ? &d.n : &d.m) = 0;
            d.c.data = NULL;
            CHECK(qmm_plan_run_gemm(plan, &d) == QMM_OK, "weights %s, symbolic: an empty run", wa ? "A" : "B");
        }
        qmm_plan_destroy(plan);
    }
    refused_by(qmm_plan_run_gemm(NULL, &q.d), &q, "NULL plan");
    CHECK(qmm_plan_create(&plan, 4, 3, 5) == QMM_OK, "old plan");
    refused_by(qmm_plan_run_gemm(plan, &q.d), &q, "an old plan not packed");
    qmm_plan_destroy(plan);
    qcase_free(&q);
}

/* Published test vectors: TFLite, gemmlowp and ONNX values, each cited. */
/* One product of uint8 operands with zero points (ONNX's tests) against its
 * published result, int32 or uint8 through the float rule. */
static void onnx_case(const char *what, size_t m, size_t n, size_t k, const uint8_t *a,
                      int32_t za, const uint8_t *b, int32_t zb, qmm_output out, const void *want)
{
    const size_t es = elem_size(out.type);
    unsigned char got[64];
    memset(got, 0xa5, sizeof got);
    out.data = got;
    out.rs = (ptrdiff_t)n;
    out.cs = 1;
    qmm_gemm_desc d = {.m = m, .n = n, .k = k,
                       .a = {QMM_TYPE_U8, a, (ptrdiff_t)k, 1, {QMM_PER_MATRIX, za, NULL}},
                       .b = {QMM_TYPE_U8, b, (ptrdiff_t)n, 1, {QMM_PER_MATRIX, zb, NULL}},
                       .c = out};
    qmm_status st = qmm_gemm(&d);
    CHECK(st == QMM_OK && memcmp(got, want, m * n * es) == 0, "%s: %s, or C is not the published result",
          what, qmm_status_str(st));
    test_checks++;
}

/* Published values. */
static void check_published_vectors(void)
{
    const qmm_rounding TFLITE = QMM_ROUND_TFLITE, SINGLE = QMM_ROUND_SINGLE;
    /* TensorFlow Lite, tensorflow/lite/kernels/internal/quantization_util_test.cc,
     * MultiplyByQuantizedMultiplierInt32: quant_and_multiply(10000, 0.00097656) == 10
     * and (-10000, ...) == -10, (0, 0.1) == 0, (1, 0) == 0, with QuantizeMultiplier's
     * (M, s) for those reals: (2147478150, -10), (1717986918, -3), (0, 0). */
    static const int32_t x_tf[] = {10000, -10000};
    static const int8_t tf[] = {10, -10};
    probe("TFLite 10000 * 0.00097656", fixed_point(QMM_TYPE_I8, TFLITE, 2147478150, -10, 0), x_tf,
          COUNT(x_tf), tf);
    static const int32_t x_zero[] = {0}, x_one[] = {1};
    static const int8_t zero[] = {0};
    probe("TFLite 0 * 0.1", fixed_point(QMM_TYPE_I8, TFLITE, 1717986918, -3, 0), x_zero, 1, zero);
    probe("TFLite 1 * 0", fixed_point(QMM_TYPE_I8, TFLITE, 0, 0, 0), x_one, 1, zero);

    /* ruy, ruy/apply_multiplier_test.cc, RoundingRightShift: x = +-1000, M =
     * INT32_MAX, exponents -2..-6 give 250, 125, 63, 31, 16 by the reference
     * (double) rule (ruy's tests before its single-rounding change), and 62 at
     * -4 by single rounding (ruy's tests since); the others agree. */
    const int32_t mx = INT32_MAX;
    static const int32_t x_ruy[] = {1000, -1000};
    static const uint8_t r250[] = {250, 0};
    static const int8_t r125[] = {125, -125}, r63[] = {63, -63}, r62[] = {62, -62},
                        r31[] = {31, -31}, r16[] = {16, -16};
    probe("ruy 1000 >> 2", fixed_point(QMM_TYPE_U8, TFLITE, mx, -2, 0), x_ruy, 2, r250);
    probe("ruy 1000 >> 3", fixed_point(QMM_TYPE_I8, TFLITE, mx, -3, 0), x_ruy, 2, r125);
    probe("ruy 1000 >> 4 (double)", fixed_point(QMM_TYPE_I8, TFLITE, mx, -4, 0), x_ruy, 2, r63);
    probe("ruy 1000 >> 4 (single)", fixed_point(QMM_TYPE_I8, SINGLE, mx, -4, 0), x_ruy, 2, r62);
    probe("ruy 1000 >> 5", fixed_point(QMM_TYPE_I8, TFLITE, mx, -5, 0), x_ruy, 2, r31);
    probe("ruy 1000 >> 5 (single)", fixed_point(QMM_TYPE_I8, SINGLE, mx, -5, 0), x_ruy, 2, r31);
    probe("ruy 1000 >> 6", fixed_point(QMM_TYPE_I8, TFLITE, mx, -6, 0), x_ruy, 2, r16);

    /* ONNX, onnx/backend/test/case/node/matmulinteger.py (test_matmulinteger)
     * and qlinearmatmul.py (test_qlinearmatmul_2D). */
    static const uint8_t mi_a[] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}, mi_b[] = {1, 4, 2, 5, 3, 6};
    static const int32_t mi_y[] = {-38, -83, -44, -98, -50, -113, -56, -128};
    onnx_case("ONNX MatMulInteger", 4, 2, 3, mi_a, 12, mi_b, 0, (qmm_output){.type = QMM_TYPE_I32},
              mi_y);
    static const uint8_t ql_a[] = {208, 236, 0, 238, 3, 214, 255, 29},
                         ql_b[] = {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247},
                         ql_y[] = {168, 115, 255, 1, 66, 151};
    const qmm_output ql = {.type = QMM_TYPE_U8,
                           .requant = {.rounding = QMM_ROUND_FLOAT, .per = QMM_PER_MATRIX,
                                       .scale = 0.0066f * 0.00705f / 0.0107f, .zero_point = 118}};
    onnx_case("ONNX QLinearMatMul", 2, 3, 4, ql_a, 113, ql_b, 114, ql, ql_y);
}

/* ---- the stage's instances, one against another ------------------------------ */

/* Every instance of the output stage this CPU runs gives the generic
 * instance's bits (the products above run only the one qmm picks), on the
 * same random blocks: every output type and rule, parameters along rows,
 * along columns and single, with and without the int32 additions and terms,
 * sums read in place or apart, C's elements adjacent or apart, blocks from
 * one element to QMM_EPILOGUE_MAX_BLOCK, widths that leave every tail. */
static const struct {
    const char *name;
    unsigned features;
    qmm_epilogue_fn *tile;
} stage_instances[] = {
#if defined(__x86_64__)
    {"avx2", QMM_CPU_AVX2, qmm_epilogue_tile_avx2},
    {"avx512", QMM_CPU_AVX512VNNI, qmm_epilogue_tile_avx512},
#endif
#if defined(__aarch64__)
    {"neon", QMM_CPU_NEON, qmm_epilogue_tile_neon},
#endif
    {"generic", 0, qmm_epilogue_tile_generic},
};

/* A block lies at (i, j) < (STAGE_AT, STAGE_AT) in C. */
enum { STAGE_AT = 8, STAGE_LINE = STAGE_AT + QMM_EPILOGUE_MAX_BLOCK };

/* The values a block's parameters take, one per row or column of C (up to
 * STAGE_LINE along either axis). */
typedef struct stage_values {
    int32_t row_add[STAGE_LINE], col_add[STAGE_LINE], term[QMM_EPILOGUE_TERMS][2][STAGE_LINE];
    int32_t mult[STAGE_LINE], shift[STAGE_LINE];
    float scale[2][STAGE_LINE], fbias[STAGE_LINE], qscale[STAGE_LINE];
} stage_values;

static qmm_along rand_along(void)
{
    return (qmm_along)test_rand_below(3);
}

static int32_t rand_i32(void)
{
    return (int32_t)(uint32_t)test_rand();
}

/* Sums of every size: small ones, where the rules' ties and clamps lie,
 * and the whole int32 range. */
static int32_t rand_sum(void)
{
    return test_rand_below(2) ? rand_in(-3000, 3000) : rand_i32();
}

static float stage_scale(void)
{
    return (float)(test_rand_signed() * ldexp(1, rand_in(-14, 4)));
}

static void stage_fill(stage_values *v)
{
    for (size_t x = 0; x < STAGE_LINE; x++) {
        v->row_add[x] = rand_sum();
        v->col_add[x] = rand_sum();
        for (int t = 0; t < QMM_EPILOGUE_TERMS; t++)
            for (int f = 0; f < 2; f++)
                v->term[t][f][x] = rand_in(-300, 300);
        v->mult[x] = test_rand_below(4) ? rand_in(1 << 30, INT32_MAX) : rand_in(0, INT32_MAX);
        v->shift[x] = test_rand_below(4) ? rand_in(-12, 2) : rand_in(-31, 30);
        v->scale[0][x] = stage_scale();
        v->scale[1][x] = stage_scale();
        v->fbias[x] = (float)(test_rand_signed() * 100);
        v->qscale[x] = (float)ldexp(test_rand_unit(), rand_in(-16, 0));
    }
}

/* A random stage of type t over an n_rows x n_cols C (elements cs apart),
 * its parameters in v. */
static qmm_epilogue stage_random(const stage_values *v, qmm_type t, void *c, size_t n_cols,
                                 ptrdiff_t cs)
{
    qmm_epilogue e = {.type = t, .c = c, .rs = (ptrdiff_t)n_cols * cs, .cs = cs};
    e.row_add = test_rand_below(2) ? v->row_add : NULL;
    e.col_add = test_rand_below(2) ? v->col_add : NULL;
    e.terms = (unsigned)test_rand_below(4 * QMM_EPILOGUE_TERMS) % (QMM_EPILOGUE_TERMS + 1);
    for (unsigned k = 0; k < e.terms; k++)
        for (int f = 0; f < 2; f++)
            e.term[k][f] = (qmm_ivec){v->term[k][f], rand_along()};
    for (int f = 0; f < 2; f++)
        e.scale[f] = (qmm_fvec){f == 0 || test_rand_below(2) ? v->scale[f] : NULL, rand_along()};
    e.fbias = (qmm_fvec){test_rand_below(2) ? v->fbias : NULL, rand_along()};
    e.fclamp = (int)test_rand_below(2);
    /* A bound of 0 a quarter of the time: -0 must stay -0 there. */
    e.fmin = test_rand_below(4) ? (float)rand_in(-2000, 0) : 0.0f;
    e.fmax = e.fmin + (float)rand_in(0, 4000);
    e.rounding = (qmm_rounding)(QMM_ROUND_TFLITE + test_rand_below(3));
    const qmm_along along = rand_along();
    e.multiplier = (qmm_ivec){v->mult, along};
    e.shift = (qmm_ivec){v->shift, along};
    e.qscale = (qmm_fvec){v->qscale, rand_along()};
    const int u8 = t == QMM_TYPE_U8;
    e.zero_point = u8 ? rand_in(0, 255) : rand_in(-128, 127);
    e.qmin = u8 ? rand_in(0, 100) : rand_in(-128, -20);
    e.qmax = u8 ? rand_in(150, 255) : rand_in(20, 127);
    return e;
}

static void stage_instance_cases(size_t ins, stage_values *v)
{
    static const size_t widths[] = {1, 3, 8, 15, 16, 17, 31, 32, 33, 47, 64, 100, 1024};
    static const qmm_type types[] = {QMM_TYPE_I32, QMM_TYPE_F32, QMM_TYPE_I8, QMM_TYPE_U8};
    static int32_t acc[QMM_EPILOGUE_MAX_BLOCK];
    static unsigned char want[96 * 1024], got[sizeof want];
    for (int rep = 0; rep < 600; rep++) {
        if (rep % 100 == 0)
            stage_fill(v);
        const size_t nv = widths[test_rand_below(COUNT(widths))];
        const size_t mv = 1 + test_rand_below(QMM_EPILOGUE_MAX_BLOCK / nv < 40
                                                  ? QMM_EPILOGUE_MAX_BLOCK / nv
                                                  : 40);
        const qmm_type t = types[test_rand_below(COUNT(types))];
        const ptrdiff_t cs = test_rand_below(4) ? 1 : 2;
        /* C, n_cols wide, holds the block at (i, j). */
        const size_t i = test_rand_below(STAGE_AT), j = test_rand_below(STAGE_AT), n_cols = j + nv + 3;
        const size_t bytes = qmm_type_bytes(t);
        if ((i + mv) * n_cols * (size_t)cs * bytes > sizeof want)
            continue;
        /* Zero sums an eighth of the time: with a negative scale and no bias,
         * the float stage's -0. */
        for (size_t x = 0; x < mv * nv; x++)
            acc[x] = test_rand_below(8) ? rand_sum() : 0;
        for (size_t x = 0; x < sizeof want; x++)
            want[x] = (unsigned char)x;
        memcpy(got, want, sizeof got);
        const qmm_epilogue ew = stage_random(v, t, want, n_cols, cs);
        qmm_epilogue eg = ew;
        eg.c = got;
        /* The sums apart (acc_cs 2), read in place from an int32 C, or a tile. */
        const int way = (int)test_rand_below(3);
        const int in_place = way == 1 && t == QMM_TYPE_I32;
        const ptrdiff_t acc_rs = way == 0 ? 1 : (ptrdiff_t)nv,
                        acc_cs = acc_rs == 1 ? (ptrdiff_t)mv : 1;
        for (int side = 0; side < 2; side++) {
            const qmm_epilogue *e = side == 0 ? &ew : &eg;
            qmm_epilogue_fn *fn = side == 0 ? qmm_epilogue_tile_generic : stage_instances[ins].tile;
            if (in_place) {
                int32_t *c = (int32_t *)e->c + (ptrdiff_t)i * e->rs + (ptrdiff_t)j * e->cs;
                for (size_t ii = 0; ii < mv; ii++)
                    for (size_t jj = 0; jj < nv; jj++)
                        c[(ptrdiff_t)ii * e->rs + (ptrdiff_t)jj * e->cs] = acc[ii * nv + jj];
                fn(e, i, j, mv, nv, c, e->rs, e->cs);
            } else {
                fn(e, i, j, mv, nv, acc, acc_rs, acc_cs);
            }
        }
        CHECK(memcmp(want, got, sizeof want) == 0,
              "stage instance %s differs from the generic one: %s C, %zux%zu block at (%zu, %zu), "
              "cs %td, rule %s, %u terms, row_add %s, col_add %s, sums %s",
              stage_instances[ins].name, type_names[t], mv, nv, i, j, cs,
              rounding_names[ew.rounding], ew.terms, ew.row_add ? "yes" : "no",
              ew.col_add ? "yes" : "no", in_place ? "in C" : acc_rs == 1 ? "apart" : "a tile");
        test_checks++;
    }
}

/* The float stage's signed zero at a clamp bound of 0: sums of 0 times a
 * negative scale, no bias, are -0, which the comparisons of qmm.h keep (a
 * max instruction would give +0), on every width up to a tile's. */
static void stage_signed_zero(size_t ins)
{
    enum { ROWS = 4, COLS = 33 };
    static const int32_t zeros[ROWS * COLS];
    float minus_one[COLS];
    for (size_t j = 0; j < COLS; j++)
        minus_one[j] = -1.0f;
    for (size_t nv = 1; nv <= COLS; nv++) {
        float want[ROWS * COLS], got[ROWS * COLS];
        qmm_epilogue e = {.type = QMM_TYPE_F32, .c = want, .rs = (ptrdiff_t)nv, .cs = 1,
                          .scale = {{minus_one, QMM_ALONG_COLS}}, .fclamp = 1, .fmin = 0.0f,
                          .fmax = 10.0f};
        qmm_epilogue_tile_generic(&e, 0, 0, ROWS, nv, zeros, (ptrdiff_t)nv, 1);
        e.c = got;
        stage_instances[ins].tile(&e, 0, 0, ROWS, nv, zeros, (ptrdiff_t)nv, 1);
        CHECK(memcmp(want, got, ROWS * nv * sizeof *got) == 0,
              "stage instance %s: the float stage's -0 at a bound of 0 differs, %zu columns",
              stage_instances[ins].name, nv);
        test_checks++;
    }
}

/* The residue stage (the Chinese-remainder GEMMs' int8 C): each sum's
 * symmetric residue, whole int32 range, every odd modulus up to 255, into
 * a C whose columns are adjacent (an instance's block) or apart. */
static void stage_residues(size_t ins)
{
    enum { ROWS = 3, COLS = 37 };
    int32_t sums[ROWS * COLS];
    int8_t got[ROWS * COLS * 2];
    size_t bad = 0;
    for (int32_t p = 3; p <= 255; p += 2)
        for (ptrdiff_t cs = 1; cs <= 2; cs++) {
            for (size_t x = 0; x < ROWS * COLS; x++)
                sums[x] = x == 0 ? INT32_MIN : x == 1 ? INT32_MAX : rand_i32() >> test_rand_below(32);
            const qmm_epilogue e = {.type = QMM_TYPE_I8, .c = got, .rs = COLS * cs, .cs = cs,
                                    .modulus = p};
            stage_instances[ins].tile(&e, 0, 0, ROWS, COLS, sums, COLS, 1);
            for (size_t x = 0; x < ROWS * COLS; x++) {
                int64_t r = (int64_t)sums[x] % p;
                r -= r > (p - 1) / 2 ? p : 0;
                r += r < -(p - 1) / 2 ? p : 0;
                const int8_t at = got[(ptrdiff_t)(x / COLS) * e.rs + (ptrdiff_t)(x % COLS) * cs];
                if (at != r && bad++ == 0)
                    test_fail(__FILE__, __LINE__,
                              "stage instance %s: %d modulo %d gives %d, want %d (columns %td "
                              "apart)",
                              stage_instances[ins].name, sums[x], p, at, (int)r, cs);
            }
            test_checks++;
        }
}

static void stage_instances_agree(void)
{
    static stage_values v;
    for (size_t ins = 0; ins + 1 < COUNT(stage_instances); ins++) {
        if (!qmm_cpu_has(stage_instances[ins].features)) {
            printf("test_quant: the %s instance of the output stage skipped: its features are "
                   "not in effect on this CPU\n",
                   stage_instances[ins].name);
            continue;
        }
        stage_instance_cases(ins, &v);
        stage_signed_zero(ins);
    }
    for (size_t ins = 0; ins < COUNT(stage_instances); ins++)
        if (qmm_cpu_has(stage_instances[ins].features))
            stage_residues(ins);
}

/* ---- every kernel ------------------------------------------------------------- */

/* A kernel this CPU cannot run, forced: refused, C untouched. */
static void unsupported(const char *name)
{
    int8_t a = 1, b = 1;
    int32_t c = 7;
    qmm_gemm_desc d = {.m = 1, .n = 1, .k = 1, .a = {.type = QMM_TYPE_I8, .data = &a, .rs = 1, .cs = 1},
                       .b = {.type = QMM_TYPE_I8, .data = &b, .rs = 1, .cs = 1},
                       .c = {.type = QMM_TYPE_I32, .data = &c, .rs = 1, .cs = 1}};
    qmm_status st = qmm_gemm(&d);
    CHECK(st == QMM_ERR_UNSUPPORTED && c == 7, "QMM_KERNEL=%s (not supported here): %s, C = %ld", name,
          qmm_status_str(st), (long)c);
    test_checks++;
}

int main(int argc, char **argv)
{
    /* "test_quant KERNEL": the suite alone. Else each kernel forced in a child
     * of its own, before this process makes a product, then the rest here. */
    int rc = test_reference_start(argc, argv, "test_quant", suite, unsupported);
    if (rc >= 0)
        return rc;
    suite();
    bad_input();
    plan_misuse();
    check_published_vectors();
    stage_instances_agree();
    return test_finish("test_quant", test_checks);
}
