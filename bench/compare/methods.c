#include "methods.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../blas.h"
#include "options.h"

/* What each kind is: its function, whether its C is double and whether it
 * has kernel-only calls. */
static const struct kind_traits {
    const char *function;
    int is_double, has_kernel;
} traits[] = {
    [COMPARE_BLAS_DGEMM] = {"cblas_dgemm", 1, 0},
    [COMPARE_BLAS_SGEMM] = {"cblas_sgemm", 0, 0},
    [COMPARE_QMM_SGEMM_I8] = {"qmm_sgemm_i8", 0, 1},
    [COMPARE_QMM_DGEMM_I8] = {"qmm_dgemm_i8", 1, 1},
    [COMPARE_QMM_SGEMM_CRT] = {"qmm_sgemm_crt", 0, 1},
    [COMPARE_QMM_DGEMM_CRT] = {"qmm_dgemm_crt", 1, 1},
};

/* The deepest product 1 and 2 moduli hold, as qmm.h gives them; 3 hold
 * k up to 2^19, beyond any size --shape takes, and more hold more. */
static const size_t deepest_for_moduli[] = {0, 8, 2048};
_Static_assert(COMPARE_MAX_DIMENSION <= (size_t)1 << 19,
               "3 moduli must hold every depth --shape takes");

static size_t list_crt(compare_method_kind kind, const unsigned *moduli, size_t moduli_count,
                       compare_method *out)
{
    for (size_t i = 0; i < moduli_count; i++)
        out[i] = (compare_method){kind, QMM_PER_ROW_COL, 0, moduli[i]};
    return moduli_count;
}

/* The float methods, then the double ones. */
size_t compare_list_methods(unsigned max_slices, const unsigned *moduli, size_t moduli_count,
                            compare_method *out)
{
    size_t count = 0;
    out[count++] = (compare_method){COMPARE_BLAS_DGEMM, QMM_PER_MATRIX, 0, 0};
    out[count++] = (compare_method){COMPARE_BLAS_SGEMM, QMM_PER_MATRIX, 0, 0};
    out[count++] = (compare_method){COMPARE_QMM_SGEMM_I8, QMM_PER_MATRIX, 0, 0};
    out[count++] = (compare_method){COMPARE_QMM_SGEMM_I8, QMM_PER_ROW_COL, 0, 0};
    count += list_crt(COMPARE_QMM_SGEMM_CRT, moduli, moduli_count, out + count);
    for (unsigned s = 1; s <= max_slices; s++)
        out[count++] = (compare_method){COMPARE_QMM_DGEMM_I8, QMM_PER_ROW_COL, s, 0};
    count += list_crt(COMPARE_QMM_DGEMM_CRT, moduli, moduli_count, out + count);
    return count;
}

const char *compare_method_function(const compare_method *m)
{
    return traits[m->kind].function;
}

int compare_method_has_kernel(const compare_method *m)
{
    return traits[m->kind].has_kernel;
}

static int is_crt(const compare_method *m)
{
    return m->kind == COMPARE_QMM_SGEMM_CRT || m->kind == COMPARE_QMM_DGEMM_CRT;
}

unsigned compare_method_count(const compare_method *m)
{
    return is_crt(m) ? m->moduli : m->slices;
}

size_t compare_method_deepest(const compare_method *m)
{
    const size_t known = sizeof deepest_for_moduli / sizeof deepest_for_moduli[0];
    if (!is_crt(m) || m->moduli >= known)
        return SIZE_MAX;
    return deepest_for_moduli[m->moduli];
}

const char *compare_method_granularity(const compare_method *m)
{
    if (!compare_method_has_kernel(m))
        return "";
    return m->granularity == QMM_PER_ROW_COL ? "channel" : "tensor";
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
    case COMPARE_QMM_SGEMM_CRT:
    case COMPARE_QMM_DGEMM_CRT:
        snprintf(text, size, "%s, %u modul%s", compare_method_function(m), m->moduli,
                 m->moduli == 1 ? "us" : "i");
        return;
    }
}

/* How many int8 GEMMs of m x n x k the kernel-only calls of m are worth. */
static double gemms_worth(const compare_method *m)
{
    switch (m->kind) {
    case COMPARE_QMM_SGEMM_I8:
        return 1.0;
    case COMPARE_QMM_DGEMM_I8:
        return (double)m->slices * (double)(m->slices + 1) / 2.0;
    case COMPARE_QMM_SGEMM_CRT:
    case COMPARE_QMM_DGEMM_CRT:
        return (double)m->moduli;
    case COMPARE_BLAS_DGEMM:
    case COMPARE_BLAS_SGEMM:
        break;
    }
    return 0.0;
}

double compare_kernel_ops(const compare_method *m, bench_shape s)
{
    return 2.0 * (double)s.m * (double)s.n * (double)s.k * gemms_worth(m);
}

/* One method on the case's operands. */
typedef struct contender {
    compare_method method;
    void *c;                 /* m x n: double for the double methods, else float */
    /* Kernel only: qmm_sgemm_i8's operands quantized as it quantizes them
     * (owned), or the stand-ins for qmm_dgemm_i8's slices or the CRT
     * functions' residues (the case's, shared). */
    int8_t *own_qa, *own_qb;
    const int8_t *qa, *qb;
} contender;

struct compare_contenders {
    const compare_operands *operands;
    size_t count;
    contender *who;
    int32_t *sums;           /* the kernel-only calls' C, m x n, shared */
    /* Stand-ins for qmm_dgemm_i8's slices and the CRT functions' residues,
     * for the most slices or moduli asked, L: A m x (L * k) (slices side by
     * side in a row, or one m x k block per modulus), B (L * k) x n. */
    int8_t *layers_a, *layers_b;
};

static int is_double(const compare_method *m)
{
    return traits[m->kind].is_double;
}

static int uses_stand_ins(const compare_method *m)
{
    return m->kind == COMPARE_QMM_DGEMM_I8 || is_crt(m);
}

/* qmm_sgemm_i8's own first step on the float operands, by the public call,
 * so that the kernel-only product multiplies the very int8 values the
 * end-to-end call does. */
static qmm_status quantize_like_sgemm_i8(const compare_operands *o, contender *w)
{
    const bench_shape s = o->shape;
    const int per_channel = w->method.granularity == QMM_PER_ROW_COL;
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

/* The k-deep layers of the stand-ins that the methods need at most. */
static unsigned most_layers(const compare_method *methods, size_t count)
{
    unsigned most = 0;
    for (size_t i = 0; i < count; i++)
        if (uses_stand_ins(&methods[i]) && compare_method_count(&methods[i]) > most)
            most = compare_method_count(&methods[i]);
    return most;
}

static int make_stand_ins(compare_contenders *c, unsigned layers)
{
    if (layers == 0)
        return 1;
    const bench_shape s = c->operands->shape;
    const size_t a_count = s.m * s.k * layers, b_count = s.k * layers * s.n;
    c->layers_a = malloc(a_count);
    c->layers_b = malloc(b_count);
    if (c->layers_a == NULL || c->layers_b == NULL)
        return 0;
    compare_fill_digits(c->layers_a, a_count);
    compare_fill_digits(c->layers_b, b_count);
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
    } else if (uses_stand_ins(&w->method)) {
        w->qa = c->layers_a;
        w->qb = c->layers_b;
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
    int ok = c->who != NULL && c->sums != NULL && make_stand_ins(c, most_layers(methods, count));
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
    free(c->layers_a);
    free(c->layers_b);
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
        return qmm_dgemm_i8(s.m, s.n, s.k, o->a, s.k, o->b, s.n, w->c, s.n,
                            w->method.granularity, w->method.slices);
    case COMPARE_QMM_SGEMM_CRT:
        return qmm_sgemm_crt(s.m, s.n, s.k, o->af, s.k, o->bf, s.n, w->c, s.n,
                             w->method.moduli);
    case COMPARE_QMM_DGEMM_CRT:
        break;
    }
    return qmm_dgemm_crt(s.m, s.n, s.k, o->a, s.k, o->b, s.n, w->c, s.n, w->method.moduli);
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

/* The CRT functions' products, one per modulus: m x n of depth k, on the
 * modulus' own m x k block of A and k x n block of B, as the residues lie. */
static qmm_status run_residue_products(compare_contenders *c, const contender *w)
{
    const bench_shape s = c->operands->shape;
    for (size_t t = 0; t < w->method.moduli; t++) {
        qmm_status st = qmm_i8_i32(s.m, s.n, s.k, w->qa + t * s.m * s.k, s.k,
                                   w->qb + t * s.k * s.n, s.n, c->sums, s.n);
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
    if (is_crt(&w->method))
        return run_residue_products(c, w);
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
