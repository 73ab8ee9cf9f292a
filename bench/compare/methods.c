#include "methods.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../blas.h"

size_t compare_list_methods(unsigned max_slices, compare_method *out)
{
    size_t count = 0;
    out[count++] = (compare_method){COMPARE_BLAS_DGEMM, QMM_PER_TENSOR, 0};
    out[count++] = (compare_method){COMPARE_BLAS_SGEMM, QMM_PER_TENSOR, 0};
    out[count++] = (compare_method){COMPARE_QMM_SGEMM_I8, QMM_PER_TENSOR, 0};
    out[count++] = (compare_method){COMPARE_QMM_SGEMM_I8, QMM_PER_CHANNEL, 0};
    for (unsigned s = 1; s <= max_slices; s++)
        out[count++] = (compare_method){COMPARE_QMM_DGEMM_I8, QMM_PER_CHANNEL, s};
    return count;
}

const char *compare_method_function(const compare_method *m)
{
    switch (m->kind) {
    case COMPARE_BLAS_DGEMM:
        return "cblas_dgemm";
    case COMPARE_BLAS_SGEMM:
        return "cblas_sgemm";
    case COMPARE_QMM_SGEMM_I8:
        return "qmm_sgemm_i8";
    case COMPARE_QMM_DGEMM_I8:
        break;
    }
    return "qmm_dgemm_i8";
}

int compare_method_has_kernel(const compare_method *m)
{
    return m->kind == COMPARE_QMM_SGEMM_I8 || m->kind == COMPARE_QMM_DGEMM_I8;
}

const char *compare_method_granularity(const compare_method *m)
{
    if (!compare_method_has_kernel(m))
        return "";
    return m->granularity == QMM_PER_CHANNEL ? "channel" : "tensor";
}

void compare_method_label(const compare_method *m, char *text, size_t size)
{
    switch (m->kind) {
    case COMPARE_BLAS_DGEMM:
        snprintf(text, size, "OpenBLAS cblas_dgemm (FP64 ref)");
        return;
    case COMPARE_BLAS_SGEMM:
        snprintf(text, size, "OpenBLAS cblas_sgemm");
        return;
    case COMPARE_QMM_SGEMM_I8:
        snprintf(text, size, "qmm_sgemm_i8 per %s", compare_method_granularity(m));
        return;
    case COMPARE_QMM_DGEMM_I8:
        snprintf(text, size, "qmm_dgemm_i8 per %s, %u slice%s", compare_method_granularity(m),
                 m->slices, m->slices == 1 ? "" : "s");
        return;
    }
}

double compare_kernel_ops(const compare_method *m, bench_shape s)
{
    const double one_gemm = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    if (m->kind == COMPARE_QMM_SGEMM_I8)
        return one_gemm;
    if (m->kind == COMPARE_QMM_DGEMM_I8)
        return one_gemm * (double)m->slices * (double)(m->slices + 1) / 2.0;
    return 0.0;
}

/* One method on the case's operands. */
typedef struct contender {
    compare_method method;
    void *c;                 /* m x n: double for cblas_dgemm and qmm_dgemm_i8, else float */
    /* Kernel only: qmm_sgemm_i8's operands quantized as it quantizes them
     * (owned), or qmm_dgemm_i8's slices (the case's, shared). */
    int8_t *own_qa, *own_qb;
    const int8_t *qa, *qb;
} contender;

struct compare_contenders {
    const compare_operands *operands;
    size_t count;
    contender *who;
    int32_t *sums;           /* the kernel-only calls' C, m x n, shared */
    /* Stand-ins for qmm_dgemm_i8's slices, for the most slices asked:
     * A m x (slices * k), B (slices * k) x n. */
    int8_t *slices_a, *slices_b;
};

static int is_double(const compare_method *m)
{
    return m->kind == COMPARE_BLAS_DGEMM || m->kind == COMPARE_QMM_DGEMM_I8;
}

/* qmm_sgemm_i8's own first step on the float operands, by the public call,
 * so that the kernel-only product multiplies the very int8 values the
 * end-to-end call does. */
static qmm_status quantize_like_sgemm_i8(const compare_operands *o, contender *w)
{
    const bench_shape s = o->shape;
    const int per_channel = w->method.granularity == QMM_PER_CHANNEL;
    w->own_qa = malloc(s.m * s.k);
    w->own_qb = malloc(s.k * s.n);
    float *scales_a = malloc((per_channel ? s.m : 1) * sizeof *scales_a);
    float *scales_b = malloc((per_channel ? s.n : 1) * sizeof *scales_b);
    qmm_status st = QMM_ERR_NO_MEMORY;
    if (w->own_qa != NULL && w->own_qb != NULL && scales_a != NULL && scales_b != NULL) {
        st = qmm_quantize_symmetric_f32(s.m, s.k, o->af, s.k,
                                        per_channel ? QMM_PER_ROW : QMM_PER_MATRIX, w->own_qa,
                                        s.k, scales_a);
        if (st == QMM_OK)
            st = qmm_quantize_symmetric_f32(s.k, s.n, o->bf, s.n,
                                            per_channel ? QMM_PER_COL : QMM_PER_MATRIX,
                                            w->own_qb, s.n, scales_b);
    }
    free(scales_a);
    free(scales_b);
    w->qa = w->own_qa;
    w->qb = w->own_qb;
    return st;
}

static unsigned most_slices(const compare_method *methods, size_t count)
{
    unsigned most = 0;
    for (size_t i = 0; i < count; i++)
        if (methods[i].kind == COMPARE_QMM_DGEMM_I8 && methods[i].slices > most)
            most = methods[i].slices;
    return most;
}

static int make_slices(compare_contenders *c, unsigned slices)
{
    if (slices == 0)
        return 1;
    const bench_shape s = c->operands->shape;
    const size_t a_count = s.m * s.k * slices, b_count = s.k * slices * s.n;
    c->slices_a = malloc(a_count);
    c->slices_b = malloc(b_count);
    if (c->slices_a == NULL || c->slices_b == NULL)
        return 0;
    compare_fill_digits(c->slices_a, a_count);
    compare_fill_digits(c->slices_b, b_count);
    return 1;
}

static int prepare_one(compare_contenders *c, contender *w)
{
    const bench_shape s = c->operands->shape;
    w->c = malloc(s.m * s.n * (is_double(&w->method) ? sizeof(double) : sizeof(float)));
    if (w->c == NULL)
        return 0;
    if (w->method.kind == COMPARE_QMM_SGEMM_I8) {
        qmm_status st = quantize_like_sgemm_i8(c->operands, w);
        if (st != QMM_OK) {
            fprintf(stderr, "qmm-compare: qmm_quantize_symmetric_f32: %s\n", qmm_status_str(st));
            return 0;
        }
    } else if (w->method.kind == COMPARE_QMM_DGEMM_I8) {
        w->qa = c->slices_a;
        w->qb = c->slices_b;
    }
    return 1;
}

compare_contenders *compare_prepare(const compare_operands *o, const compare_method *methods,
                                    size_t count)
{
    compare_contenders *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->operands = o;
    c->count = count;
    c->who = calloc(count, sizeof *c->who);
    c->sums = malloc(o->shape.m * o->shape.n * sizeof *c->sums);
    int ok = c->who != NULL && c->sums != NULL && make_slices(c, most_slices(methods, count));
    for (size_t i = 0; ok && i < count; i++) {
        c->who[i].method = methods[i];
        ok = prepare_one(c, &c->who[i]);
    }
    if (!ok) {
        fprintf(stderr, "qmm-compare: could not prepare the methods (out of memory?)\n");
        compare_release(c);
        return NULL;
    }
    return c;
}

void compare_release(compare_contenders *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; c->who != NULL && i < c->count; i++) {
        free(c->who[i].c);
        free(c->who[i].own_qa);
        free(c->who[i].own_qb);
    }
    free(c->who);
    free(c->sums);
    free(c->slices_a);
    free(c->slices_b);
    free(c);
}

qmm_status compare_run_end_to_end(compare_contenders *c, size_t i)
{
    const compare_operands *o = c->operands;
    const bench_shape s = o->shape;
    contender *w = &c->who[i];
    /* Sizes are at most COMPARE_MAX_DIMENSION (options.h): int holds them. */
    const int m = (int)s.m, n = (int)s.n, k = (int)s.k;
    switch (w->method.kind) {
    case COMPARE_BLAS_DGEMM:
        cblas_dgemm(BENCH_CBLAS_ROW_MAJOR, BENCH_CBLAS_NO_TRANS, BENCH_CBLAS_NO_TRANS, m, n,
                    k, 1.0, o->a, k, o->b, n, 0.0, w->c, n);
        return QMM_OK;
    case COMPARE_BLAS_SGEMM:
        cblas_sgemm(BENCH_CBLAS_ROW_MAJOR, BENCH_CBLAS_NO_TRANS, BENCH_CBLAS_NO_TRANS, m, n,
                    k, 1.0f, o->af, k, o->bf, n, 0.0f, w->c, n);
        return QMM_OK;
    case COMPARE_QMM_SGEMM_I8:
        return qmm_sgemm_i8(s.m, s.n, s.k, o->af, s.k, o->bf, s.n, w->c, s.n,
                            w->method.granularity);
    case COMPARE_QMM_DGEMM_I8:
        break;
    }
    return qmm_dgemm_i8(s.m, s.n, s.k, o->a, s.k, o->b, s.n, w->c, s.n, w->method.granularity,
                        w->method.slices);
}

/* qmm_sgemm_i8's product: int8 to the exact int32 sums, through qmm_gemm
 * with no output stage. */
static qmm_status run_int8_product(compare_contenders *c, const contender *w)
{
    const bench_shape s = c->operands->shape;
    const qmm_gemm_desc d = {
        .m = s.m, .n = s.n, .k = s.k,
        .a = {.type = QMM_TYPE_I8, .data = w->qa, .rs = (ptrdiff_t)s.k, .cs = 1},
        .b = {.type = QMM_TYPE_I8, .data = w->qb, .rs = (ptrdiff_t)s.n, .cs = 1},
        .c = {.type = QMM_TYPE_I32, .data = c->sums, .rs = (ptrdiff_t)s.n, .cs = 1},
    };
    return qmm_gemm(&d);
}

/* qmm_dgemm_i8's s products: level t multiplies the t slices of A side by
 * side in depth with B's, m x n of depth t*k; A's rows hold all s levels'
 * widest, s*k apart, and B is the first t*k of its rows. */
static qmm_status run_slice_products(compare_contenders *c, const contender *w)
{
    const bench_shape s = c->operands->shape;
    const size_t slices = w->method.slices;
    for (size_t t = 1; t <= slices; t++) {
        qmm_status st = qmm_i8_i32(s.m, s.n, t * s.k, w->qa, slices * s.k, w->qb, s.n, c->sums,
                                   s.n);
        if (st != QMM_OK)
            return st;
    }
    return QMM_OK;
}

qmm_status compare_run_kernel(compare_contenders *c, size_t i)
{
    const contender *w = &c->who[i];
    if (w->method.kind == COMPARE_QMM_SGEMM_I8)
        return run_int8_product(c, w);
    if (w->method.kind == COMPARE_QMM_DGEMM_I8)
        return run_slice_products(c, w);
    return QMM_ERR_INVALID_ARG;  /* BLAS has no kernel-only call */
}

compare_error compare_measure_error(const compare_contenders *c, size_t i, const double *ref)
{
    const contender *w = &c->who[i];
    const size_t count = c->operands->shape.m * c->operands->shape.n;
    if (is_double(&w->method))
        return compare_error_f64(w->c, ref, count);
    return compare_error_f32(w->c, ref, count);
}
