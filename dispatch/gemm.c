/* The one-shot entry points: a plan made, packed, run and dropped per call. */
#include "args.h"
#include "choose.h"
#include "plan.h"
#include "qmm/qmm.h"

qmm_status qmm_i8_i32_strided(size_t m, size_t n, size_t k,
                              const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                              const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                              int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    /* Checked before any transposition, so that a message names the operand
     * the caller passed. */
    qmm_status st = qmm_check_args(m, n, k, a, rsa, csa, b, rsb, csb, c, rsc, csc);
    if (st != QMM_OK)
        return st;
    if (qmm_runs_transposed(m, n))
        return qmm_product(NULL, n, m, k, b, csb, rsb, a, csa, rsa, c, csc, rsc);
    return qmm_product(NULL, m, n, k, a, rsa, csa, b, rsb, csb, c, rsc, csc);
}

qmm_status qmm_i8_i32(size_t m, size_t n, size_t k,
                      const int8_t *a, size_t lda,
                      const int8_t *b, size_t ldb,
                      int32_t *c, size_t ldc)
{
    if (!qmm_leading_dim_ok(lda, k, "lda") || !qmm_leading_dim_ok(ldb, n, "ldb") ||
        !qmm_leading_dim_ok(ldc, n, "ldc"))
        return QMM_ERR_INVALID_ARG;
    return qmm_i8_i32_strided(m, n, k, a, (ptrdiff_t)lda, 1, b, (ptrdiff_t)ldb, 1, c,
                              (ptrdiff_t)ldc, 1);
}
