#include "crt.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../compute/job.h"
#include "../compute/ranges.h"
#include "../dispatch/choose.h"
#include "../output/epilogue.h"
#include "../platform/log.h"
#include "crt_moduli.h"
#include "float_gemm.h"

/* A' has at most this many bits, so that round_whole below is exact
 * (|x| < 2^52) and a double holds every A' and its residues' quotients
 * (p round(A' / p) < 2^53). */
enum { MOST_BITS = 52 };

/* x rounded to an integer, ties to even, for |x| < 2^52: |x| + 2^52 has
 * units of 1, so the addition rounds, and the subtraction is exact; a form
 * the compiler vectorizes (rint is a call without SSE4.1). */
static inline double round_whole(double x)
{
    return copysign((fabs(x) + 0x1p52) - 0x1p52, x);
}

/* An element of a float or double operand, as a double (exact). */
static inline double element(qmm_crt_type type, const void *x, size_t at)
{
    return type == QMM_CRT_F64 ? ((const double *)x)[at] : (double)((const float *)x)[at];
}

/* 2^e for |e| <= 1022: a normal double, built from its exponent bits. */
static inline double power_of_two(int e)
{
    const uint64_t bits = (uint64_t)(e + 1023) << 52;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* The scale 2^s of a line as two normal factors, so that any s from
 * -1100 to 1200 multiplies exactly (x * f1 * f2 rounds only where the
 * result is below 2^-1022, far below 1/2, where it rounds to 0 anyway). */
typedef struct scale2 {
    double f1, f2;
} scale2;

static scale2 scale_of(int s)
{
    const int half = s / 2;
    return (scale2){power_of_two(half), power_of_two(s - half)};
}

/* ---- exponents: the least E with |x| < 2^E over each line ------------------ */

/* frexp's exponent of a line's largest magnitude; 0 for a line of zeros. */
static int exponent_of(double most)
{
    int e = 0;
    if (most > 0)
        frexp(most, &e);
    return e;
}

typedef struct row_exponents {
    qmm_crt_type type;
    const void *x;
    size_t ld, cols;
    int *e;
    atomic_int *bad;  /* set when an element is NaN or infinite */
} row_exponents;

static void rows_of_a(void *context, size_t task, size_t lo, size_t hi)
{
    (void)task;
    const row_exponents *r = context;
    for (size_t i = lo; i < hi; i++) {
        double most = 0;
        int finite = 1;
        for (size_t p = 0; p < r->cols; p++) {
            const double v = fabs(element(r->type, r->x, i * r->ld + p));
            finite &= v <= 0x1.fffffffffffffp1023;
            most = v > most ? v : most;
        }
        if (!finite)
            atomic_store_explicit(r->bad, 1, memory_order_relaxed);
        r->e[i] = exponent_of(most);
    }
}

/* B's columns: each task takes a range of columns over all k rows. */
static void columns_of_b(void *context, size_t task, size_t lo, size_t hi)
{
    (void)task;
    const row_exponents *r = context;
    enum { CHUNK = 64 };
    for (size_t j0 = lo; j0 < hi; j0 += CHUNK) {
        const size_t len = hi - j0 < CHUNK ? hi - j0 : CHUNK;
        double most[CHUNK] = {0};
        int finite = 1;
        for (size_t p = 0; p < r->cols; p++)
            for (size_t jj = 0; jj < len; jj++) {
                const double v = fabs(element(r->type, r->x, p * r->ld + j0 + jj));
                finite &= v <= 0x1.fffffffffffffp1023;
                most[jj] = v > most[jj] ? v : most[jj];
            }
        if (!finite)
            atomic_store_explicit(r->bad, 1, memory_order_relaxed);
        for (size_t jj = 0; jj < len; jj++)
            r->e[j0 + jj] = exponent_of(most[jj]);
    }
}

/* ---- residues: A' and B' modulo every p, as int8 -------------------------- */

typedef struct residues {
    qmm_crt_type type;
    const void *x;
    size_t ld, rows, cols;
    const scale2 *row_scale;   /* A: per row; NULL for B */
    const scale2 *col_scale;   /* B: per column; NULL for A */
    const qmm_crt_moduli *mod;
    int8_t *out;               /* modulus t's rows x cols at out + t * plane, rows cols apart */
    size_t plane;
} residues;

enum { RUN = 256 };  /* elements of a row scaled at once, on the stack */

/* The symmetric residue of x modulo p, from x - p round(x / p) (exact:
 * x and p q are integers below 2^53), which is within p of it. */
static inline double symmetric_residue(double x, double p, double inv)
{
    const double half = (p - 1) / 2;
    double r = x - p * round_whole(x * inv);
    r -= r > half ? p : 0;
    r += r < -half ? p : 0;
    return r;
}

/* x' = round(x * 2^s) for a run of a row, then its symmetric residue modulo
 * each p (|r| <= 127). */
static void residue_rows(void *context, size_t task, size_t lo, size_t hi)
{
    (void)task;
    const residues *r = context;
    double v[RUN];
    for (size_t i = lo; i < hi; i++)
        for (size_t j0 = 0; j0 < r->cols; j0 += RUN) {
            const size_t len = r->cols - j0 < RUN ? r->cols - j0 : RUN;
            const size_t at = i * r->ld + j0;
            if (r->row_scale != NULL) {
                const scale2 s = r->row_scale[i];
                for (size_t jj = 0; jj < len; jj++)
                    v[jj] = round_whole(element(r->type, r->x, at + jj) * s.f1 * s.f2);
            } else {
                const scale2 *s = r->col_scale + j0;
                for (size_t jj = 0; jj < len; jj++)
                    v[jj] = round_whole(element(r->type, r->x, at + jj) * s[jj].f1 * s[jj].f2);
            }
            for (unsigned t = 0; t < r->mod->count; t++) {
                const double p = r->mod->p[t], inv = r->mod->inv_p[t];
                int8_t *out = r->out + t * r->plane + i * r->cols + j0;
                for (size_t jj = 0; jj < len; jj++)
                    out[jj] = (int8_t)symmetric_residue(v[jj], p, inv);
            }
        }
}

/* ---- the products' residues ---------------------------------------------- */

/* The symmetric residues of exact int64 sums (a product deeper than
 * QMM_EXACT_DEPTH, whose sums are below 2^53 for any k a size_t holds in
 * memory). */
typedef struct deep_residues {
    const int64_t *s;
    int8_t *out;
    size_t n;
    double p, inv;
} deep_residues;

static void deep_residue_rows(void *context, size_t task, size_t lo, size_t hi)
{
    (void)task;
    const deep_residues *d = context;
    for (size_t at = lo * d->n; at < hi * d->n; at++)
        d->out[at] = (int8_t)symmetric_residue((double)d->s[at], d->p, d->inv);
}

/* C_t = A_t.B_t modulo p as int8 (m x n, dense): the int8 product's stage
 * keeps the residues while each tile is in cache; a deeper product than
 * int32 holds is summed in int64 first. */
static qmm_status residue_product(const qmm_kernel *kern, size_t m, size_t n, size_t k,
                                  const int8_t *a, const int8_t *b, int32_t p, double inv,
                                  int8_t *c, int32_t *s32, int64_t *s64)
{
    if (k > QMM_EXACT_DEPTH) {
        qmm_status st = qmm_exact_sums(m, n, k, a, k, b, n, s32, s64);
        if (st == QMM_OK) {
            deep_residues d = {s64, c, n, p, inv};
            qmm_ranges_for(m, (double)n, deep_residue_rows, &d);
        }
        return st;
    }
    qmm_epilogue e = {.tile = qmm_epilogue_pick(), .type = QMM_TYPE_I8, .c = c,
                      .rs = (ptrdiff_t)n, .cs = 1, .modulus = p};
    qmm_job job = {.kern = kern, .m = m, .n = n, .k = k, .a = a, .rsa = (ptrdiff_t)k, .csa = 1,
                   .b = b, .rsb = (ptrdiff_t)n, .csb = 1, .epi = &e};
    return qmm_job_run(&job);
}

/* ---- A'B' from its residues, scaled back --------------------------------- */

typedef struct rebuild {
    const qmm_crt_moduli *mod;
    const int8_t *res;        /* modulus t's m x n residues at res + t * plane */
    size_t plane, n, ldc;
    const int *row_exp, *col_exp;   /* C(i,j) = X(i,j) * 2^(row_exp(i) + col_exp(j)) */
    int col_min, col_max;
    qmm_crt_type type;
    void *c;
} rebuild;

enum { COLS = 64 };  /* columns rebuilt at once, their sums on the stack */

static void rebuild_rows(void *context, size_t task, size_t lo, size_t hi)
{
    (void)task;
    const rebuild *r = context;
    const qmm_crt_moduli *mod = r->mod;
    double t1[COLS], t2[COLS], x[COLS];
    for (size_t i = lo; i < hi; i++) {
        const int e_lo = r->row_exp[i] + r->col_min, e_hi = r->row_exp[i] + r->col_max;
        const int fast = e_lo >= -1022 && e_hi <= 1022;
        for (size_t j0 = 0; j0 < r->n; j0 += COLS) {
            const size_t len = r->n - j0 < COLS ? r->n - j0 : COLS;
            for (size_t jj = 0; jj < len; jj++)
                t1[jj] = t2[jj] = 0;
            /* sum_t c_t f1_t exactly, sum_t c_t f2_t rounded in t's order. */
            for (unsigned t = 0; t < mod->count; t++) {
                const int8_t *c = r->res + t * r->plane + i * r->n + j0;
                const double f1 = mod->f1[t], f2 = mod->f2[t];
                for (size_t jj = 0; jj < len; jj++) {
                    t1[jj] += c[jj] * f1;
                    t2[jj] += c[jj] * f2;
                }
            }
            for (size_t jj = 0; jj < len; jj++) {
                double frac = (t1[jj] - round_whole(t1[jj])) + t2[jj];
                frac -= round_whole(frac);
                x[jj] = frac * mod->big_hi + frac * mod->big_lo;
            }
            const int *ce = r->col_exp + j0;
            const int ei = r->row_exp[i];
            if (fast)
                for (size_t jj = 0; jj < len; jj++)
                    x[jj] *= power_of_two(ei + ce[jj]);
            else
                for (size_t jj = 0; jj < len; jj++)
                    x[jj] = ldexp(x[jj], ei + ce[jj]);
            if (r->type == QMM_CRT_F64) {
                memcpy((double *)r->c + i * r->ldc + j0, x, len * sizeof *x);
            } else {
                float *out = (float *)r->c + i * r->ldc + j0;
                for (size_t jj = 0; jj < len; jj++)
                    out[jj] = (float)x[jj];
            }
        }
    }
}

/* ---- the call ------------------------------------------------------------ */

/* ceil(log2 k), k >= 1. */
static int ceil_log2(size_t k)
{
    int b = 0;
    while (b < 64 && ((size_t)1 << b) < k)
        b++;
    return b;
}

/* The fewest moduli whose P holds A'B' at depth k with one bit per side. */
static unsigned fewest_moduli(size_t k)
{
    qmm_crt_moduli mod;
    for (unsigned count = 1; count < QMM_CRT_MAX_MODULI; count++) {
        qmm_crt_moduli_init(count, &mod);
        if (mod.bits - 2 - ceil_log2(k) >= 2)
            return count;
    }
    return QMM_CRT_MAX_MODULI;
}

qmm_status qmm_crt_gemm(qmm_crt_type type, size_t m, size_t n, size_t k, const void *a,
                        size_t lda, const void *b, size_t ldb, void *c, size_t ldc,
                        unsigned moduli)
{
    const size_t elem = type == QMM_CRT_F64 ? sizeof(double) : sizeof(float);
    qmm_status st =
        qmm_float_gemm_check(m, n, k, a, lda, b, ldb, c, ldc, elem, QMM_PER_CHANNEL);
    if (st != QMM_OK || m == 0 || n == 0)
        return st;
    if (moduli < 1 || moduli > QMM_CRT_MAX_MODULI) {
        qmm_log("invalid argument: moduli = %u, need 1 to %d", moduli, QMM_CRT_MAX_MODULI);
        return QMM_ERR_INVALID_ARG;
    }
    if (k == 0) {
        qmm_float_gemm_zero(m, n, c, ldc, elem);
        return QMM_OK;
    }
    qmm_crt_moduli mod;
    qmm_crt_moduli_init(moduli, &mod);
    /* sum |A'||B'| < k 2^(alpha + beta) <= P / 2. */
    int bits = mod.bits - 2 - ceil_log2(k);
    if (bits < 2) {
        qmm_log("invalid argument: %u moduli cannot hold products of depth %zu; need at "
                "least %u", moduli, k, fewest_moduli(k));
        return QMM_ERR_INVALID_ARG;
    }
    /* Moduli past those that hold 2 MOST_BITS would add time, and a P far
     * above X would cost the rebuilt X its low bits: left out. */
    while (moduli > 1) {
        qmm_crt_moduli fewer;
        qmm_crt_moduli_init(moduli - 1, &fewer);
        const int fewer_bits = fewer.bits - 2 - ceil_log2(k);
        if (fewer_bits < 2 * MOST_BITS)
            break;
        mod = fewer;
        bits = fewer_bits;
        moduli--;
    }
    const int alpha = bits / 2 < MOST_BITS ? bits / 2 : MOST_BITS;
    const int beta = bits - alpha < MOST_BITS ? bits - alpha : MOST_BITS;
    const int deep = k > QMM_EXACT_DEPTH;
    /* m * k, k * n and m * n are spans of floats at least: no overflow. */
    const size_t sizes[] = {
        m * sizeof(int), n * sizeof(int), m * sizeof(scale2), n * sizeof(scale2),
        moduli * m * k, moduli * k * n, moduli * m * n,
        deep ? m * n * sizeof(int32_t) : 0, deep ? m * n * sizeof(int64_t) : 0};
    enum { EA, EB, SA, SB, RA, RB, RC, S32, S64, PARTS };
    void *part[PARTS];
    void *mem = qmm_float_gemm_buffers(PARTS, sizes, part);
    if (mem == NULL)
        return QMM_ERR_NO_MEMORY;
    int *ea = part[EA], *eb = part[EB];
    atomic_int bad = 0;
    row_exponents ra = {type, a, lda, k, ea, &bad}, rb = {type, b, ldb, k, eb, &bad};
    qmm_ranges_for(m, (double)k, rows_of_a, &ra);
    qmm_ranges_for(n, (double)k, columns_of_b, &rb);
    if (atomic_load_explicit(&bad, memory_order_relaxed)) {
        qmm_log("invalid argument: A or B has a NaN or infinite element");
        free(mem);
        return QMM_ERR_INVALID_ARG;
    }
    /* Row i of A times 2^(alpha - E(i)), column j of B times 2^(beta - F(j));
     * C(i, j) = X * 2^(E(i) - alpha + F(j) - beta). */
    scale2 *sa = part[SA], *sb = part[SB];
    int col_min = 0, col_max = 0;
    for (size_t i = 0; i < m; i++) {
        sa[i] = scale_of(alpha - ea[i]);
        ea[i] -= alpha;
    }
    for (size_t j = 0; j < n; j++) {
        sb[j] = scale_of(beta - eb[j]);
        eb[j] -= beta;
        col_min = j == 0 || eb[j] < col_min ? eb[j] : col_min;
        col_max = j == 0 || eb[j] > col_max ? eb[j] : col_max;
    }
    residues res_a = {type, a, lda, m, k, sa, NULL, &mod, part[RA], m * k};
    residues res_b = {type, b, ldb, k, n, NULL, sb, &mod, part[RB], k * n};
    qmm_ranges_for(m, (double)k * moduli, residue_rows, &res_a);
    qmm_ranges_for(k, (double)n * moduli, residue_rows, &res_b);
    const qmm_kernel *kern = NULL;
    st = qmm_choose_kernel(m, n, &kern);
    const int8_t *res_ra = part[RA], *res_rb = part[RB];
    int8_t *rc = part[RC];
    for (unsigned t = 0; t < moduli && st == QMM_OK; t++)
        st = residue_product(kern, m, n, k, res_ra + t * m * k, res_rb + t * k * n, mod.p[t],
                             mod.inv_p[t], rc + t * m * n, part[S32], part[S64]);
    if (st == QMM_OK) {
        rebuild r = {&mod, rc, m * n, n, ldc, ea, eb, col_min, col_max, type, c};
        qmm_ranges_for(m, (double)n * moduli, rebuild_rows, &r);
    }
    free(mem);
    return st;
}

qmm_status qmm_dgemm_crt(size_t m, size_t n, size_t k, const double *a, size_t lda,
                         const double *b, size_t ldb, double *c, size_t ldc, unsigned moduli)
{
    return qmm_crt_gemm(QMM_CRT_F64, m, n, k, a, lda, b, ldb, c, ldc, moduli);
}

qmm_status qmm_sgemm_crt(size_t m, size_t n, size_t k, const float *a, size_t lda,
                         const float *b, size_t ldb, float *c, size_t ldc, unsigned moduli)
{
    return qmm_crt_gemm(QMM_CRT_F32, m, n, k, a, lda, b, ldb, c, ldc, moduli);
}
