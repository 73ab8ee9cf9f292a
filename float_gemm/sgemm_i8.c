/* qmm_sgemm_i8: the INT8 recipe in one call. Both operands are quantized
 * symmetrically (per row of A and column of B, or per tensor), multiplied
 * exactly, and dequantized by qmm_gemm's float stage while each tile of C is
 * in cache; a product deeper than QMM_EXACT_DEPTH is summed in int64 first. */
#include <stdlib.h>

#include "../compute/ranges.h"
#include "../quantize/quantize.h"
#include "float_gemm.h"

typedef struct deep_dequant {
    const int64_t *s;
    const float *sa, *sb;
    float *c;
    size_t n, ldc;
} deep_dequant;

static void dequantize_rows(void *context, size_t t, size_t lo, size_t hi)
{
    (void)t;
    const deep_dequant *d = context;
    for (size_t i = lo; i < hi; i++)
        for (size_t j = 0; j < d->n; j++)
            d->c[i * d->ldc + j] = ((float)d->s[i * d->n + j] * d->sa[i]) * d->sb[j];
}

/* One scale of a per-tensor quantization, spread over a line of them, so
 * that both granularities dequantize as (S * sa(i)) * sb(j). */
static void spread(float *scales, size_t count)
{
    for (size_t i = 1; i < count; i++)
        scales[i] = scales[0];
}

qmm_status qmm_sgemm_i8(size_t m, size_t n, size_t k,
                        const float *a, size_t lda, const float *b, size_t ldb,
                        float *c, size_t ldc, qmm_per per)
{
    qmm_status st = qmm_float_gemm_check(m, n, k, a, lda, b, ldb, c, ldc, sizeof *c, per);
    if (st != QMM_OK || m == 0 || n == 0)
        return st;
    if (k == 0) {
        qmm_float_gemm_zero(m, n, c, ldc, sizeof *c);
        return QMM_OK;
    }
    const int deep = k > QMM_EXACT_DEPTH;
    /* Every product fits: A, B and C are spans of floats. */
    const size_t sizes[] = {m * k, k * n, m * sizeof(float), n * sizeof(float),
                            deep ? m * n * sizeof(int32_t) : 0,
                            deep ? m * n * sizeof(int64_t) : 0};
    enum { QA, QB, SA, SB, S32, S64, PARTS };
    void *part[PARTS];
    size_t got;
    void *mem = qmm_float_gemm_buffers(PARTS, sizes, part, &got);
    if (mem == NULL)
        return QMM_ERR_NO_MEMORY;
    const qmm_per per_a = per == QMM_PER_ROW_COL ? QMM_PER_ROW : QMM_PER_MATRIX;
    const qmm_per per_b = per == QMM_PER_ROW_COL ? QMM_PER_COL : QMM_PER_MATRIX;
    qmm_quant_job qa = {.x = a, .ldx = lda, .rows = m, .cols = k, .per = per_a,
                        .q = part[QA], .ldq = k, .scales = part[SA]};
    qmm_quant_job qb = {.x = b, .ldx = ldb, .rows = k, .cols = n, .per = per_b,
                        .q = part[QB], .ldq = n, .scales = part[SB]};
    float *sa = part[SA], *sb = part[SB];
    if ((st = qmm_quantize_run(&qa)) == QMM_OK && (st = qmm_quantize_run(&qb)) == QMM_OK) {
        if (per == QMM_PER_MATRIX) {
            spread(sa, m);
            spread(sb, n);
        }
        if (!deep) {
            qmm_gemm_desc d = {
                .m = m, .n = n, .k = k,
                .a = {.type = QMM_TYPE_I8, .data = part[QA], .rs = (ptrdiff_t)k, .cs = 1},
                .b = {.type = QMM_TYPE_I8, .data = part[QB], .rs = (ptrdiff_t)n, .cs = 1},
                .c = {.type = QMM_TYPE_F32, .data = c, .rs = (ptrdiff_t)ldc, .cs = 1,
                      .dequant = {.scale = {.per = QMM_PER_ROW_COL, .values = sa,
                                            .col_values = sb}}},
            };
            st = qmm_gemm(&d);
        } else if ((st = qmm_exact_sums(m, n, k, part[QA], k, part[QB], n, part[S32],
                                        part[S64])) == QMM_OK) {
            deep_dequant dd = {part[S64], sa, sb, c, n, ldc};
            qmm_ranges_for(m, (double)n, dequantize_rows, &dd);
        }
    }
    qmm_float_gemm_buffers_return(mem, got);
    return st;
}
