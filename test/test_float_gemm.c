/*
 * Float and double GEMM through int8 (qmm_sgemm_i8, qmm_dgemm_i8) against
 * references written from qmm.h's "Precisely:" definitions alone, bit for
 * bit: edge and odd shapes with padded leading dimensions (the padding NaN,
 * never an element), both granularities, every slice count; int32 sums that
 * only stay exact in depth chunks; and every invalid argument, C untouched.
 *
 * The suite runs with each kernel this CPU supports forced through
 * QMM_KERNEL in a child process of its own (the library reads its
 * environment once, so the children are forked before this process makes
 * its first product), then with the selector's kernels; each product on 1 to
 * 4 threads (the deepest, and the sweep of slice counts, on 1 and one other),
 * split however small it is. Equal to one reference, they are equal to each
 * other.
 *
 * Accuracy, against double-double dot products of the same inputs, is
 * measured once and printed: the errors the recipe promises, per tensor and
 * per channel, and for each slice count of qmm_dgemm_i8.
 *
 *   test_float_gemm           everything
 *   test_float_gemm KERNEL    the suite alone, with QMM_KERNEL=KERNEL
 */
#include "support/reference_test.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/bad_call.h"

static const qmm_per granularities[] = {QMM_PER_MATRIX, QMM_PER_ROW_COL};

static const char *per_name(qmm_per per)
{
    return per == QMM_PER_MATRIX ? "per matrix" : "per row and column";
}

/* ---- products ------------------------------------------------------------------ */

/* C[m x n] = A[m x k] . B[k x n]; the values dense (a[i*k + p], b[p*n + j]),
 * the calls' operands row-major with these leading dimensions. sgemm reads
 * the values rounded to float. */
typedef struct product {
    size_t m, n, k, lda, ldb, ldc;
    double *a, *b;
} product;

static void product_free(product *p)
{
    free(p->a);
    free(p->b);
}

/* A row-major operand of elem-byte floats, allocated to its last element and
 * no further, its padding NaN. */
static void *operand_new(const double *dense, size_t rows, size_t cols, size_t ld, size_t elem)
{
    const size_t span = (rows - 1) * ld + cols;
    void *x = malloc(span * elem);
    for (size_t at = 0; at < span; at++) {
        const size_t i = at / ld, j = at % ld;
        const double v = j < cols ? dense[i * cols + j] : NAN;
        if (elem == 4)
            ((float *)x)[at] = (float)v;
        else
            ((double *)x)[at] = v;
    }
    return x;
}

/* Lines of a dense matrix: line l's element e at x[l*ls + e*es] (A's rows:
 * ls = k, es = 1; B's columns: ls = 1, es = n). */
typedef struct lines {
    const double *x;
    size_t count, len, ls, es;
} lines;

static lines rows_of(const double *a, size_t m, size_t k)
{
    return (lines){a, m, k, k, 1};
}

static lines cols_of(const double *b, size_t k, size_t n)
{
    return (lines){b, n, k, 1, n};
}

static double line_at(const lines *x, size_t l, size_t e)
{
    return x->x[l * x->ls + e * x->es];
}

/* ---- the sgemm reference ---------------------------------------------------------- */

/* qmm_quantize_symmetric_f32 as the header defines it: scale = max |x| / 127,
 * q = round(x / scale) clamped to [-127, 127], 0 where the scale is 0; per
 * tensor one scale for every line. q has x's layout. */
static void ref_quantize_f32(const lines *x, int per_tensor, int8_t *q, float *scales)
{
    float all = 0.0f;
    for (size_t l = 0; l < x->count; l++) {
        float maxabs = 0.0f;
        for (size_t e = 0; e < x->len; e++)
            maxabs = fmaxf(maxabs, fabsf((float)line_at(x, l, e)));
        scales[l] = maxabs / 127.0f;
        all = fmaxf(all, maxabs);
    }
    for (size_t l = 0; l < x->count; l++) {
        if (per_tensor)
            scales[l] = all / 127.0f;
        for (size_t e = 0; e < x->len; e++) {
            const float r = scales[l] == 0 ? 0.0f : nearbyintf((float)line_at(x, l, e) / scales[l]);
            q[l * x->ls + e * x->es] = (int8_t)(r < -127 ? -127 : r > 127 ? 127 : r);
        }
    }
}

/* ((float)S * sa) * sb, S exact. */
static float sgemm_element(int64_t s, float sa, float sb)
{
    const float sf = (float)s;
    const float t = sf * sa;
    return t * sb;
}

static void ref_sgemm(const product *p, qmm_per g, float *c)
{
    int8_t *qa = malloc(p->m * p->k), *qb = malloc(p->k * p->n);
    float *sa = malloc(p->m * sizeof *sa), *sb = malloc(p->n * sizeof *sb);
    const lines a = rows_of(p->a, p->m, p->k), b = cols_of(p->b, p->k, p->n);
    ref_quantize_f32(&a, g == QMM_PER_MATRIX, qa, sa);
    ref_quantize_f32(&b, g == QMM_PER_MATRIX, qb, sb);
    for (size_t i = 0; i < p->m; i++)
        for (size_t j = 0; j < p->n; j++) {
            int64_t s = 0;
            for (size_t d = 0; d < p->k; d++)
                s += (int64_t)qa[i * p->k + d] * qb[d * p->n + j];
            c[i * p->n + j] = sgemm_element(s, sa[i], sb[j]);
        }
    free(qa);
    free(qb);
    free(sa);
    free(sb);
}

/* ---- the dgemm reference ------------------------------------------------------------- */

/* Each line's E: the least integer with |x| < 2^E over the line (per tensor
 * over all of them), 0 for a line of zeros. frexp gives |x| = f 2^e with f
 * in [0.5, 1): e is that integer for the largest |x|. */
static void ref_exponents(const lines *x, int per_tensor, int *exps)
{
    double all = 0.0;
    for (size_t l = 0; l < x->count; l++) {
        double maxabs = 0.0;
        for (size_t e = 0; e < x->len; e++)
            maxabs = fmax(maxabs, fabs(line_at(x, l, e)));
        frexp(maxabs, &exps[l]);
        all = fmax(all, maxabs);
    }
    for (size_t l = 0; l < x->count && per_tensor; l++)
        frexp(all, &exps[l]);
}

/* The slices by truncation: with v = x 2^-E and r_0 = v,
 * d_u = trunc(r_(u-1) 2^(7u)), r_u = r_(u-1) - d_u 2^(-7u), all exact.
 * Slice u (1-based) of element (l, e) at digits[(u-1) * size + l*ls + e*es]. */
static void ref_slices(const lines *x, const int *exps, unsigned slices, int8_t *digits)
{
    const size_t size = x->count * x->len;
    for (size_t l = 0; l < x->count; l++)
        for (size_t e = 0; e < x->len; e++) {
            double r = ldexp(line_at(x, l, e), -exps[l]);
            for (unsigned u = 1; u <= slices; u++) {
                const double d = trunc(ldexp(r, 7 * (int)u));
                digits[(u - 1) * size + l * x->ls + e * x->es] = (int8_t)d;
                r = r - ldexp(d, -7 * (int)u);
            }
        }
}

/* (sum over t from s+1 down to 2 of S_t 2^(-7t)) 2^(E+F), added in that
 * order, S_t(i,j) = sum over u + w = t of sum_p a_u(i,p) b_w(p,j). */
static void ref_dgemm(const product *p, qmm_per g, unsigned slices, double *c)
{
    const size_t sa = p->m * p->k, sb = p->k * p->n;
    int8_t *da = malloc(slices * sa), *db = malloc(slices * sb);
    int *ea = malloc(p->m * sizeof *ea), *fb = malloc(p->n * sizeof *fb);
    const lines a = rows_of(p->a, p->m, p->k), b = cols_of(p->b, p->k, p->n);
    ref_exponents(&a, g == QMM_PER_MATRIX, ea);
    ref_exponents(&b, g == QMM_PER_MATRIX, fb);
    ref_slices(&a, ea, slices, da);
    ref_slices(&b, fb, slices, db);
    for (size_t i = 0; i < p->m; i++)
        for (size_t j = 0; j < p->n; j++) {
            double sum = 0.0;
            for (unsigned t = slices + 1; t >= 2; t--) {
                int64_t s = 0;
                for (unsigned u = 1; u < t; u++) {
                    const int8_t *au = da + (u - 1) * sa + i * p->k, *bw = db + (t - u - 1) * sb + j;
                    for (size_t d = 0; d < p->k; d++)
                        s += (int64_t)au[d] * bw[d * p->n];
                }
                sum += ldexp((double)s, -7 * (int)t);
            }
            c[i * p->n + j] = ldexp(sum, ea[i] + fb[j]);
        }
    free(da);
    free(db);
    free(ea);
    free(fb);
}

/* ---- running and comparing ---------------------------------------------------------------- */

/* One call of either entry point. */
typedef struct gemm_call {
    int is_f64;
    size_t m, n, k;
    const void *a;
    size_t lda;
    const void *b;
    size_t ldb;
    void *c;
    size_t ldc;
    qmm_per g;
    unsigned slices; /* dgemm */
} gemm_call;

static qmm_status run_gemm(const gemm_call *c)
{
    if (c->is_f64)
        return qmm_dgemm_i8(c->m, c->n, c->k, c->a, c->lda, c->b, c->ldb, c->c, c->ldc, c->g,
                            c->slices);
    return qmm_sgemm_i8(c->m, c->n, c->k, c->a, c->lda, c->b, c->ldb, c->c, c->ldc, c->g);
}

static double element_value(const void *p, size_t at, size_t elem)
{
    return elem == 4 ? ((const float *)p)[at] : ((const double *)p)[at];
}

/* The call on 1 to TEST_MAX_THREADS threads (with some, on 1 and one other
 * count in turn), C as it was before each: C's elements equal to ref (dense
 * m x n) bit for bit, nothing around them written. */
static size_t turn;
static void check_threads(const product *p, gemm_call call, const void *ref, int some,
                          const char *what)
{
    size_t counts[TEST_MAX_THREADS];
    const size_t runs = test_thread_counts(some, turn++, counts);
    const size_t elem = call.is_f64 ? 8 : 4;
    test_matrix c = test_matrix_new(p->m, p->n, elem, LAYOUT_ROW, p->ldc - p->n);
    unsigned char *c_init = malloc(c.bytes);
    memcpy(c_init, c.mem, c.bytes);
    call.c = c.base;
    call.ldc = p->ldc;
    for (size_t r = 0; r < runs; r++) {
        const size_t threads = counts[r];
        memcpy(c.mem, c_init, c.bytes);
        qmm_set_num_threads(threads);
        qmm_status st = run_gemm(&call);
        CHECK(st == QMM_OK, "%s on %zu threads, %s: %s", what, threads, test_kernel_said(),
              qmm_status_str(st));
        size_t bad = 0;
        for (size_t i = 0; i < p->m && st == QMM_OK; i++)
            for (size_t j = 0; j < p->n; j++) {
                const unsigned char *got = (unsigned char *)c.base + (i * p->ldc + j) * elem;
                const unsigned char *want = (const unsigned char *)ref + (i * p->n + j) * elem;
                if (memcmp(got, want, elem) != 0 && bad++ == 0)
                    test_fail(__FILE__, __LINE__, "%s on %zu threads, %s: C(%zu,%zu) = %a, want %a",
                              what, threads, test_kernel_said(), i, j, element_value(got, 0, elem),
                              element_value(want, 0, elem));
            }
        CHECK(test_matrix_surroundings_intact(&c), "%s on %zu threads: wrote outside C's elements",
              what, threads);
        test_checks++;
    }
    free(c_init);
    test_matrix_free(&c);
}

static void check_sgemm(const product *p, qmm_per g, const char *data)
{
    char what[200];
    snprintf(what, sizeof what, "sgemm %zux%zux%zu (lda %zu, ldb %zu, ldc %zu) %s, %s", p->m, p->n,
             p->k, p->lda, p->ldb, p->ldc, per_name(g), data);
    float *ref = malloc(p->m * p->n * sizeof *ref);
    ref_sgemm(p, g, ref);
    void *a = operand_new(p->a, p->m, p->k, p->lda, 4), *b = operand_new(p->b, p->k, p->n, p->ldb, 4);
    gemm_call call = {0, p->m, p->n, p->k, a, p->lda, b, p->ldb, NULL, 0, g, 0};
    check_threads(p, call, ref, 0, what);
    free(a);
    free(b);
    free(ref);
}

static void check_dgemm(const product *p, qmm_per g, unsigned slices, int some_threads,
                        const char *data)
{
    char what[200];
    snprintf(what, sizeof what, "dgemm %zux%zux%zu (lda %zu, ldb %zu, ldc %zu) %s, %u slices, %s",
             p->m, p->n, p->k, p->lda, p->ldb, p->ldc, per_name(g), slices, data);
    double *ref = malloc(p->m * p->n * sizeof *ref);
    ref_dgemm(p, g, slices, ref);
    void *a = operand_new(p->a, p->m, p->k, p->lda, 8), *b = operand_new(p->b, p->k, p->n, p->ldb, 8);
    gemm_call call = {1, p->m, p->n, p->k, a, p->lda, b, p->ldb, NULL, 0, g, slices};
    check_threads(p, call, ref, some_threads, what);
    free(a);
    free(b);
    free(ref);
}

/* ---- the suite: every kernel, every thread count ---------------------------------------- */

/* Values in [-1, 1] times 2^e, e from -8 to 8 per row of A and per column of
 * B (a line within a few powers of two, other lines far), a few +-0.0; a
 * row of A all -0.0 and a column of B all +0.0 when the shape has room. */
static product product_new(size_t m, size_t n, size_t k, size_t pad)
{
    product p = {m, n, k, k + pad, n + pad, n + pad, malloc(m * k * sizeof(double)),
                 malloc(k * n * sizeof(double))};
    int *row_exp = malloc(m * sizeof *row_exp), *col_exp = malloc(n * sizeof *col_exp);
    for (size_t i = 0; i < m; i++)
        row_exp[i] = (int)test_rand_below(17) - 8;
    for (size_t j = 0; j < n; j++)
        col_exp[j] = (int)test_rand_below(17) - 8;
    for (size_t i = 0; i < m; i++)
        for (size_t d = 0; d < k; d++)
            p.a[i * k + d] = test_rand_below(16) ? ldexp(test_rand_signed(), row_exp[i]) : -0.0;
    for (size_t d = 0; d < k; d++)
        for (size_t j = 0; j < n; j++)
            p.b[d * n + j] = test_rand_below(16) ? ldexp(test_rand_signed(), col_exp[j]) : 0.0;
    if (m > 2 && n > 2)
        for (size_t d = 0; d < k; d++) {
            p.a[1 * k + d] = -0.0;
            p.b[d * n + 2] = 0.0;
        }
    free(row_exp);
    free(col_exp);
    return p;
}

/* Shapes: m, n or k = 1, odd sizes, padded leading dimensions; the slice
 * counts that dgemm tries on each (0 ends the list). */
static const struct {
    size_t m, n, k, pad;
    unsigned slices[4];
} shapes[] = {
    {1, 1, 1, 0, {1, 2, QMM_FP64_SLICES, 0}},
    {1, 7, 5, 1, {1, 3, 0}},
    {6, 1, 9, 2, {1, 2, QMM_FP64_SLICES, 0}},
    {5, 3, 1, 3, {1, QMM_FP64_SLICES, 0}},
    {17, 33, 9, 3, {1, 2, QMM_FP64_SLICES, 0}},
    {2, 40, 3, 0, {2, 0}},
    {33, 17, 40, 5, {QMM_FP64_SLICES, 0}},
    {64, 64, 64, 0, {2, 0}},
};

static void shapes_suite(void)
{
    for (size_t s = 0; s < COUNT(shapes); s++) {
        product p = product_new(shapes[s].m, shapes[s].n, shapes[s].k, shapes[s].pad);
        for (size_t g = 0; g < COUNT(granularities); g++) {
            check_sgemm(&p, granularities[g], "random");
            for (size_t e = 0; e < COUNT(shapes[s].slices) && shapes[s].slices[e]; e++)
                check_dgemm(&p, granularities[g], shapes[s].slices[e], 0, "random");
        }
        product_free(&p);
    }
}

/* Every slice count, on a small product (each on 1 thread and one other:
 * the shapes above try every count). */
static void every_slice_count(void)
{
    product p = product_new(3, 5, 7, 2);
    for (size_t g = 0; g < COUNT(granularities); g++)
        for (unsigned slices = 1; slices <= QMM_MAX_SLICES; slices++)
            check_dgemm(&p, granularities[g], slices, 1, "every slice count");
    product_free(&p);
}

/* ---- deeper than QMM_EXACT_DEPTH ------------------------------------------------------------ */

/* A product whose row i of A is a[i] throughout and column j of B b[j]:
 * every quantized value of a line is the same, so S = k qa(i) qb(j) in closed
 * form, and with |q| = 127 beyond int32 unless the depth is chunked. */
static product constant_lines(size_t k, const double a[2], const double b[3])
{
    product p = {2, 3, k, k, 3, 3, malloc(2 * k * sizeof(double)), malloc(k * 3 * sizeof(double))};
    for (size_t d = 0; d < k; d++) {
        for (size_t i = 0; i < 2; i++)
            p.a[i * k + d] = a[i];
        for (size_t j = 0; j < 3; j++)
            p.b[d * 3 + j] = b[j];
    }
    return p;
}

/* The 2 x 3 x k product of constant lines p (float, or double with slices)
 * on 1 and one other thread count, against want. */
static void check_constant_lines(const product *p, int is_f64, qmm_per g, int slices,
                                 const void *want, const char *what)
{
    const size_t k = p->k, elem = is_f64 ? 8 : 4;
    void *oa = operand_new(p->a, 2, k, k, elem), *ob = operand_new(p->b, k, 3, 3, elem);
    gemm_call call = {is_f64, 2, 3, k, oa, k, ob, 3, NULL, 0, g, slices};
    check_threads(p, call, want, 1, what);
    free(oa);
    free(ob);
}

static int beyond_int32(int64_t s)
{
    return s > INT32_MAX || s < INT32_MIN;
}

static void sgemm_deep(size_t k)
{
    const double a[2] = {0.75, -1.5}, b[3] = {1.0, -2.0, 0.25};
    product p = constant_lines(k, a, b);
    for (size_t g = 0; g < COUNT(granularities); g++) {
        /* A line of one value throughout quantizes as that value alone. */
        int8_t qa[2], qb[3];
        float sa[2], sb[3];
        const lines la = {a, 2, 1, 1, 1}, lb = {b, 3, 1, 1, 1};
        ref_quantize_f32(&la, granularities[g] == QMM_PER_MATRIX, qa, sa);
        ref_quantize_f32(&lb, granularities[g] == QMM_PER_MATRIX, qb, sb);
        float want[6];
        int wraps = 0;
        for (size_t i = 0; i < 2; i++)
            for (size_t j = 0; j < 3; j++) {
                const int64_t s = (int64_t)k * qa[i] * qb[j];
                wraps |= beyond_int32(s);
                want[i * 3 + j] = sgemm_element(s, sa[i], sb[j]);
            }
        CHECK(wraps, "sgemm deep, %s: no sum beyond int32", per_name(granularities[g]));
        char what[96];
        snprintf(what, sizeof what, "sgemm 2x3x%zu constant lines, %s", k, per_name(granularities[g]));
        check_constant_lines(&p, 0, granularities[g], 0, want, what);
    }
    product_free(&p);
}

/* dgemm with 2 slices: values 1 - 2^-14 times a power of two, whose digits
 * (per channel) are 127 and 127, so that S_2 = k.127.127 and S_3, of depth
 * 2k, twice that: beyond int32 at depths where only the second level's is
 * beyond QMM_EXACT_DEPTH too. */
static void dgemm_deep(size_t k)
{
    const double d = 1 - 0x1p-14;
    const double a[2] = {d, -d * 8}, b[3] = {d * 0.5, -d, d * 0x1p-20};
    product p = constant_lines(k, a, b);
    for (size_t g = 0; g < COUNT(granularities); g++) {
        int ea[2], fb[3];
        int8_t da[2 * 2], db[2 * 3]; /* slice u of line l at [(u-1)*count + l] */
        const lines la = {a, 2, 1, 1, 1}, lb = {b, 3, 1, 1, 1};
        ref_exponents(&la, granularities[g] == QMM_PER_MATRIX, ea);
        ref_exponents(&lb, granularities[g] == QMM_PER_MATRIX, fb);
        ref_slices(&la, ea, 2, da);
        ref_slices(&lb, fb, 2, db);
        double want[6];
        int wraps = 0;
        for (size_t i = 0; i < 2; i++)
            for (size_t j = 0; j < 3; j++) {
                const int64_t s2 = (int64_t)k * da[i] * db[j];
                const int64_t s3 = (int64_t)k * (da[i] * db[3 + j] + da[2 + i] * db[j]);
                wraps |= beyond_int32(s3);
                const double sum = ldexp((double)s3, -21) + ldexp((double)s2, -14);
                want[i * 3 + j] = ldexp(sum, ea[i] + fb[j]);
            }
        CHECK(wraps, "dgemm deep, %s: no sum beyond int32", per_name(granularities[g]));
        char what[96];
        snprintf(what, sizeof what, "dgemm 2x3x%zu constant lines, %s, 2 slices", k,
                 per_name(granularities[g]));
        check_constant_lines(&p, 1, granularities[g], 2, want, what);
    }
    product_free(&p);
}

/* On 1 thread and one other count each (the deep products are the suite's
 * slowest under emulation); the other counts come in turn, so every count
 * meets some deep product. */
static void deep(void)
{
    sgemm_deep(QMM_EXACT_DEPTH + 1000);
    dgemm_deep(QMM_EXACT_DEPTH + 1000);
    dgemm_deep(QMM_EXACT_DEPTH / 2 + 500);
}

/* The same random sequence in every process, so every kernel gets the same cases. */
static void suite(void)
{
    test_seed(0xF10A7);
    shapes_suite();
    every_slice_count();
    deep();
}

/* ---- accuracy ----------------------------------------------------------------------------- */

/* The exact products of p's values (sgemm's: rounded to float first). */
static test_dd *accurate(const product *p, int as_float)
{
    double *a = malloc(p->m * p->k * sizeof *a), *b = malloc(p->k * p->n * sizeof *b);
    for (size_t e = 0; e < p->m * p->k; e++)
        a[e] = as_float ? (float)p->a[e] : p->a[e];
    for (size_t e = 0; e < p->k * p->n; e++)
        b[e] = as_float ? (float)p->b[e] : p->b[e];
    test_dd *r = malloc(p->m * p->n * sizeof *r);
    for (size_t i = 0; i < p->m; i++)
        for (size_t j = 0; j < p->n; j++)
            r[i * p->n + j] = test_dot2(a + i * p->k, 1, b + j, p->n, p->k);
    free(a);
    free(b);
    return r;
}

/* C of the library (dense m x n, as double), the call as given. */
static double *library_c(const product *p, int is_f64, qmm_per g, unsigned slices)
{
    const size_t elem = is_f64 ? 8 : 4;
    void *a = operand_new(p->a, p->m, p->k, p->lda, elem), *b = operand_new(p->b, p->k, p->n, p->ldb, elem);
    void *c = malloc(p->m * p->n * elem);
    gemm_call call = {is_f64, p->m, p->n, p->k, a, p->lda, b, p->ldb, c, p->n, g, slices};
    qmm_status st = run_gemm(&call);
    CHECK(st == QMM_OK, "accuracy, %s: %s", is_f64 ? "dgemm" : "sgemm", qmm_status_str(st));
    double *out = malloc(p->m * p->n * sizeof *out);
    for (size_t e = 0; e < p->m * p->n; e++)
        out[e] = st == QMM_OK ? element_value(c, e, elem) : NAN;
    free(a);
    free(b);
    free(c);
    return out;
}

/* ||C - R||_F / ||R||_F. */
static double relative_error(const product *p, const double *c, const test_dd *r)
{
    double err = 0.0, norm = 0.0;
    for (size_t e = 0; e < p->m * p->n; e++) {
        const double diff = (c[e] - r[e].hi) - r[e].lo;
        err += diff * diff;
        norm += r[e].hi * r[e].hi;
    }
    return sqrt(err / norm);
}

/* The RMS of (C - R)(i,j) / (|A_i| |B_j|): each element's error against what
 * its own row and column make possible, so that small rows count as much as
 * large ones. */
static double line_scaled_error(const product *p, const double *c, const test_dd *r)
{
    double sum = 0.0;
    for (size_t i = 0; i < p->m; i++)
        for (size_t j = 0; j < p->n; j++) {
            double na = 0.0, nb = 0.0;
            for (size_t d = 0; d < p->k; d++) {
                na += p->a[i * p->k + d] * p->a[i * p->k + d];
                nb += p->b[d * p->n + j] * p->b[d * p->n + j];
            }
            const test_dd *want = &r[i * p->n + j];
            const double e = ((c[i * p->n + j] - want->hi) - want->lo) / sqrt(na * nb);
            sum += e * e;
        }
    return sqrt(sum / (double)(p->m * p->n));
}

static product uniform_product(size_t m, size_t n, size_t k)
{
    product p = {m, n, k, k, n, n, malloc(m * k * sizeof(double)), malloc(k * n * sizeof(double))};
    for (size_t e = 0; e < m * k; e++)
        p.a[e] = test_rand_signed();
    for (size_t e = 0; e < k * n; e++)
        p.b[e] = test_rand_signed();
    return p;
}

static void sgemm_accuracy(void)
{
    product p = uniform_product(64, 64, 64);
    test_dd *r = accurate(&p, 1);
    double err[2];
    for (size_t g = 0; g < COUNT(granularities); g++) {
        double *c = library_c(&p, 0, granularities[g], 0);
        err[g] = relative_error(&p, c, r);
        free(c);
    }
    printf("sgemm_i8 64x64x64, uniform [-1, 1]: relative Frobenius error %.3g per tensor, %.3g per channel\n",
           err[0], err[1]);
    CHECK(err[0] < 0.01, "sgemm, uniform data per tensor: relative error %g, want < 1%%",
          err[0]);
    CHECK(err[1] < 0.01, "sgemm, uniform data per channel: relative error %g, want < 1%%",
          err[1]);
    test_checks++;
    free(r);
    product_free(&p);
}

/* Rows of A and columns of B 1000x apart in magnitude: one scale for all
 * quantizes the small ones coarsely, one per line does not. */
static void per_channel_gain(int is_f64, unsigned slices)
{
    product p = uniform_product(32, 32, 48);
    for (size_t i = 0; i < p.m; i++)
        for (size_t d = 0; d < p.k; d++)
            p.a[i * p.k + d] *= i % 2 ? 1e-3 : 1.0;
    for (size_t d = 0; d < p.k; d++)
        for (size_t j = 0; j < p.n; j++)
            p.b[d * p.n + j] *= j % 3 ? 1.0 : 1e-3;
    test_dd *r = accurate(&p, !is_f64);
    double err[2];
    for (size_t g = 0; g < COUNT(granularities); g++) {
        double *c = library_c(&p, is_f64, granularities[g], slices);
        err[g] = line_scaled_error(&p, c, r);
        free(c);
    }
    char what[64] = "sgemm_i8";
    if (is_f64)
        snprintf(what, sizeof what, "dgemm_i8 (%u slices)", slices);
    printf("%s 32x32x48, lines 1000x apart: error over |A_i||B_j| %.3g per tensor, %.3g per channel (%.0fx)\n",
           what, err[0], err[1], err[0] / err[1]);
    CHECK(err[0] >= 5 * err[1],
          "%s, lines 1000x apart: per tensor %g, per channel %g: per channel not 5x better", what,
          err[0], err[1]);
    test_checks++;
    free(r);
    product_free(&p);
}

/* Each slice about 7 bits more (2^7 = 128, at least 50 asked), until
 * double's own rounding: a few units of roundoff, below 4 * 2^-53. */
static void dgemm_slices_accuracy(void)
{
    const double rounding = 4 * 0x1p-53, gain = 50;
    product p = uniform_product(24, 24, 48);
    test_dd *r = accurate(&p, 0);
    double err[2][QMM_MAX_SLICES + 1];
    printf("dgemm_i8 24x24x48, uniform [-1, 1]: relative Frobenius error against double-double\n"
           "  slices  per tensor  per channel\n");
    for (unsigned s = 1; s <= QMM_MAX_SLICES; s++) {
        for (size_t g = 0; g < COUNT(granularities); g++) {
            double *c = library_c(&p, 1, granularities[g], s);
            err[g][s] = relative_error(&p, c, r);
            free(c);
        }
        printf("  %6u  %10.3g  %11.3g\n", s, err[0][s], err[1][s]);
    }
    for (size_t g = 0; g < COUNT(granularities); g++) {
        for (unsigned s = 2; s <= QMM_MAX_SLICES; s++) {
            const double prev = err[g][s - 1], now = err[g][s];
            if (prev > rounding)
                CHECK(now <= prev / gain || now <= rounding,
                      "dgemm %s: %u slices give %g, %u gave %g: not %gx better nor below %g",
                      per_name(granularities[g]), s, now, s - 1, prev, gain, rounding);
            else
                CHECK(now <= rounding, "dgemm %s: %u slices give %g, above %g where %u gave %g",
                      per_name(granularities[g]), s, now, rounding, s - 1, prev);
        }
        CHECK(err[g][QMM_FP64_SLICES] < 1e-12, "dgemm %s: QMM_FP64_SLICES slices give %g",
              per_name(granularities[g]), err[g][QMM_FP64_SLICES]);
        test_checks++;
    }
    free(r);
    product_free(&p);
}

static void accuracy(void)
{
    qmm_set_num_threads(2);
    test_seed(0xACC);
    sgemm_accuracy();
    per_channel_gain(0, 0);
    per_channel_gain(1, 1);
    per_channel_gain(1, 2);
    dgemm_slices_accuracy();
}

/* ---- invalid arguments --------------------------------------------------------------------- */

/* The bad-input calls' operands, in a test_arena. */
enum { M = 3, N = 4, K = 5, LDA = 6, LDB = 6, LDC = 5 };
enum { AT_A = 0, AT_B = 1024, AT_C = 2048 };

typedef struct fixture {
    test_arena arena;
    gemm_call c; /* valid as it is */
} fixture;

static fixture fixture_new(int is_f64)
{
    const size_t elem = is_f64 ? 8 : 4;
    fixture f = {test_arena_new(), {0}};
    unsigned char *mem = f.arena.mem;
    for (size_t at = 0; at < AT_C / elem; at++) /* A and B: elements and padding */
        if (is_f64)
            ((double *)mem)[at] = test_rand_signed();
        else
            ((float *)mem)[at] = (float)test_rand_signed();
    f.c = (gemm_call){is_f64, M, N, K, mem + AT_A, LDA, mem + AT_B, LDB, mem + AT_C, LDC,
                      QMM_PER_ROW_COL, QMM_FP64_SLICES};
    test_arena_keep(&f.arena);
    qmm_status st = run_gemm(&f.c);
    CHECK(st == QMM_OK, "%s: the bad-input base fails: %s", is_f64 ? "dgemm" : "sgemm",
          qmm_status_str(st));
    test_arena_restore(&f.arena);
    return f;
}

/* c (f's call changed) gives want; nothing written unless it is QMM_OK with
 * elements to write. */
static void expect_status(fixture *f, const gemm_call *c, qmm_status want, const char *what)
{
    char label[128];
    snprintf(label, sizeof label, "%s: %s", c->is_f64 ? "dgemm" : "sgemm", what);
    test_arena_before_call(&f->arena);
    test_arena_after_call(&f->arena, run_gemm(c), want, c->m == 0 || c->n == 0, label);
    test_checks++;
}

/* f's call with a change (statements on c) must be refused, or accepted. */
#define REFUSED(f, what, ...)                                                                      \
    TEST_CHANGED(gemm_call c, (f)->c, expect_status((f), &c, QMM_ERR_INVALID_ARG, what),          \
                 __VA_ARGS__)
#define ACCEPTED(f, what, ...)                                                                     \
    TEST_CHANGED(gemm_call c, (f)->c, expect_status((f), &c, QMM_OK, what), __VA_ARGS__)

static void store(const fixture *f, size_t at, size_t index, double v)
{
    if (f->c.is_f64)
        ((double *)(f->arena.mem + at))[index] = v;
    else
        ((float *)(f->arena.mem + at))[index] = (float)v;
}

/* NaN and infinities among A's or B's elements are refused; in their padding
 * they are no concern. */
static void non_finite(fixture *f)
{
    const double specials[] = {NAN, INFINITY, -INFINITY};
    for (size_t s = 0; s < COUNT(specials); s++) {
        const size_t at_a[] = {0, (M - 1) * LDA + K - 1, 1 * LDA + 2};
        const size_t at_b[] = {0, (K - 1) * LDB + N - 1, 2 * LDB + 1};
        char what[64];
        for (size_t e = 0; e < COUNT(at_a); e++) {
            snprintf(what, sizeof what, "%g in A at %zu", specials[s], at_a[e]);
            store(f, AT_A, at_a[e], specials[s]);
            REFUSED(f, what, (void)0); /* restores the arena afterwards */
            snprintf(what, sizeof what, "%g in B at %zu", specials[s], at_b[e]);
            store(f, AT_B, at_b[e], specials[s]);
            REFUSED(f, what, (void)0);
        }
        for (size_t i = 0; i < M; i++)
            store(f, AT_A, i * LDA + K, specials[s]);
        for (size_t d = 0; d < K; d++)
            store(f, AT_B, d * LDB + N + 1, specials[s]);
        ACCEPTED(f, "NaN and infinities in the padding", (void)0);
    }
}

static void empty_products(fixture *f)
{
    ACCEPTED(f, "m 0", c.m = 0);
    ACCEPTED(f, "n 0", c.n = 0);
    ACCEPTED(f, "m 0, all NULL", c.m = 0; c.a = c.b = NULL; c.c = NULL);
    ACCEPTED(f, "n 0, all NULL", c.n = 0; c.a = c.b = NULL; c.c = NULL);
    /* "whatever the pointers and strides": only qmm_i8_i32 is said to check
     * its leading dimensions first. */
    ACCEPTED(f, "m 0, leading dimensions 0", c.m = 0; c.lda = c.ldb = c.ldc = 0);
    ACCEPTED(f, "n 0, lda 0", c.n = 0; c.lda = 0);
    /* k == 0 writes zeros; A and B may be NULL. */
    const size_t elem = f->c.is_f64 ? 8 : 4;
    const char *name = f->c.is_f64 ? "dgemm" : "sgemm";
    gemm_call c = f->c;
    c.k = c.lda = 0;
    c.a = c.b = NULL;
    qmm_status st = run_gemm(&c);
    CHECK(st == QMM_OK, "%s: k 0: %s", name, qmm_status_str(st));
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < LDC; j++) {
            const size_t at = AT_C + (i * LDC + j) * elem;
            if (j < N)
                CHECK(element_value(f->arena.mem + at, 0, elem) == 0.0, "%s: k 0: C(%zu,%zu) = %g",
                      name, i, j, element_value(f->arena.mem + at, 0, elem));
            else
                CHECK(memcmp(f->arena.mem + at, f->arena.initial + at, elem) == 0,
                      "%s: k 0: wrote C's padding at (%zu,%zu)", name, i, j);
        }
    test_arena_restore(&f->arena);
    test_checks++;
}

static void bad_input(void)
{
    qmm_set_num_threads(2);
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        fixture f = fixture_new(is_f64);
        const size_t elem = is_f64 ? 8 : 4;
        unsigned char *a = f.arena.mem + AT_A, *b = f.arena.mem + AT_B;
        REFUSED(&f, "A NULL", c.a = NULL);
        REFUSED(&f, "B NULL", c.b = NULL);
        REFUSED(&f, "C NULL", c.c = NULL);
        REFUSED(&f, "lda < k", c.lda = K - 1);
        REFUSED(&f, "ldb < n", c.ldb = N - 1);
        REFUSED(&f, "ldc < n", c.ldc = N - 1);
        REFUSED(&f, "C on A", c.c = a);
        REFUSED(&f, "C from A's last element", c.c = a + ((M - 1) * LDA + K - 1) * elem);
        REFUSED(&f, "C ending on B's first element", c.c = b - ((M - 1) * LDC + N - 1) * elem);
        REFUSED(&f, "C on B, one element in", c.c = b + elem);
        REFUSED(&f, "C from B's last row", c.c = b + (K - 1) * LDB * elem);
        REFUSED(&f, "per 7", c.g = (qmm_per)7);
        REFUSED(&f, "per QMM_PER_NONE", c.g = QMM_PER_NONE);
        REFUSED(&f, "per QMM_PER_ROW", c.g = QMM_PER_ROW);
        REFUSED(&f, "per QMM_PER_COL", c.g = QMM_PER_COL);
        if (is_f64) {
            REFUSED(&f, "slices 0", c.slices = 0);
            REFUSED(&f, "slices QMM_MAX_SLICES + 1", c.slices = QMM_MAX_SLICES + 1);
            REFUSED(&f, "slices UINT_MAX", c.slices = UINT_MAX);
            ACCEPTED(&f, "slices QMM_MAX_SLICES", c.slices = QMM_MAX_SLICES);
            ACCEPTED(&f, "slices 1", c.slices = 1);
        }
        ACCEPTED(&f, "per matrix", c.g = QMM_PER_MATRIX);
        non_finite(&f);
        empty_products(&f);
        test_arena_free(&f.arena);
    }
}

/* ---- every kernel ----------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    /* "test_float_gemm KERNEL": the suite alone. Else each kernel this CPU
     * supports forced in a child of its own, before this process makes a
     * product, then the rest here. */
    int rc = test_reference_start(argc, argv, "test_float_gemm", suite, NULL);
    if (rc >= 0)
        return rc;
    bad_input();
    suite();
    accuracy();
    return test_finish("test_float_gemm", test_checks);
}
