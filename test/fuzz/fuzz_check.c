#include "fuzz_check.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz_operands.h"
#include "support/testlib.h"

/* ---- the calls ------------------------------------------------------------ */

/* The arguments as passed, after the fault. Row-major entries pass rs as the
 * leading dimension. */
typedef struct call {
    size_t m, n, k;
    const int8_t *a;
    ptrdiff_t rsa, csa;
    const int8_t *b;
    ptrdiff_t rsb, csb;
    int32_t *c;
    ptrdiff_t rsc, csc;
} call;

/* An operand's address, or NULL where the case passes empty operands so. */
static void *pointer(const fuzz_case *fc, const test_matrix *x, size_t rows, size_t cols)
{
    return fc->null_empty && (rows == 0 || cols == 0) ? NULL : x->base;
}

static call call_make(const fuzz_case *fc, const operands *o)
{
    const size_t m = fc->m, n = fc->n, k = fc->k;
    call cl = {m, n, k,
               pointer(fc, &o->a, m, k), fc->a.rs, fc->a.cs,
               pointer(fc, &o->b, k, n), fc->b.rs, fc->b.cs,
               pointer(fc, &o->c, m, n), fc->c.rs, fc->c.cs};
    const size_t huge = (size_t)PTRDIFF_MAX + 1 + fc->fault_variant;
    switch (fc->fault) {
    case FAULT_NULL_A:
        cl.a = NULL;
        break;
    case FAULT_NULL_B:
        cl.b = NULL;
        break;
    case FAULT_NULL_C:
        cl.c = NULL;
        break;
    case FAULT_C_STRIDE_ZERO:
        *(fc->fault_variant == 0 ? &cl.rsc : &cl.csc) = 0;
        break;
    case FAULT_C_COLLIDES:
        cl.rsc = cl.csc = 1;
        break;
    case FAULT_LEADING_DIM:   /* lda = k - 1, ldb = n - 1 or ldc = n - 1 */
        if (fc->fault_variant == 0)
            cl.rsa = (ptrdiff_t)k - 1;
        else if (fc->fault_variant == 1)
            cl.rsb = (ptrdiff_t)n - 1;
        else
            cl.rsc = (ptrdiff_t)n - 1;
        break;
    case FAULT_SIZE_OVER_MAX:  /* m, n or k */
        *(fc->fault_variant == 0 ? &cl.m : fc->fault_variant == 1 ? &cl.n : &cl.k) = huge;
        break;
    case FAULT_EXTENT_OVERFLOW:  /* A's, B's or C's; every size is at least 2 */
        if (fc->fault_variant == 0)
            cl.rsa = PTRDIFF_MAX;
        else if (fc->fault_variant == 1)
            cl.rsb = PTRDIFF_MIN;
        else
            cl.rsc = PTRDIFF_MAX / 4 + 1;
        break;
    case FAULT_NO_MEMORY:
        /* Packed, 2^60 bytes: more than any 64-bit address space holds (57
         * bits on x86, 52 on arm64), so refused on every machine. The row
         * sums (64 MiB) could be had anywhere: a library that read A before
         * it had all its memory would read far past this A, and crash. */
        cl.m = (size_t)1 << 24;
        cl.k = (size_t)1 << 36;
        cl.rsa = (ptrdiff_t)cl.k;
        break;
    default:
        break;
    }
    return cl;
}

static void expect(qmm_status got, qmm_status want, const char *label, const char *what)
{
    CHECK(got == want, "%s: %s returned %s, want %s", label, what, qmm_status_str(got),
          qmm_status_str(want));
}

/* One-shot entries; returns whether C was to be written. */
static int run_one_shot(const fuzz_case *fc, const call *cl, const char *label)
{
    qmm_status st =
        fc->entry == ENTRY_ROW_MAJOR
            ? qmm_i8_i32(cl->m, cl->n, cl->k, cl->a, (size_t)cl->rsa, cl->b, (size_t)cl->rsb,
                         cl->c, (size_t)cl->rsc)
            : qmm_i8_i32_strided(cl->m, cl->n, cl->k, cl->a, cl->rsa, cl->csa, cl->b, cl->rsb,
                                 cl->csb, cl->c, cl->rsc, cl->csc);
    expect(st, fc->fault == FAULT_NONE ? QMM_OK : QMM_ERR_INVALID_ARG, label, "the call");
    return fc->fault == FAULT_NONE;
}

static int faulty(const fuzz_case *fc, fuzz_fault f, int variant)
{
    return fc->fault == f && (variant < 0 || fc->fault_variant == (unsigned)variant);
}

/* The kernel a packed plan names for n: any, or the forced one. */
static void check_kernel(const qmm_plan *plan, size_t n, const char *forced, const char *label)
{
    const char *name = qmm_plan_kernel_name(plan, n);
    CHECK(name != NULL && (forced == NULL || strcmp(name, forced) == 0),
          "%s: the plan runs n=%zu on %s, not on the forced %s", label, n,
          name != NULL ? name : "no kernel", forced != NULL ? forced : "(none)");
}

/* Plans: create, pack A, run n (and 1, when symbolic), each refusing what the
 * fault breaks; returns whether C was to be written. */
static int run_plan(const fuzz_case *fc, const call *cl, const operands *o, const char *forced,
                    const char *label)
{
    const int symbolic = fc->entry == ENTRY_PLAN_SYMBOLIC;
    const qmm_status invalid = QMM_ERR_INVALID_ARG;
    /* A refused create must leave the caller's pointer as it was. */
    static char untouched;
    qmm_plan *plan = (qmm_plan *)(void *)&untouched;
    /* A symbolic plan meets its n only when it runs. */
    int bad_size = faulty(fc, FAULT_SIZE_OVER_MAX, -1) && !(symbolic && fc->fault_variant == 1);
    qmm_status st = qmm_plan_create(&plan, cl->m, symbolic ? QMM_SYMBOLIC : cl->n, cl->k);
    expect(st, bad_size ? invalid : QMM_OK, label, "qmm_plan_create");
    if (st != QMM_OK) {
        CHECK(plan == (qmm_plan *)(void *)&untouched, "%s: a refused qmm_plan_create set the plan",
              label);
        return 0;
    }
    const size_t n = faulty(fc, FAULT_WRONG_N, -1) ? cl->n - 1 : cl->n;
    int packed = 0;
    if (!faulty(fc, FAULT_RUN_UNPACKED, -1)) {
        st = qmm_plan_pack_a(plan, cl->a, (size_t)cl->rsa);
        qmm_status want = faulty(fc, FAULT_NO_MEMORY, -1) ? QMM_ERR_NO_MEMORY
                          : faulty(fc, FAULT_NULL_A, -1) || faulty(fc, FAULT_LEADING_DIM, 0)
                              ? invalid
                              : QMM_OK;
        expect(st, want, label, "qmm_plan_pack_a");
        if (faulty(fc, FAULT_PACK_TWICE, -1))
            expect(qmm_plan_pack_a(plan, o->a2.base, (size_t)cl->rsa), invalid, label,
                   "a second qmm_plan_pack_a");
        packed = st == QMM_OK;
    }
    /* Unpacked, the plan refuses to run whatever its arguments. */
    int refused = !packed || faulty(fc, FAULT_NULL_B, -1) || faulty(fc, FAULT_NULL_C, -1) ||
                  faulty(fc, FAULT_LEADING_DIM, 1) || faulty(fc, FAULT_LEADING_DIM, 2) ||
                  faulty(fc, FAULT_C_OVERLAPS_B, -1) || faulty(fc, FAULT_WRONG_N, -1) ||
                  faulty(fc, FAULT_SIZE_OVER_MAX, 1);
    st = qmm_plan_run(plan, n, cl->b, (size_t)cl->rsb, cl->c, (size_t)cl->rsc);
    expect(st, refused ? invalid : QMM_OK, label, "qmm_plan_run");
    if (!refused && n > 0)
        check_kernel(plan, n, forced, label);
    if (!refused && symbolic) {
        const void *b1 = pointer(fc, &o->b, fc->k, 1);
        st = qmm_plan_run(plan, 1, b1, (size_t)fc->b.rs, o->c1.base, fc->ldc1);
        expect(st, QMM_OK, label, "qmm_plan_run with n=1");
        check_kernel(plan, 1, forced, label);
    }
    qmm_plan_destroy(plan);
    return !refused;
}

/* ---- one case ------------------------------------------------------------ */

static void check_result(const char *label, const test_matrix *c, const test_matrix *a,
                         const test_matrix *b)
{
    int32_t *ref = malloc((a->rows * b->cols + 1) * sizeof *ref);
    if (ref == NULL)
        abort();
    test_reference(a, b, ref);
    test_compare(label, c, ref);
    free(ref);
}

long fuzz_case_check(const fuzz_case *fc, const char *forced, fuzz_tally *tally)
{
    long before = test_failures;
    qmm_set_num_threads(fc->threads);
    char label[64];
    snprintf(label, sizeof label, "case %llu", (unsigned long long)fc->index);
    operands o = operands_make(fc);
    snapshot snap = snapshot_take(&o);
    call cl = call_make(fc, &o);
    int is_plan = fc->entry == ENTRY_PLAN || fc->entry == ENTRY_PLAN_SYMBOLIC;
    int written =
        is_plan ? run_plan(fc, &cl, &o, forced, label) : run_one_shot(fc, &cl, label);
    if (written) {
        test_matrix bn = operands_columns(&o.b, fc->n);
        check_result(label, &o.c, &o.a, &bn);
        tally->exact_calls++;
        if (fc->entry == ENTRY_PLAN_SYMBOLIC) {
            test_matrix b1 = operands_columns(&o.b, 1);
            char label1[80];
            snprintf(label1, sizeof label1, "%s, n=1 run", label);
            check_result(label1, &o.c1, &o.a, &b1);
            tally->exact_calls++;
        }
    } else {
        tally->refused_calls++;
    }
    snapshot_check(&snap, !written, label);
    snapshot_free(&snap);
    operands_free(&o);
    return test_failures - before;
}
