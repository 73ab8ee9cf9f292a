#include "plan.h"

#include <stdlib.h>

#include "../dispatch/choose.h"
#include "../platform/log.h"
#include "args.h"
#include "job.h"
#include "packed_a.h"

/* The role a run with n columns uses. */
static enum qmm_role role_for(size_t n)
{
    return n == 1 ? QMM_ROLE_GEMV : QMM_ROLE_MATRIX;
}

static int same_packing(const qmm_plan_role *x, const qmm_plan_role *y)
{
    return x->kernel->a_format == y->kernel->a_format && x->kernel->mr == y->kernel->mr &&
           x->blk.kc == y->blk.kc;
}

/* Kernel of one role and the sizes of its packing; fails when they overflow. */
static qmm_status fill_role(qmm_plan *p, enum qmm_role r, const qmm_kernel *kern)
{
    qmm_plan_role *role = &p->roles[r];
    role->kernel = kern;
    if (p->m == 0 || p->k == 0)
        return QMM_OK;
    /* The depth blocking does not depend on n. */
    qmm_status st = qmm_blocking_init(&role->blk, kern, p->m, 1, p->k);
    if (st != QMM_OK)
        return st;
    role->packed_bytes = qmm_packed_a_bytes(kern, &role->blk, p->m);
    if (role->packed_bytes == 0) {
        qmm_log("invalid argument: packing m=%zu k=%zu for %s overflows size_t", p->m, p->k,
                kern->name);
        return QMM_ERR_INVALID_ARG;
    }
    return QMM_OK;
}

static qmm_status plan_init(qmm_plan *p, size_t m, size_t n, size_t k)
{
    *p = (qmm_plan){.m = m, .n = n, .k = k};
    if (m > PTRDIFF_MAX || k > PTRDIFF_MAX || (n > PTRDIFF_MAX && n != QMM_N_SYMBOLIC)) {
        qmm_log("invalid argument: m, n and k must be at most PTRDIFF_MAX");
        return QMM_ERR_INVALID_ARG;
    }
    for (int r = 0; r < QMM_ROLE_COUNT; r++) {
        /* A concrete plan has the role of its n; a symbolic one both. */
        size_t role_n = r == QMM_ROLE_GEMV ? 1 : QMM_N_SYMBOLIC;
        if (n != QMM_N_SYMBOLIC && role_for(n) != (enum qmm_role)r)
            continue;
        const qmm_kernel *kern;
        qmm_status st = qmm_choose_kernel(m, n == QMM_N_SYMBOLIC ? role_n : n, &kern);
        if (st == QMM_OK)
            st = fill_role(p, (enum qmm_role)r, kern);
        if (st != QMM_OK)
            return st;
        qmm_log("plan m=%zu k=%zu: %s role runs %s", m, k,
                r == QMM_ROLE_GEMV ? "GEMV (n == 1)" : "matrix (n > 1)", kern->name);
    }
    return QMM_OK;
}

/* The role before r whose packed A role r can read, or NULL. */
static qmm_plan_role *sharable(qmm_plan *p, int r)
{
    for (int q = 0; q < r; q++)
        if (p->roles[q].packed_a != NULL &&
            same_packing(&p->roles[q], &p->roles[r]))
            return &p->roles[q];
    return NULL;
}

static void plan_release(qmm_plan *p)
{
    for (int r = 0; r < QMM_ROLE_COUNT; r++) {
        int shared = 0;
        for (int q = 0; q < r; q++)
            shared |= p->roles[q].packed_a == p->roles[r].packed_a;
        if (!shared)
            free(p->roles[r].packed_a);
    }
    for (int r = 0; r < QMM_ROLE_COUNT; r++)
        p->roles[r].packed_a = NULL;
}

static qmm_status plan_pack_a(qmm_plan *p, const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa)
{
    if (p->packed) {
        qmm_log("invalid argument: the plan's A is already packed");
        return QMM_ERR_INVALID_ARG;
    }
    qmm_status st = qmm_check_a(p->m, p->k, a, rsa, csa);
    if (st != QMM_OK)
        return st;
    for (int r = 0; r < QMM_ROLE_COUNT; r++) {
        qmm_plan_role *role = &p->roles[r];
        if (role->kernel == NULL || role->packed_bytes == 0)
            continue;
        const qmm_plan_role *twin = sharable(p, r);
        if (twin != NULL) {
            role->packed_a = twin->packed_a;
            continue;
        }
        role->packed_a = aligned_alloc(role->kernel->a_format->align, role->packed_bytes);
        if (role->packed_a == NULL) {
            qmm_log("out of memory: %zu bytes for A packed for %s", role->packed_bytes,
                    role->kernel->name);
            plan_release(p);
            return QMM_ERR_NO_MEMORY;
        }
        qmm_packed_a_fill(role->kernel, &role->blk, p->m, p->k, a, rsa, csa, role->packed_a);
    }
    p->packed = 1;
    return QMM_OK;
}

const qmm_kernel *qmm_plan_kernel(const qmm_plan *p, size_t n)
{
    if (p == NULL || n == 0 || n > PTRDIFF_MAX || (p->n != QMM_N_SYMBOLIC && n != p->n))
        return NULL;
    return p->roles[role_for(n)].kernel;
}

static qmm_status plan_run(const qmm_plan *p, size_t n, const int8_t *b, ptrdiff_t rsb,
                           ptrdiff_t csb, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    if (!p->packed) {
        qmm_log("invalid argument: qmm_plan_run before qmm_plan_pack_a");
        return QMM_ERR_INVALID_ARG;
    }
    if (n == 0)
        return QMM_OK;
    const qmm_kernel *kern = qmm_plan_kernel(p, n);
    if (kern == NULL) {
        qmm_log("invalid argument: n=%zu for a plan made for n=%zu", n, p->n);
        return QMM_ERR_INVALID_ARG;
    }
    qmm_status st = qmm_check_b_c(p->m, n, p->k, b, rsb, csb, c, rsc, csc);
    if (st != QMM_OK || p->m == 0)
        return st;
    qmm_job job = {.kern = kern, .m = p->m, .n = n, .k = p->k,
                   .packed_a = p->roles[role_for(n)].packed_a,
                   .b = b, .rsb = rsb, .csb = csb, .c = {c, rsc, csc}};
    return qmm_job_run(&job);
}

/* ---- the public plan API ------------------------------------------------ */

qmm_status qmm_plan_create(qmm_plan **plan, size_t m, size_t n, size_t k)
{
    if (plan == NULL) {
        qmm_log("invalid argument: plan pointer is NULL");
        return QMM_ERR_INVALID_ARG;
    }
    qmm_plan *p = malloc(sizeof *p);
    if (p == NULL)
        return QMM_ERR_NO_MEMORY;
    qmm_status st = plan_init(p, m, n, k);
    if (st != QMM_OK) {
        free(p);
        return st;
    }
    *plan = p;
    return QMM_OK;
}

const char *qmm_plan_kernel_name(const qmm_plan *plan, size_t n)
{
    const qmm_kernel *kern = qmm_plan_kernel(plan, n);
    return kern != NULL ? kern->name : NULL;
}

qmm_status qmm_plan_pack_a(qmm_plan *plan, const int8_t *a, size_t lda)
{
    if (plan == NULL || !qmm_leading_dim_ok(lda, plan->k, "lda"))
        return QMM_ERR_INVALID_ARG;
    return plan_pack_a(plan, a, (ptrdiff_t)lda, 1);
}

qmm_status qmm_plan_run(const qmm_plan *plan, size_t n, const int8_t *b, size_t ldb,
                        int32_t *c, size_t ldc)
{
    if (plan == NULL || !qmm_leading_dim_ok(ldb, n, "ldb") || !qmm_leading_dim_ok(ldc, n, "ldc"))
        return QMM_ERR_INVALID_ARG;
    return plan_run(plan, n, b, (ptrdiff_t)ldb, 1, c, (ptrdiff_t)ldc, 1);
}

void qmm_plan_destroy(qmm_plan *plan)
{
    if (plan == NULL)
        return;
    plan_release(plan);
    free(plan);
}
