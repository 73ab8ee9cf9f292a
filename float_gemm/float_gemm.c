#include "float_gemm.h"

#include <stdlib.h>
#include <string.h>

#include "../compute/args.h"
#include "../compute/ranges.h"
#include "../compute/workspace.h"
#include "../platform/log.h"

qmm_status qmm_float_gemm_check(size_t m, size_t n, size_t k, const void *a, size_t lda,
                                const void *b, size_t ldb, const void *c, size_t ldc,
                                size_t elem, qmm_per per)
{
    if (m == 0 || n == 0)
        return QMM_OK;
    if (!qmm_leading_dim_ok(lda, k, "lda") || !qmm_leading_dim_ok(ldb, n, "ldb") ||
        !qmm_leading_dim_ok(ldc, n, "ldc"))
        return QMM_ERR_INVALID_ARG;
    if (per != QMM_PER_MATRIX && per != QMM_PER_ROW_COL) {
        qmm_log("invalid argument: per must be QMM_PER_MATRIX or QMM_PER_ROW_COL");
        return QMM_ERR_INVALID_ARG;
    }
    if (k > PTRDIFF_MAX) {
        qmm_log("invalid argument: k must be at most PTRDIFF_MAX");
        return QMM_ERR_INVALID_ARG;
    }
    qmm_span cs, as, bs;
    qmm_status st = qmm_check_matrix("C", c, m, n, ldc, elem, &cs);
    if (st != QMM_OK || k == 0)
        return st;
    if ((st = qmm_check_matrix("A", a, m, k, lda, elem, &as)) != QMM_OK ||
        (st = qmm_check_matrix("B", b, k, n, ldb, elem, &bs)) != QMM_OK)
        return st;
    if (qmm_spans_overlap(cs, as) || qmm_spans_overlap(cs, bs)) {
        qmm_log("invalid argument: C overlaps %s", qmm_spans_overlap(cs, as) ? "A" : "B");
        return QMM_ERR_INVALID_ARG;
    }
    return QMM_OK;
}

void qmm_float_gemm_zero(size_t m, size_t n, void *c, size_t ldc, size_t elem)
{
    for (size_t i = 0; i < m; i++)
        memset((unsigned char *)c + i * ldc * elem, 0, n * elem);
}

enum { BUFFER_ALIGN = 64 };

/* bytes rounded up to BUFFER_ALIGN, 0 when that overflows. */
static size_t aligned_size(size_t bytes)
{
    if (bytes > SIZE_MAX - (BUFFER_ALIGN - 1))
        return 0;
    return (bytes + BUFFER_ALIGN - 1) / BUFFER_ALIGN * BUFFER_ALIGN;
}

void *qmm_float_gemm_buffers(size_t count, const size_t *sizes, void **parts, size_t *got)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        const size_t rounded = aligned_size(sizes[i]);
        if ((rounded == 0 && sizes[i] != 0) || total > SIZE_MAX - rounded - BUFFER_ALIGN) {
            qmm_log("out of memory: the quantized operands' sizes overflow size_t");
            return NULL;
        }
        total += rounded;
    }
    unsigned char *mem = qmm_workspace_take(QMM_WS_FLOAT, total == 0 ? BUFFER_ALIGN : total, got);
    if (mem == NULL) {
        qmm_log("out of memory: %zu bytes of quantized operands", total);
        return NULL;
    }
    for (size_t i = 0, at = 0; i < count; i++) {
        parts[i] = mem + at;
        at += aligned_size(sizes[i]);
    }
    return mem;
}

void qmm_float_gemm_buffers_return(void *mem, size_t got)
{
    qmm_workspace_return(QMM_WS_FLOAT, mem, got);
}

typedef struct chunk_add {
    const int32_t *s32;
    int64_t *s64;
    size_t n;
    int first;
} chunk_add;

static void add_chunk(void *context, size_t t, size_t lo, size_t hi)
{
    (void)t;
    const chunk_add *c = context;
    const int32_t *from = c->s32 + lo * c->n;
    int64_t *to = c->s64 + lo * c->n;
    const size_t count = (hi - lo) * c->n;
    if (c->first) {
        for (size_t i = 0; i < count; i++)
            to[i] = from[i];
    } else {
        for (size_t i = 0; i < count; i++)
            to[i] += from[i];
    }
}

qmm_status qmm_exact_sums(size_t m, size_t n, size_t depth, const int8_t *a, size_t lda,
                          const int8_t *b, size_t ldb, int32_t *s32, int64_t *s64)
{
    for (size_t at = 0; at < depth; at += QMM_EXACT_DEPTH) {
        const size_t len = depth - at < QMM_EXACT_DEPTH ? depth - at : QMM_EXACT_DEPTH;
        qmm_status st = qmm_i8_i32(m, n, len, a + at, lda, b + at * ldb, ldb, s32, n);
        if (st != QMM_OK)
            return st;
        if (depth <= QMM_EXACT_DEPTH)
            return QMM_OK;
        chunk_add c = {s32, s64, n, at == 0};
        qmm_ranges_for(m, (double)n, add_chunk, &c);
    }
    return QMM_OK;
}
