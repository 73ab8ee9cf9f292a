/*
 * Every kernel supported here, bit-exact against the reference: first a single
 * tile straight through the microkernel (the contract of kernels/kernel.h),
 * and through its partial-rows microkernel for every row count if it has one,
 * then the whole exactness suite through a one-shot plan with that kernel
 * forced (support/kernel_suite.h).
 */
#include "dispatch/registry.h"
#include "support/kernel_suite.h"
#include "support/testlib.h"

int main(void)
{
    long checks = 0;
    size_t ran = 0;
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *kern = qmm_registry_at(i);
        if (!kern->is_supported_here()) {
            printf("%-28s not supported here: skipped\n", kern->name);
            continue;
        }
        if (!test_kernel_wanted(kern)) {
            printf("%-28s not tested on this CPU (QMM_TEST_KERNELS): skipped\n", kern->name);
            continue;
        }
        test_seed(i + 1);
        long before = checks;
        checks += kernel_suite_run(kern);
        printf("%-28s %ld checks\n", kern->name, checks - before);
        ran++;
    }
    if (test_all_kernels())
        CHECK(ran >= 2, "only %zu kernels ran; the portable ones always should", ran);
    return test_finish("test_kernels_exact", checks);
}
