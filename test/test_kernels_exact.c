/*
 * Every kernel supported here, bit-exact against the reference: first a single
 * tile straight through the microkernel (the contract of kernels/kernel.h),
 * then the whole exactness suite through a one-shot plan with that kernel forced.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/driver.h"
#include "dispatch/plan.h"
#include "dispatch/registry.h"
#include "support/exact_suite.h"
#include "support/testlib.h"

static const qmm_kernel *current;

static qmm_status product_on_current(size_t m, size_t n, size_t k, const int8_t *a,
                                     ptrdiff_t rsa, ptrdiff_t csa, const int8_t *b,
                                     ptrdiff_t rsb, ptrdiff_t csb, int32_t *c, ptrdiff_t rsc,
                                     ptrdiff_t csc)
{
    return qmm_product(current, m, n, k, a, rsa, csa, b, rsb, csb, c, rsc, csc);
}

/* One microkernel call on panels packed from random operands with mv <= mr
 * valid rows and nv <= nr valid columns: the valid part must equal the
 * reference and the padded part must be zero. Stored column-major when
 * colmajor, to exercise csc != 1. */
static long tile(const qmm_kernel *kern, size_t k, unsigned mv, unsigned nv, int colmajor)
{
    const unsigned mr = kern->mr, nr = kern->nr;
    size_t kp = qmm_kernel_depth(kern, k);
    test_matrix a = test_matrix_new(mv, k, 1, LAYOUT_ROW, 0);
    test_matrix b = test_matrix_new(k, nv, 1, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    test_matrix_fill_random_i8(&b);
    size_t abytes = kp ? qmm_pack_panel_bytes(kern->a_format, mr, kp) : 64;
    size_t bbytes = kp ? qmm_pack_panel_bytes(kern->b_format, nr, kp) : 64;
    void *pa = aligned_alloc(kern->a_format->align, abytes);
    void *pb = aligned_alloc(kern->b_format->align, bbytes);
    int32_t *c = malloc((size_t)mr * nr * sizeof *c);
    int32_t *ref = malloc((size_t)mv * nv * sizeof *ref);
    if (pa == NULL || pb == NULL || c == NULL || ref == NULL)
        abort();
    qmm_pack_panel(kern->a_format, mr, kp, a.base, a.rs, a.cs, mv, k, pa);
    qmm_pack_panel(kern->b_format, nr, kp, b.base, b.cs, b.rs, nv, k, pb);
    memset(c, 0x5A, (size_t)mr * nr * sizeof *c);
    ptrdiff_t rsc = colmajor ? 1 : (ptrdiff_t)nr, csc = colmajor ? (ptrdiff_t)mr : 1;
    kern->run(kp, pa, pb, c, rsc, csc);
    test_reference(&a, &b, ref);
    long bad = 0;
    for (unsigned i = 0; i < mr; i++)
        for (unsigned j = 0; j < nr; j++) {
            int32_t want = i < mv && j < nv ? ref[i * nv + j] : 0;
            bad += c[i * rsc + j * csc] != want;
        }
    CHECK(bad == 0, "%s tile k=%zu valid %ux%u %s: %ld wrong elements", kern->name, k, mv, nv,
          colmajor ? "col-major" : "row-major", bad);
    free(pa);
    free(pb);
    free(c);
    free(ref);
    test_matrix_free(&a);
    test_matrix_free(&b);
    return 1;
}

static long tiles(const qmm_kernel *kern)
{
    static const size_t depths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 65, 300};
    long checks = 0;
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
        checks += tile(kern, depths[d], kern->mr, kern->nr, 0);
        checks += tile(kern, depths[d], kern->mr, kern->nr, 1);
        checks += tile(kern, depths[d], (kern->mr + 1) / 2, 1, 0);
        checks += tile(kern, depths[d], 1, (kern->nr + 1) / 2, 1);
    }
    return checks;
}

int main(void)
{
    long checks = 0;
    size_t ran = 0;
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        current = qmm_registry_at(i);
        if (!current->is_supported_here()) {
            printf("%-28s not supported here: skipped\n", current->name);
            continue;
        }
        test_seed(i + 1);
        long before = checks;
        checks += tiles(current);
        checks += exact_suite_run(current->name, product_on_current, NULL);
        printf("%-28s %ld checks\n", current->name, checks - before);
        ran++;
    }
    CHECK(ran >= 2, "only %zu kernels ran; the portable ones always should", ran);
    return test_finish("test_kernels_exact", checks);
}
