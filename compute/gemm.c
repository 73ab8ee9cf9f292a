#include "gemm.h"

#include "../dispatch/choose.h"
#include "../output/describe.h"
#include "../platform/log.h"
#include "args.h"
#include "job.h"
#include "quantized.h"

/* C = A.B on kernel kern, arguments already checked and m, n >= 1, as is
 * (no transpose). */
static qmm_status one_shot(const qmm_kernel *kern, size_t m, size_t n, size_t k,
                           const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                           const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                           int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    qmm_job job = {.kern = kern, .m = m, .n = n, .k = k, .a = a, .rsa = rsa, .csa = csa,
                   .b = b, .rsb = rsb, .csb = csb, .c = {c, rsc, csc}};
    return qmm_job_run(&job);
}

qmm_status qmm_product(const qmm_kernel *forced, size_t m, size_t n, size_t k,
                       const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                       const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                       int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    qmm_status st = qmm_check_args(m, n, k, a, rsa, csa, b, rsb, csb, c, sizeof *c, rsc, csc);
    if (st != QMM_OK || m == 0 || n == 0)
        return st;
    const qmm_kernel *kern = forced;
    if (kern == NULL && (st = qmm_choose_kernel(m, n, &kern)) != QMM_OK)
        return st;
    return one_shot(kern, m, n, k, a, rsa, csa, b, rsb, csb, c, rsc, csc);
}

qmm_status qmm_i8_i32_strided(size_t m, size_t n, size_t k,
                              const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                              const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                              int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    /* Checked before any transposition, so that a message names the operand
     * the caller passed. */
    qmm_status st = qmm_check_args(m, n, k, a, rsa, csa, b, rsb, csb, c, sizeof *c, rsc, csc);
    if (st != QMM_OK || m == 0 || n == 0)
        return st;
    const qmm_kernel *kern;
    int transposed;
    if ((st = qmm_choose_for_call(m, n, &kern, &transposed)) != QMM_OK)
        return st;
    if (transposed)
        return one_shot(kern, n, m, k, b, csb, rsb, a, csa, rsa, c, csc, rsc);
    return one_shot(kern, m, n, k, a, rsa, csa, b, rsb, csb, c, rsc, csc);
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

/* The rules of qmm_gemm's descriptor beyond its pointers and strides. */
static qmm_status check_desc(const qmm_gemm_desc *d)
{
    qmm_status st = qmm_operand_check(&d->a, "A", QMM_PER_ROW, d->m);
    if (st == QMM_OK)
        st = qmm_operand_check(&d->b, "B", QMM_PER_COL, d->n);
    if (st == QMM_OK)
        st = qmm_output_check(&d->c, d->m, d->n);
    return st;
}

qmm_status qmm_gemm(const qmm_gemm_desc *d)
{
    if (d == NULL) {
        qmm_log("invalid argument: the descriptor is NULL");
        return QMM_ERR_INVALID_ARG;
    }
    const size_t m = d->m, n = d->n, elem = qmm_type_bytes(d->c.type);
    if (m == 0 || n == 0)
        return QMM_OK;
    if (elem == 0) {
        qmm_log("invalid argument: the output type is unknown");
        return QMM_ERR_INVALID_ARG;
    }
    /* Sizes and spans first: the descriptor's rules read m or n values. */
    qmm_status st = qmm_check_args(m, n, d->k, d->a.data, d->a.rs, d->a.cs, d->b.data, d->b.rs,
                                   d->b.cs, d->c.data, elem, d->c.rs, d->c.cs);
    if (st != QMM_OK)
        return st;
    if ((st = check_desc(d)) != QMM_OK)
        return st;
    qmm_job job = {0};
    int transposed;
    if ((st = qmm_choose_for_call(m, n, &job.kern, &transposed)) != QMM_OK)
        return st;
    return qmm_quantized_run(d, &job, transposed, (qmm_side){0}, 1, (qmm_side){0}, 1);
}

const char *qmm_gemm_kernel_name(const qmm_gemm_desc *d)
{
    const qmm_kernel *kern;
    int transposed;
    if (d == NULL || d->m == 0 || d->n == 0 ||
        qmm_choose_for_call(d->m, d->n, &kern, &transposed) != QMM_OK)
        return NULL;
    /* As qmm_quantized_run reads it: the twin serves a uint8 operand on the
     * job's A side, which a transposed call takes from B. */
    const qmm_type job_a = transposed ? d->b.type : d->a.type;
    if (job_a == QMM_TYPE_U8 && kern->u8_a != NULL)
        kern = kern->u8_a;
    return kern->name;
}
