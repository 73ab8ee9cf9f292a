/* qmm_dgemm_i8: double GEMM on int8 products of 7-bit slices (the Ozaki
 * scheme). The slice products of one level t (digit indices summing to t,
 * all of weight 2^-7t) run as one product: A's digits 1 .. t-1 side by side
 * in depth against B's digits t-1 .. 1, which is why A's row holds its
 * slices in increasing order and B's slices lie in decreasing order. The
 * levels are added in double from the smallest weight up. */
#include <math.h>
#include <stdlib.h>

#include "../compute/ranges.h"
#include "../platform/log.h"
#include "../quantize/split.h"
#include "float_gemm.h"

/* Digit products of one level added to the double sums. */
typedef struct level_add {
    const int32_t *s32;
    const int64_t *s64;      /* the level's sums when it was deeper than an int32 product */
    double *acc;
    double weight;           /* 2^-7t */
    size_t n;
    int first;
} level_add;

static void add_level(void *context, size_t t, size_t lo, size_t hi)
{
    (void)t;
    const level_add *l = context;
    double *acc = l->acc + lo * l->n;
    const size_t count = (hi - lo) * l->n, at = lo * l->n;
    const double w = l->weight;
    /* S * 2^-7t is exact: the sums stay far from double's range. */
    if (l->s64 != NULL) {
        for (size_t i = 0; i < count; i++)
            acc[i] = (l->first ? 0.0 : acc[i]) + (double)l->s64[at + i] * w;
    } else if (l->first) {
        for (size_t i = 0; i < count; i++)
            acc[i] = (double)l->s32[at + i] * w;
    } else {
        for (size_t i = 0; i < count; i++)
            acc[i] = acc[i] + (double)l->s32[at + i] * w;
    }
}

/* Within these exponents acc * 2^E(i) is a normal double (acc is 0 or of
 * magnitude between 2^-119 and about k), so two multiplications by powers of
 * two round once, as ldexp does, and cost less. */
enum { SAFE_EXP = 900 };

static double power_of_two(int e)
{
    return e >= -SAFE_EXP && e <= SAFE_EXP ? ldexp(1.0, e) : 0.0;
}

typedef struct scale_out {
    const double *acc;
    const int *ea, *eb;      /* per row of A, per column of B (one each per tensor) */
    const double *pb;        /* 2^eb per column, 0 where outside SAFE_EXP */
    size_t n, ldc;
    int per_channel;
    double *c;
} scale_out;

static void scale_rows(void *context, size_t t, size_t lo, size_t hi)
{
    (void)t;
    const scale_out *s = context;
    const size_t step = s->per_channel;
    for (size_t i = lo; i < hi; i++) {
        const int e = s->ea[i * step];
        const double pa = power_of_two(e), *acc = s->acc + i * s->n;
        double *c = s->c + i * s->ldc;
        for (size_t j = 0; j < s->n; j++) {
            const double pb = s->pb[j * step];
            c[j] = pa != 0 && pb != 0 ? (acc[j] * pa) * pb : ldexp(acc[j], e + s->eb[j * step]);
        }
    }
}

qmm_status qmm_dgemm_i8(size_t m, size_t n, size_t k,
                        const double *a, size_t lda, const double *b, size_t ldb,
                        double *c, size_t ldc, qmm_per per, unsigned slices)
{
    qmm_status st = qmm_float_gemm_check(m, n, k, a, lda, b, ldb, c, ldc, sizeof *c, per);
    if (st == QMM_OK && m != 0 && n != 0 && (slices < 1 || slices > QMM_MAX_SLICES)) {
        qmm_log("invalid argument: slices = %u, need 1 to %d", slices, QMM_MAX_SLICES);
        st = QMM_ERR_INVALID_ARG;
    }
    if (st != QMM_OK || m == 0 || n == 0)
        return st;
    if (k == 0) {
        qmm_float_gemm_zero(m, n, c, ldc, sizeof *c);
        return QMM_OK;
    }
    /* m * k and k * n are at most PTRDIFF_MAX / 8 (spans of doubles) and
     * s at most 16: no product overflows. */
    const size_t s = slices, deepest = s * k;
    const int per_line = per == QMM_PER_ROW_COL;
    const size_t sizes[] = {
        m * k * s, k * n * s,
        (per_line ? m : 1) * sizeof(int), (per_line ? n : 1) * sizeof(int),
        m * n * sizeof(int32_t), deepest > QMM_EXACT_DEPTH ? m * n * sizeof(int64_t) : 0,
        m * n * sizeof(double), (per_line ? n : 1) * sizeof(double)};
    enum { DA, DB, EA, EB, S32, S64, ACC, PB, PARTS };
    void *part[PARTS];
    size_t got;
    void *mem = qmm_float_gemm_buffers(PARTS, sizes, part, &got);
    if (mem == NULL)
        return QMM_ERR_NO_MEMORY;
    int8_t *da = part[DA], *db = part[DB];
    qmm_split_job sa = {.x = a, .ldx = lda, .rows = m, .cols = k,
                        .per = per_line ? QMM_PER_ROW : QMM_PER_MATRIX, .slices = slices,
                        .out = da, .slice_step = (ptrdiff_t)k, .ldo = s * k, .exps = part[EA]};
    qmm_split_job sb = {.x = b, .ldx = ldb, .rows = k, .cols = n,
                        .per = per_line ? QMM_PER_COL : QMM_PER_MATRIX, .slices = slices,
                        .out = db + (s - 1) * k * n, .slice_step = -(ptrdiff_t)(k * n),
                        .ldo = n, .exps = part[EB]};
    if ((st = qmm_split_run(&sa)) == QMM_OK && (st = qmm_split_run(&sb)) == QMM_OK) {
        for (size_t t = s + 1; t >= 2 && st == QMM_OK; t--) {
            const size_t depth = (t - 1) * k;
            st = qmm_exact_sums(m, n, depth, da, s * k, db + (s - t + 1) * k * n, n, part[S32],
                                part[S64]);
            if (st != QMM_OK)
                break;
            level_add l = {part[S32], depth > QMM_EXACT_DEPTH ? part[S64] : NULL, part[ACC],
                           ldexp(1.0, -7 * (int)t), n, t == s + 1};
            qmm_ranges_for(m, (double)n, add_level, &l);
        }
    }
    if (st == QMM_OK) {
        const int *eb = part[EB];
        double *pb = part[PB];
        for (size_t j = 0; j < (per_line ? n : 1); j++)
            pb[j] = power_of_two(eb[j]);
        scale_out so = {part[ACC], part[EA], eb, pb, n, ldc, per_line, c};
        qmm_ranges_for(m, (double)n, scale_rows, &so);
    }
    qmm_float_gemm_buffers_return(mem, got);
    return st;
}
