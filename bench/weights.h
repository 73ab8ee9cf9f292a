/*
 * Plans, as --weights asks for them: one side of the product taken as a
 * layer's weights and packed once, before the timing, by qmm_plan_create_gemm,
 * so that each timed call is the qmm_plan_run_gemm of an inference step.
 */
#ifndef QMM_BENCH_WEIGHTS_H
#define QMM_BENCH_WEIGHTS_H

#include <stddef.h>

#include "qmm/qmm.h"
#include "shapes.h"

typedef enum bench_weights {
    BENCH_WEIGHTS_NONE,   /* no plan: a one-shot call per product */
    BENCH_WEIGHTS_A,      /* A (m x k) packed; n given per run (QMM_WEIGHTS_A) */
    BENCH_WEIGHTS_B,      /* B, as a Linear layer's n x k, packed; m given per run */
    BENCH_WEIGHTS_COUNT
} bench_weights;

/* The names --weights takes and CSV shows, by bench_weights. */
extern const char *const bench_weights_names[BENCH_WEIGHTS_COUNT];

/* What the table calls each, by bench_weights. */
extern const char *const bench_weights_labels[BENCH_WEIGHTS_COUNT];

/* A plan for d's products with the weights that w names packed, d's free
 * dimension symbolic. d's operands are the bench's, all row-major; for
 * BENCH_WEIGHTS_B the plan is given a transposed copy of d's B, n x k
 * row-major as PyTorch and ONNX store a Linear layer's weight (rs = 1,
 * cs = k), made and freed here since the plan keeps its own packed copy.
 * w is not BENCH_WEIGHTS_NONE. */
qmm_status bench_plan_create(qmm_plan **plan, const qmm_gemm_desc *d, bench_weights w);

/* The size that a run of a plan with weights w gives qmm_plan_run_gemm: n for
 * weights A, m for weights B, as qmm_plan_kernel_name takes it. */
size_t bench_plan_free_size(bench_shape s, bench_weights w);

/* The weights' bytes when a call on s with weights w is a decode step, one
 * row of activations (m == 1 with the weights as B, n == 1 with them as A),
 * which reads every weight once for little arithmetic: then the weights'
 * rate, not the multiply-adds', tells how close to the machine the call is.
 * 0 otherwise. */
size_t bench_decode_weight_bytes(bench_shape s, bench_weights w);

#endif
