/*
 * Plans inside: one kernel per role, A packed once per distinct packing.
 *
 * The matrix role runs n > 1, the GEMV role n == 1. A plan with concrete n has
 * the one role its n needs; a symbolic plan has both, and when both kernels
 * read A in the same packing (same format, same mr) they share one packed A.
 */
#ifndef QMM_PLAN_H
#define QMM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "blocking.h"
#include "qmm/qmm.h"
#include "quantized.h"

enum qmm_role { QMM_ROLE_MATRIX, QMM_ROLE_GEMV, QMM_ROLE_COUNT };

typedef struct qmm_plan_role {
    const qmm_kernel *kernel;  /* NULL when the plan has no such role */
    qmm_blocking blk;          /* its depth blocking (compute/packed_a.h) */
    size_t packed_bytes;       /* of A in its packing; 0 when m or k is 0 */
    void *packed_a;            /* owned, unless the same pointer as an earlier role's */
} qmm_plan_role;

/* In the coordinates of the product the plan computes: its A is the
 * weights, so a plan whose weights are the caller's B (transposed) computes
 * C^T = W^T X^T, m being the caller's n and n the caller's m. */
struct qmm_plan {
    size_t m, n, k;            /* n may be QMM_N_SYMBOLIC */
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
