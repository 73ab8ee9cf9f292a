/* The one-shot entry points: check, choose a kernel, drive it. */

#include "args.h"
#include "choose.h"
#include "driver.h"
#include "log.h"
#include "qmm/qmm.h"

static void write_zeros(size_t m, size_t n, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            c[(ptrdiff_t)i * rsc + (ptrdiff_t)j * csc] = 0;
}

qmm_status qmm_i8_i32_strided(size_t m, size_t n, size_t k,
                              const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                              const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                              int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    qmm_status st = qmm_check_args(m, n, k, a, rsa, csa, b, rsb, csb, c, rsc, csc);
    if (st != QMM_OK || m == 0 || n == 0)
        return st;
    if (k == 0) {
        write_zeros(m, n, c, rsc, csc);
        return QMM_OK;
    }
    if (qmm_runs_transposed(m, n))
        return qmm_i8_i32_strided(n, m, k, b, csb, rsb, a, csa, rsa, c, csc, rsc);
    const qmm_kernel *kern;
    st = qmm_choose_kernel(m, n, &kern);
    if (st != QMM_OK)
        return st;
    st = qmm_drive(kern, m, n, k, a, rsa, csa, b, rsb, csb, c, rsc, csc);
    if (st != QMM_OK)
        qmm_log("%s: %s", kern->name, qmm_status_str(st));
    return st;
}

static int leading_dim_ok(size_t ld, size_t cols, const char *name)
{
    if (ld >= cols && ld <= PTRDIFF_MAX)
        return 1;
    qmm_log("invalid argument: %s = %zu, need %zu <= %s <= PTRDIFF_MAX", name, ld, cols,
            name);
    return 0;
}

qmm_status qmm_i8_i32(size_t m, size_t n, size_t k,
                      const int8_t *a, size_t lda,
                      const int8_t *b, size_t ldb,
                      int32_t *c, size_t ldc)
{
    if (!leading_dim_ok(lda, k, "lda") || !leading_dim_ok(ldb, n, "ldb") ||
        !leading_dim_ok(ldc, n, "ldc"))
        return QMM_ERR_INVALID_ARG;
    return qmm_i8_i32_strided(m, n, k, a, (ptrdiff_t)lda, 1, b, (ptrdiff_t)ldb, 1, c,
                              (ptrdiff_t)ldc, 1);
}
