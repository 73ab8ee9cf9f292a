/*
 * Plans inside: one kernel per role, the weights packed once per distinct
 * packing.
 *
 * The matrix role runs n > 1, the GEMV role n == 1. A plan with concrete n has
 * the one role its n needs; a symbolic plan has both, and when both kernels
 * read the weights in the same packing (same side, format, panel width and
 * depth blocking) they share one.
 *
 * Weights given as A are the job's A. Weights given as B (a framework's
 * [out x in] Linear weight) are the job's B in the matrix role: packed into
 * the matrix kernel's B panels, so that a run computes C = X W in C's own
 * orientation with the activations as A (read in place where the kernel
 * can); in the GEMV role (one token) they are the A of the transposed
 * product C^T = W^T x^T, which a GEMV kernel reads row after row.
 */
#ifndef QMM_PLAN_H
#define QMM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "blocking.h"
#include "qmm/qmm.h"
#include "packed.h"
#include "quantized.h"

enum qmm_role { QMM_ROLE_MATRIX, QMM_ROLE_GEMV, QMM_ROLE_COUNT };

typedef struct qmm_plan_role {
    const qmm_kernel *kernel;  /* NULL when the plan has no such role */
    qmm_packed_side side;      /* the weights as the job's A, or as its B */
    qmm_blocking blk;          /* its depth blocking and panels (compute/packed.h) */
    size_t packed_bytes;       /* of the weights in its packing; 0 when m or k is 0 */
    void *packed;              /* owned, unless the same pointer as an earlier role's */
} qmm_plan_role;

/* m, n, k and the weights' zero points and sums are in the coordinates of
 * the weights as an A: m is the weights' lines (the caller's n when they
 * are B, `transposed`), n the activations' free dimension. */
struct qmm_plan {
    size_t m, n, k;            /* n may be QMM_SYMBOLIC */
    qmm_plan_role roles[QMM_ROLE_COUNT];
    int packed;
    int transposed;
    qmm_side weights;          /* zero points and line sums of the weights (data NULL) */
    int32_t *weights_sums;     /* owned: the m line sums */
    int32_t *weights_neg_zps;  /* owned: per-line zero points, or NULL */
};

/* The kernel a run with this n uses; NULL if the plan cannot run n. */
const qmm_kernel *qmm_plan_kernel(const qmm_plan *plan, size_t n);

#endif
