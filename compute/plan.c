#include "plan.h"

#include <stdlib.h>

#include "../dispatch/choose.h"
#include "../platform/log.h"
#include "../output/describe.h"
#include "args.h"
#include "job.h"

/* The role a run with n columns uses. */
static enum qmm_role role_for(size_t n)
{
    return n == 1 ? QMM_ROLE_GEMV : QMM_ROLE_MATRIX;
}

/* The weights' format and panel width in a role's packing. */
static const qmm_pack_format *role_format(const qmm_plan_role *x)
{
    return x->side == QMM_PACKED_B ? x->kernel->b_format : x->kernel->a_format;
}

static unsigned role_lines(const qmm_plan_role *x)
{
    return x->side == QMM_PACKED_B ? x->kernel->nr : x->kernel->mr;
}

static int same_packing(const qmm_plan_role *x, const qmm_plan_role *y)
{
    return x->side == y->side && role_format(x) == role_format(y) &&
           role_lines(x) == role_lines(y) && x->blk.kc == y->blk.kc;
}

/* Kernel of one role and the sizes of its packing; fails when they overflow. */
static qmm_status fill_role(qmm_plan *p, enum qmm_role r, const qmm_kernel *kern)
{
    qmm_plan_role *role = &p->roles[r];
    role->kernel = kern;
    role->side = p->transposed && r == QMM_ROLE_MATRIX ? QMM_PACKED_B : QMM_PACKED_A;
    if (p->m == 0 || p->k == 0)
        return QMM_OK;
    /* The depth blocking and the weights' panels do not depend on the
     * activations' dimension. */
    const int b = role->side == QMM_PACKED_B;
    qmm_status st = qmm_blocking_init(&role->blk, kern, b ? 1 : p->m, b ? p->m : 1, p->k);
    if (st != QMM_OK)
        return st;
    role->packed_bytes = qmm_packed_bytes(&role->blk, role->side);
    if (role->packed_bytes == 0) {
        qmm_log("invalid argument: packing m=%zu k=%zu for %s overflows size_t", p->m, p->k,
                kern->name);
        return QMM_ERR_INVALID_ARG;
    }
    return QMM_OK;
}

static qmm_status plan_init(qmm_plan *p, size_t m, size_t n, size_t k, int transposed)
{
    *p = (qmm_plan){.m = m, .n = n, .k = k, .transposed = transposed};
    if (m > PTRDIFF_MAX || k > PTRDIFF_MAX || (n > PTRDIFF_MAX && n != QMM_SYMBOLIC)) {
        qmm_log("invalid argument: m, n and k must be at most PTRDIFF_MAX");
        return QMM_ERR_INVALID_ARG;
    }
    for (int r = 0; r < QMM_ROLE_COUNT; r++) {
        /* A concrete plan has the role of its n; a symbolic one both. */
        size_t role_n = r == QMM_ROLE_GEMV ? 1 : QMM_SYMBOLIC;
        if (n != QMM_SYMBOLIC && role_for(n) != (enum qmm_role)r)
            continue;
        const qmm_kernel *kern;
        qmm_status st = qmm_choose_kernel(m, n == QMM_SYMBOLIC ? role_n : n, &kern);
        if (st == QMM_OK)
            st = fill_role(p, (enum qmm_role)r, kern);
        if (st != QMM_OK)
            return st;
        qmm_log("plan m=%zu k=%zu: %s role runs %s", m, k,
                r == QMM_ROLE_GEMV ? "GEMV (n == 1)" : "matrix (n > 1)", kern->name);
    }
    return QMM_OK;
}

/* A new plan with its roles chosen, its weights not packed yet, in *out. */
static qmm_status plan_new(qmm_plan **out, size_t m, size_t n, size_t k, int transposed)
{
    qmm_plan *p = malloc(sizeof *p);
    if (p == NULL)
        return QMM_ERR_NO_MEMORY;
    qmm_status st = plan_init(p, m, n, k, transposed);
    if (st != QMM_OK) {
        free(p);
        return st;
    }
    *out = p;
    return QMM_OK;
}

/* The role before r whose packed weights role r can read, or NULL. */
static qmm_plan_role *sharable(qmm_plan *p, int r)
{
    for (int q = 0; q < r; q++)
        if (p->roles[q].packed != NULL &&
            same_packing(&p->roles[q], &p->roles[r]))
            return &p->roles[q];
    return NULL;
}

/* Whether role r's packed weights are its own, not an earlier role's. */
static int owns_packing(const qmm_plan *p, int r)
{
    for (int q = 0; q < r; q++)
        if (p->roles[q].packed == p->roles[r].packed)
            return 0;
    return 1;
}

static void plan_release(qmm_plan *p)
{
    free(p->weights_sums);
    free(p->weights_neg_zps);
    p->weights_sums = p->weights_neg_zps = NULL;
    for (int r = 0; r < QMM_ROLE_COUNT; r++)
        if (owns_packing(p, r))
            free(p->roles[r].packed);
    for (int r = 0; r < QMM_ROLE_COUNT; r++)
        p->roles[r].packed = NULL;
}

/* Every buffer packing the weights needs, before anything of the weights is
 * read: a plan too large to pack is refused on its allocations alone, so a
 * caller's A is never read beyond what a packable plan would read, whatever
 * the machine's overcommit lets malloc promise. *copy is the flipped copy of
 * uint8 weights (to free), or NULL. */
static qmm_status allocate_weights(qmm_plan *p, const qmm_operand *w, int8_t **copy)
{
    const size_t m = p->m, k = p->k;
    *copy = NULL;
    p->weights_sums = calloc(m != 0 ? m : 1, sizeof(int32_t));
    int ok = p->weights_sums != NULL;
    if (w->zero_point.per == QMM_PER_ROW) {
        p->weights_neg_zps = malloc((m != 0 ? m : 1) * sizeof(int32_t));
        ok &= p->weights_neg_zps != NULL;
    }
    if (w->type == QMM_TYPE_U8 && m != 0 && k != 0) {
        *copy = m <= SIZE_MAX / k ? malloc(m * k) : NULL;
        ok &= *copy != NULL;
    }
    if (!ok) {
        qmm_log("out of memory: the weights' sums and zero points (m=%zu k=%zu)", m, k);
        return QMM_ERR_NO_MEMORY;
    }
    for (int r = 0; r < QMM_ROLE_COUNT; r++) {
        qmm_plan_role *role = &p->roles[r];
        if (role->kernel == NULL || role->packed_bytes == 0)
            continue;
        const qmm_plan_role *twin = sharable(p, r);
        role->packed = twin != NULL ? twin->packed
                                    : aligned_alloc(role_format(role)->align, role->packed_bytes);
        if (role->packed == NULL) {
            qmm_log("out of memory: %zu bytes for the weights packed for %s", role->packed_bytes,
                    role->kernel->name);
            return QMM_ERR_NO_MEMORY;
        }
    }
    return QMM_OK;
}

/* Packs the weights w, seen as an A (its zero point per row when per
 * channel), with their sums, for every role. */
static qmm_status plan_pack_weights(qmm_plan *p, const qmm_operand *w)
{
    if (p->packed) {
        qmm_log("invalid argument: the plan's A is already packed");
        return QMM_ERR_INVALID_ARG;
    }
    qmm_status st = qmm_check_a(p->m, p->k, w->data, w->rs, w->cs);
    int8_t *copy = NULL;
    if (st == QMM_OK)
        st = allocate_weights(p, w, &copy);
    if (st != QMM_OK) {
        free(copy);
        plan_release(p);
        return st;
    }
    p->weights = qmm_side_zero_points(w, p->m, p->weights_neg_zps, 0);
    qmm_side_data(&p->weights, w, 0, p->m, p->k, 0, 1, p->weights_sums, copy);
    for (int r = 0; r < QMM_ROLE_COUNT; r++) {
        const qmm_plan_role *role = &p->roles[r];
        if (role->packed != NULL && owns_packing(p, r)) {
            const qmm_panels x = qmm_packed(role->kernel, &role->blk, role->side, p->m,
                                            p->weights.data, p->weights.rs, p->weights.cs,
                                            role->packed);
            qmm_packed_fill(&x, &role->blk);
        }
    }
    free(copy);
    p->weights.data = NULL;
    p->packed = 1;
    return QMM_OK;
}

const qmm_kernel *qmm_plan_kernel(const qmm_plan *p, size_t n)
{
    if (p == NULL || n == 0 || n > PTRDIFF_MAX || (p->n != QMM_SYMBOLIC && n != p->n))
        return NULL;
    return p->roles[role_for(n)].kernel;
}

static qmm_status plan_run(const qmm_plan *p, size_t n, const int8_t *b, ptrdiff_t rsb,
                           ptrdiff_t csb, int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    if (!p->packed || p->transposed || p->weights.has_zp) {
        qmm_log("invalid argument: qmm_plan_run needs a plan with int8 weights A without "
                "zero point, packed by qmm_plan_pack_a (else qmm_plan_run_gemm)");
        return QMM_ERR_INVALID_ARG;
    }
    if (n == 0)
        return QMM_OK;
    const qmm_kernel *kern = qmm_plan_kernel(p, n);
    if (kern == NULL) {
        qmm_log("invalid argument: n=%zu for a plan made for n=%zu", n, p->n);
        return QMM_ERR_INVALID_ARG;
    }
    qmm_status st = qmm_check_b_c(p->m, n, p->k, b, rsb, csb, c, sizeof *c, rsc, csc);
    if (st != QMM_OK || p->m == 0)
        return st;
    qmm_job job = {.kern = kern, .m = p->m, .n = n, .k = p->k,
                   .packed_a = p->roles[role_for(n)].packed,
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
    return plan_new(plan, m, n, k, 0);
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
    const qmm_operand w = {.type = QMM_TYPE_I8, .data = a, .rs = (ptrdiff_t)lda, .cs = 1};
    return plan_pack_weights(plan, &w);
}

qmm_status qmm_plan_create_gemm(qmm_plan **plan, const qmm_gemm_desc *d, qmm_weights weights)
{
    if (plan == NULL || d == NULL || (weights != QMM_WEIGHTS_A && weights != QMM_WEIGHTS_B)) {
        qmm_log("invalid argument: a NULL plan pointer or descriptor, or weights neither A nor B");
        return QMM_ERR_INVALID_ARG;
    }
    const int tr = weights == QMM_WEIGHTS_B;
    const qmm_operand *src = tr ? &d->b : &d->a;
    /* The weights as the plan's A: the caller's B transposed. */
    qmm_operand w = *src;
    if (tr) {
        w.rs = src->cs;
        w.cs = src->rs;
        if (w.zero_point.per == QMM_PER_COL)
            w.zero_point.per = QMM_PER_ROW;
    }
    const size_t m = tr ? d->n : d->m, n = tr ? d->m : d->n;
    if (m > PTRDIFF_MAX) {
        qmm_log("invalid argument: the weights' %s must be at most PTRDIFF_MAX", tr ? "n" : "m");
        return QMM_ERR_INVALID_ARG;
    }
    qmm_status st = qmm_operand_check(src, tr ? "B" : "A", tr ? QMM_PER_COL : QMM_PER_ROW, m);
    qmm_plan *p = NULL;
    if (st == QMM_OK)
        st = plan_new(&p, m, n, d->k, tr);
    if (st != QMM_OK)
        return st;
    if ((st = plan_pack_weights(p, &w)) != QMM_OK) {
        qmm_plan_destroy(p);
        return st;
    }
    *plan = p;
    return QMM_OK;
}

qmm_status qmm_plan_run_gemm(const qmm_plan *p, const qmm_gemm_desc *d)
{
    if (p == NULL || d == NULL || !p->packed) {
        qmm_log("invalid argument: a NULL or unpacked plan, or a NULL descriptor");
        return QMM_ERR_INVALID_ARG;
    }
    const int tr = p->transposed;
    /* The run's sizes in the plan's coordinates. */
    const size_t m = tr ? d->n : d->m, n = tr ? d->m : d->n;
    if (m != p->m || d->k != p->k || (p->n != QMM_SYMBOLIC && n != p->n && n != 0)) {
        qmm_log("invalid argument: m=%zu n=%zu k=%zu for a plan of other sizes", d->m, d->n,
                d->k);
        return QMM_ERR_INVALID_ARG;
    }
    const size_t elem = qmm_type_bytes(d->c.type);
    if (elem == 0) {
        qmm_log("invalid argument: the output type is unknown");
        return QMM_ERR_INVALID_ARG;
    }
    const qmm_operand *x = tr ? &d->a : &d->b;
    qmm_status st = tr ? qmm_check_b_c(m, n, d->k, x->data, x->cs, x->rs, d->c.data, elem,
                                       d->c.cs, d->c.rs)
                       : qmm_check_b_c(m, n, d->k, x->data, x->rs, x->cs, d->c.data, elem,
                                       d->c.rs, d->c.cs);
    if (st != QMM_OK || d->m == 0 || d->n == 0)
        return st;
    st = qmm_operand_check(x, tr ? "A" : "B", tr ? QMM_PER_ROW : QMM_PER_COL, tr ? d->m : d->n);
    if (st == QMM_OK)
        st = qmm_output_check(&d->c, d->m, d->n);
    if (st != QMM_OK)
        return st;
    const qmm_plan_role *role = &p->roles[role_for(n)];
    qmm_job job = {.kern = qmm_plan_kernel(p, n)};
    if (role->side == QMM_PACKED_B) {
        job.packed_b = role->packed;
        return qmm_quantized_run(d, &job, 0, (qmm_side){0}, 1, p->weights, 0);
    }
    job.packed_a = role->packed;
    if (tr)
        return qmm_quantized_run(d, &job, 1, (qmm_side){0}, 1, p->weights, 0);
    return qmm_quantized_run(d, &job, 0, p->weights, 0, (qmm_side){0}, 1);
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
