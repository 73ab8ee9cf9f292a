#include "weights.h"

#include <stdint.h>
#include <stdlib.h>

const char *const bench_weights_names[BENCH_WEIGHTS_COUNT] = {
    [BENCH_WEIGHTS_NONE] = "none",
    [BENCH_WEIGHTS_A] = "a",
    [BENCH_WEIGHTS_B] = "b",
};

const char *const bench_weights_labels[BENCH_WEIGHTS_COUNT] = {
    [BENCH_WEIGHTS_NONE] = "one-shot call",
    [BENCH_WEIGHTS_A] = "weights as A plan",
    [BENCH_WEIGHTS_B] = "weights as B plan",
};

/* B (k x n, any strides) copied into a new n x k row-major array, or NULL
 * when it does not fit in memory. */
static int8_t *transposed_copy(const qmm_operand *b, size_t k, size_t n)
{
    /* n * k does not overflow: B itself was allocated with as many bytes. */
    int8_t *w = malloc(n * k);
    if (w == NULL)
        return NULL;
    const int8_t *src = b->data;
    for (size_t j = 0; j < n; j++)
        for (size_t p = 0; p < k; p++)
            w[j * k + p] = src[(ptrdiff_t)p * b->rs + (ptrdiff_t)j * b->cs];
    return w;
}

qmm_status bench_plan_create(qmm_plan **plan, const qmm_gemm_desc *d, bench_weights w)
{
    qmm_gemm_desc made = *d;
    if (w == BENCH_WEIGHTS_A) {
        made.n = QMM_SYMBOLIC;
        return qmm_plan_create_gemm(plan, &made, QMM_WEIGHTS_A);
    }
    int8_t *layer = transposed_copy(&d->b, d->k, d->n);
    if (layer == NULL)
        return QMM_ERR_NO_MEMORY;
    made.m = QMM_SYMBOLIC;
    made.b = (qmm_operand){.type = d->b.type, .data = layer, .rs = 1, .cs = (ptrdiff_t)d->k,
                           .zero_point = d->b.zero_point};
    qmm_status st = qmm_plan_create_gemm(plan, &made, QMM_WEIGHTS_B);
    free(layer);
    return st;
}

size_t bench_plan_free_size(bench_shape s, bench_weights w)
{
    return w == BENCH_WEIGHTS_B ? s.m : s.n;
}

size_t bench_decode_weight_bytes(bench_shape s, bench_weights w)
{
    if (w == BENCH_WEIGHTS_B && s.m == 1)
        return s.k * s.n;
    if (w == BENCH_WEIGHTS_A && s.n == 1)
        return s.m * s.k;
    return 0;
}
