/*
 * qmm_dgemm_crt and qmm_sgemm_crt (the Chinese remainder theorem on int8
 * products) against a reference written from docs/float_gemm.md's
 * definition alone, bit for bit: A'B' in 128-bit integers, its residues, and
 * the rebuild in double one operation at a time. Odd shapes with padded
 * leading dimensions (the padding NaN), both types, every modulus count,
 * lines of zeros, values spread over many powers of two, results past
 * double's normal range, products deeper than int32 sums hold; every invalid
 * argument, C untouched.
 *
 * The suite runs with each kernel this CPU supports forced through
 * QMM_KERNEL in a child process of its own, then with the selector's
 * kernels; each product on 1 to 4 threads, split however small it is. The
 * references, the same for every kernel, are computed once, before the
 * children fork. Products of several blocks of A's rows and strips of B's
 * columns are kept small by smaller blocks (qmm_crt_set_block_bytes).
 *
 * Every instance of the passes this CPU runs (float_gemm/crt_passes.h),
 * beside the one the library picks: residues and rebuilds of runs of every
 * length up to a few vectors past the instances' blocks, against the steps
 * the header defines.
 *
 * Accuracy, against double-double dot products of the same inputs: the
 * error falls by at least 10x per added modulus until double's own, and
 * QMM_CRT_FP64_MODULI (QMM_CRT_FP32_MODULI for float) give a native GEMM's.
 *
 *   test_float_crt           everything
 *   test_float_crt KERNEL    the suite alone, with QMM_KERNEL=KERNEL
 */
#include "support/reference_test.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "float_gemm/crt.h"
#include "float_gemm/crt_passes.h"
#include "platform/cpu.h"
#include "support/bad_call.h"

/* qmm.h's p_1 .. p_16. */
static const int32_t moduli[QMM_CRT_MAX_MODULI] = {255, 253, 251, 247, 241, 239, 233, 229,
                                                   227, 223, 217, 211, 199, 197, 193, 191};

/* ---- products ------------------------------------------------------------------ */

/* C[m x n] = A[m x k] . B[k x n], the values dense (already floats for the
 * float call), the operands row-major with leading dimensions padded by pad
 * NaN elements. */
typedef struct product {
    size_t m, n, k, pad;
    int is_f64;
    double *a, *b;
} product;

static product product_new(size_t m, size_t n, size_t k, size_t pad, int is_f64)
{
    product p = {m, n, k, pad, is_f64, malloc(m * k * sizeof(double) + 1),
                 malloc(k * n * sizeof(double) + 1)};
    if (p.a == NULL || p.b == NULL)
        abort();
    return p;
}

static void product_free(product *p)
{
    free(p->a);
    free(p->b);
}

/* Values of magnitude 2^-spread to 2^spread (uniform when spread is 0),
 * rounded to float for the float call. */
static void fill(product *p, int spread)
{
    for (size_t e = 0; e < p->m * p->k + p->k * p->n; e++) {
        double v = test_rand_signed();
        if (spread != 0)
            v = ldexp(v, (int)test_rand_below(2 * (unsigned)spread + 1) - spread);
        if (!p->is_f64)
            v = (float)v;
        *(e < p->m * p->k ? &p->a[e] : &p->b[e - p->m * p->k]) = v;
    }
}

/* A dense rows x cols operand as the call takes it: ld = cols + pad, the
 * padding NaN. */
static void *operand_new(const double *dense, size_t rows, size_t cols, size_t ld, int is_f64)
{
    const size_t elem = is_f64 ? sizeof(double) : sizeof(float);
    unsigned char *x = malloc(rows * ld * elem + elem);
    if (x == NULL)
        abort();
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < ld; c++) {
            const double v = c < cols ? dense[r * cols + c] : NAN;
            if (is_f64)
                ((double *)x)[r * ld + c] = v;
            else
                ((float *)x)[r * ld + c] = (float)v;
        }
    return x;
}

/* ---- the reference: qmm.h's definition ------------------------------------------ */

typedef __int128 i128;

static int ceil_log2(size_t k)
{
    int b = 0;
    while (((size_t)1 << b) < k)
        b++;
    return b;
}

static unsigned __int128 product_of(unsigned count)
{
    unsigned __int128 big = 1;
    for (unsigned t = 0; t < count; t++)
        big *= (unsigned)moduli[t];
    return big;
}

static int floor_log2(unsigned __int128 x)
{
    int b = 0;
    while (x >> (b + 1) != 0)
        b++;
    return b;
}

static int bits_of(unsigned count, size_t k)
{
    return floor_log2(product_of(count)) - 2 - ceil_log2(k);
}

/* The header's N after lowering; 0 when `count` cannot hold depth k. */
static unsigned used_moduli(unsigned count, size_t k)
{
    if (bits_of(count, k) < 2)
        return 0;
    while (count > 1 && bits_of(count - 1, k) >= 104)
        count--;
    return count;
}

/* E: the least E with |x| < 2^E over the line, 0 for zeros. */
static int line_exponent(const double *x, size_t count, size_t step)
{
    double most = 0;
    for (size_t e = 0; e < count; e++)
        most = fmax(most, fabs(x[e * step]));
    int exp = 0;
    if (most > 0)
        frexp(most, &exp);
    return exp;
}

static int32_t symmetric_mod(i128 x, int32_t p)
{
    int32_t r = (int32_t)(x % p);
    if (r > (p - 1) / 2)
        r -= p;
    if (r < -(p - 1) / 2)
        r += p;
    return r;
}

static int32_t inverse_mod(int32_t x, int32_t p)
{
    for (int32_t y = 1; y < p; y++)
        if ((int64_t)x * y % p == 1)
            return y;
    return 0;
}

/* C as the header defines it, dense m x n (a float result held as double). */
static void reference(const product *p, unsigned count, double *c)
{
    const size_t m = p->m, n = p->n, k = p->k;
    const unsigned N = used_moduli(count, k);
    const int bits = bits_of(N, k);
    const int alpha = bits / 2 < 52 ? bits / 2 : 52, beta = bits - bits / 2 < 52 ? bits - bits / 2 : 52;
    const unsigned __int128 big = product_of(N);
    const double p_hi = (double)big, p_lo = (double)((i128)big - (i128)p_hi);
    double f1[QMM_CRT_MAX_MODULI], f2[QMM_CRT_MAX_MODULI];
    for (unsigned t = 0; t < N; t++) {
        const int32_t pt = moduli[t];
        const int32_t y = inverse_mod((int32_t)((big / (unsigned)pt) % (unsigned)pt), pt);
        const int64_t scaled = (int64_t)y << 40;
        const int64_t whole = (int64_t)llround((double)scaled / pt);
        f1[t] = ldexp((double)whole, -40);
        f2[t] = ldexp((double)(scaled - whole * pt) / pt, -40);
    }
    int *e = malloc(m * sizeof *e), *f = malloc(n * sizeof *f);
    int64_t *a2 = malloc(m * k * sizeof *a2), *b2 = malloc(k * n * sizeof *b2);
    for (size_t i = 0; i < m; i++) {
        e[i] = line_exponent(p->a + i * k, k, 1);
        for (size_t q = 0; q < k; q++)
            a2[i * k + q] = (int64_t)nearbyint(ldexp(p->a[i * k + q], alpha - e[i]));
    }
    for (size_t j = 0; j < n; j++) {
        f[j] = line_exponent(p->b + j, k, n);
        for (size_t q = 0; q < k; q++)
            b2[q * n + j] = (int64_t)nearbyint(ldexp(p->b[q * n + j], beta - f[j]));
    }
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            i128 x = 0;
            for (size_t q = 0; q < k; q++)
                x += (i128)a2[i * k + q] * b2[q * n + j];
            double t1 = 0, t2 = 0;
            for (unsigned t = 0; t < N; t++) {
                const int32_t r = symmetric_mod(x, moduli[t]);
                t1 = t1 + r * f1[t];
                t2 = t2 + r * f2[t];
            }
            double v = (t1 - nearbyint(t1)) + t2;
            v = v - nearbyint(v);
            const double value = ldexp(v * p_hi + v * p_lo, e[i] - alpha + f[j] - beta);
            c[i * n + j] = p->is_f64 ? value : (double)(float)value;
        }
    free(e);
    free(f);
    free(a2);
    free(b2);
}

/* ---- the library, against it ----------------------------------------------------- */

static qmm_status library(const product *p, unsigned count, const void *a, const void *b,
                          void *c, size_t ldc)
{
    const size_t lda = p->k + p->pad, ldb = p->n + p->pad;
    if (p->is_f64)
        return qmm_dgemm_crt(p->m, p->n, p->k, a, lda, b, ldb, c, ldc, count);
    return qmm_sgemm_crt(p->m, p->n, p->k, a, lda, b, ldb, c, ldc, count);
}

static double c_at(const void *c, size_t at, int is_f64)
{
    return is_f64 ? ((const double *)c)[at] : ((const float *)c)[at];
}

/* The suite's references in the order its checks ask for them: computed by
 * a first pass over the suite that only does that (preparing), before any
 * product, then read by every run of the suite, each kernel's child
 * inheriting them. */
static struct {
    double **c;
    size_t count, next;
    int preparing;
} refs;

static size_t turn;

/* The call on 1 to 4 threads (on 1 and one other when some), C's padding
 * untouched, every element's bits the reference's. */
static void check(const product *p, unsigned count, const char *data, int some)
{
    const size_t elem = p->is_f64 ? sizeof(double) : sizeof(float), ldc = p->n + p->pad;
    if (refs.preparing) {
        double *ref = malloc(p->m * p->n * sizeof *ref + 1);
        reference(p, count, ref);
        refs.c = realloc(refs.c, (refs.count + 1) * sizeof *refs.c);
        refs.c[refs.count++] = ref;
        return;
    }
    CHECK(refs.next < refs.count, "the suite made more checks than it prepared references");
    if (refs.next == refs.count)
        return;
    const double *ref = refs.c[refs.next++];
    void *a = operand_new(p->a, p->m, p->k, p->k + p->pad, p->is_f64);
    void *b = operand_new(p->b, p->k, p->n, p->n + p->pad, p->is_f64);
    unsigned char *c = malloc(p->m * ldc * elem + 1);
    size_t counts[TEST_MAX_THREADS];
    const size_t runs = test_thread_counts(some, turn++, counts);
    for (size_t r = 0; r < runs; r++) {
        memset(c, 0x5a, p->m * ldc * elem);
        qmm_set_num_threads(counts[r]);
        const qmm_status st = library(p, count, a, b, c, ldc);
        char label[256];
        snprintf(label, sizeof label, "%s %zux%zux%zu pad %zu, %s, %u moduli, %zu threads, %s",
                 p->is_f64 ? "qmm_dgemm_crt" : "qmm_sgemm_crt", p->m, p->k, p->n, p->pad, data,
                 count, counts[r], test_kernel_said());
        CHECK(st == QMM_OK, "%s: %s", label, qmm_status_str(st));
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < p->m; i++)
            for (size_t j = 0; j < ldc; j++) {
                const size_t at = i * ldc + j;
                const int differs =
                    j < p->n ? memcmp(&(double){c_at(c, at, p->is_f64)}, &ref[i * p->n + j],
                                      sizeof(double)) != 0
                             : c[at * elem] != 0x5a;
                if (differs && bad++ == 0)
                    first = at;
            }
        CHECK(st != QMM_OK || bad == 0,
              "%s: %zu elements differ, first C(%zu,%zu) = %.17g, want %.17g", label, bad,
              first / ldc, first % ldc, c_at(c, first, p->is_f64),
              first % ldc < p->n ? ref[first / ldc * p->n + first % ldc] : 0.0);
        test_checks++;
    }
    qmm_set_num_threads(0);
    free(a);
    free(b);
    free(c);
}

/* Each shape, both types, on the fewest moduli its depth allows, 9, and
 * all 16. */
static void shapes(void)
{
    static const size_t sizes[][4] = {
        {1, 1, 1, 0}, {1, 7, 3, 1}, {5, 1, 9, 2}, {13, 17, 31, 3}, {40, 35, 100, 0},
        {64, 64, 64, 1}, {33, 65, 257, 0}, {70, 45, 128, 0}, {66, 40, 300, 2},
        /* With blocks of 64 KiB, 16 moduli's residues of 60 rows of 100 take
         * two blocks of A's rows, 9 moduli's one (float_gemm/crt.c). */
        {60, 20, 100, 1},
        /* With strips of 32 KiB, 9 and 16 moduli's residues of 128 depths
         * fill a strip of B's columns at 24 and 16 columns (8-column
         * kernels; more for wider ones): strips, the last partial, on
         * several tasks. */
        {40, 128, 136, 1},
    };
    qmm_crt_set_block_bytes(64 << 10, 32 << 10);
    for (size_t s = 0; s < COUNT(sizes); s++)
        for (int is_f64 = 0; is_f64 < 2; is_f64++) {
            product p = product_new(sizes[s][0], sizes[s][2], sizes[s][1], sizes[s][3], is_f64);
            fill(&p, 0);
            unsigned fewest = 1;
            while (used_moduli(fewest, p.k) == 0)
                fewest++;
            const unsigned counts[] = {fewest, 9, QMM_CRT_MAX_MODULI};
            for (size_t c = 0; c < COUNT(counts); c++)
                check(&p, counts[c], "uniform", c != COUNT(counts) - 1);
            product_free(&p);
        }
    qmm_crt_set_block_bytes(0, 0);
}

/* Values over 2^-60 .. 2^60, a row and a column of zeros, lines at the ends
 * of double's range (C past its normal range: subnormal and infinite
 * results, the scaling's two ways), subnormal inputs. */
static void spread_values(void)
{
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        product p = product_new(9, 11, 37, 1, is_f64);
        fill(&p, 60);
        check(&p, QMM_CRT_MAX_MODULI, "spread 2^+-60", 1);
        check(&p, 7, "spread 2^+-60", 1);
        for (size_t q = 0; q < p.k; q++) {
            p.a[q] = 0;                                  /* row 0 */
            p.b[q * p.n + 1] = 0;                        /* column 1 */
            p.a[1 * p.k + q] = is_f64 ? 0x1p1000 * test_rand_signed() : 0x1p120 * (float)test_rand_signed();
            p.b[q * p.n + 2] = is_f64 ? 0x1p1000 * test_rand_signed() : 0x1p100 * (float)test_rand_signed();
            p.a[2 * p.k + q] = is_f64 ? 0x1p-1060 * (double)(int)(test_rand_signed() * 1000)
                                      : 0x1p-140f * (float)(int)(test_rand_signed() * 100);
            p.b[q * p.n + 3] = is_f64 ? 0x1p-1000 * test_rand_signed() : 0x1p-100 * (float)test_rand_signed();
        }
        check(&p, QMM_CRT_MAX_MODULI, "zeros, huge, tiny and subnormal lines", 1);
        check(&p, 5, "zeros, huge, tiny and subnormal lines", 1);
        product_free(&p);
    }
}

/* Deeper than int32 sums of int8 residues hold: the int64 path. */
static void deep(void)
{
    product p = product_new(2, 3, QMM_EXACT_DEPTH + 1000, 0, 1);
    fill(&p, 0);
    check(&p, QMM_CRT_MAX_MODULI, "deep", 1);
    check(&p, 3, "deep", 1);
    product_free(&p);
}

static void suite(void)
{
    refs.next = 0;
    test_seed(0xC47);
    shapes();
    spread_values();
    deep();
}

/* ---- invalid arguments ------------------------------------------------------------- */

typedef struct call {
    size_t m, n, k, lda, ldb, ldc;
    const void *a, *b;
    void *c;
    unsigned moduli;
} call;

static qmm_status run_call(const call *x, int is_f64)
{
    if (is_f64)
        return qmm_dgemm_crt(x->m, x->n, x->k, x->a, x->lda, x->b, x->ldb, x->c, x->ldc,
                             x->moduli);
    return qmm_sgemm_crt(x->m, x->n, x->k, x->a, x->lda, x->b, x->ldb, x->c, x->ldc, x->moduli);
}

enum { M = 3, N = 4, K = 5 };

/* Refused with QMM_ERR_INVALID_ARG and C's bytes (m x ldc at c_mem) as they were. */
static void refused(const call *x, int is_f64, unsigned char *c_mem, size_t c_bytes,
                    const char *what)
{
    memset(c_mem, 0x77, c_bytes);
    const qmm_status st = run_call(x, is_f64);
    size_t touched = 0;
    for (size_t e = 0; e < c_bytes; e++)
        touched += c_mem[e] != 0x77;
    CHECK(st == QMM_ERR_INVALID_ARG && touched == 0, "%s %s: %s, %zu bytes of C written",
          is_f64 ? "qmm_dgemm_crt" : "qmm_sgemm_crt", what, qmm_status_str(st), touched);
    test_checks++;
}

static void bad_input(void)
{
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        unsigned char a[M * K * 8], b[K * N * 8], c[M * N * 8];
        for (size_t e = 0; e < M * K; e++)
            is_f64 ? (void)(((double *)a)[e] = 1) : (void)(((float *)a)[e] = 1);
        for (size_t e = 0; e < K * N; e++)
            is_f64 ? (void)(((double *)b)[e] = 1) : (void)(((float *)b)[e] = 1);
        const call good = {M, N, K, K, N, N, a, b, c, QMM_CRT_FP64_MODULI};
#define REFUSED(what, ...)                                                                         \
    TEST_CHANGED(call x, good, refused(&x, is_f64, c, sizeof c, what), __VA_ARGS__)
        REFUSED("moduli 0", x.moduli = 0);
        REFUSED("moduli QMM_CRT_MAX_MODULI + 1", x.moduli = QMM_CRT_MAX_MODULI + 1);
        REFUSED("moduli UINT_MAX", x.moduli = UINT_MAX);
        REFUSED("1 modulus at k = 9", (x.moduli = 1, x.k = 9, x.lda = 9, x.b = b));
        REFUSED("A NULL", x.a = NULL);
        REFUSED("B NULL", x.b = NULL);
        REFUSED("C NULL", x.c = NULL);
        REFUSED("lda < k", x.lda = K - 1);
        REFUSED("ldb < n", x.ldb = N - 1);
        REFUSED("ldc < n", x.ldc = N - 1);
        REFUSED("C on B", x.c = b);
        unsigned char *bad_a = malloc(sizeof a), *bad_b = malloc(sizeof b);
        memcpy(bad_a, a, sizeof a);
        memcpy(bad_b, b, sizeof b);
        const double specials[] = {NAN, INFINITY, -INFINITY};
        for (size_t s = 0; s < COUNT(specials); s++) {
            const size_t at = 7 % (M * K);
            if (is_f64)
                ((double *)bad_a)[at] = specials[s];
            else
                ((float *)bad_a)[at] = (float)specials[s];
            REFUSED("a special value in A", x.a = bad_a);
            memcpy(bad_a, a, sizeof a);
            if (is_f64)
                ((double *)bad_b)[K * N - 1] = specials[s];
            else
                ((float *)bad_b)[K * N - 1] = (float)specials[s];
            REFUSED("a special value in B", x.b = bad_b);
            memcpy(bad_b, b, sizeof b);
        }
#undef REFUSED
        free(bad_a);
        free(bad_b);
        /* 1 modulus at k = 8, the most it holds: accepted and exact (A'B' = 8 2^2). */
        call x = good;
        x.moduli = 1;
        x.k = 8;
        x.lda = 8;
        unsigned char a8[M * 8 * 8], b8[8 * N * 8];
        for (size_t e = 0; e < M * 8; e++)
            is_f64 ? (void)(((double *)a8)[e] = 1) : (void)(((float *)a8)[e] = 1);
        for (size_t e = 0; e < 8 * N; e++)
            is_f64 ? (void)(((double *)b8)[e] = 1) : (void)(((float *)b8)[e] = 1);
        x.a = a8;
        x.b = b8;
        const qmm_status st = run_call(&x, is_f64);
        CHECK(st == QMM_OK && c_at(c, 0, is_f64) == 8 && c_at(c, M * N - 1, is_f64) == 8,
              "1 modulus at k = 8: %s, C(0,0) = %g", qmm_status_str(st), c_at(c, 0, is_f64));
        /* Empty products: nothing read; k == 0 writes zeros. */
        x = (call){0, N, K, K, N, N, NULL, NULL, NULL, 0};
        CHECK(run_call(&x, is_f64) == QMM_OK, "m == 0 refused");
        x = (call){M, N, 0, 0, N, N, NULL, NULL, c, QMM_CRT_FP64_MODULI};
        memset(c, 0x77, sizeof c);
        size_t nonzero = 0;
        const qmm_status empty = run_call(&x, is_f64);
        for (size_t e = 0; e < M * N; e++)
            nonzero += c_at(c, e, is_f64) != 0;
        CHECK(empty == QMM_OK && nonzero == 0, "k == 0: %s, %zu elements of C not zero",
              qmm_status_str(empty), nonzero);
        test_checks += 3;
    }
}

/* ---- accuracy ----------------------------------------------------------------------------- */

static void accuracy_of(int is_f64, unsigned target_count, double target)
{
    product p = product_new(48, 40, 1024, 0, is_f64);
    fill(&p, 0);
    void *a = operand_new(p.a, p.m, p.k, p.k, is_f64), *b = operand_new(p.b, p.k, p.n, p.n, is_f64);
    const size_t elem = is_f64 ? sizeof(double) : sizeof(float);
    void *c = malloc(p.m * p.n * elem);
    double *exact = malloc(p.m * p.n * sizeof *exact), norm = 0;
    for (size_t i = 0; i < p.m; i++)
        for (size_t j = 0; j < p.n; j++) {
            exact[i * p.n + j] = test_dot2(p.a + i * p.k, 1, p.b + j, p.n, p.k).hi;
            norm += exact[i * p.n + j] * exact[i * p.n + j];
        }
    /* Below this, the error is the result's own rounding. */
    const double floor_error = is_f64 ? 0x1p-52 : 0x1p-24;
    double before = 0;
    printf("%s, 48x1024x40 uniform, relative error by moduli:",
           is_f64 ? "qmm_dgemm_crt" : "qmm_sgemm_crt");
    for (unsigned count = 2; count <= QMM_CRT_MAX_MODULI; count++) {
        if (library(&p, count, a, b, c, p.n) != QMM_OK)
            continue;
        double err = 0;
        for (size_t e = 0; e < p.m * p.n; e++) {
            const double d = c_at(c, e, is_f64) - exact[e];
            err += d * d;
        }
        err = sqrt(err / norm);
        printf(" %u: %.2e", count, err);
        CHECK(before == 0 || err < floor_error || err <= before / 10,
              "%s: %u moduli give %.3e, %u gave %.3e: less than 10x better",
              is_f64 ? "qmm_dgemm_crt" : "qmm_sgemm_crt", count, err, count - 1, before);
        if (count == target_count)
            CHECK(err < target, "%s: %u moduli give %.3e, above %.1e",
                  is_f64 ? "qmm_dgemm_crt" : "qmm_sgemm_crt", count, err, target);
        before = err;
        test_checks++;
    }
    printf("\n");
    free(exact);
    free(a);
    free(b);
    free(c);
    product_free(&p);
}

static void accuracy(void)
{
    test_seed(0xACC);
    accuracy_of(1, QMM_CRT_FP64_MODULI, 1e-15);
    /* A native float GEMM of this depth: about 1e-7. */
    accuracy_of(0, QMM_CRT_FP32_MODULI, 2e-7);
}

/* ---- every kernel ----------------------------------------------------------------------------- */

/* ---- the passes' instances -------------------------------------------------- */

static const struct {
    const char *name;
    unsigned features;
    const qmm_crt_passes *passes;
} pass_instances[] = {
#if defined(__x86_64__)
    {"avx512", QMM_CPU_AVX512VNNI, &qmm_crt_passes_avx512},
    {"avx2", QMM_CPU_AVX2, &qmm_crt_passes_avx2},
#endif
    {"generic", 0, &qmm_crt_passes_generic},
};

enum { RUN_MOST = 300 };

static const size_t run_lengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 255, 256, 257, RUN_MOST};

/* Run x (floats or doubles) scaled by scale (one, or one per element) to
 * integers below 2^52 in magnitude, some exactly halfway, some zeros of
 * either sign. */
static void residue_inputs(int f64, int per_element, size_t len, void *x, qmm_crt_scale *scale)
{
    for (size_t j = 0; j < len; j++) {
        const size_t at = per_element ? j : 0;
        const int bits = 1 + (int)test_rand_below(51);  /* |x 2^s| < 2^bits */
        double v = test_rand_signed();
        if (test_rand_below(8) == 0)
            v = test_rand_below(2) ? 0.0 : -0.0;
        if (f64)
            ((double *)x)[j] = v;
        else
            ((float *)x)[j] = (float)v;
        if (at == j) {
            const int s = bits - (int)test_rand_below(2);  /* some values x.5 */
            scale[at] = (qmm_crt_scale){ldexp(1, s / 2), ldexp(1, s - s / 2)};
        }
    }
}

static void pass_residues(size_t ins, const qmm_crt_moduli *mod)
{
    static double x[RUN_MOST];
    static qmm_crt_scale scale[RUN_MOST];
    static int8_t out[QMM_CRT_MAX_MODULI * (RUN_MOST + 1)];
    size_t bad = 0;
    for (size_t l = 0; l < COUNT(run_lengths); l++)
        for (int f64 = 0; f64 < 2; f64++)
            for (int per_element = 0; per_element < 2; per_element++) {
                const size_t len = run_lengths[l], plane = len + 1;
                residue_inputs(f64, per_element, len, x, scale);
                memset(out, 0x55, sizeof out);
                pass_instances[ins].passes->residues(x, f64, scale, per_element, len, mod, out,
                                                     plane);
                for (size_t j = 0; j < len; j++) {
                    const qmm_crt_scale sc = scale[per_element ? j : 0];
                    const double e = f64 ? x[j] : ((const float *)(const void *)x)[j];
                    const double v = nearbyint(e * sc.f1 * sc.f2);
                    for (unsigned t = 0; t < mod->count; t++) {
                        const int32_t want = symmetric_mod((i128)v, mod->p[t]);
                        if (out[t * plane + j] != want && bad++ == 0)
                            test_fail(__FILE__, __LINE__,
                                      "passes %s: the residue of %.17g modulo %d is %d, want %d "
                                      "(run of %zu, %s, %s scale)",
                                      pass_instances[ins].name, v, mod->p[t], out[t * plane + j],
                                      want, len, f64 ? "double" : "float",
                                      per_element ? "per element" : "one");
                    }
                }
                for (unsigned t = 0; t < mod->count; t++)
                    if (out[t * plane + len] != 0x55 && bad++ == 0)
                        test_fail(__FILE__, __LINE__,
                                  "passes %s: the residues of a run of %zu wrote past it",
                                  pass_instances[ins].name, len);
                test_checks++;
            }
}

static void pass_rebuild(size_t ins, const qmm_crt_moduli *mod)
{
    static int8_t res[QMM_CRT_MAX_MODULI * RUN_MOST];
    static double got[RUN_MOST + 1], want[RUN_MOST];
    size_t bad = 0;
    for (size_t l = 0; l < COUNT(run_lengths); l++) {
        const size_t len = run_lengths[l], plane = len;
        for (unsigned t = 0; t < mod->count; t++)
            for (size_t j = 0; j < len; j++) {
                const int32_t half = (mod->p[t] - 1) / 2;
                res[t * plane + j] = (int8_t)((int32_t)test_rand_below((size_t)(2 * half + 1)) - half);
            }
        got[len] = 42;
        pass_instances[ins].passes->rebuild(res, plane, len, mod, got);
        for (size_t j = 0; j < len; j++) {
            double t1 = 0, t2 = 0;
            for (unsigned t = 0; t < mod->count; t++) {
                t1 = t1 + res[t * plane + j] * mod->f1[t];
                t2 = t2 + res[t * plane + j] * mod->f2[t];
            }
            double v = (t1 - nearbyint(t1)) + t2;
            v = v - nearbyint(v);
            want[j] = v * mod->big_hi + v * mod->big_lo;
        }
        if ((memcmp(got, want, len * sizeof *got) != 0 || got[len] != 42) && bad++ == 0)
            test_fail(__FILE__, __LINE__,
                      "passes %s: the rebuild of a run of %zu on %u moduli differs from the "
                      "header's steps",
                      pass_instances[ins].name, len, mod->count);
        test_checks++;
    }
}

static void passes_instances(void)
{
    for (size_t ins = 0; ins < COUNT(pass_instances); ins++) {
        if (!qmm_cpu_has(pass_instances[ins].features)) {
            printf("test_float_crt: the %s passes skipped: their features are not in effect "
                   "on this CPU\n",
                   pass_instances[ins].name);
            continue;
        }
        for (unsigned count = 1; count <= QMM_CRT_MAX_MODULI; count += 5) {
            pass_residues(ins, qmm_crt_moduli_of(count));
            pass_rebuild(ins, qmm_crt_moduli_of(count));
        }
    }
}

int main(int argc, char **argv)
{
    refs.preparing = 1;
    suite();
    refs.preparing = 0;
    int rc = test_reference_start(argc, argv, "test_float_crt", suite, NULL);
    if (rc >= 0)
        return rc;
    bad_input();
    passes_instances();
    suite();
    accuracy();
    return test_finish("test_float_crt", test_checks);
}
